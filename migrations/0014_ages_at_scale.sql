-- `vault.ages` looked each patient up in a loop (two indexed queries per patient): 1.4 s for a
-- cohort of 10,000 patients in `bench scale`, the slowest step of a cohort answer. It is now one
-- set-based query (the vault's birth dates, each with its Patient fact's death by an index probe), with
-- the same results: the earliest well-formed birth date, a death date when the record gives one,
-- ages of 90 and over as 90 without their birth year, a patient whose dates do not parse left out.
--
-- PostgreSQL 15 has no `pg_input_is_valid`; `vault.date_or_null` turns a date that does not parse
-- (2021-02-30, year 0) into NULL instead of an error, as the loop's exception handler did.
CREATE FUNCTION vault.date_or_null(text TEXT)
RETURNS DATE
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF text !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN
        RETURN NULL;
    END IF;
    RETURN text::date;
EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow THEN
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION vault.date_or_null(TEXT) FROM PUBLIC;

-- The Patient fact of each patient (sex, death, deceased flag) without reading the patient's
-- other facts: cohort answers look it up for every patient of a group.
CREATE INDEX facts_patient_resource ON facts (patient_key) WHERE resource_type = 'Patient';

CREATE OR REPLACE FUNCTION vault.ages(patients BIGINT[])
RETURNS TABLE (patient_key BIGINT, age INTEGER, birth_year INTEGER)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET timezone = 'UTC'
AS $$
    WITH births AS MATERIALIZED (
        -- The earliest birth date written like a date (the loop's ORDER BY value LIMIT 1);
        -- if that one does not parse, the patient is left out, as before.
        SELECT DISTINCT ON (v.patient_key) v.patient_key,
               vault.date_or_null(left(v.value, 10)) AS birth
        FROM vault.phi_vault v
        WHERE v.patient_key = ANY (patients) AND v.kind = 'birth_date'
          AND v.value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
        ORDER BY v.patient_key, v.value
    ),
    dated AS (
        -- The death, by the Patient fact's own index (one probe a patient, whatever the
        -- planner guesses of the array's length).
        SELECT b.patient_key, b.birth, d.written, vault.date_or_null(d.written) AS death
        FROM births b
        LEFT JOIN LATERAL (
            SELECT substring(f.sentences FROM 'The patient died on ([0-9]{4}-[0-9]{2}-[0-9]{2})')
                       AS written
            FROM public.facts f
            WHERE f.patient_key = b.patient_key AND f.resource_type = 'Patient'
              AND f.sentences LIKE '%The patient died on %'
            LIMIT 1
        ) d ON true
        WHERE b.birth IS NOT NULL
    ),
    aged AS (
        SELECT patient_key, birth,
               greatest(0, extract(year FROM age(coalesce(death, current_date), birth))::integer)
                   AS years
        FROM dated
        -- A death written but not a date: the loop's exception left the patient out.
        WHERE written IS NULL OR death IS NOT NULL
    )
    SELECT patient_key, least(90, years),
           CASE WHEN years >= 90 THEN NULL ELSE extract(year FROM birth)::integer END
    FROM aged
$$;
