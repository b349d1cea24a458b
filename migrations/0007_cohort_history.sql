-- The cohorts answered to each requester without noise, for the overlap control: a cohort that
-- differs from one answered to the same requester before by at least one and fewer than k
-- patients is not answered (two such answers, subtracted, would describe those few patients:
-- "pneumonia" against "pneumonia (disorder)", a patient list against the same list plus one).
-- Rows older than --cohort-overlap-days are ignored and deleted.
CREATE TABLE cohort_history (
    requester_id TEXT NOT NULL,
    answered_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    size         INTEGER NOT NULL,
    patients     BIGINT[] NOT NULL
);
CREATE INDEX cohort_history_by_requester ON cohort_history (requester_id, size);
