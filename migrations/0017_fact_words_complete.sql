-- The words index of 0015, made complete (found in review, none of these in the data so far):
-- - `~` glued a word to what comes before it into one "file" token (`Gout~Hypertension` indexed
--   `~hypertension`, so a search for hypertension missed it): it is read as a space too;
-- - a word over 2047 characters is left out of a tsvector, and a text whose words exceed 1 MB
--   cannot be made one (its insert would fail): only the first 100,000 characters are indexed,
--   and a longer text, or one with a run of 2,048 letters or digits, is kept by the second index
--   with the texts outside printable ASCII.
-- The second index's condition is one function, so that a query's `OR fact_words_unindexed(…)`
-- is its predicate exactly (an OR of three conditions was not matched to it: a scan, 18 s).
DROP INDEX IF EXISTS facts_words;
DROP INDEX IF EXISTS facts_unspaced;
CREATE FUNCTION fact_words_unindexed(sentences TEXT)
RETURNS BOOLEAN
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Outside printable ASCII (case folding and word bounds may differ from the parse), too
    -- long to index whole, or a word the index leaves out.
    RETURN sentences ~ '[^ -~]' OR length(sentences) > 100000
        OR sentences ~ '([[:alnum:]]{128}){16}';
END
$$;
CREATE INDEX facts_words ON facts
    USING gin (to_tsvector('simple', translate(left(sentences, 100000), '/\@:.<>&-+~', '           ')));
CREATE INDEX facts_unspaced ON facts (patient_key) WHERE fact_words_unindexed(sentences);
