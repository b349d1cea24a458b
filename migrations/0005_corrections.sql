-- Corrections: a patient's identity is qualified by the system that sent it (`Patient/123` from
-- two EHRs is two people), and a fact is one resource of one source system whatever patient it
-- names, so that a resource re-sent under another patient moves instead of being duplicated.
ALTER TABLE patients ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE patients DROP CONSTRAINT patients_fhir_id_key;
ALTER TABLE patients ADD CONSTRAINT patients_source_fhir_id UNIQUE (source, fhir_id);

ALTER TABLE facts ADD COLUMN source TEXT NOT NULL DEFAULT '';
-- Before this migration the Patient fact of every patient had an empty resource id: give it the
-- patient's id. A store may also hold one resource id under two patients (a resource re-sent
-- with a corrected subject): nothing is deleted; the older rows keep their content under an id
-- suffixed with their patient key, the newest keeps the plain id (and moves on its next re-send).
UPDATE facts f SET resource_id = p.fhir_id
  FROM patients p
 WHERE f.patient_key = p.patient_key AND f.resource_type = 'Patient' AND f.resource_id = '';
UPDATE facts a SET resource_id = a.resource_id || '#patient-' || a.patient_key
 WHERE EXISTS (SELECT 1 FROM facts b
                WHERE b.resource_type = a.resource_type AND b.resource_id = a.resource_id
                  AND b.patient_key > a.patient_key);
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
