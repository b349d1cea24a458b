-- "Karren S.", "Karren L.": a care team tells two of its patients who share a given name apart by
-- the family name's initial. Of `patients` (the ones a name already matched, within the
-- requester's list), those whose family or maiden name begins with `initial` (one letter a-z);
-- at most 64 patients a call. Nothing of the name leaves the vault, only which of the given
-- patients match.
CREATE FUNCTION vault.match_family_initial(patients BIGINT[], initial TEXT)
RETURNS SETOF BIGINT
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(patients) > 64 THEN
        RAISE EXCEPTION 'vault.match_family_initial: at most 64 patients per call';
    END IF;
    IF initial !~ '^[a-z]$' THEN
        RAISE EXCEPTION 'vault.match_family_initial: one letter a-z';
    END IF;
    RETURN QUERY
    SELECT DISTINCT k.patient_key
    FROM vault.vault_keys k
    WHERE k.patient_key = ANY(patients)
      AND k.kind IN ('family_name', 'maiden_name')
      AND k.key LIKE 't:' || initial || '%';
END
$$;
REVOKE ALL ON FUNCTION vault.match_family_initial(BIGINT[], TEXT) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION vault.match_family_initial(BIGINT[], TEXT) TO fhir_rag_answer;
