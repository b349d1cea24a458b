-- Study cohorts: patient groups that an administrator registers for research (the list an ethics
-- board approved), and the principals who may ask about each. A cohort requester's group is the
-- whole store, or a study it is granted that its request names: requesters never choose lists.
-- Members are named as the feed names patients (source and FHIR id), so a study may be
-- registered before or after its patients arrive. Registered by `fhir-rag study`, run with the
-- owner's credentials; the gateway only reads.
CREATE TABLE studies (
    name          TEXT PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    description   TEXT NOT NULL DEFAULT '',
    registered_by TEXT NOT NULL DEFAULT current_user,
    registered_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    closed_at     TIMESTAMPTZ
);
CREATE TABLE study_members (
    study   TEXT NOT NULL REFERENCES studies ON DELETE CASCADE,
    source  TEXT NOT NULL DEFAULT '',
    fhir_id TEXT NOT NULL,
    PRIMARY KEY (study, source, fhir_id)
);
-- `principal` is a token's exact subject, as the gateway's requests record it.
CREATE TABLE study_grants (
    study      TEXT NOT NULL REFERENCES studies ON DELETE CASCADE,
    principal  TEXT NOT NULL,
    granted_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (study, principal)
);
GRANT SELECT ON studies, study_members, study_grants TO fhir_rag_gateway;

-- Which study a request was answered over (NULL: none).
ALTER TABLE gateway_requests ADD COLUMN study TEXT;
