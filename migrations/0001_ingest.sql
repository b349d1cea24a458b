-- Ingest path: patients, the PHI vault, facts (one row per flattened resource), documents (one per
-- patient and local date, plus one summary per patient) and their embedded chunks.
CREATE EXTENSION IF NOT EXISTS vector;

-- Which embedding model filled this store; the `chunks.embedding` column takes its dimension.
CREATE TABLE store_settings (
    singleton           BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    embedding_model     TEXT NOT NULL,
    embedding_dimension INTEGER NOT NULL CHECK (embedding_dimension > 0),
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The internal key documents use. fhir_id is the source system's logical id (a technical key).
CREATE TABLE patients (
    patient_key BIGSERIAL PRIMARY KEY,
    fhir_id     TEXT NOT NULL UNIQUE,
    first_seen  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- PHI vault: names, birth date, addresses, telecom, identifiers. Append-only: a value once seen is
-- never forgotten, so that the privacy guard still recognises a former name or address.
CREATE TABLE phi_vault (
    patient_key BIGINT NOT NULL REFERENCES patients ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    value       TEXT NOT NULL,
    PRIMARY KEY (patient_key, kind, value)
);
CREATE INDEX phi_vault_lower_value ON phi_vault (lower(value));

-- One flattened resource. day NULL: the fact belongs to the patient's summary document.
CREATE TABLE facts (
    patient_key   BIGINT NOT NULL REFERENCES patients ON DELETE CASCADE,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    day           DATE,
    event_date    TEXT,
    sentences     TEXT NOT NULL,
    PRIMARY KEY (patient_key, resource_type, resource_id)
);
CREATE INDEX facts_by_document ON facts (patient_key, day);

CREATE TABLE documents (
    document_id  BIGSERIAL PRIMARY KEY,
    patient_key  BIGINT NOT NULL REFERENCES patients ON DELETE CASCADE,
    day          DATE,
    text         TEXT NOT NULL,
    content_hash BYTEA NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT documents_one_per_patient_day UNIQUE NULLS NOT DISTINCT (patient_key, day)
);

-- The retrieval unit: a slice of a document that fits the embedding model.
CREATE TABLE chunks (
    document_id BIGINT NOT NULL REFERENCES documents ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    text        TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    embedding   vector NOT NULL,
    text_search tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    PRIMARY KEY (document_id, ordinal)
);
CREATE INDEX chunks_text_search ON chunks USING gin (text_search);
