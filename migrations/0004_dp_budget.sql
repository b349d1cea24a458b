-- Differential privacy: each requester's spend per period, and one ledger row per DP answer.

-- What a requester spent in one period (the budget itself is configuration: --dp-budget-epsilon
-- per --dp-budget-period). A spend is one UPDATE guarded by the limit, so concurrent workers
-- cannot overspend: the row lock serializes them and the guard is re-read under it.
CREATE TABLE dp_budget (
    requester_id  TEXT NOT NULL,
    period_start  TIMESTAMPTZ NOT NULL,
    epsilon_spent DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (epsilon_spent >= 0),
    delta_spent   DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (delta_spent >= 0),
    answers       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (requester_id, period_start)
);

-- One row per DP answer: what it cost and the seed of its noise (a retried query id replays
-- the same noise instead of drawing fresh noise a requester could average away).
CREATE TABLE dp_spend (
    requester_id TEXT NOT NULL,
    query_id     TEXT NOT NULL,
    period_start TIMESTAMPTZ NOT NULL,
    epsilon      DOUBLE PRECISION NOT NULL CHECK (epsilon >= 0),
    delta        DOUBLE PRECISION NOT NULL CHECK (delta >= 0),
    noise_seed   BYTEA NOT NULL,
    spent_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (requester_id, query_id)
);
