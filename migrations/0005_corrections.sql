-- Corrections: a patient's identity is qualified by the system that sent it (`Patient/123` from
-- two EHRs is two people), and a fact is one resource of one source system whatever patient it
-- names, so that a resource re-sent under another patient moves instead of being duplicated.
ALTER TABLE patients ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE patients DROP CONSTRAINT patients_fhir_id_key;
ALTER TABLE patients ADD CONSTRAINT patients_source_fhir_id UNIQUE (source, fhir_id);

ALTER TABLE facts ADD COLUMN source TEXT NOT NULL DEFAULT '';
-- A store filled before this migration may hold one resource id under two patients (the same
-- resource re-sent with a corrected subject): the row of the later patient is kept, and the
-- documents are rebuilt when either patient is next touched.
DELETE FROM facts a USING facts b
 WHERE a.resource_type = b.resource_type AND a.resource_id = b.resource_id
   AND a.patient_key < b.patient_key;
ALTER TABLE facts DROP CONSTRAINT facts_pkey;
ALTER TABLE facts ADD PRIMARY KEY (source, resource_type, resource_id);

-- Facts removed by a DELETE entry, a tombstone or an entered-in-error status, kept as an audit
-- trail of what was retracted and why (ids only: no content, no PHI).
CREATE TABLE retractions (
    source        TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    reason        TEXT NOT NULL CHECK (reason IN ('deleted', 'entered_in_error', 'tombstone')),
    facts_removed INTEGER NOT NULL,
    retracted_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX retractions_by_resource ON retractions (source, resource_type, resource_id);
