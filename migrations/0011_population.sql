-- Ages and birth years for cohort answers ("living patients 65 or older", "born in 2010 or
-- later", "median age at death"): the answer role reads them through this function only, never
-- a birth date. The age is taken now, or on the day of death when the record gives one; ages of
-- 90 and over read as 90 and their birth years are withheld (HIPAA Safe Harbor: ages over 89
-- and the years that tell them are identifiers).
CREATE FUNCTION vault.ages(patients BIGINT[])
RETURNS TABLE (patient_key BIGINT, age INTEGER, birth_year INTEGER)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET timezone = 'UTC'
AS $$
DECLARE
    p BIGINT;
    birth DATE;
    death DATE;
    years INTEGER;
BEGIN
    FOREACH p IN ARRAY coalesce(patients, ARRAY[]::BIGINT[]) LOOP
        birth := NULL;
        death := NULL;
        BEGIN
            SELECT left(v.value, 10)::date INTO birth FROM vault.phi_vault v
            WHERE v.patient_key = p AND v.kind = 'birth_date'
              AND v.value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
            ORDER BY v.value LIMIT 1;
            SELECT substring(f.sentences FROM 'The patient died on ([0-9]{4}-[0-9]{2}-[0-9]{2})')::date
            INTO death FROM public.facts f
            WHERE f.patient_key = p AND f.resource_type = 'Patient'
              AND f.sentences LIKE '%The patient died on %' LIMIT 1;
        EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow THEN
            birth := NULL;
        END;
        IF birth IS NULL THEN
            CONTINUE;
        END IF;
        years := greatest(0, extract(year FROM age(coalesce(death, current_date), birth))::integer);
        patient_key := p;
        age := least(90, years);
        birth_year := CASE WHEN years >= 90 THEN NULL ELSE extract(year FROM birth)::integer END;
        RETURN NEXT;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION vault.ages(BIGINT[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION vault.ages(BIGINT[]) TO fhir_rag_answer;
