-- Privacy model: the vault's normalized lookup keys (what the guard and name resolution search),
-- and the people other than patients a record names (practitioners, related persons,
-- organizations, locations, whoever a reference's display names).

CREATE TABLE parties (
    party_key     BIGSERIAL PRIMARY KEY,
    resource_type TEXT NOT NULL,
    fhir_id       TEXT NOT NULL,
    first_seen    TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (resource_type, fhir_id)
);

-- Append-only, like phi_vault.
CREATE TABLE party_vault (
    party_key BIGINT NOT NULL REFERENCES parties ON DELETE CASCADE,
    kind      TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (party_key, kind, value)
);

-- One row per lookup key of a vault value (src/privacy/guard.rs, vault_keys): folded words and
-- their n-grams ("t:"), digit strings ("d:"), days ("b:"). The guard looks every key of an
-- outgoing text up here with one indexed query; nothing of the vault is held in a worker.
CREATE TABLE vault_keys (
    key         TEXT NOT NULL,
    kind        TEXT NOT NULL,
    patient_key BIGINT REFERENCES patients ON DELETE CASCADE,
    party_key   BIGINT REFERENCES parties ON DELETE CASCADE,
    CHECK (num_nonnulls(patient_key, party_key) = 1)
);
CREATE UNIQUE INDEX vault_keys_unique
    ON vault_keys (key, kind, coalesce(patient_key, 0), coalesce(party_key, 0));
CREATE INDEX vault_keys_by_patient ON vault_keys (patient_key) WHERE patient_key IS NOT NULL;
