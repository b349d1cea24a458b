-- A DP spend is bound to what was asked, and no noise seed is kept.
--
-- Before, a repeated query id was charged nothing and recomputed its answer from the stored
-- noise seed whatever it asked now: two answers over a list L and L plus one patient with the
-- same seed differ by exactly that patient (an exact membership test), and anyone who can read
-- this table could strip the noise of every answer. Now each spend carries a keyed digest of
-- (role, question, patient list, mode, epsilon); a repeated query id with the same digest gets
-- the answer it was first published with (nothing new is learnt, nothing is charged), and one
-- with another digest is refused. A spend whose answer was never published (a crash in between)
-- is charged again when it is asked again: fresh noise is always paid for.
ALTER TABLE dp_spend DROP COLUMN noise_seed;
ALTER TABLE dp_spend ADD COLUMN request_digest BYTEA NOT NULL DEFAULT '\x'::bytea;
ALTER TABLE dp_spend ALTER COLUMN request_digest DROP DEFAULT;
ALTER TABLE dp_spend ADD COLUMN published JSONB;

-- The audit row of a query is written once and never overwritten: a redelivered query (same
-- requester, same question digest) counts in times_answered, nothing else changes.
-- The question digest is keyed (HMAC-SHA-256 under --audit-key, never stored here): an unsalted
-- hash of a templated question is undone by hashing every template with every name. The old
-- unkeyed hashes are dropped with the column's old meaning.
ALTER TABLE answer_audit RENAME COLUMN question_sha256 TO request_digest;
UPDATE answer_audit SET request_digest = '\x'::bytea;
