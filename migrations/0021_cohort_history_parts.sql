-- The overlap control (src/answer/cohort.rs, `overlap`) compared an asked cohort with every
-- recent cohort of the requester in its size window, one set difference each: its cost grew with
-- the requester's history. Two groups that differ by fewer than k patients, with their patients
-- split into k fixed parts by a hash of the patient key, have at least one part in common
-- exactly (k-1 differences touch at most k-1 parts). Each remembered cohort keeps one digest per
-- part, of its patients and of the list it was asked over; the control looks up the asked
-- cohort's part digests by index and compares in full only the cohorts that share one. The
-- answer is exact (the comparison still decides); its cost follows the near-duplicates, not the
-- history.
ALTER TABLE cohort_history ADD COLUMN parts SMALLINT;
COMMENT ON COLUMN cohort_history.parts IS
    'parts its digests split the patients into (the k of its time); NULL: rows from before, compared in full';
CREATE TABLE cohort_history_parts (
    requester_id TEXT NOT NULL,
    digest       BYTEA NOT NULL,
    -- sha256 of (patients or list, parts, part, the part's keys in order)
    part_digest  BYTEA NOT NULL,
    FOREIGN KEY (requester_id, digest) REFERENCES cohort_history (requester_id, digest)
        ON DELETE CASCADE
);
CREATE INDEX cohort_history_parts_lookup ON cohort_history_parts (requester_id, part_digest);
CREATE INDEX cohort_history_parts_of ON cohort_history_parts (requester_id, digest);
CREATE INDEX cohort_history_unparted ON cohort_history (requester_id, parts);
GRANT SELECT, INSERT, DELETE ON cohort_history_parts TO fhir_rag_answer;
