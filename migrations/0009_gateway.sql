-- Who asks: treatment relationships from the feed, the gateway's requests, and the envelopes the
-- answer workers have seen.

-- One row per (resource, practitioner) the resource links to its patient: an encounter's
-- participant, a care team's member, a prescription's requester, a procedure's or an
-- immunization's performer. Written and retracted with the resource's fact (same source, type
-- and id), so that corrections apply to it as to any fact. `practitioner` is a normalized
-- reference: `Practitioner/<id>`, `PractitionerRole/<id>`, or a conditional reference
-- `Practitioner?identifier=<system>|<value>` as Synthea and some EHR exports write it.
CREATE TABLE care_relationships (
    source        TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    patient_key   BIGINT NOT NULL REFERENCES patients ON DELETE CASCADE,
    practitioner  TEXT NOT NULL,
    kind          TEXT NOT NULL,
    last_day      DATE,
    PRIMARY KEY (source, resource_type, resource_id, practitioner)
);
CREATE INDEX care_relationships_by_practitioner ON care_relationships (practitioner, last_day);

-- The identifiers of a Practitioner resource, as conditional references, so that a token's
-- `fhirUser` (`Practitioner/<id>`) finds the relationships a feed wrote by identifier. An
-- identifier belongs to one practitioner of a source: a second resource claiming it is refused
-- (and counted), never merged.
CREATE TABLE practitioner_aliases (
    source    TEXT NOT NULL,
    reference TEXT NOT NULL,
    alias     TEXT NOT NULL,
    PRIMARY KEY (source, alias)
);
CREATE INDEX practitioner_aliases_by_reference ON practitioner_aliases (reference);

-- One row per question the gateway accepted: who asked (the token's exact subject), and the
-- signed answer once it came back. Only the same principal may read it. The question is not
-- kept; a break-the-glass request keeps the patient and the stated reason.
CREATE TABLE gateway_requests (
    query_id           TEXT PRIMARY KEY,
    principal          TEXT NOT NULL,
    role               TEXT NOT NULL,
    access             TEXT NOT NULL,
    patients           INTEGER NOT NULL,
    break_glass_patient TEXT,
    break_glass_reason TEXT,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at         TIMESTAMPTZ NOT NULL,
    answer             JSONB,
    answered_at        TIMESTAMPTZ
);
CREATE INDEX gateway_requests_by_principal ON gateway_requests (principal, created_at);
CREATE INDEX gateway_requests_break_glass ON gateway_requests (principal, created_at)
    WHERE break_glass_reason IS NOT NULL;

-- Envelopes the answer workers have taken, by query id, with where they were read: the same
-- message read again (a redelivery after a crash) is the same position; a copy of the envelope
-- published again is another position, and is refused as a replay.
CREATE TABLE envelopes_seen (
    query_id   TEXT PRIMARY KEY,
    topic      TEXT NOT NULL,
    partition  INTEGER NOT NULL,
    "offset"   BIGINT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    seen_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
