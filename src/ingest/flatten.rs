//! Typed FHIR resources to short sentences ("Category is vital-signs. Code is Body Height. Value
//! is 173.9 cm.") and PHI vault entries.
//!
//! Pure functions of their input. What is flattened: Patient (into the vault, plus non-identifying
//! facts such as gender), Observation (components read one by one, so blood pressure gives both
//! readings), Procedure, Immunization and DiagnosticReport (dated facts), and Condition,
//! AllergyIntolerance, MedicationRequest, CarePlan and Device (facts of the per-patient summary).
//!
//! **Dates.** A fact's day is the *local date as written in the resource*: the first ten
//! characters of its dateTime, whatever the offset (`2012-03-02T23:30:00-05:00` is 2012-03-02).
//! That is the day a clinician would name; converting to UTC would move late-evening readings
//! to the next day.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;
use fhirbolt::model::r4::resources::{
    AllergyIntolerance, AllergyIntoleranceOnset, CarePlan, Condition, ConditionAbatement,
    ConditionOnset, Device, DiagnosticReport, DiagnosticReportEffective, Encounter, Immunization,
    ImmunizationOccurrence, Location, MedicationRequest, MedicationRequestMedication, Observation,
    ObservationComponentValue, ObservationEffective, ObservationValue, Organization, Patient,
    PatientDeceased, Practitioner, Procedure, ProcedurePerformed, RelatedPerson,
};
use fhirbolt::model::r4::types::{
    Address, CodeableConcept, ContactPoint, ExtensionValue, HumanName, Id, Identifier, Quantity,
    Reference,
};
use fhirbolt::model::r4::Resource;
use sha2::{Digest, Sha256};

use super::parse::{ParsedEntry, ReferenceDisplay};
use crate::phi::{PhiKind, PhiValue, VaultEntry};
use crate::privacy::guard::MemoryVault;

/// Longest single value (a note, a free-text dosage) kept in a sentence, in characters.
const MAX_VALUE_CHARS: usize = 400;

/// One resource turned into sentences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// The patient's logical id in the source system.
    pub patient: String,
    /// FHIR resource type.
    pub resource_type: &'static str,
    /// Logical id of the resource (or a content hash when the resource has none).
    pub resource_id: String,
    /// The day document this fact belongs to; `None` puts it in the patient's summary.
    pub day: Option<NaiveDate>,
    /// For summary facts: the date the fact is about (onset, prescription…), as written.
    pub event_date: Option<String>,
    /// The sentences, without the date.
    pub sentences: String,
}

/// A patient's demographics, split into vault entries (PHI) and non-identifying facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatientRecord {
    /// The patient's logical id in the source system.
    pub fhir_id: String,
    /// Names, birth date, addresses, telecom and identifiers.
    pub vault: BTreeSet<VaultEntry>,
}

/// Someone other than a patient the message names: a practitioner, a related person, an
/// organization, a location, or whoever a reference's display names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartyRecord {
    /// `Practitioner`, `RelatedPerson`, `Organization`, `Location`, `PractitionerRole`.
    pub resource_type: String,
    /// Logical id (or the reference, or a hash of the display, when there is none).
    pub fhir_id: String,
    /// Names, telecom, addresses, identifiers.
    pub vault: BTreeSet<VaultEntry>,
}

/// What becomes of free text (notes, value strings, conclusions, dosage texts, titles, text of
/// concepts that have no coding).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FreeText {
    /// Left out of documents: only structured, coded fields are kept (the default).
    #[default]
    Drop,
    /// Kept after de-identification ([`crate::privacy::deid`]).
    Deidentify,
}

/// Everything one message yields.
#[derive(Debug, Default, Clone)]
pub struct Flattened {
    /// Patients whose Patient resource was in the message.
    pub patients: Vec<PatientRecord>,
    /// Everyone else the message names.
    pub parties: Vec<PartyRecord>,
    /// Facts of every patient referenced in the message.
    pub facts: Vec<Fact>,
    /// Resources whose subject is not a patient (a Group, a Location) or is missing.
    pub without_patient: usize,
    /// Facts to remove: deleted resources, resources re-sent as entered-in-error, patients
    /// erased by a tombstone.
    pub retractions: Vec<Retraction>,
    /// The source system the message comes from (`""`: the default one). Patient ids and
    /// resource ids are unique within a source.
    pub source: String,
    /// Who treats whom: the practitioners the message's resources link to their patients
    /// (stored and retracted with the resource).
    pub links: Vec<super::relations::CareLink>,
    /// The identifiers the message's Practitioner resources are also known by.
    pub aliases: Vec<super::relations::PractitionerAlias>,
    /// The stored ids of the message's CareTeam resources (their links are replaced, also by
    /// none when a team lost its members).
    pub care_teams: Vec<String>,
}

/// Why a fact is removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetractionReason {
    /// A DELETE entry.
    Deleted,
    /// The resource was re-sent with status (or verification status) entered-in-error.
    EnteredInError,
    /// A Kafka tombstone for the patient's key.
    Tombstone,
}

impl RetractionReason {
    /// The name the store records.
    pub fn as_str(self) -> &'static str {
        match self {
            RetractionReason::Deleted => "deleted",
            RetractionReason::EnteredInError => "entered_in_error",
            RetractionReason::Tombstone => "tombstone",
        }
    }
}

/// A resource whose fact leaves the store. A `Patient` retraction removes every fact of that
/// patient (the vault is kept, so that the guard still knows the name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retraction {
    /// The resource's type.
    pub resource_type: String,
    /// Its logical id (for a Patient: the patient's id).
    pub resource_id: String,
    /// Why.
    pub reason: RetractionReason,
}

impl Flattened {
    /// Pieces that can be stored on their own: retractions, patients (with their vault),
    /// parties and facts.
    pub fn pieces(&self) -> usize {
        self.retractions.len() + self.patients.len() + self.parties.len() + self.facts.len()
    }

    /// The message cut in two halves of its pieces (retractions first, then patients, parties,
    /// facts), each storable on its own; `None` for a single piece.
    pub fn split(&self) -> Option<(Flattened, Flattened)> {
        let n = self.pieces();
        if n <= 1 {
            return None;
        }
        let mut left = Flattened {
            source: self.source.clone(),
            ..Flattened::default()
        };
        let mut right = left.clone();
        let mut i = 0;
        let side = |i: &mut usize| {
            *i += 1;
            *i <= n / 2
        };
        for r in &self.retractions {
            if side(&mut i) { &mut left } else { &mut right }
                .retractions
                .push(r.clone());
        }
        for p in &self.patients {
            if side(&mut i) { &mut left } else { &mut right }
                .patients
                .push(p.clone());
        }
        for p in &self.parties {
            if side(&mut i) { &mut left } else { &mut right }
                .parties
                .push(p.clone());
        }
        for f in &self.facts {
            if side(&mut i) { &mut left } else { &mut right }
                .facts
                .push(f.clone());
        }
        // A resource's links go with its fact; a care team's (which has none) and the aliases
        // with the first half.
        for link in &self.links {
            let with_right = right.facts.iter().any(|f| {
                f.resource_type == link.resource_type && f.resource_id == link.resource_id
            });
            if with_right { &mut right } else { &mut left }
                .links
                .push(link.clone());
        }
        left.aliases = self.aliases.clone();
        left.care_teams = self.care_teams.clone();
        Some((left, right))
    }

    /// What a one-piece message holds, by kind and type only (ids may identify a patient; dead
    /// letters carry kinds and positions, never data), for dead-letter reasons.
    pub fn describe(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        out.extend(
            self.retractions
                .iter()
                .map(|r| format!("retraction of a {}", r.resource_type)),
        );
        out.extend(
            self.patients
                .iter()
                .map(|_| "a patient's demographics".to_string()),
        );
        out.extend(
            self.parties
                .iter()
                .map(|p| format!("a {}", p.resource_type)),
        );
        out.extend(self.facts.iter().map(|f| format!("a {}", f.resource_type)));
        out.join(", ")
    }

    /// Logical ids of every patient the message touches, sorted.
    pub fn patient_ids(&self) -> BTreeSet<&str> {
        self.patients
            .iter()
            .map(|p| p.fhir_id.as_str())
            .chain(self.facts.iter().map(|f| f.patient.as_str()))
            .chain(self.links.iter().map(|l| l.patient.as_str()))
            .collect()
    }
}

thread_local! {
    /// The free-text policy and the message's own vault, for the flattening in progress on this
    /// thread (set by [`flatten_with`] for its duration only).
    static FREE_TEXT: std::cell::RefCell<Option<(FreeText, MemoryVault)>> =
        const { std::cell::RefCell::new(None) };
}

/// A free-text value under the current policy: dropped, or de-identified.
fn free(value: Option<String>) -> Option<String> {
    let value = value?;
    FREE_TEXT.with(|cell| match &*cell.borrow() {
        Some((FreeText::Deidentify, vault)) => {
            Some(clean(&crate::privacy::deid::deidentify(&value, vault))).filter(|v| !v.is_empty())
        }
        _ => None,
    })
}

/// A value that is not meant to be free text but may hold anything (a reference's display):
/// kept, de-identified whatever the free-text policy.
fn deidentified(value: Option<String>) -> Option<String> {
    let value = value?;
    FREE_TEXT.with(|cell| {
        let borrowed = cell.borrow();
        let empty = MemoryVault::default();
        let vault = borrowed.as_ref().map(|(_, v)| v).unwrap_or(&empty);
        Some(clean(&crate::privacy::deid::deidentify(&value, vault))).filter(|v| !v.is_empty())
    })
}

/// Flattens the parsed entries of one message, free text dropped.
pub fn flatten(entries: &[ParsedEntry]) -> Flattened {
    flatten_with(entries, &[], FreeText::Drop)
}

/// Flattens the parsed entries of one message: `displays` are the names the message's
/// references carry (to practitioners, organizations…), `free_text` says what becomes of notes.
pub fn flatten_with(
    entries: &[ParsedEntry],
    displays: &[ReferenceDisplay],
    free_text: FreeText,
) -> Flattened {
    let parties = parties(entries, displays);
    // The message's own vault, against which its free text is de-identified.
    let mut own: Vec<(PhiKind, String)> = Vec::new();
    for entry in entries {
        if let Resource::Patient(patient) = &entry.resource {
            own.extend(
                vault_entries(patient)
                    .into_iter()
                    .map(|e| (e.kind, e.value.expose().to_string())),
            );
        }
    }
    for party in &parties {
        own.extend(
            party
                .vault
                .iter()
                .map(|e| (e.kind, e.value.expose().to_string())),
        );
    }
    let vault = MemoryVault::new(own.iter().map(|(k, v)| (*k, v.as_str())));
    FREE_TEXT.with(|cell| *cell.borrow_mut() = Some((free_text, vault)));
    let mut out = flatten_resources(entries);
    FREE_TEXT.with(|cell| *cell.borrow_mut() = None);
    out.parties = parties;
    out.aliases = super::relations::practitioner_aliases(entries);
    out
}

/// Flattens a parsed message: its entries (as [`flatten_with`]), its DELETE entries and its
/// declared source.
pub fn flatten_parsed(parsed: &super::parse::ParsedBundle, free_text: FreeText) -> Flattened {
    let mut out = flatten_with(&parsed.entries, &parsed.displays, free_text);
    out.retractions
        .extend(parsed.deletions.iter().map(|d| Retraction {
            resource_type: d.resource_type.clone(),
            resource_id: storable_id(d.id.clone()),
            reason: RetractionReason::Deleted,
        }));
    out.source = parsed.source.clone().unwrap_or_default();
    out
}

/// What a tombstone (a message with a key and no value) means: the patient the key names, in
/// `source` (the `fhir-source` header; none: the default source), is erased. Keys are patient
/// ids (`123`) or references (`Patient/123`).
pub fn tombstone(key: &str, source: &str) -> Option<Flattened> {
    let id = patient_id_from_reference(key).unwrap_or_else(|| key.trim().to_string());
    if id.is_empty() {
        return None;
    }
    let id = storable_id(id);
    Some(Flattened {
        retractions: vec![Retraction {
            resource_type: "Patient".into(),
            resource_id: id,
            reason: RetractionReason::Tombstone,
        }],
        source: source.to_string(),
        ..Flattened::default()
    })
}

/// Longest logical id kept; FHIR allows 64 characters, fullUrls used as ids are longer.
const MAX_ID_CHARS: usize = 256;

/// Longest sentence text of one fact, in characters (an Observation with thousands of
/// components is cut, with a note of how much was left out).
const MAX_FACT_CHARS: usize = 4000;

/// Bounds a fact's sentences at a sentence boundary.
fn bound_sentences(sentences: String) -> String {
    if sentences.chars().count() <= MAX_FACT_CHARS {
        return sentences;
    }
    let mut kept = String::new();
    let mut left = 0usize;
    for sentence in sentences.split_inclusive(". ") {
        if left == 0 && kept.chars().count() + sentence.chars().count() <= MAX_FACT_CHARS - 40 {
            kept.push_str(sentence);
        } else {
            left += 1;
        }
    }
    if kept.is_empty() {
        kept = sentences.chars().take(MAX_FACT_CHARS - 40).collect();
    }
    format!("{} ({left} more statements left out.)", kept.trim_end())
}

/// An id fit for the store: no control characters (PostgreSQL refuses NUL), bounded.
fn usable_id(id: &str) -> bool {
    !id.is_empty() && id.chars().count() <= MAX_ID_CHARS && !id.chars().any(char::is_control)
}

/// The id itself when the store can hold it, else a digest of it: the same odd id (a NUL in
/// it, 10,000 characters) always maps to the same stored id, so that its resource is kept and a
/// later correction of it finds it.
fn storable_id(id: String) -> String {
    if usable_id(&id) {
        return id;
    }
    format!(
        "sha256:{}",
        hex::encode(&Sha256::digest(id.as_bytes())[..16])
    )
}

const ENTERED_IN_ERROR: &str = "entered-in-error";

/// Whether the resource says it was entered in error (its status, or for a Condition or an
/// allergy its verification status).
fn entered_in_error(resource: &Resource) -> bool {
    let status = |c: Option<&fhirbolt::model::r4::types::Code>| {
        c.and_then(|c| c.value.as_deref()) == Some(ENTERED_IN_ERROR)
    };
    let verified = |cc: Option<&CodeableConcept>| {
        cc.is_some_and(|cc| {
            cc.coding
                .iter()
                .any(|c| c.code.as_ref().and_then(|v| v.value.as_deref()) == Some(ENTERED_IN_ERROR))
        })
    };
    match resource {
        Resource::Observation(r) => status(Some(&r.status)),
        Resource::Procedure(r) => status(Some(&r.status)),
        Resource::Immunization(r) => status(Some(&r.status)),
        Resource::DiagnosticReport(r) => status(Some(&r.status)),
        Resource::MedicationRequest(r) => status(Some(&r.status)),
        Resource::CarePlan(r) => status(Some(&r.status)),
        Resource::Encounter(r) => status(Some(&r.status)),
        Resource::CareTeam(r) => status(r.status.as_ref()),
        Resource::Device(r) => status(r.status.as_ref()),
        Resource::Condition(r) => verified(r.verification_status.as_deref()),
        Resource::AllergyIntolerance(r) => verified(r.verification_status.as_deref()),
        _ => false,
    }
}

fn flatten_resources(entries: &[ParsedEntry]) -> Flattened {
    // fullUrl → patient id, so that `urn:uuid:` references resolve to the Patient in the bundle.
    let mut patient_urls: HashMap<&str, String> = HashMap::new();
    for entry in entries {
        if let Resource::Patient(patient) = &entry.resource {
            if let Some(id) = patient_id(patient, entry.full_url.as_deref()) {
                if let Some(url) = entry.full_url.as_deref() {
                    patient_urls.insert(url, id);
                }
            }
        }
    }
    // Conditions of the bundle by fullUrl and by `Condition/id`: a medication's
    // reasonReference names the condition it treats. Medications the same way: a request's
    // medicationReference names its drug.
    let condition_names = names_by_reference(entries, "Condition", |r| match r {
        Resource::Condition(c) => Some((c.id.as_ref(), c.code.as_deref()?)),
        _ => None,
    });
    let medication_names = names_by_reference(entries, "Medication", |r| match r {
        Resource::Medication(m) => Some((m.id.as_ref(), m.code.as_deref()?)),
        _ => None,
    });
    let reasons = |references: &[Reference]| -> Vec<String> {
        references
            .iter()
            .filter_map(|r| {
                let target = r.reference.as_ref().and_then(|v| v.value.as_deref());
                target
                    .and_then(|t| by_reference(&condition_names, "Condition", t))
                    // A reference outside the bundle: its display names the condition (free
                    // text, so de-identified).
                    .or_else(|| deidentified(text(r.display.as_ref())))
            })
            .collect()
    };
    let practitioners = super::relations::bundle_practitioners(entries);
    let resolve = |reference: Option<&Reference>| -> Option<String> {
        let reference = reference?.reference.as_ref()?.value.as_deref()?;
        if let Some(id) = patient_urls.get(reference) {
            return Some(id.clone());
        }
        patient_id_from_reference(reference)
    };

    let mut out = Flattened::default();
    for entry in entries {
        if entered_in_error(&entry.resource) {
            let id = entry
                .resource
                .id()
                .and_then(|id| id.value.clone())
                .or_else(|| entry.full_url.clone());
            // Without an id there is nothing stored to retract, and nothing to store.
            if let Some(id) = id {
                out.retractions.push(Retraction {
                    resource_type: entry.resource_type.clone(),
                    resource_id: storable_id(id),
                    reason: RetractionReason::EnteredInError,
                });
            }
            continue;
        }
        let fact = match &entry.resource {
            Resource::Patient(patient) => {
                if let Some(id) = patient_id(patient, entry.full_url.as_deref()) {
                    let mut fact = patient_fact(&id, patient);
                    fact.resource_id = id.clone();
                    out.facts.push(fact);
                    out.patients.push(PatientRecord {
                        vault: vault_entries(patient),
                        fhir_id: id,
                    });
                } else {
                    out.without_patient += 1;
                }
                continue;
            }
            Resource::Observation(r) => resolve(r.subject.as_deref()).map(|p| observation(p, r)),
            Resource::Procedure(r) => {
                resolve(Some(&r.subject)).map(|p| procedure(p, r, &reasons(&r.reason_reference)))
            }
            Resource::Immunization(r) => resolve(Some(&r.patient)).map(|p| immunization(p, r)),
            Resource::DiagnosticReport(r) => {
                resolve(r.subject.as_deref()).map(|p| diagnostic_report(p, r))
            }
            Resource::Condition(r) => resolve(Some(&r.subject)).map(|p| condition(p, r)),
            Resource::AllergyIntolerance(r) => resolve(Some(&r.patient)).map(|p| allergy(p, r)),
            Resource::MedicationRequest(r) => resolve(Some(&r.subject)).map(|p| {
                medication_request(p, r, &reasons(&r.reason_reference), &medication_names)
            }),
            Resource::CarePlan(r) => resolve(Some(&r.subject)).map(|p| care_plan(p, r)),
            Resource::Device(r) => resolve(r.patient.as_deref()).and_then(|p| device(p, r)),
            Resource::Encounter(r) => resolve(r.subject.as_deref())
                .map(|p| encounter(p, r, &reasons(&r.reason_reference))),
            Resource::CareTeam(r) => {
                // No sentences (members are names, which belong to the vault): links only.
                let id = entry
                    .resource
                    .id()
                    .and_then(|id| id.value.clone())
                    .or_else(|| entry.full_url.clone());
                if let (Some(patient), Some(id)) = (resolve(r.subject.as_deref()), id) {
                    out.care_teams.push(storable_id(id.clone()));
                    out.links.extend(super::relations::links(
                        &entry.resource,
                        &storable_id(patient),
                        "CareTeam",
                        &storable_id(id),
                        super::relations::care_team_day(r),
                        &practitioners,
                    ));
                }
                continue;
            }
            _ => continue,
        };
        match fact {
            Some(mut fact) => {
                let logical_id = entry.resource.id().and_then(|id| id.value.clone());
                fact.sentences = bound_sentences(std::mem::take(&mut fact.sentences));
                fact.resource_id = logical_id
                    .or_else(|| entry.full_url.clone())
                    .unwrap_or_else(|| content_id(&fact));
                fact.resource_id = storable_id(fact.resource_id);
                fact.patient = storable_id(fact.patient);
                let day = fact
                    .day
                    .or_else(|| fact.event_date.as_deref().and_then(local_date));
                out.links.extend(super::relations::links(
                    &entry.resource,
                    &fact.patient,
                    fact.resource_type,
                    &fact.resource_id,
                    day,
                    &practitioners,
                ));
                out.facts.push(fact);
            }
            None => out.without_patient += 1,
        }
    }
    out
}

/// The names of a bundle's resources of one type (`name_of` gives a resource's id and concept),
/// by fullUrl and by `Type/id`, for the references of other entries.
fn names_by_reference<'a>(
    entries: &'a [ParsedEntry],
    resource_type: &str,
    name_of: impl Fn(&'a Resource) -> Option<(Option<&'a Id>, &'a CodeableConcept)>,
) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for entry in entries {
        let Some((id, code)) = name_of(&entry.resource) else {
            continue;
        };
        let Some(name) = concept(code) else {
            continue;
        };
        if let Some(url) = &entry.full_url {
            out.insert(url.clone(), name.clone());
        }
        if let Some(id) = id.and_then(|id| id.value.as_deref()) {
            out.insert(format!("{resource_type}/{id}"), name);
        }
    }
    out
}

/// What a reference names among `names` ([`names_by_reference`]): by the reference as written,
/// or an absolute URL ending in `Type/id`.
fn by_reference(
    names: &HashMap<String, String>,
    resource_type: &str,
    target: &str,
) -> Option<String> {
    names.get(target).cloned().or_else(|| {
        let tail = target
            .rsplit_once(&format!("{resource_type}/"))
            .map(|(_, id)| id)?;
        names.get(&format!("{resource_type}/{tail}")).cloned()
    })
}

fn content_id(fact: &Fact) -> String {
    let mut hasher = Sha256::new();
    // The patient too: two patients' identical id-less resources are two facts.
    hasher.update(fact.patient.as_bytes());
    hasher.update([0]);
    hasher.update(fact.resource_type.as_bytes());
    hasher.update([0]);
    hasher.update(fact.sentences.as_bytes());
    hasher.update([0]);
    hasher.update(fact.event_date.as_deref().unwrap_or("").as_bytes());
    hasher.update(
        fact.day
            .map(|d| d.to_string())
            .unwrap_or_default()
            .as_bytes(),
    );
    format!("sha256:{}", hex::encode(&hasher.finalize()[..16]))
}

/// The patient's logical id: `Patient.id`, else the uuid of a `urn:uuid:` fullUrl.
fn patient_id(patient: &Patient, full_url: Option<&str>) -> Option<String> {
    patient
        .id
        .as_ref()
        .and_then(|id| id.value.clone())
        .or_else(|| full_url.and_then(patient_id_from_reference))
        .filter(|id| !id.is_empty())
        .map(storable_id)
}

/// Whether `id` may be a FHIR resource id (R4: `[A-Za-z0-9\-\.]{1,64}`): what the gateway,
/// the token reader, the treatment relationships and the study registry accept as one.
pub fn is_fhir_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

/// `urn:uuid:X` → X; `Patient/X`, `https://host/fhir/Patient/X/_history/2` → X.
pub fn patient_id_from_reference(reference: &str) -> Option<String> {
    if let Some(uuid) = reference.strip_prefix("urn:uuid:") {
        return (!uuid.is_empty()).then(|| uuid.to_string());
    }
    let path = reference.split(['?', '#']).next()?;
    let mut parts = path.split('/').collect::<Vec<_>>();
    if let Some(history) = parts.iter().position(|p| *p == "_history") {
        parts.truncate(history);
    }
    let n = parts.len();
    (n >= 2 && parts[n - 2] == "Patient" && !parts[n - 1].is_empty())
        .then(|| parts[n - 1].to_string())
}

/// The local date as written: the first ten characters of a FHIR date or dateTime, when they
/// form a full date.
pub fn local_date(value: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(value.get(..10)?, "%Y-%m-%d").ok()
}

/// Cleans a value for a sentence: no control characters (PostgreSQL refuses NUL), whitespace
/// collapsed, length bounded, no trailing full stop (the sentence adds its own).
fn clean(value: &str) -> String {
    let value = crate::text::strip_control_sequences(value);
    let mut out = String::with_capacity(value.len().min(MAX_VALUE_CHARS));
    for word in value
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX_VALUE_CHARS {
            out = out.chars().take(MAX_VALUE_CHARS).collect::<String>() + "…";
            break;
        }
    }
    out.trim_end_matches('.').to_string()
}

fn text(value: Option<&fhirbolt::model::r4::types::String>) -> Option<String> {
    value
        .and_then(|v| v.value.as_deref())
        .map(clean)
        .filter(|v| !v.is_empty())
}

fn code(value: Option<&fhirbolt::model::r4::types::Code>) -> Option<String> {
    value
        .and_then(|v| v.value.as_deref())
        .map(clean)
        .filter(|v| !v.is_empty())
}

/// A concept's reading: the first coding's display (terminology text, not a person's), else
/// its code; the concept's own `text` is free text, used only when it has no coding at all.
fn concept(cc: &CodeableConcept) -> Option<String> {
    cc.coding
        .iter()
        .find_map(|c| text(c.display.as_ref()))
        .or_else(|| cc.coding.iter().find_map(|c| code(c.code.as_ref())))
        .or_else(|| free(text(cc.text.as_ref())))
}

/// A marital status as words: the display, or for a bare code of HL7's v3 MaritalStatus
/// system (Synthea and many feeds send "M" alone) its display in that system, so that "is he
/// married?" finds "Married" and never reads a bare "M" as nothing on record.
fn marital_status(cc: &CodeableConcept) -> Option<String> {
    let displayed = cc
        .coding
        .iter()
        .find_map(|c| text(c.display.as_ref()))
        .or_else(|| free(text(cc.text.as_ref())));
    if displayed.is_some() {
        return displayed;
    }
    let from_code = cc.coding.iter().find_map(|c| {
        let system = c.system.as_ref().and_then(|s| s.value.as_deref());
        if system.is_some_and(|s| s != "http://terminology.hl7.org/CodeSystem/v3-MaritalStatus") {
            return None;
        }
        let display = match code(c.code.as_ref())?.as_str() {
            "A" => "Annulled",
            "D" => "Divorced",
            "I" => "Interlocutory",
            "L" => "Legally Separated",
            "M" => "Married",
            "C" => "Common Law",
            "P" => "Polygamous",
            "T" => "Domestic partner",
            "U" => "Unmarried",
            "S" => "Never Married",
            "W" => "Widowed",
            _ => return None,
        };
        Some(display.to_string())
    });
    from_code.or_else(|| concept(cc))
}

fn concepts(ccs: &[CodeableConcept]) -> Option<String> {
    let names: Vec<String> = ccs.iter().filter_map(concept).collect();
    (!names.is_empty()).then(|| names.join(", "))
}

fn quantity(q: &Quantity) -> Option<String> {
    let value = q.value.as_ref()?.value.as_deref()?;
    let mut out = String::new();
    if let Some(comparator) = code(q.comparator.as_ref()) {
        out.push_str(&comparator);
        out.push(' ');
    }
    out.push_str(value);
    if let Some(unit) = text(q.unit.as_ref()).or_else(|| code(q.code.as_ref())) {
        out.push(' ');
        out.push_str(&unit);
    }
    Some(out)
}

fn date_time(value: Option<&fhirbolt::model::r4::types::DateTime>) -> Option<String> {
    value.and_then(|v| v.value.clone())
}

/// Builds "A is B. C is D." from pairs, skipping absent values.
struct Sentences(String);

impl Sentences {
    fn new() -> Self {
        Sentences(String::new())
    }
    fn say(&mut self, subject: &str, value: Option<String>) -> &mut Self {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            self.raw(&format!("{subject} is {value}"));
        }
        self
    }
    fn raw(&mut self, sentence: &str) -> &mut Self {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(sentence);
        self.0.push('.');
        self
    }
    fn done(&mut self) -> String {
        std::mem::take(&mut self.0)
    }
}

fn dated_fact(
    patient: String,
    resource_type: &'static str,
    when: Option<String>,
    sentences: String,
) -> Fact {
    let day = when.as_deref().and_then(local_date);
    Fact {
        patient,
        resource_type,
        resource_id: String::new(),
        // A dated resource without a usable date still belongs to the patient: the summary
        // keeps it, with whatever partial date it had.
        event_date: if day.is_none() { when } else { None },
        day,
        sentences,
    }
}

fn summary_fact(
    patient: String,
    resource_type: &'static str,
    when: Option<String>,
    sentences: String,
) -> Fact {
    Fact {
        patient,
        resource_type,
        resource_id: String::new(),
        day: None,
        event_date: when,
        sentences,
    }
}

/// A result's status when it is not the ordinary `final` (preliminary, amended, corrected,
/// cancelled…): the reader must know a value was revised or is not final. `final` is left
/// unsaid, as nearly every result has it.
fn unusual_status(status: &fhirbolt::model::r4::types::Code) -> Option<String> {
    code(Some(status)).filter(|s| s != "final")
}

fn observation(patient: String, r: &Observation) -> Fact {
    let mut s = Sentences::new();
    s.say("Category", concepts(&r.category))
        .say("Code", concept(&r.code))
        .say("Status", unusual_status(&r.status));
    match r.value.as_ref().and_then(observation_value) {
        Some(value) => {
            s.say("Value", Some(value));
        }
        // "Patient is homeless" as a string, with free text dropped: there is a value, and
        // "no value recorded" would be false.
        None if matches!(r.value, Some(ObservationValue::String(_))) => {
            s.raw(WITHHELD_TEXT);
        }
        None if r.component.is_empty() => {
            match r.data_absent_reason.as_deref().and_then(concept) {
                Some(reason) => s.raw(&format!("Value is absent ({reason})")),
                None => s.raw("No value recorded"),
            };
        }
        None => {}
    }
    for component in &r.component {
        let name = concept(&component.code).unwrap_or_else(|| "Component".into());
        let value = component.value.as_ref().and_then(component_value);
        let withheld = matches!(component.value, Some(ObservationComponentValue::String(_)));
        let value = value.or_else(|| withheld.then(|| "free text, not kept".to_string()));
        let value = value.or_else(|| {
            component
                .data_absent_reason
                .as_deref()
                .and_then(concept)
                .map(|reason| format!("absent ({reason})"))
        });
        s.say(&name, Some(value.unwrap_or_else(|| "not recorded".into())));
    }
    s.say("Interpretation", concepts(&r.interpretation));
    let when = match &r.effective {
        Some(ObservationEffective::DateTime(d)) => d.value.clone(),
        Some(ObservationEffective::Instant(i)) => i.value.clone(),
        Some(ObservationEffective::Period(p)) => date_time(p.start.as_ref()),
        _ => None,
    }
    .or_else(|| r.issued.as_ref().and_then(|i| i.value.clone()));
    dated_fact(patient, "Observation", when, s.done())
}

/// What an observation whose value is free text says when free text is dropped ([`FreeText`]).
pub const WITHHELD_TEXT: &str = "Value is free text, not kept";

fn observation_value(value: &ObservationValue) -> Option<String> {
    match value {
        ObservationValue::Quantity(q) => quantity(q),
        ObservationValue::CodeableConcept(c) => concept(c),
        ObservationValue::String(v) => free(text(Some(v))),
        ObservationValue::Boolean(b) => b.value.map(|b| b.to_string()),
        ObservationValue::Integer(i) => i.value.map(|i| i.to_string()),
        ObservationValue::Range(r) => range(r.low.as_deref(), r.high.as_deref()),
        ObservationValue::Ratio(r) => ratio(r.numerator.as_deref(), r.denominator.as_deref()),
        ObservationValue::Time(t) => t.value.clone(),
        ObservationValue::DateTime(d) => d.value.clone(),
        ObservationValue::Period(p) => range_dates(p.start.as_ref(), p.end.as_ref()),
        ObservationValue::SampledData(_) => Some("sampled data (not shown)".into()),
        ObservationValue::Invalid => None,
    }
}

fn component_value(value: &ObservationComponentValue) -> Option<String> {
    match value {
        ObservationComponentValue::Quantity(q) => quantity(q),
        ObservationComponentValue::CodeableConcept(c) => concept(c),
        ObservationComponentValue::String(v) => free(text(Some(v))),
        ObservationComponentValue::Boolean(b) => b.value.map(|b| b.to_string()),
        ObservationComponentValue::Integer(i) => i.value.map(|i| i.to_string()),
        ObservationComponentValue::Range(r) => range(r.low.as_deref(), r.high.as_deref()),
        ObservationComponentValue::Ratio(r) => {
            ratio(r.numerator.as_deref(), r.denominator.as_deref())
        }
        ObservationComponentValue::Time(t) => t.value.clone(),
        ObservationComponentValue::DateTime(d) => d.value.clone(),
        ObservationComponentValue::Period(p) => range_dates(p.start.as_ref(), p.end.as_ref()),
        ObservationComponentValue::SampledData(_) => Some("sampled data (not shown)".into()),
        ObservationComponentValue::Invalid => None,
    }
}

fn range(low: Option<&Quantity>, high: Option<&Quantity>) -> Option<String> {
    match (low.and_then(quantity), high.and_then(quantity)) {
        (Some(l), Some(h)) => Some(format!("between {l} and {h}")),
        (Some(l), None) => Some(format!("at least {l}")),
        (None, Some(h)) => Some(format!("at most {h}")),
        (None, None) => None,
    }
}

fn ratio(numerator: Option<&Quantity>, denominator: Option<&Quantity>) -> Option<String> {
    Some(format!(
        "{} per {}",
        numerator.and_then(quantity)?,
        denominator.and_then(quantity)?
    ))
}

fn range_dates(
    start: Option<&fhirbolt::model::r4::types::DateTime>,
    end: Option<&fhirbolt::model::r4::types::DateTime>,
) -> Option<String> {
    match (date_time(start), date_time(end)) {
        (Some(s), Some(e)) => Some(format!("from {s} to {e}")),
        (Some(s), None) => Some(format!("from {s}")),
        (None, Some(e)) => Some(format!("until {e}")),
        (None, None) => None,
    }
}

/// Why a request, a procedure or a visit happened: its reason codes, then the conditions its
/// `reasonReference`s name (`referenced`, resolved in the bundle), each once.
fn reason(codes: &[CodeableConcept], referenced: &[String]) -> Option<String> {
    let mut all: Vec<String> = concepts(codes).into_iter().collect();
    for name in referenced {
        if !all.contains(name) {
            all.push(name.clone());
        }
    }
    (!all.is_empty()).then(|| all.join("; "))
}

/// `reasons`: the conditions its `reasonReference`s name ("Lumpectomy of breast … Reason is
/// Malignant neoplasm of breast"): what a question about the procedures for a condition reads.
fn procedure(patient: String, r: &Procedure, reasons: &[String]) -> Fact {
    let mut s = Sentences::new();
    s.say("Procedure", r.code.as_deref().and_then(concept))
        .say("Status", code(Some(&r.status)))
        .say("Reason", reason(&r.reason_code, reasons))
        .say("Body site", concepts(&r.body_site))
        .say("Outcome", r.outcome.as_deref().and_then(concept));
    let when = match &r.performed {
        Some(ProcedurePerformed::DateTime(d)) => d.value.clone(),
        Some(ProcedurePerformed::Period(p)) => date_time(p.start.as_ref()),
        Some(ProcedurePerformed::String(v)) => free(v.value.clone()),
        _ => None,
    };
    dated_fact(patient, "Procedure", when, s.done())
}

fn immunization(patient: String, r: &Immunization) -> Fact {
    let mut s = Sentences::new();
    s.say("Immunization", concept(&r.vaccine_code))
        .say("Status", code(Some(&r.status)));
    let when = match &r.occurrence {
        ImmunizationOccurrence::DateTime(d) => d.value.clone(),
        ImmunizationOccurrence::String(v) => free(v.value.clone()),
        ImmunizationOccurrence::Invalid => None,
    };
    dated_fact(patient, "Immunization", when, s.done())
}

/// An encounter's class (HL7 v3 ActEncounterCode) as a reader says it: "emergency", not "EMER".
fn encounter_class(code: &str) -> String {
    match code {
        "AMB" => "ambulatory".into(),
        "EMER" => "emergency".into(),
        "IMP" => "inpatient".into(),
        "ACUTE" => "inpatient acute".into(),
        "NONAC" => "inpatient non-acute".into(),
        "OBSENC" => "observation".into(),
        "PRENC" => "pre-admission".into(),
        "SS" => "short stay".into(),
        "VR" => "virtual".into(),
        "HH" => "home health".into(),
        "FLD" => "field".into(),
        other => clean(other),
    }
}

/// A visit, a stay or an emergency: what kind (type and class), why, and for a stay over at
/// least one night how many days it lasted ("how long was she in with covid?"), dated by its
/// start. The end date itself stays out of the sentences (a newborn's first stay ends on a day
/// the vault holds); a length is no date. Who took part (practitioners, locations) is left
/// out: names belong to the vault, not documents.
fn encounter(patient: String, r: &Encounter, reasons: &[String]) -> Fact {
    let period = r.period.as_deref();
    let start = period.and_then(|p| date_time(p.start.as_ref()));
    let end = period.and_then(|p| date_time(p.end.as_ref()));
    let mut s = Sentences::new();
    s.say("Encounter", concepts(&r.r#type))
        .say(
            "Class",
            code(r.class.code.as_ref()).map(|c| encounter_class(&c)),
        )
        .say("Status", code(Some(&r.status)))
        .say("Reason", reason(&r.reason_code, reasons))
        .say(
            "Length of stay",
            stay_days(start.as_deref(), end.as_deref()).map(|n| match n {
                1 => "1 day".to_string(),
                n => format!("{n} days"),
            }),
        );
    dated_fact(patient, "Encounter", start, s.done())
}

/// The days between a stay's first and last local dates (the nights spent), when both are
/// full dates and it spans at least one night; a visit within one day has no length of stay.
fn stay_days(start: Option<&str>, end: Option<&str>) -> Option<i64> {
    let days = (local_date(end?)? - local_date(start?)?).num_days();
    (days >= 1).then_some(days)
}

fn diagnostic_report(patient: String, r: &DiagnosticReport) -> Fact {
    // presentedForm (often a base64 clinical note that quotes the patient's name) is left out on
    // purpose: it is free text the vault cannot vouch for.
    let mut s = Sentences::new();
    s.say("Report", concept(&r.code))
        .say("Report category", concepts(&r.category))
        .say("Status", unusual_status(&r.status))
        .say("Conclusion", free(text(r.conclusion.as_ref())))
        .say("Conclusion code", concepts(&r.conclusion_code));
    let when = match &r.effective {
        Some(DiagnosticReportEffective::DateTime(d)) => d.value.clone(),
        Some(DiagnosticReportEffective::Period(p)) => date_time(p.start.as_ref()),
        _ => None,
    }
    .or_else(|| r.issued.as_ref().and_then(|i| i.value.clone()));
    dated_fact(patient, "DiagnosticReport", when, s.done())
}

fn condition(patient: String, r: &Condition) -> Fact {
    let mut s = Sentences::new();
    s.say("Condition", r.code.as_deref().and_then(concept))
        .say(
            "Clinical status",
            r.clinical_status.as_deref().and_then(concept),
        )
        .say(
            "Verification status",
            r.verification_status.as_deref().and_then(concept),
        )
        .say("Severity", r.severity.as_deref().and_then(concept))
        .say("Category", concepts(&r.category));
    let abated = match &r.abatement {
        Some(ConditionAbatement::DateTime(d)) => d.value.clone(),
        Some(ConditionAbatement::Period(p)) => date_time(p.start.as_ref()),
        Some(ConditionAbatement::String(v)) => free(text(Some(v))),
        _ => None,
    };
    if let Some(abated) = abated {
        s.raw(&format!(
            "Abated on {}",
            abated.get(..10).unwrap_or(&abated)
        ));
    }
    let onset = match &r.onset {
        Some(ConditionOnset::DateTime(d)) => d.value.clone(),
        Some(ConditionOnset::Period(p)) => date_time(p.start.as_ref()),
        Some(ConditionOnset::String(v)) => free(text(Some(v))),
        _ => None,
    }
    .or_else(|| date_time(r.recorded_date.as_ref()));
    summary_fact(patient, "Condition", onset, s.done())
}

fn allergy(patient: String, r: &AllergyIntolerance) -> Fact {
    let mut s = Sentences::new();
    let categories: Vec<String> = r.category.iter().filter_map(|c| code(Some(c))).collect();
    // Verification codes (allergyintolerance-verification): a refuted allergy is not an
    // allergy, and an unconfirmed one is a suspicion; only confirmed goes unsaid.
    let verification: Option<String> = r.verification_status.as_deref().and_then(|cc| {
        cc.coding
            .iter()
            .find_map(|c| c.code.as_ref().and_then(|v| v.value.clone()))
    });
    let subject = match verification.as_deref() {
        Some("refuted") => "Refuted allergy (ruled out)",
        Some("unconfirmed") | Some("presumed") => "Suspected allergy (unconfirmed)",
        _ => "Allergy",
    };
    s.say(subject, r.code.as_deref().and_then(concept))
        .say("Type", code(r.r#type.as_ref()))
        .say(
            "Category",
            (!categories.is_empty()).then(|| categories.join(", ")),
        )
        .say("Criticality", code(r.criticality.as_ref()))
        .say(
            "Clinical status",
            r.clinical_status.as_deref().and_then(concept),
        )
        .say(
            "Verification status",
            verification.filter(|v| v != "confirmed"),
        );
    for reaction in &r.reaction {
        let mut what = concepts(&reaction.manifestation).unwrap_or_else(|| "unspecified".into());
        if let Some(severity) = code(reaction.severity.as_ref()) {
            what = format!("{what} ({severity})");
        }
        s.say("Reaction", Some(what));
    }
    let when = match &r.onset {
        Some(AllergyIntoleranceOnset::DateTime(d)) => d.value.clone(),
        Some(AllergyIntoleranceOnset::Period(p)) => date_time(p.start.as_ref()),
        _ => None,
    }
    .or_else(|| date_time(r.recorded_date.as_ref()));
    summary_fact(patient, "AllergyIntolerance", when, s.done())
}

/// `reasons`: the conditions its `reasonReference`s name (resolved in the bundle);
/// `medications`: the bundle's Medications' names, by fullUrl and `Medication/id`.
fn medication_request(
    patient: String,
    r: &MedicationRequest,
    reasons: &[String],
    medications: &HashMap<String, String>,
) -> Fact {
    let medication = match &r.medication {
        MedicationRequestMedication::CodeableConcept(c) => concept(c),
        // A reference: to a Medication contained in the request ("#m1"), or elsewhere in the
        // bundle (its fullUrl, `Medication/id`, an absolute URL ending in it); otherwise its
        // display names a drug: kept, but always de-identified.
        MedicationRequestMedication::Reference(reference) => {
            let target = reference
                .reference
                .as_ref()
                .and_then(|v| v.value.as_deref());
            target
                .and_then(|t| match t.strip_prefix('#') {
                    Some(local) => r.contained.iter().find_map(|c| match c {
                        Resource::Medication(m)
                            if m.id.as_ref().and_then(|id| id.value.as_deref()) == Some(local) =>
                        {
                            m.code.as_deref().and_then(concept)
                        }
                        _ => None,
                    }),
                    None => by_reference(medications, "Medication", t),
                })
                .or_else(|| deidentified(text(reference.display.as_ref())))
        }
        MedicationRequestMedication::Invalid => None,
    };
    let dosage: Vec<String> = r
        .dosage_instruction
        .iter()
        .filter_map(|d| free(text(d.text.as_ref())))
        .collect();
    let mut s = Sentences::new();
    s.say("Medication", medication)
        .say("Status", code(Some(&r.status)))
        .say("Intent", code(Some(&r.intent)))
        .say("Dosage", (!dosage.is_empty()).then(|| dosage.join("; ")))
        .say("Reason", reason(&r.reason_code, reasons));
    summary_fact(
        patient,
        "MedicationRequest",
        date_time(r.authored_on.as_ref()),
        s.done(),
    )
}

fn care_plan(patient: String, r: &CarePlan) -> Fact {
    let activities: Vec<String> = r
        .activity
        .iter()
        .filter_map(|a| a.detail.as_ref()?.code.as_deref().and_then(concept))
        .collect();
    let mut s = Sentences::new();
    s.say(
        "Care plan",
        concepts(&r.category).or_else(|| free(text(r.title.as_ref()))),
    )
    .say("Status", code(Some(&r.status)));
    if !activities.is_empty() {
        s.raw(&format!("Activities are {}", activities.join(", ")));
    }
    let when = r
        .period
        .as_deref()
        .and_then(|p| date_time(p.start.as_ref()));
    summary_fact(patient, "CarePlan", when, s.done())
}

/// A device the patient has or had (a pacemaker, an intrauterine device, a ventilator): what it
/// is and its status, for the summary. Its identity (identifiers, UDI, serial and lot numbers,
/// manufacturer, model) is never flattened, nor its manufacture and expiry dates (the device's,
/// not the patient's). `None` when the resource names no kind of device.
fn device(patient: String, r: &Device) -> Option<Fact> {
    let kind = r
        .r#type
        .as_deref()
        .and_then(concept)
        .or_else(|| r.device_name.iter().find_map(|n| free(text(Some(&n.name)))))?;
    let mut s = Sentences::new();
    s.say("Device", Some(kind))
        .say("Status", code(r.status.as_ref()));
    Some(summary_fact(patient, "Device", None, s.done()))
}

/// Non-identifying facts about the patient for the summary document.
fn patient_fact(id: &str, r: &Patient) -> Fact {
    let mut s = Sentences::new();
    s.say("Gender", code(r.gender.as_ref())).say(
        "Marital status",
        r.marital_status.as_deref().and_then(marital_status),
    );
    match &r.deceased {
        Some(PatientDeceased::Boolean(b)) if b.value == Some(true) => {
            s.raw("The patient is deceased");
        }
        Some(PatientDeceased::DateTime(d)) => {
            let on = d
                .value
                .as_deref()
                .and_then(local_date)
                .map(|d| d.to_string());
            s.raw(&match on {
                Some(on) => format!("The patient died on {on}"),
                None => "The patient is deceased".into(),
            });
        }
        _ => {}
    }
    let languages: Vec<String> = r
        .communication
        .iter()
        .filter_map(|c| concept(&c.language))
        .collect();
    s.say(
        "Language",
        (!languages.is_empty()).then(|| languages.join(", ")),
    );
    summary_fact(id.to_string(), "Patient", None, s.done())
}

const MOTHERS_MAIDEN_NAME: &str =
    "http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName";
const BIRTH_PLACE: &str = "http://hl7.org/fhir/StructureDefinition/patient-birthPlace";

/// Everything identifying about a patient, for the vault. The patient's contacts (next of kin,
/// guardians) are entries of their own kinds, never the patient's names.
pub fn vault_entries(r: &Patient) -> BTreeSet<VaultEntry> {
    let mut out = BTreeSet::new();
    let mut add = |kind: PhiKind, value: &str| {
        let value = PhiValue::new(value);
        if !value.is_empty() {
            out.insert(VaultEntry { kind, value });
        }
    };
    for name in &r.name {
        add_name(&mut add, name);
    }
    if let Some(birth) = r.birth_date.as_ref().and_then(|d| d.value.as_deref()) {
        add(PhiKind::BirthDate, birth);
    }
    for address in &r.address {
        add_address(&mut add, address, PhiKind::Address);
    }
    add_telecom(&mut add, &r.telecom, PhiKind::Phone, PhiKind::Email);
    add_identifiers(&mut add, &r.identifier);
    // The logical id when it could identify (a record number rather than "example").
    if let Some(id) = r.id.as_ref().and_then(|i| i.value.as_deref()) {
        if id.len() >= 5 && id.chars().any(|c| c.is_ascii_digit()) {
            add(PhiKind::Identifier, id);
        }
    }
    for contact in &r.contact {
        if let Some(name) = contact.name.as_deref() {
            add_person_name(&mut add, name, PhiKind::ContactName);
        }
        if let Some(address) = contact.address.as_deref() {
            add_address_as(&mut add, address, PhiKind::ContactAddress);
        }
        add_telecom(
            &mut add,
            &contact.telecom,
            PhiKind::ContactPhone,
            PhiKind::ContactEmail,
        );
    }
    for extension in &r.extension {
        match (extension.url.as_str(), extension.value.as_ref()) {
            (MOTHERS_MAIDEN_NAME, Some(ExtensionValue::String(v))) => {
                if let Some(v) = v.value.as_deref() {
                    add(PhiKind::MaidenName, v);
                }
            }
            (BIRTH_PLACE, Some(ExtensionValue::Address(a))) => {
                add_address(&mut add, a, PhiKind::BirthPlace)
            }
            _ => {}
        }
    }
    out
}

fn add_telecom(
    add: &mut impl FnMut(PhiKind, &str),
    telecom: &[ContactPoint],
    phone: PhiKind,
    email: PhiKind,
) {
    for point in telecom {
        let Some(value) = point.value.as_ref().and_then(|v| v.value.as_deref()) else {
            continue;
        };
        let kind = match point.system.as_ref().and_then(|s| s.value.as_deref()) {
            Some("email") => email,
            Some("phone" | "fax" | "sms" | "pager") | None => phone,
            Some(_) => PhiKind::Identifier,
        };
        add(kind, value);
    }
}

fn add_identifiers(add: &mut impl FnMut(PhiKind, &str), identifiers: &[Identifier]) {
    for identifier in identifiers {
        let Some(value) = identifier.value.as_ref().and_then(|v| v.value.as_deref()) else {
            continue;
        };
        let type_code = identifier.r#type.as_deref().and_then(|t| {
            t.coding
                .iter()
                .find_map(|c| c.code.as_ref()?.value.as_deref())
        });
        let kind = match type_code {
            Some("SS") => PhiKind::Ssn,
            Some("MR") => PhiKind::MedicalRecordNumber,
            Some("DL") => PhiKind::DriversLicense,
            Some("PPN") => PhiKind::Passport,
            _ => PhiKind::Identifier,
        };
        add(kind, value);
    }
}

/// A name of someone who is not the patient, whole and part by part, all of one kind.
fn add_person_name(add: &mut impl FnMut(PhiKind, &str), name: &HumanName, kind: PhiKind) {
    let mut parts: Vec<&str> = name
        .given
        .iter()
        .filter_map(|g| g.value.as_deref())
        .collect();
    parts.extend(name.family.as_ref().and_then(|f| f.value.as_deref()));
    for part in &parts {
        add(kind, part);
    }
    if !parts.is_empty() {
        add(kind, &parts.join(" "));
    }
    if let Some(text) = name.text.as_ref().and_then(|t| t.value.as_deref()) {
        add(kind, text);
    }
}

/// An address of someone who is not the patient: lines, city and the whole, of one kind.
fn add_address_as(add: &mut impl FnMut(PhiKind, &str), address: &Address, kind: PhiKind) {
    add_address(&mut |_, value| add(kind, value), address, kind);
}

/// Everyone other than patients the message names: its Practitioner, RelatedPerson,
/// Organization and Location resources, and the displays of references to such resources
/// (an encounter's participant, a prescription's requester).
fn parties(entries: &[ParsedEntry], displays: &[ReferenceDisplay]) -> Vec<PartyRecord> {
    let mut out: Vec<PartyRecord> = Vec::new();
    for entry in entries {
        let id = || {
            entry
                .resource
                .id()
                .and_then(|i| i.value.clone())
                .or_else(|| entry.full_url.clone())
        };
        let mut vault = BTreeSet::new();
        let mut add = |kind: PhiKind, value: &str| {
            let value = PhiValue::new(value);
            if !value.is_empty() {
                vault.insert(VaultEntry { kind, value });
            }
        };
        let resource_type = match &entry.resource {
            Resource::Practitioner(r) => {
                practitioner(&mut add, r);
                "Practitioner"
            }
            Resource::RelatedPerson(r) => {
                related_person(&mut add, r);
                "RelatedPerson"
            }
            Resource::Organization(r) => {
                organization(&mut add, r);
                "Organization"
            }
            Resource::Location(r) => {
                location(&mut add, r);
                "Location"
            }
            _ => continue,
        };
        let Some(fhir_id) = id().map(storable_id) else {
            continue;
        };
        if !vault.is_empty() {
            out.push(PartyRecord {
                resource_type: resource_type.to_string(),
                fhir_id,
                vault,
            });
        }
    }
    for display in displays {
        let kind = match display.resource_type.as_str() {
            "Organization" | "Location" | "HealthcareService" => PhiKind::OrganizationName,
            _ => PhiKind::PersonName,
        };
        let value = PhiValue::new(display.display.as_str());
        if value.is_empty() {
            continue;
        }
        out.push(PartyRecord {
            resource_type: display.resource_type.clone(),
            fhir_id: storable_id(display.target.clone()),
            vault: BTreeSet::from([VaultEntry { kind, value }]),
        });
    }
    out
}

/// What a person other than the patient is known by: names, telecom, addresses, identifiers.
fn person(
    add: &mut impl FnMut(PhiKind, &str),
    names: &[HumanName],
    telecom: &[ContactPoint],
    addresses: &[Address],
    identifiers: &[Identifier],
) {
    for name in names {
        add_person_name(add, name, PhiKind::PersonName);
    }
    add_telecom(add, telecom, PhiKind::Phone, PhiKind::Email);
    for address in addresses {
        add_address(add, address, PhiKind::Address);
    }
    add_identifiers(add, identifiers);
}

fn practitioner(add: &mut impl FnMut(PhiKind, &str), r: &Practitioner) {
    person(add, &r.name, &r.telecom, &r.address, &r.identifier);
}

fn related_person(add: &mut impl FnMut(PhiKind, &str), r: &RelatedPerson) {
    person(add, &r.name, &r.telecom, &r.address, &r.identifier);
    if let Some(birth) = r.birth_date.as_ref().and_then(|d| d.value.as_deref()) {
        add(PhiKind::BirthDate, birth);
    }
}

fn organization(add: &mut impl FnMut(PhiKind, &str), r: &Organization) {
    for name in r.name.iter().chain(&r.alias) {
        if let Some(v) = name.value.as_deref() {
            add(PhiKind::OrganizationName, v);
        }
    }
    add_telecom(add, &r.telecom, PhiKind::Phone, PhiKind::Email);
    for address in &r.address {
        add_address(add, address, PhiKind::Address);
    }
    add_identifiers(add, &r.identifier);
}

fn location(add: &mut impl FnMut(PhiKind, &str), r: &Location) {
    for name in r.name.iter().chain(&r.alias) {
        if let Some(v) = name.value.as_deref() {
            add(PhiKind::OrganizationName, v);
        }
    }
    add_telecom(add, &r.telecom, PhiKind::Phone, PhiKind::Email);
    if let Some(address) = r.address.as_deref() {
        add_address(add, address, PhiKind::Address);
    }
    add_identifiers(add, &r.identifier);
}

fn add_name(add: &mut impl FnMut(PhiKind, &str), name: &HumanName) {
    let maiden = name.r#use.as_ref().and_then(|u| u.value.as_deref()) == Some("maiden");
    let given: Vec<&str> = name
        .given
        .iter()
        .filter_map(|g| g.value.as_deref())
        .collect();
    let family = name.family.as_ref().and_then(|f| f.value.as_deref());
    let prefix: Vec<&str> = name
        .prefix
        .iter()
        .filter_map(|p| p.value.as_deref())
        .collect();
    let suffix: Vec<&str> = name
        .suffix
        .iter()
        .filter_map(|p| p.value.as_deref())
        .collect();
    for g in &given {
        add(PhiKind::GivenName, g);
    }
    if let Some(f) = family {
        add(
            if maiden {
                PhiKind::MaidenName
            } else {
                PhiKind::FamilyName
            },
            f,
        );
    }
    for p in &prefix {
        add(PhiKind::NamePrefix, p);
    }
    for s in &suffix {
        add(PhiKind::NameSuffix, s);
    }
    if let Some(text) = name.text.as_ref().and_then(|t| t.value.as_deref()) {
        add(PhiKind::FullName, text);
    }
    let plain: Vec<&str> = given.iter().copied().chain(family).collect();
    if !plain.is_empty() {
        add(PhiKind::FullName, &plain.join(" "));
        let styled: Vec<&str> = prefix
            .iter()
            .copied()
            .chain(plain.iter().copied())
            .chain(suffix.iter().copied())
            .collect();
        add(PhiKind::FullName, &styled.join(" "));
    }
}

fn add_address(add: &mut impl FnMut(PhiKind, &str), address: &Address, whole: PhiKind) {
    let lines: Vec<&str> = address
        .line
        .iter()
        .filter_map(|l| l.value.as_deref())
        .collect();
    let city = address.city.as_ref().and_then(|c| c.value.as_deref());
    let postal = address
        .postal_code
        .as_ref()
        .and_then(|c| c.value.as_deref());
    let state = address.state.as_ref().and_then(|c| c.value.as_deref());
    for line in &lines {
        add(PhiKind::AddressLine, line);
    }
    // A city or state on its own is not identifying (HIPAA's safe harbour keeps the state), but a
    // city is kept in the vault so the guard can see a whole address being reassembled.
    if let Some(city) = city {
        add(PhiKind::City, city);
    }
    if let Some(postal) = postal {
        add(PhiKind::PostalCode, postal);
    }
    if let Some(text) = address.text.as_ref().and_then(|t| t.value.as_deref()) {
        add(whole, text);
    }
    let parts: Vec<&str> = lines
        .iter()
        .copied()
        .chain(city)
        .chain(state)
        .chain(postal)
        .collect();
    if !parts.is_empty() {
        add(whole, &parts.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::ingest::documents::build_all;
    use crate::ingest::parse::{parse_message, ParseLimits};

    fn shared() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
    }

    fn synthea(id: &str) -> Flattened {
        let path = shared().join(format!("synthea/blaze-synthea-2.7.0-120p/{id}.json.bz2"));
        let mut bytes = Vec::new();
        bzip2::read::MultiBzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_end(&mut bytes)
            .unwrap();
        let parsed = parse_message(&bytes, ParseLimits::default()).unwrap();
        assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
        flatten(&parsed.entries)
    }

    /// The sentences of the fact stored for resource `id`.
    fn sentences_of(f: &Flattened, id: &str) -> String {
        f.facts
            .iter()
            .find(|x| x.resource_id == id)
            .unwrap_or_else(|| panic!("no fact for {id}"))
            .sentences
            .clone()
    }

    fn parsed(json: &str) -> Flattened {
        let parsed = parse_message(json.as_bytes(), ParseLimits::default()).unwrap();
        assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
        flatten_parsed(&parsed, FreeText::Drop)
    }

    #[test]
    fn a_stay_says_how_many_days_it_lasted() {
        let json = r#"{"resourceType": "Bundle", "type": "collection", "entry": [
          {"fullUrl": "urn:uuid:p1", "resource": {"resourceType": "Patient", "id": "p1"}},
          {"resource": {"resourceType": "Encounter", "id": "stay", "status": "finished",
             "class": {"code": "IMP"}, "subject": {"reference": "urn:uuid:p1"},
             "period": {"start": "2020-02-25T23:10:00-05:00", "end": "2020-03-05T08:00:00-05:00"}}},
          {"resource": {"resourceType": "Encounter", "id": "visit", "status": "finished",
             "class": {"code": "AMB"}, "subject": {"reference": "urn:uuid:p1"},
             "period": {"start": "2020-02-25T09:00:00-05:00", "end": "2020-02-25T09:15:00-05:00"}}},
          {"resource": {"resourceType": "Encounter", "id": "open", "status": "in-progress",
             "class": {"code": "IMP"}, "subject": {"reference": "urn:uuid:p1"},
             "period": {"start": "2020-02-25T09:00:00-05:00"}}}
        ]}"#;
        let f = parsed(json);
        // Local dates, as written: February 2020 had 29 days, so 9 nights.
        assert_eq!(
            sentences_of(&f, "stay"),
            "Class is inpatient. Status is finished. Length of stay is 9 days."
        );
        // A visit within one day, and a stay not yet over, have no length.
        assert!(!sentences_of(&f, "visit").contains("Length"));
        assert!(!sentences_of(&f, "open").contains("Length"));
        assert_eq!(
            stay_days(Some("2020-02-28"), Some("2020-02-29T01:00:00Z")),
            Some(1)
        );
        assert_eq!(stay_days(Some("2020-03"), Some("2020-03-09")), None);
    }

    #[test]
    fn an_older_export_loses_nothing() {
        let json = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/stu3/older-synthea-bundle.json"),
        )
        .unwrap();
        let f = parsed(&json);
        assert_eq!(f.source, "https://ehr-a.example.org/fhir");
        let by_type = |t: &str| f.facts.iter().find(|x| x.resource_type == t).unwrap();
        let immunization = by_type("Immunization");
        assert_eq!(immunization.day, NaiveDate::from_ymd_opt(2014, 10, 21));
        let condition = by_type("Condition");
        assert!(
            condition.sentences.contains("Clinical status is active")
                && condition
                    .sentences
                    .contains("Verification status is confirmed"),
            "{}",
            condition.sentences
        );
        let allergy = by_type("AllergyIntolerance");
        assert!(allergy.sentences.contains("Clinical status is active"));
        assert_eq!(
            allergy.event_date.as_deref(),
            Some("1980-03-04T10:00:00-05:00")
        );
        let procedure = by_type("Procedure");
        assert!(
            procedure.sentences.contains("Status is not-done"),
            "{}",
            procedure.sentences
        );
    }

    #[test]
    fn a_bare_marital_status_code_is_said_in_words() {
        let json = r##"{"resourceType": "Bundle", "entry": [
          {"resource": {"resourceType": "Patient", "id": "p1", "gender": "male",
             "maritalStatus": {"coding": [{"system":
               "http://terminology.hl7.org/CodeSystem/v3-MaritalStatus", "code": "M"}]}}},
          {"resource": {"resourceType": "Patient", "id": "p2",
             "maritalStatus": {"coding": [{"code": "W"}]}}},
          {"resource": {"resourceType": "Patient", "id": "p3",
             "maritalStatus": {"coding": [{"system": "http://example.org/local", "code": "M"}]}}},
          {"resource": {"resourceType": "Patient", "id": "p4",
             "maritalStatus": {"coding": [{"code": "S", "display": "Single"}]}}}
        ]}"##;
        let f = parsed(json);
        assert_eq!(
            sentences_of(&f, "p1"),
            "Gender is male. Marital status is Married."
        );
        assert_eq!(sentences_of(&f, "p2"), "Marital status is Widowed.");
        // Another system's "M" is not HL7's: said as written.
        assert_eq!(sentences_of(&f, "p3"), "Marital status is M.");
        assert_eq!(sentences_of(&f, "p4"), "Marital status is Single.");
    }

    #[test]
    fn a_device_says_what_it_is_never_who_made_it_or_its_numbers() {
        let json = r##"{"resourceType": "Bundle", "entry": [
          {"fullUrl": "urn:uuid:p1", "resource": {"resourceType": "Patient", "id": "p1"}},
          {"resource": {"resourceType": "Device", "id": "d1", "status": "active",
             "udiCarrier": [{"deviceIdentifier": "83132202513818",
                             "carrierHRF": "(01)83132202513818(11)200226(21)8944423856665161"}],
             "distinctIdentifier": "83132202513818", "manufacturer": "Acme Cardiac",
             "manufactureDate": "2020-02-26T02:17:39+01:00", "lotNumber": "16765578575016",
             "serialNumber": "8944423856665161", "modelNumber": "PM-7",
             "deviceName": [{"name": "Pacemaker", "type": "user-friendly-name"}],
             "type": {"coding": [{"system": "http://snomed.info/sct", "code": "706004007",
                                  "display": "Implantable cardiac pacemaker (physical object)"}]},
             "patient": {"reference": "urn:uuid:p1"}}},
          {"resource": {"resourceType": "Device", "id": "d2", "status": "inactive",
             "type": {"coding": [{"display": "Contraceptive intrauterine device"}]},
             "patient": {"reference": "urn:uuid:p1"}}},
          {"resource": {"resourceType": "Device", "id": "d3", "serialNumber": "123",
             "patient": {"reference": "urn:uuid:p1"}}},
          {"resource": {"resourceType": "Device", "id": "d5",
             "deviceName": [{"name": "Dr Okafor's loaner pump", "type": "user-friendly-name"}],
             "patient": {"reference": "urn:uuid:p1"}}},
          {"resource": {"resourceType": "Device", "id": "d4", "status": "entered-in-error",
             "type": {"coding": [{"display": "Insulin pump"}]},
             "patient": {"reference": "urn:uuid:p1"}}}
        ]}"##;
        let f = parsed(json);
        assert_eq!(
            sentences_of(&f, "d1"),
            "Device is Implantable cardiac pacemaker (physical object). Status is active."
        );
        assert_eq!(
            sentences_of(&f, "d2"),
            "Device is Contraceptive intrauterine device. Status is inactive."
        );
        // No kind of device named (a name alone is free text, dropped by default), or entered
        // in error: nothing to say.
        let devices: Vec<_> = f
            .facts
            .iter()
            .filter(|x| x.resource_type == "Device")
            .collect();
        assert_eq!(devices.len(), 2, "{devices:?}");
        for device in devices {
            assert!(device.day.is_none(), "a summary fact");
            for never in ["8313", "8944", "1676", "Acme", "PM-7", "2020", "Okafor"] {
                assert!(!device.sentences.contains(never), "{never}: {device:?}");
            }
        }
    }

    #[test]
    fn a_medication_reference_names_the_drug() {
        let json = r##"{"resourceType": "Bundle", "entry": [
          {"fullUrl": "urn:uuid:p1", "resource": {"resourceType": "Patient", "id": "p1"}},
          {"fullUrl": "urn:uuid:med1", "resource": {"resourceType": "Medication", "id": "med1",
             "code": {"coding": [{"display": "0.4 ML Enoxaparin sodium 100 MG/ML Prefilled Syringe"}]}}},
          {"resource": {"resourceType": "Medication", "id": "med2",
             "code": {"coding": [{"display": "Heparin 5000 UNT/ML"}]}}},
          {"resource": {"resourceType": "MedicationRequest", "id": "r1", "status": "active",
             "intent": "order", "subject": {"reference": "urn:uuid:p1"},
             "medicationReference": {"reference": "urn:uuid:med1"}}},
          {"resource": {"resourceType": "MedicationRequest", "id": "r2", "status": "active",
             "intent": "order", "subject": {"reference": "urn:uuid:p1"},
             "medicationReference": {"reference": "https://ehr.example/fhir/Medication/med2"}}},
          {"resource": {"resourceType": "MedicationRequest", "id": "r3", "status": "active",
             "intent": "order", "subject": {"reference": "urn:uuid:p1"},
             "contained": [{"resourceType": "Medication", "id": "c1",
                            "code": {"coding": [{"display": "Insulin glargine 100 UNT/ML"}]}}],
             "medicationReference": {"reference": "#c1"}}},
          {"resource": {"resourceType": "MedicationRequest", "id": "r4", "status": "active",
             "intent": "order", "subject": {"reference": "urn:uuid:p1"},
             "medicationReference": {"reference": "Medication/elsewhere", "display": "Metformin 500 MG"}}}
        ]}"##;
        let f = parsed(json);
        let medication = |id: &str| sentences_of(&f, id);
        for (id, name) in [
            ("r1", "0.4 ML Enoxaparin sodium 100 MG/ML Prefilled Syringe"),
            ("r2", "Heparin 5000 UNT/ML"),
            ("r3", "Insulin glargine 100 UNT/ML"),
            ("r4", "Metformin 500 MG"),
        ] {
            let sentences = medication(id);
            assert!(
                sentences.starts_with(&format!("Medication is {name}.")),
                "{id}: {sentences}"
            );
        }
        // Medications are looked up, never facts of their own.
        assert!(f.facts.iter().all(|x| x.resource_type != "Medication"));
    }

    #[test]
    fn a_medication_procedure_or_visit_names_the_condition_it_was_for() {
        let json = r#"{"resourceType": "Bundle", "entry": [
          {"fullUrl": "urn:uuid:p1", "resource": {"resourceType": "Patient", "id": "p1"}},
          {"fullUrl": "urn:uuid:c1", "resource": {"resourceType": "Condition",
             "code": {"coding": [{"display": "Acute bronchitis (disorder)"}]},
             "subject": {"reference": "urn:uuid:p1"}}},
          {"resource": {"resourceType": "Condition", "id": "c2",
             "code": {"coding": [{"display": "Sinusitis (disorder)"}]},
             "subject": {"reference": "urn:uuid:p1"}}},
          {"resource": {"resourceType": "MedicationRequest", "id": "m1", "status": "stopped",
             "intent": "order", "subject": {"reference": "urn:uuid:p1"},
             "medicationCodeableConcept": {"coding": [{"display": "Amoxicillin 250 MG"}]},
             "reasonReference": [{"reference": "urn:uuid:c1"},
                                 {"reference": "https://ehr.example/fhir/Condition/c2"}]}},
          {"resource": {"resourceType": "MedicationRequest", "id": "m2", "status": "active",
             "intent": "order", "subject": {"reference": "urn:uuid:p1"},
             "medicationCodeableConcept": {"coding": [{"display": "Aspirin 81 MG"}]},
             "reasonReference": [{"reference": "Condition/elsewhere", "display": "Angina"}]}},
          {"resource": {"resourceType": "Procedure", "id": "pr1", "status": "completed",
             "subject": {"reference": "urn:uuid:p1"},
             "code": {"coding": [{"display": "Sinus irrigation"}]},
             "reasonCode": [{"coding": [{"display": "Sinusitis (disorder)"}]}],
             "reasonReference": [{"reference": "Condition/c2"}, {"reference": "urn:uuid:c1"}]}},
          {"resource": {"resourceType": "Encounter", "id": "e1", "status": "finished",
             "class": {"code": "AMB"}, "subject": {"reference": "urn:uuid:p1"},
             "reasonReference": [{"reference": "urn:uuid:c1"}]}}
        ]}"#;
        let f = parsed(json);
        let medication = |id: &str| sentences_of(&f, id);
        // A procedure and a visit the same way; a condition both coded and referenced once.
        assert_eq!(
            sentences_of(&f, "pr1"),
            "Procedure is Sinus irrigation. Status is completed. Reason is Sinusitis (disorder); \
             Acute bronchitis (disorder)."
        );
        assert!(
            sentences_of(&f, "e1").ends_with("Reason is Acute bronchitis (disorder)."),
            "{}",
            sentences_of(&f, "e1")
        );
        assert!(
            medication("m1")
                .ends_with("Reason is Acute bronchitis (disorder); Sinusitis (disorder)."),
            "{}",
            medication("m1")
        );
        assert!(
            medication("m2").ends_with("Reason is Angina."),
            "{}",
            medication("m2")
        );
    }

    #[test]
    fn a_refuted_allergy_is_not_said_to_be_an_allergy() {
        let allergy = |id: &str, verification: &str| {
            format!(
                r#"{{"resource": {{"resourceType": "AllergyIntolerance", "id": "{id}",
                   "patient": {{"reference": "Patient/p1"}},
                   "verificationStatus": {{"coding": [{{"code": "{verification}"}}]}},
                   "code": {{"coding": [{{"display": "Peanut (substance)"}}]}}}}}}"#
            )
        };
        let json = format!(
            r#"{{"resourceType": "Bundle", "entry": [{}, {}, {}]}}"#,
            allergy("a1", "confirmed"),
            allergy("a2", "refuted"),
            allergy("a3", "unconfirmed")
        );
        let f = parsed(&json);
        assert_eq!(sentences_of(&f, "a1"), "Allergy is Peanut (substance).");
        let refuted = sentences_of(&f, "a2");
        assert!(
            refuted.starts_with("Refuted allergy (ruled out) is Peanut")
                && refuted.contains("Verification status is refuted"),
            "{refuted}"
        );
        assert!(
            sentences_of(&f, "a3").starts_with("Suspected allergy (unconfirmed) is Peanut"),
            "{}",
            sentences_of(&f, "a3")
        );
    }

    #[test]
    fn a_revised_result_says_so() {
        let json = r#"{"resourceType": "Bundle", "entry": [
            {"resource": {"resourceType": "Observation", "id": "o1", "status": "amended",
               "code": {"coding": [{"display": "Body Weight"}]}, "subject": {"reference": "Patient/p1"},
               "effectiveDateTime": "2020-01-02", "valueQuantity": {"value": 70, "unit": "kg"}}},
            {"resource": {"resourceType": "Observation", "id": "o2", "status": "final",
               "code": {"coding": [{"display": "Body Height"}]}, "subject": {"reference": "Patient/p1"},
               "effectiveDateTime": "2020-01-02", "valueQuantity": {"value": 170, "unit": "cm"}}}]}"#;
        let f = parsed(json);
        assert!(
            f.facts[0].sentences.contains("Status is amended"),
            "{}",
            f.facts[0].sentences
        );
        assert!(
            !f.facts[1].sentences.contains("Status"),
            "{}",
            f.facts[1].sentences
        );
    }

    #[test]
    fn corrections_become_retractions() {
        let json = r#"{"resourceType": "Bundle", "type": "transaction", "entry": [
            {"request": {"method": "DELETE", "url": "Condition/c1"}},
            {"request": {"method": "DELETE", "url": "https://ehr.example/fhir/Observation/o1/_history/3"}},
            {"fullUrl": "Observation/o2", "request": {"method": "PUT", "url": "Observation/o2"},
             "resource": {"resourceType": "Observation", "id": "o2", "status": "entered-in-error",
               "code": {"text": "x"}, "subject": {"reference": "Patient/p1"}}},
            {"resource": {"resourceType": "Condition", "id": "c2",
               "verificationStatus": {"coding": [{"code": "entered-in-error"}]},
               "code": {"text": "x"}, "subject": {"reference": "Patient/p1"}}},
            {"resource": {"resourceType": "Condition", "id": "c3",
               "code": {"coding": [{"display": "Asthma"}]}, "subject": {"reference": "Patient/p1"}}}
        ]}"#;
        let f = parsed(json);
        let retracted: Vec<(&str, &str, RetractionReason)> = f
            .retractions
            .iter()
            .map(|r| (r.resource_type.as_str(), r.resource_id.as_str(), r.reason))
            .collect();
        assert_eq!(
            retracted,
            vec![
                ("Observation", "o2", RetractionReason::EnteredInError),
                ("Condition", "c2", RetractionReason::EnteredInError),
                ("Condition", "c1", RetractionReason::Deleted),
                ("Observation", "o1", RetractionReason::Deleted),
            ]
        );
        assert_eq!(f.facts.len(), 1, "only the valid condition is a fact");
        // A conditional delete cannot be resolved: a rejected entry, not a silent skip.
        let conditional = r#"{"resourceType": "Bundle", "entry": [
            {"request": {"method": "DELETE", "url": "Condition?identifier=abc"}}]}"#;
        let parsed = parse_message(conditional.as_bytes(), ParseLimits::default()).unwrap();
        assert_eq!(parsed.rejected.len(), 1);
        assert!(parsed.rejected[0].reason.contains("conditional DELETE"));
        // A tombstone names the patient to erase.
        let t = tombstone("Patient/p9", "").unwrap();
        assert_eq!(t.retractions[0].resource_type, "Patient");
        assert_eq!(t.retractions[0].resource_id, "p9");
        assert!(tombstone("  ", "").is_none());
    }

    #[test]
    fn odd_ids_and_values_are_made_storable() {
        let huge: String = (0..3000)
            .map(|i| format!(r#"{{"code": {{"text": "c{i}"}}, "valueString": "v{i}"}}"#))
            .collect::<Vec<_>>()
            .join(",");
        let json = format!(
            r#"{{"resourceType": "Bundle", "entry": [
            {{"resource": {{"resourceType": "Patient", "id": "p\u0000x",
               "name": [{{"family": "Nul\u0000son", "given": ["{long}"]}}]}}}},
            {{"resource": {{"resourceType": "Observation", "id": "o\u00001", "status": "final",
               "code": {{"coding": [{{"display": "Panel"}}]}}, "subject": {{"reference": "Patient/p\u0000x"}},
               "effectiveDateTime": "2020-01-02", "component": [{huge}]}}}}]}}"#,
            long = "a".repeat(5000)
        );
        let f = parsed(&json);
        let patient = &f.patients[0];
        assert!(patient.fhir_id.starts_with("sha256:"));
        for entry in &patient.vault {
            let value = entry.value.expose();
            assert!(!value.contains('\0') && value.chars().count() <= crate::phi::MAX_VALUE_CHARS);
        }
        let observation = f
            .facts
            .iter()
            .find(|x| x.resource_type == "Observation")
            .unwrap();
        assert!(observation.resource_id.starts_with("sha256:"));
        assert_eq!(
            observation.patient, patient.fhir_id,
            "the reference maps to the same id"
        );
        assert!(observation.sentences.chars().count() <= MAX_FACT_CHARS);
        assert!(observation.sentences.contains("more statements left out"));
    }

    #[test]
    fn a_message_splits_into_storable_halves() {
        let f = synthea_sample();
        let n = f.pieces();
        let (left, right) = f.split().unwrap();
        assert_eq!(left.pieces() + right.pieces(), n);
        assert_eq!(left.pieces(), n / 2);
        let mut one = f.clone();
        one.facts.truncate(1);
        one.patients.clear();
        one.parties.clear();
        assert!(one.split().is_none());
        assert!(one.describe().starts_with("a "));
    }

    fn synthea_sample() -> Flattened {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/synthea");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut bytes = Vec::new();
        bzip2::read::MultiBzDecoder::new(std::fs::File::open(&files[0]).unwrap())
            .read_to_end(&mut bytes)
            .unwrap();
        let parsed = parse_message(&bytes, ParseLimits::default()).unwrap();
        flatten_parsed(&parsed, FreeText::Drop)
    }

    fn hl7_example(name: &str) -> Flattened {
        let bytes =
            std::fs::read(shared().join("fhir-r4/hl7-r4-examples-4.0.1").join(name)).unwrap();
        let parsed = parse_message(&bytes, ParseLimits::default()).unwrap();
        flatten(&parsed.entries)
    }

    const SMALL_PATIENT: &str = "8a4c9c04-1524-9f1c-d65b-9b17e4520fef";

    #[test]
    fn blood_pressure_is_read_from_its_components() {
        let flat = synthea(SMALL_PATIENT);
        let bp = flat
            .facts
            .iter()
            .find(|f| f.sentences.contains("Code is Blood Pressure"))
            .expect("a blood pressure observation");
        assert_eq!(
            bp.sentences,
            "Category is vital-signs. Code is Blood Pressure. Diastolic Blood Pressure is 83 mm[Hg]. \
             Systolic Blood Pressure is 118 mm[Hg]."
        );
        assert_eq!(bp.day, NaiveDate::from_ymd_opt(2021, 4, 3));
    }

    #[test]
    fn coded_values_use_their_display() {
        let flat = synthea("d1193889-ebd9-4e35-bf1b-8a73ecbfc00b");
        let coded = flat
            .facts
            .iter()
            .find(|f| {
                f.resource_type == "Observation" && f.sentences.contains("Tobacco smoking status")
            })
            .expect("a smoking-status observation");
        assert_eq!(
            coded.sentences,
            "Category is survey. Code is Tobacco smoking status NHIS. Value is Never smoker."
        );
    }

    #[test]
    fn the_day_is_the_local_date_as_written_not_utc() {
        // 2011-08-08T00:16:52+02:00 is 2011-08-07 in UTC; a clinician means the 8th.
        let flat = synthea("d1193889-ebd9-4e35-bf1b-8a73ecbfc00b");
        let fact = flat
            .facts
            .iter()
            .find(|f| f.resource_id == "6947417e-1d6a-9a98-6f9e-67f8bbdcf1d9")
            .unwrap();
        assert_eq!(fact.day, NaiveDate::from_ymd_opt(2011, 8, 8));
        assert!(fact.sentences.contains("Code is Body Height"));
    }

    #[test]
    fn names_with_digit_suffixes_go_to_the_vault_only() {
        let flat = synthea(SMALL_PATIENT);
        assert_eq!(flat.patients.len(), 1);
        let vault: Vec<(&str, &str)> = flat.patients[0]
            .vault
            .iter()
            .map(|e| (e.kind.as_str(), e.value.expose()))
            .collect();
        for expected in [
            ("given_name", "Zandra428"),
            ("family_name", "O'Hara248"),
            ("full_name", "Zandra428 O'Hara248"),
            ("birth_date", "2021-04-03"),
        ] {
            assert!(
                vault.contains(&expected),
                "{expected:?} missing from {vault:?}"
            );
        }
        for kind in ["ssn", "mrn", "phone", "address_line"] {
            assert!(
                vault.iter().any(|(k, _)| *k == kind),
                "no {kind} in the vault"
            );
        }
        for fact in &flat.facts {
            for (_, value) in &vault {
                assert!(
                    !fact.sentences.contains(value),
                    "a vault value leaked into a fact"
                );
            }
        }
    }

    #[test]
    fn observations_without_a_value_say_so() {
        // Synthea always records a value; HL7's examples have the absent ones.
        let flat = hl7_example("Observation-blood-pressure-dar.json");
        // Coded displays, not the concepts' free text ("Blood pressure systolic & diastolic").
        assert_eq!(flat.facts[0].sentences, "Category is Vital Signs. Code is Blood pressure panel with all children optional. Systolic blood pressure is 107 mmHg. \
             Diastolic blood pressure is absent (Not Performed). Interpretation is low.");
        let flat = hl7_example("Observation-unsat.json");
        assert_eq!(flat.facts[0].sentences, "Code is Glucose [Moles/volume] in Blood. Status is cancelled. Value is absent (Specimen unsatisfactory for evaluation).");
    }

    #[test]
    fn a_free_text_value_dropped_is_no_missing_value() {
        let json = r#"{"resourceType": "Bundle", "entry": [
            {"resource": {"resourceType": "Patient", "id": "p1"}},
            {"resource": {"resourceType": "Observation", "id": "o1", "status": "final",
               "code": {"coding": [{"system": "http://loinc.org", "code": "71802-3",
                                    "display": "Housing status"}]},
               "subject": {"reference": "Patient/p1"}, "effectiveDateTime": "2016-10-04",
               "valueString": "Patient is homeless"}}]}"#;
        let flat = parsed(json);
        let observation = &flat
            .facts
            .iter()
            .find(|f| f.resource_type == "Observation")
            .unwrap()
            .sentences;
        assert_eq!(
            observation,
            "Code is Housing status. Value is free text, not kept."
        );
    }

    #[test]
    fn references_resolve_to_the_patient_id() {
        assert_eq!(
            patient_id_from_reference("urn:uuid:abc").as_deref(),
            Some("abc")
        );
        assert_eq!(
            patient_id_from_reference("Patient/p1").as_deref(),
            Some("p1")
        );
        assert_eq!(
            patient_id_from_reference("https://ehr/fhir/Patient/p2/_history/3").as_deref(),
            Some("p2")
        );
        assert_eq!(patient_id_from_reference("Group/g1"), None);
        assert_eq!(patient_id_from_reference("#contained"), None);
    }

    /// Snapshot of every document one real patient yields. Regenerate with
    /// `UPDATE_SNAPSHOTS=1 cargo test --lib snapshot` and review the diff.
    #[test]
    fn snapshot_of_a_small_patients_documents() {
        let flat = synthea(SMALL_PATIENT);
        let mut text = String::new();
        for ((_, day), document) in build_all(&flat.facts) {
            text.push_str(&format!(
                "=== {}\n{}\n",
                day.map(|d| d.to_string()).unwrap_or("summary".into()),
                document.text()
            ));
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("src/ingest/snapshots/{SMALL_PATIENT}.txt"));
        if std::env::var("UPDATE_SNAPSHOTS").is_ok() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let expected = std::fs::read_to_string(&path)
            .expect("snapshot file (run with UPDATE_SNAPSHOTS=1 once)");
        assert_eq!(text, expected);
    }
}
