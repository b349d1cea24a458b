-- The words of a fact as the words index (0017) holds them, named once: the cohort queries call
-- `fact_words(sentences)`, which PostgreSQL inlines into the index's own expression, so that a
-- query can no longer drift from the index by a character and silently scan (as the condition
-- search did from 0006 to 0013). The index keeps the literal expression on purpose: should this
-- function change without the index being rebuilt, queries lose the index (slow, and the test
-- `scale::the_words_indexes_serve_their_queries` fails), never its correctness.
CREATE FUNCTION fact_words(sentences TEXT)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_tsvector('simple'::regconfig,
                   translate(left(sentences, 100000), '/\@:.<>&-+~', '           '));
