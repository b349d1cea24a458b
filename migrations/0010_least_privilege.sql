-- Least privilege: one database role per process, the vault in its own schema reached by the
-- answer path only through three SECURITY DEFINER functions, and an insert-only audit chained by
-- hash.
--
-- Roles are cluster-wide: `scripts/services.sh` (or the DBA) creates them as login roles with
-- passwords before the first `fhir-rag migrate`. If they do not exist yet they are made here
-- without LOGIN (which needs CREATEROLE), so that a store migrated by a superuser is complete
-- and an operator only has to give them a password.
--   fhir_rag_ingest   writes what the feed yields: patients, facts, documents, chunks, the vault
--   fhir_rag_answer   reads documents, chunks and facts; writes its audit, DP ledger, cohort
--                     history and replay table; the vault only through vault.* functions
--   fhir_rag_gateway  reads treatment relationships; writes its own requests
-- The migration role (the tables' owner) is whoever runs `fhir-rag migrate`; no worker migrates.
DO $$
DECLARE
    r TEXT;
BEGIN
    FOREACH r IN ARRAY ARRAY['fhir_rag_ingest', 'fhir_rag_answer', 'fhir_rag_gateway'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', r);
        END IF;
    END LOOP;
END
$$;

-- The vault: names, birth dates, addresses, telecom, identifiers, and their lookup keys.
CREATE SCHEMA vault;
REVOKE ALL ON SCHEMA vault FROM PUBLIC;
ALTER TABLE phi_vault SET SCHEMA vault;
ALTER TABLE party_vault SET SCHEMA vault;
ALTER TABLE vault_keys SET SCHEMA vault;

-- Name resolution (the Search agent): which patients, within `scope` (NULL: every patient, for
-- a role that sees all), have a name word among `lookup_keys` (the guard's folded keys,
-- `t:<word>`), by which word, and whether the word is the name as written (`exact`) or only its
-- digit-stripped form (Synthea writes "Abe604"). No name is returned, only what the question
-- already holds. At most 512 keys per call: a question has at most 2000 characters.
CREATE FUNCTION vault.match_names(lookup_keys TEXT[], scope BIGINT[])
RETURNS TABLE (patient_key BIGINT, kind TEXT, word TEXT, exact BOOLEAN)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(lookup_keys) > 512 THEN
        RAISE EXCEPTION 'vault.match_names: at most 512 keys per call';
    END IF;
    RETURN QUERY
    SELECT k.patient_key, k.kind, substr(k.key, 3),
           NOT EXISTS (
               -- a key of the same name with digits that strips to this one
               SELECT 1 FROM vault.vault_keys w
               WHERE w.patient_key = k.patient_key AND w.kind = k.kind
                 AND w.key <> k.key AND position(' ' IN w.key) = 0
                 AND w.key ~ '[0-9]' AND regexp_replace(w.key, '[0-9]+', '', 'g') = k.key)
    FROM vault.vault_keys k
    WHERE k.key = ANY(lookup_keys) AND k.patient_key IS NOT NULL
      AND k.kind IN ('given_name', 'family_name', 'maiden_name')
      AND (scope IS NULL OR k.patient_key = ANY(scope));
END
$$;

-- The guard: the kind of each of `lookup_keys` that is a vault value's key (nothing else). At
-- most 20,000 keys per call (the keys of the longest answer the responder writes).
CREATE FUNCTION vault.guard_kinds(lookup_keys TEXT[])
RETURNS TABLE (key TEXT, kind TEXT)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(lookup_keys) > 20000 THEN
        RAISE EXCEPTION 'vault.guard_kinds: at most 20000 keys per call';
    END IF;
    RETURN QUERY
    SELECT DISTINCT ON (k.key) k.key, k.kind
    FROM vault.vault_keys k
    WHERE k.key = ANY(lookup_keys)
    ORDER BY k.key, k.kind;
END
$$;

-- "How old is …": the patient's age in whole decades (0, 10, … 90 for 90 and over), at death
-- for a patient whose record gives a day of death, else today (UTC). The birth date itself
-- never leaves the vault; NULL when there is none.
CREATE FUNCTION vault.age_decade(patient BIGINT)
RETURNS INTEGER
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET timezone = 'UTC'
AS $$
DECLARE
    birth DATE;
    death DATE;
    years INTEGER;
BEGIN
    SELECT left(v.value, 10)::date INTO birth FROM vault.phi_vault v
    WHERE v.patient_key = patient AND v.kind = 'birth_date' AND v.value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
    ORDER BY v.value LIMIT 1;
    IF birth IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT substring(f.sentences FROM 'The patient died on ([0-9]{4}-[0-9]{2}-[0-9]{2})')::date
    INTO death FROM public.facts f
    WHERE f.patient_key = patient AND f.resource_type = 'Patient'
      AND f.sentences LIKE '%The patient died on %' LIMIT 1;
    years := greatest(0, extract(year FROM age(coalesce(death, current_date), birth))::integer);
    RETURN least(90, years / 10 * 10);
EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow THEN
    RETURN NULL;
END
$$;

-- Row counts of the vault, for `fhir-rag status` and the ingest worker's report.
CREATE FUNCTION vault.counts(OUT patients_with_demographics BIGINT, OUT vault_rows BIGINT)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT count(DISTINCT v.patient_key), count(*) FROM vault.phi_vault v
$$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA vault FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA vault REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- The audit: insert-only for the answer role, each row chained to the one before by hash, so
-- that an edited, inserted or removed row breaks the chain (`fhir-rag audit verify`). A query
-- answered again (a redelivery) is a second row rather than an update of the first.
ALTER TABLE answer_audit DROP CONSTRAINT answer_audit_one_per_query;
CREATE INDEX answer_audit_by_query ON answer_audit (query_id, requester_id);
CREATE INDEX answer_audit_by_time ON answer_audit (answered_at);
ALTER TABLE answer_audit ADD COLUMN prev_hash BYTEA;
ALTER TABLE answer_audit ADD COLUMN row_hash BYTEA;

-- The hash of one audit row after `prev`: every column, written in a form that does not depend
-- on the session (UTC times, jsonb's canonical text), fields separated by the unit separator
-- (which the trigger refuses inside a field).
CREATE FUNCTION answer_audit_row_hash(prev BYTEA, a answer_audit)
RETURNS BYTEA
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT sha256(prev || convert_to(concat_ws(chr(31),
        a.audit_id::text, a.query_id, a.requester_id, a.requester_role, a.status, a.backend,
        encode(a.request_digest, 'hex'), a.document_ids::text, a.patient_keys::text,
        a.llm_calls::text, a.guard_report::text, a.total_ms::text,
        to_char(a.answered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'),
        a.times_answered::text), 'UTF8'))
$$;

-- The chain's head: the last row's id and hash, locked by each insert (so inserts are
-- serialized, and a transaction that cannot see the latest head fails instead of forking).
CREATE TABLE answer_audit_head (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    last_id   BIGINT NOT NULL,
    last_hash BYTEA NOT NULL
);

-- Rows already there (answered before this migration) start the chain in id order.
DO $$
DECLARE
    a answer_audit;
    prev BYTEA := '\x'::bytea;
    last BIGINT := 0;
BEGIN
    FOR a IN SELECT * FROM answer_audit ORDER BY audit_id LOOP
        UPDATE answer_audit SET prev_hash = prev, row_hash = answer_audit_row_hash(prev, a)
        WHERE audit_id = a.audit_id;
        prev := answer_audit_row_hash(prev, a);
        last := a.audit_id;
    END LOOP;
    INSERT INTO answer_audit_head (last_id, last_hash) VALUES (last, prev);
END
$$;
ALTER TABLE answer_audit ALTER COLUMN prev_hash SET NOT NULL;
ALTER TABLE answer_audit ALTER COLUMN row_hash SET NOT NULL;
ALTER TABLE answer_audit ALTER COLUMN audit_id DROP DEFAULT;
DROP SEQUENCE answer_audit_audit_id_seq;

-- Numbers, times and chains each row under the head's lock, with the owner's rights: whatever
-- the inserter sends for the id, the time or the hashes is replaced.
CREATE FUNCTION answer_audit_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    head public.answer_audit_head;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'answer_audit rows are written in read committed transactions only';
    END IF;
    IF position(chr(31) IN concat(NEW.query_id, NEW.requester_id, NEW.requester_role,
                                  NEW.status, NEW.backend)) > 0 THEN
        RAISE EXCEPTION 'answer_audit fields must not hold the unit separator';
    END IF;
    SELECT * INTO STRICT head FROM public.answer_audit_head FOR UPDATE;
    NEW.audit_id := head.last_id + 1;
    NEW.answered_at := clock_timestamp();
    NEW.times_answered := 1;
    NEW.prev_hash := head.last_hash;
    NEW.row_hash := public.answer_audit_row_hash(NEW.prev_hash, NEW);
    UPDATE public.answer_audit_head SET last_id = NEW.audit_id, last_hash = NEW.row_hash;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION answer_audit_chain() FROM PUBLIC;
CREATE TRIGGER answer_audit_chain BEFORE INSERT ON answer_audit
    FOR EACH ROW EXECUTE FUNCTION answer_audit_chain();

-- Grants. Nobody but the owner may create anything, temporary objects included.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
END
$$;
GRANT USAGE ON SCHEMA public TO fhir_rag_ingest, fhir_rag_answer, fhir_rag_gateway;
GRANT USAGE ON SCHEMA vault TO fhir_rag_ingest, fhir_rag_answer;
GRANT USAGE, SELECT ON SEQUENCE patients_patient_key_seq, documents_document_id_seq,
    parties_party_key_seq TO fhir_rag_ingest;

GRANT SELECT ON store_settings TO fhir_rag_ingest, fhir_rag_answer;
-- Patients and parties are never deleted (a tombstone empties a patient's record, keeping the
-- key and the vault's names for the guard); retractions are a trail.
GRANT SELECT, INSERT, UPDATE ON patients, parties TO fhir_rag_ingest;
GRANT SELECT, INSERT, UPDATE, DELETE ON facts, documents, chunks, care_relationships,
    practitioner_aliases TO fhir_rag_ingest;
GRANT SELECT, INSERT ON retractions TO fhir_rag_ingest;
-- The vault is append-only and write-only for the ingest role (it reads its counts only).
GRANT INSERT ON vault.phi_vault, vault.party_vault, vault.vault_keys TO fhir_rag_ingest;
GRANT EXECUTE ON FUNCTION vault.counts() TO fhir_rag_ingest;

GRANT SELECT ON patients, facts, documents, chunks TO fhir_rag_answer;
-- The audit: insert-only (the trigger numbers, times and chains each row); of what is there,
-- only what tells a reused query id from a redelivery.
GRANT INSERT (query_id, requester_id, requester_role, status, backend, request_digest,
    document_ids, patient_keys, llm_calls, guard_report, total_ms) ON answer_audit TO fhir_rag_answer;
GRANT SELECT (audit_id, query_id, requester_id, request_digest) ON answer_audit TO fhir_rag_answer;
GRANT SELECT, INSERT ON envelopes_seen TO fhir_rag_answer;
GRANT SELECT, INSERT, UPDATE ON dp_budget, dp_spend TO fhir_rag_answer;
GRANT SELECT, INSERT, UPDATE, DELETE ON cohort_history TO fhir_rag_answer;
GRANT EXECUTE ON FUNCTION vault.match_names(TEXT[], BIGINT[]), vault.guard_kinds(TEXT[]),
    vault.age_decade(BIGINT), vault.counts() TO fhir_rag_answer;

GRANT SELECT ON patients, care_relationships, practitioner_aliases TO fhir_rag_gateway;
-- Its requests: the answer is filed once it comes back; who asked and why never change.
GRANT SELECT, INSERT ON gateway_requests TO fhir_rag_gateway;
GRANT UPDATE (answer, answered_at) ON gateway_requests TO fhir_rag_gateway;

-- Workers check the schema version at start (they never migrate).
GRANT SELECT ON _sqlx_migrations TO fhir_rag_ingest, fhir_rag_answer, fhir_rag_gateway;
