-- The words (text-search lexemes) of each patient's chunks, kept by the ingest path whenever a
-- patient's documents change. `known_words` asks whether at least k patients' records use a
-- word: with this table, exactly and with one index range read of at most k rows per word
-- (it read at most 5,000 matching chunks per word before, which at hospital scale could call a
-- word held by many patients unknown).
CREATE TABLE patient_words (
    word TEXT NOT NULL,
    patient_key BIGINT NOT NULL REFERENCES patients (patient_key) ON DELETE CASCADE,
    PRIMARY KEY (word, patient_key)
);
CREATE INDEX patient_words_by_patient ON patient_words (patient_key);
-- A later migration that redefines chunks.text_search (as 0006 did) must fill this table again.

INSERT INTO patient_words (word, patient_key)
SELECT DISTINCT w, d.patient_key
FROM documents d
JOIN chunks c USING (document_id)
CROSS JOIN LATERAL unnest(tsvector_to_array(c.text_search)) AS w;

GRANT SELECT, INSERT, DELETE ON patient_words TO fhir_rag_ingest;
GRANT SELECT ON patient_words TO fhir_rag_answer;
