-- PostgreSQL's text parser reads "A1c/Hemoglobin.total" or "Mass/volume" as one file-path token,
-- so a question about "A1c" never matched the HbA1c reading by full text, and the Search agent
-- took "a1c" for a word the records never use (and answered with plain hemoglobin). Slashes are
-- read as spaces: "a1c", "hemoglobin.total", "mass", "volume", "mg", "dl" become words of their own.
DROP INDEX chunks_text_search;
ALTER TABLE chunks DROP COLUMN text_search;
ALTER TABLE chunks ADD COLUMN text_search tsvector
    GENERATED ALWAYS AS (to_tsvector('english', translate(text, '/', ' '))) STORED;
CREATE INDEX chunks_text_search ON chunks USING gin (text_search);
