-- Cohort questions look for the facts whose sentences hold a concept's words at the start of a
-- word (`sentences ~* '\mhypertension'`), and cohort medians for the readings that name one:
-- both read every fact (1.5 to 2.4 s a question at 10,000 patients in `bench scale`, linear in the
-- store). This index of each fact's words finds the candidates (190 ms for hypertension at
-- 10,000 patients); the exact expressions still decide.
--
-- The words are PostgreSQL's `simple` parse (lowercased, no stemming, no stop words), after the
-- characters that make the parser glue words into one token (paths, hosts, e-mail addresses, URLs,
-- tags, entities, version numbers, signed numbers, hyphenated words) are read as spaces: then
-- every word that a regular expression's `\m` finds in ASCII text begins an indexed word. Text
-- with other characters (where case folding or a word's bounds may differ) is kept by the second,
-- partial index, which the queries OR with the first.
CREATE INDEX facts_words ON facts
    USING gin (to_tsvector('simple', translate(sentences, '/\@:.<>&-+', '          ')));
CREATE INDEX facts_unspaced ON facts (patient_key) WHERE sentences ~ '[^ -~]';
