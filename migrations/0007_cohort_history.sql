-- The cohorts answered to each requester without noise, for the overlap control (src/answer/
-- cohort.rs, `overlap`): two cohort answers whose groups differ by one patient, subtracted,
-- describe that patient. Kept per requester: the patient list it sent (NULL: every patient), the
-- condition as read ('' for none), and the patients of the answer. Rows older than
-- --cohort-overlap-days are ignored and deleted.
CREATE TABLE cohort_history (
    requester_id TEXT NOT NULL,
    answered_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    list         BIGINT[],
    condition    TEXT NOT NULL,
    size         INTEGER NOT NULL,
    patients     BIGINT[] NOT NULL,
    -- sha256 of list, condition and patients: an answer asked again is one row
    digest       BYTEA NOT NULL,
    UNIQUE (requester_id, digest)
);
CREATE INDEX cohort_history_by_requester ON cohort_history (requester_id, size);
CREATE INDEX cohort_history_by_time ON cohort_history (answered_at);
