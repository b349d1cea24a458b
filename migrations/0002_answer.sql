-- Answer path: name resolution, condition search, pseudonym secret, audit.

-- The Search agent resolves digit-stripped Synthea names ("Abe" for "Abe604").
CREATE INDEX phi_vault_stripped_value ON phi_vault (lower(regexp_replace(value, '[0-9]+', '', 'g')));

-- Condition search for two-step questions ("what medications are diabetes patients on?").
CREATE INDEX facts_condition_text ON facts USING gin (to_tsvector('english', sentences))
    WHERE resource_type = 'Condition';

-- The secret behind stable pseudonyms; made once per store from PostgreSQL's strong random
-- source, never published.
CREATE TABLE answer_settings (
    singleton        BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    pseudonym_secret BYTEA NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO answer_settings (pseudonym_secret)
VALUES (uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));

-- One row per answered query: who asked, which documents were used, what the guard did. The
-- question itself is kept as a hash (it may name a patient); the answer is on the answer topic.
CREATE TABLE answer_audit (
    audit_id          BIGSERIAL PRIMARY KEY,
    query_id          TEXT NOT NULL,
    requester_id      TEXT NOT NULL,
    requester_role    TEXT NOT NULL,
    status            TEXT NOT NULL,
    backend           TEXT NOT NULL,
    question_sha256   BYTEA NOT NULL,
    document_ids      BIGINT[] NOT NULL,
    patient_keys      BIGINT[] NOT NULL,
    llm_calls         INTEGER NOT NULL,
    guard_report      JSONB NOT NULL,
    total_ms          BIGINT NOT NULL,
    answered_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    times_answered    INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT answer_audit_one_per_query UNIQUE (query_id, requester_id)
);
CREATE INDEX answer_audit_by_requester ON answer_audit (requester_id, answered_at);
