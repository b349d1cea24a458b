//! `fhir-rag-harness eval answers`: is the answer itself right?
//!
//! The expected answers come from the archive's raw bundles, read here with `serde_json` alone
//! (not through the ingest's parser, flattener or store), and the checks read the published
//! answer text with their own number and word matching (not the generalization code): a
//! question's expected value must appear rounded to the published precision, its month as
//! "March 2015", its medication, condition or procedure by every word of its name, its count as
//! a number, an age as its ten-year band. Unanswerable questions must come back `not_found`.
//!
//! Three sets: `answerable` (canonical wording, the patient's full name and ISO dates),
//! `paraphrased` (the same kinds of facts asked in other words: lower case, a first name alone,
//! "March 4th, 2015", "in early 2017", "at the last visit", units spelled out; its templates are
//! read from `eval/answer-paraphrases*.json` ([`Paraphrases`]), written by reviewers who did not
//! read the answering code,
//! apart from the retrieval question generator of [`super::questions`]) and
//! `unanswerable` (a day in a month with no record: a day is answered for its month; a condition
//! the patient does not have, a reading never taken, something no record holds). Care-team
//! questions come from a requester whose panel holds the patient and seven others; cohort
//! questions from a cohort role over every patient.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::{Datelike, NaiveDate};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::Value;

use fhir_rag::answer::contract::{AnswerStatus, Mode, Query, QueryOptions, Requester};
use fhir_rag::answer::engine::AnswerEngine;

/// A kind of reading the questions ask about: its display in the archive, its name in a
/// canonical question, its name in a paraphrase, and its unit spelled out.
struct ReadingKind {
    display: &'static str,
    named: &'static str,
    spoken: &'static str,
    unit_words: &'static str,
}

const READING_KINDS: &[ReadingKind] = &[
    ReadingKind {
        display: "Body Weight",
        named: "body weight",
        spoken: "weight",
        unit_words: "kilograms",
    },
    ReadingKind {
        display: "Body Height",
        named: "body height",
        spoken: "height",
        unit_words: "centimeters",
    },
    ReadingKind {
        display: "Heart rate",
        named: "heart rate",
        spoken: "pulse",
        unit_words: "beats per minute",
    },
    ReadingKind {
        display: "Respiratory rate",
        named: "respiratory rate",
        spoken: "breathing rate",
        unit_words: "breaths per minute",
    },
    ReadingKind {
        display: "Body Mass Index",
        named: "body mass index",
        spoken: "BMI",
        unit_words: "kilograms per square meter",
    },
    ReadingKind {
        display: "Systolic Blood Pressure",
        named: "systolic blood pressure",
        spoken: "systolic pressure",
        unit_words: "millimeters of mercury",
    },
    ReadingKind {
        display: "Diastolic Blood Pressure",
        named: "diastolic blood pressure",
        spoken: "diastolic pressure",
        unit_words: "millimeters of mercury",
    },
    ReadingKind {
        display: "Glucose",
        named: "glucose",
        spoken: "blood sugar",
        unit_words: "milligrams per deciliter",
    },
    ReadingKind {
        display: "Hemoglobin A1c/Hemoglobin.total in Blood",
        named: "hemoglobin A1c",
        spoken: "HbA1c",
        unit_words: "percent",
    },
    ReadingKind {
        display: "Total Cholesterol",
        named: "total cholesterol",
        spoken: "cholesterol level",
        unit_words: "milligrams per deciliter",
    },
    ReadingKind {
        display: "Body temperature",
        named: "body temperature",
        spoken: "temperature",
        unit_words: "degrees Celsius",
    },
    ReadingKind {
        display: "Creatinine",
        named: "creatinine",
        spoken: "creatinine level",
        unit_words: "milligrams per deciliter",
    },
];

/// Things no record here holds (asked of a named patient).
const NOT_IN_ANY_RECORD: &[&str] = &[
    "What is {}'s blood type?",
    "What is {}'s favorite food?",
    "Which shoe size does {} wear?",
    "What is {}'s eye color?",
    "Which car does {} drive?",
];

/// Conditions no patient of a Synthea archive has (asked of a named patient).
const RARE_CONDITIONS: &[&str] = &[
    "cystic fibrosis",
    "multiple sclerosis",
    "leprosy",
    "narcolepsy",
    "sickle cell disease",
];

/// A reading taken from a raw bundle.
#[derive(Clone, Debug)]
struct RawReading {
    display: String,
    day: NaiveDate,
    value: f64,
    unit: String,
}

/// A coded item (condition, medication, procedure, allergy) from a raw bundle.
#[derive(Clone, Debug)]
struct RawItem {
    name: String,
    day: Option<NaiveDate>,
    /// Conditions the record gives as the reason (medications).
    reasons: Vec<String>,
}

/// One patient as the raw bundle has it.
#[derive(Clone, Debug, Default)]
pub struct PatientTruth {
    id: String,
    given: String,
    family: String,
    birth: Option<NaiveDate>,
    death: Option<NaiveDate>,
    readings: Vec<RawReading>,
    conditions: Vec<RawItem>,
    medications: Vec<RawItem>,
    procedures: Vec<RawItem>,
    allergies: Vec<RawItem>,
    /// Every day any date in the bundle falls on.
    days: BTreeSet<NaiveDate>,
}

impl PatientTruth {
    fn name(&self) -> String {
        format!("{} {}", self.given, self.family)
    }
}

fn concept_name(concept: &Value) -> Option<String> {
    concept["coding"]
        .as_array()
        .and_then(|c| c.iter().find_map(|c| c["display"].as_str()))
        .or_else(|| concept["text"].as_str())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn day_of(value: &Value) -> Option<NaiveDate> {
    let text = value.as_str()?;
    NaiveDate::parse_from_str(text.get(..10)?, "%Y-%m-%d").ok()
}

fn collect_days(value: &Value, out: &mut BTreeSet<NaiveDate>) {
    match value {
        Value::String(_) => out.extend(day_of(value)),
        Value::Array(items) => items.iter().for_each(|v| collect_days(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_days(v, out)),
        _ => {}
    }
}

/// Reads one bundle; None when it holds no Patient.
fn patient_of(bundle: &Value) -> Option<PatientTruth> {
    let entries = bundle["entry"].as_array()?;
    let patient = entries
        .iter()
        .map(|e| &e["resource"])
        .find(|r| r["resourceType"] == "Patient")?;
    let names = patient["name"].as_array()?;
    let name = names
        .iter()
        .find(|n| n["use"] == "official")
        .or_else(|| names.first())?;
    let mut truth = PatientTruth {
        id: patient["id"].as_str()?.to_string(),
        given: name["given"][0].as_str()?.to_string(),
        family: name["family"].as_str()?.to_string(),
        birth: day_of(&patient["birthDate"]),
        death: day_of(&patient["deceasedDateTime"]),
        ..Default::default()
    };
    let conditions_by_url: BTreeMap<String, String> = entries
        .iter()
        .filter(|e| e["resource"]["resourceType"] == "Condition")
        .filter_map(|e| {
            let name = concept_name(&e["resource"]["code"])?;
            Some((e["fullUrl"].as_str()?.to_string(), name))
        })
        .collect();
    for entry in entries {
        let r = &entry["resource"];
        let kind = r["resourceType"].as_str().unwrap_or_default();
        if kind != "Patient" {
            collect_days(r, &mut truth.days);
        }
        match kind {
            "Observation" => {
                let Some(day) = day_of(&r["effectiveDateTime"]) else {
                    continue;
                };
                let mut push = |code: &Value, quantity: &Value| {
                    if let (Some(display), Some(value)) =
                        (concept_name(code), quantity["value"].as_f64())
                    {
                        truth.readings.push(RawReading {
                            display,
                            day,
                            value,
                            unit: quantity["unit"].as_str().unwrap_or_default().to_string(),
                        });
                    }
                };
                push(&r["code"], &r["valueQuantity"]);
                for component in r["component"].as_array().into_iter().flatten() {
                    push(&component["code"], &component["valueQuantity"]);
                }
            }
            "Condition" => {
                if let Some(name) = concept_name(&r["code"]) {
                    truth.conditions.push(RawItem {
                        name,
                        day: day_of(&r["onsetDateTime"]).or_else(|| day_of(&r["recordedDate"])),
                        reasons: Vec::new(),
                    });
                }
            }
            "MedicationRequest" => {
                if let Some(name) = concept_name(&r["medicationCodeableConcept"]) {
                    let mut reasons: Vec<String> = r["reasonReference"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|reference| {
                            conditions_by_url
                                .get(reference["reference"].as_str()?)
                                .cloned()
                        })
                        .collect();
                    reasons.extend(
                        r["reasonCode"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(concept_name),
                    );
                    truth.medications.push(RawItem {
                        name,
                        day: day_of(&r["authoredOn"]),
                        reasons,
                    });
                }
            }
            "Procedure" => {
                if let Some(name) = concept_name(&r["code"]) {
                    truth.procedures.push(RawItem {
                        name,
                        day: day_of(&r["performedPeriod"]["start"])
                            .or_else(|| day_of(&r["performedDateTime"])),
                        reasons: Vec::new(),
                    });
                }
            }
            "AllergyIntolerance" => {
                if let Some(name) = concept_name(&r["code"]) {
                    truth.allergies.push(RawItem {
                        name,
                        day: day_of(&r["recordedDate"]),
                        reasons: Vec::new(),
                    });
                }
            }
            _ => {}
        }
    }
    Some(truth)
}

/// Every patient of a folder of bundles, in file order.
pub fn read_archive(source: &Path) -> anyhow::Result<Vec<PatientTruth>> {
    let mut out = Vec::new();
    for path in fhir_rag::backfill::list_files(source)? {
        let Ok(bytes) = fhir_rag::backfill::read_file(&path) else {
            continue;
        };
        let Ok(bundle) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        out.extend(patient_of(&bundle));
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// What the answer must hold.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Expect {
    /// A measured value, to the published precision, with its unit.
    Value { value: f64, unit: String },
    /// A month ("March 2015").
    Month { year: i32, month: u32 },
    /// Every one of these names (medications, conditions, procedures, allergies).
    Names { names: Vec<String> },
    /// A number of patients.
    Count { count: usize },
    /// A ten-year age band.
    AgeBand { age: u32 },
    /// Nothing: the answer must be `not_found`.
    NotFound,
}

/// Which set a question belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Set {
    Answerable,
    Paraphrased,
    Unanswerable,
}

/// Who asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Asker {
    /// A clinician whose panel holds the patient.
    CareTeam,
    /// A researcher over every patient.
    Cohort,
}

/// One question with its expected answer.
#[derive(Clone, Debug, Serialize)]
pub struct AnswerQuestion {
    /// Which set.
    pub set: Set,
    /// What it asks ("reading_on_day", "latest_reading", …).
    pub kind: &'static str,
    /// Who asks.
    pub asker: Asker,
    /// The question.
    pub question: String,
    /// The patients the requester may see (care team); None: every patient (cohort role).
    pub panel: Option<Vec<String>>,
    /// What the answer must hold.
    pub expect: Expect,
}

/// Age in whole years on `on`.
fn age_on(birth: NaiveDate, on: NaiveDate) -> u32 {
    let mut age = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        age -= 1;
    }
    age.max(0) as u32
}

/// A display without its semantic tag: "Acute bronchitis (disorder)" → "Acute bronchitis".
fn plain(name: &str) -> String {
    match name.rfind(" (") {
        Some(i) if name.ends_with(')') => name[..i].trim().to_string(),
        _ => name.trim().to_string(),
    }
}

/// "March 4th, 2015".
fn spelled_day(day: NaiveDate) -> String {
    let d = day.day();
    let suffix = match (d % 10, d % 100) {
        (1, n) if n != 11 => "st",
        (2, n) if n != 12 => "nd",
        (3, n) if n != 13 => "rd",
        _ => "th",
    };
    format!("{} {d}{suffix}, {}", month_name(day.month()), day.year())
}

fn month_name(month: u32) -> &'static str {
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ][(month as usize + 11) % 12]
}

/// Whether a reading's display is of a kind: the kind's name, or that name with LOINC's
/// qualifiers ("Glucose [Mass/volume] in Serum or Plasma" is glucose too).
fn is_kind(display: &str, kind: &str) -> bool {
    display == kind
        || display
            .strip_prefix(kind)
            .is_some_and(|rest| rest.starts_with(" ["))
}

/// Readings of a kind alone in their month. A question naming a day is answered for its month
/// (answers carry months, and a search narrowed to a day would tell what happened on that day),
/// so a month with two readings of one kind has no single answer and is left out.
fn single_readings<'a>(patient: &'a PatientTruth, display: &str) -> Vec<&'a RawReading> {
    let mut by_month: BTreeMap<(i32, u32), Vec<&RawReading>> = BTreeMap::new();
    for r in patient
        .readings
        .iter()
        .filter(|r| is_kind(&r.display, display))
    {
        by_month
            .entry((r.day.year(), r.day.month()))
            .or_default()
            .push(r);
    }
    by_month
        .into_values()
        .filter(|v| v.len() == 1)
        .map(|v| v[0])
        .collect()
}

/// A panel of `size` patients holding `index`, drawn with `rng`.
fn panel_of(
    patients: &[PatientTruth],
    index: usize,
    size: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<String> {
    let mut others: Vec<usize> = (0..patients.len()).filter(|i| *i != index).collect();
    others.shuffle(rng);
    let mut panel: Vec<String> = others
        .into_iter()
        .take(size.saturating_sub(1))
        .map(|i| patients[i].id.clone())
        .collect();
    panel.push(patients[index].id.clone());
    panel.sort();
    panel
}

/// The name without its digits, lower-cased ("Aaron697" → "aaron").
fn bare(word: &str) -> String {
    word.chars()
        .filter(|c| !c.is_ascii_digit())
        .collect::<String>()
        .to_lowercase()
}

/// How a paraphrase names the patient: the first name alone (without the digits Synthea adds)
/// when no one else on the panel shares it and a coin says so, else the full name in lower case.
fn spoken_name(
    patients: &[PatientTruth],
    index: usize,
    panel: &[String],
    rng: &mut ChaCha8Rng,
) -> String {
    let given = bare(&patients[index].given);
    let shared = patients
        .iter()
        .enumerate()
        .any(|(i, p)| i != index && panel.contains(&p.id) && bare(&p.given) == given);
    if shared || rng.random_bool(0.3) {
        patients[index].name().to_lowercase()
    } else {
        given
    }
}

/// Paraphrase templates per kind of question (`{patient}`, `{reading}`, `{unit}`, `{day}`,
/// `{period}`, `{month}`, `{condition}` placeholders), written apart from the code that answers
/// them: `eval/answer-paraphrases.json` (dev), `-heldout.json` and `-blind.json` (each written
/// after the previous set's first run had been used to fix the answer path), `-unseen.json`
/// and `-fresh.json` (each the estimate for unseen wordings at its first run only).
pub type Paraphrases = BTreeMap<String, Vec<String>>;

/// Reads a paraphrase file.
pub fn read_paraphrases(path: &Path) -> anyhow::Result<Paraphrases> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// A question of `kind` worded by a template drawn from `templates`.
fn paraphrase(
    templates: &Paraphrases,
    kind: &str,
    fills: &[(&str, String)],
    rng: &mut ChaCha8Rng,
) -> String {
    let template = templates
        .get(kind)
        .and_then(|t| t.choose(rng))
        .cloned()
        .unwrap_or_default();
    fills.iter().fold(template, |text, (slot, value)| {
        text.replace(&format!("{{{slot}}}"), value)
    })
}

/// A paraphrase template's placeholders and their values.
type Fills = Vec<(&'static str, String)>;

/// The question sets (deterministic for a seed).
pub fn generate(
    patients: &[PatientTruth],
    today: NaiveDate,
    per_patient: usize,
    seed: u64,
    min_cohort: usize,
    templates: &Paraphrases,
) -> Vec<AnswerQuestion> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let all_conditions: BTreeSet<String> = patients
        .iter()
        .flat_map(|p| p.conditions.iter().map(|c| plain(&c.name)))
        .collect();
    for (index, patient) in patients.iter().enumerate() {
        let panel = panel_of(patients, index, 8, &mut rng);
        let name = patient.name();
        let mut care = |set: Set, kind: &'static str, question: String, expect: Expect| {
            out.push(AnswerQuestion {
                set,
                kind,
                asker: Asker::CareTeam,
                question,
                panel: Some(panel.clone()),
                expect,
            })
        };
        let mut canonical: Vec<(&'static str, String, Expect)> = Vec::new();
        // Facts to paraphrase: a kind and its placeholders' values, worded later by a template
        // of eval/answer-paraphrases.json.
        let mut paraphrased: Vec<(&'static str, Fills, Expect)> = Vec::new();
        let spoken = spoken_name(patients, index, &panel, &mut rng);
        // Readings: one on a day, the latest.
        let mut kinds: Vec<&ReadingKind> = READING_KINDS
            .iter()
            .filter(|k| {
                patient
                    .readings
                    .iter()
                    .any(|r| is_kind(&r.display, k.display))
            })
            .collect();
        kinds.shuffle(&mut rng);
        for kind in kinds.iter().take(2) {
            let singles = single_readings(patient, kind.display);
            if let Some(reading) = singles.choose(&mut rng) {
                let expect = Expect::Value {
                    value: reading.value,
                    unit: reading.unit.clone(),
                };
                canonical.push((
                    "reading_on_day",
                    format!("What was {name}'s {} on {}?", kind.named, reading.day),
                    expect.clone(),
                ));
                paraphrased.push((
                    if rng.random_bool(0.5) {
                        "reading_on_day_unit"
                    } else {
                        "reading_on_day"
                    },
                    vec![
                        ("patient", spoken.clone()),
                        ("reading", kind.spoken.to_string()),
                        ("unit", kind.unit_words.to_string()),
                        ("day", spelled_day(reading.day)),
                    ],
                    expect,
                ));
            }
            let all: Vec<&RawReading> = patient
                .readings
                .iter()
                .filter(|r| is_kind(&r.display, kind.display))
                .collect();
            let last_day = all.iter().map(|r| r.day).max();
            let latest: Vec<&&RawReading> =
                all.iter().filter(|r| Some(r.day) == last_day).collect();
            if latest.len() == 1 {
                let expect = Expect::Value {
                    value: latest[0].value,
                    unit: latest[0].unit.clone(),
                };
                canonical.push((
                    "latest_reading",
                    format!("What is {name}'s most recent {}?", kind.named),
                    expect.clone(),
                ));
                paraphrased.push((
                    "latest_reading",
                    vec![
                        ("patient", spoken.clone()),
                        ("reading", kind.spoken.to_string()),
                    ],
                    expect,
                ));
            }
            // "In early 2017": a third of a year holding exactly one reading of this kind.
            let mut thirds: BTreeMap<(i32, u32), Vec<&RawReading>> = BTreeMap::new();
            for r in &all {
                thirds
                    .entry((r.day.year(), (r.day.month() - 1) / 4))
                    .or_default()
                    .push(r);
            }
            let lone: Vec<&Vec<&RawReading>> = thirds.values().filter(|v| v.len() == 1).collect();
            if let Some(v) = lone.choose(&mut rng) {
                let r = v[0];
                let third = ["early", "mid", "late"][((r.day.month() - 1) / 4) as usize];
                paraphrased.push((
                    "reading_in_period",
                    vec![
                        ("patient", spoken.clone()),
                        ("reading", kind.spoken.to_string()),
                        ("period", format!("{third} {}", r.day.year())),
                    ],
                    Expect::Value {
                        value: r.value,
                        unit: r.unit.clone(),
                    },
                ));
            }
        }
        // First diagnosis of a condition.
        let mut onsets: BTreeMap<String, NaiveDate> = BTreeMap::new();
        for c in &patient.conditions {
            if let Some(day) = c.day {
                let entry = onsets.entry(plain(&c.name)).or_insert(day);
                *entry = (*entry).min(day);
            }
        }
        let onset_list: Vec<(&String, &NaiveDate)> = onsets.iter().collect();
        if let Some((condition, day)) = onset_list.choose(&mut rng) {
            let expect = Expect::Month {
                year: day.year(),
                month: day.month(),
            };
            canonical.push((
                "first_diagnosis",
                format!("When was {name} first diagnosed with {condition}?"),
                expect.clone(),
            ));
            paraphrased.push((
                "first_diagnosis",
                vec![
                    ("patient", spoken.clone()),
                    ("condition", condition.to_lowercase()),
                ],
                expect,
            ));
        }
        // Procedures on a day (at most three different ones that day's month: the day is
        // answered for its month).
        let mut procedure_months: BTreeMap<(i32, u32), (NaiveDate, BTreeSet<String>)> =
            BTreeMap::new();
        for p in &patient.procedures {
            if let Some(day) = p.day {
                procedure_months
                    .entry((day.year(), day.month()))
                    .or_insert_with(|| (day, BTreeSet::new()))
                    .1
                    .insert(plain(&p.name));
            }
        }
        let small: Vec<(&NaiveDate, &BTreeSet<String>)> = procedure_months
            .values()
            .filter(|(_, names)| names.len() <= 3)
            .map(|(day, names)| (day, names))
            .collect();
        if let Some((day, names)) = small.choose(&mut rng) {
            let expect = Expect::Names {
                names: names.iter().cloned().collect(),
            };
            canonical.push((
                "procedures_on_day",
                format!("Which procedures did {name} have on {day}?"),
                expect.clone(),
            ));
            paraphrased.push((
                "procedures_on_day",
                vec![("patient", spoken.clone()), ("day", spelled_day(**day))],
                expect,
            ));
        }
        // Medications prescribed in a month (at most three different ones that month).
        let mut medication_months: BTreeMap<(i32, u32), BTreeSet<String>> = BTreeMap::new();
        for m in &patient.medications {
            if let Some(day) = m.day {
                medication_months
                    .entry((day.year(), day.month()))
                    .or_default()
                    .insert(plain(&m.name));
            }
        }
        let small: Vec<(&(i32, u32), &BTreeSet<String>)> = medication_months
            .iter()
            .filter(|(_, names)| names.len() <= 3)
            .collect();
        if let Some(((year, month), names)) = small.choose(&mut rng) {
            let expect = Expect::Names {
                names: names.iter().cloned().collect(),
            };
            canonical.push((
                "medications_in_month",
                format!(
                    "Which medications was {name} prescribed in {} {year}?",
                    month_name(*month)
                ),
                expect.clone(),
            ));
            let month = if rng.random_bool(0.5) {
                month_name(*month).to_string()
            } else {
                month_name(*month)[..3].to_lowercase()
            };
            paraphrased.push((
                "medications_in_month",
                vec![
                    ("patient", spoken.clone()),
                    ("month", format!("{month} {year}")),
                ],
                expect,
            ));
        }
        // Allergies (when there are at most three).
        let allergies: BTreeSet<String> =
            patient.allergies.iter().map(|a| plain(&a.name)).collect();
        if !allergies.is_empty() && allergies.len() <= 3 {
            let expect = Expect::Names {
                names: allergies.into_iter().collect(),
            };
            canonical.push((
                "allergies",
                format!("What allergies does {name} have?"),
                expect.clone(),
            ));
            paraphrased.push(("allergies", vec![("patient", spoken.clone())], expect));
        }
        // Age band.
        if let Some(birth) = patient.birth {
            let age = age_on(birth, patient.death.unwrap_or(today));
            canonical.push((
                "age",
                format!("How old is {name}?"),
                Expect::AgeBand { age },
            ));
            paraphrased.push((
                "age",
                vec![("patient", spoken.clone())],
                Expect::AgeBand { age },
            ));
        }
        canonical.shuffle(&mut rng);
        for (kind, question, expect) in canonical.into_iter().take(per_patient) {
            care(Set::Answerable, kind, question, expect);
        }
        paraphrased.shuffle(&mut rng);
        for (kind, fills, expect) in paraphrased.into_iter().take(2) {
            let question = paraphrase(templates, kind, &fills, &mut rng);
            let kind = kind.trim_end_matches("_unit");
            care(Set::Paraphrased, kind, question, expect);
        }

        // Unanswerable: one of each kind, drawn.
        let mut unanswerable: Vec<(&'static str, String)> = Vec::new();
        if let (Some(first), Some(last)) = (patient.days.first(), patient.days.last()) {
            let span = (*last - *first).num_days().max(1);
            for _ in 0..50 {
                let day = *first + chrono::Duration::days(rng.random_range(0..span));
                // Nothing in that day's whole month (the day is answered for its month).
                let month = day.with_day(1).unwrap_or(day);
                let next = month
                    .checked_add_months(chrono::Months::new(1))
                    .unwrap_or(month);
                let near = patient.days.range(month..next).next().is_some();
                if !near {
                    let kind = kinds.choose(&mut rng).map_or("body weight", |k| k.named);
                    unanswerable.push((
                        "reading_on_empty_day",
                        format!("What was {name}'s {kind} on {day}?"),
                    ));
                    break;
                }
            }
        }
        // A condition the patient does not have, sharing no telling word with any they have
        // (not "sinusitis" for a patient with viral sinusitis).
        let own: BTreeSet<String> = patient
            .conditions
            .iter()
            .flat_map(|c| letter_words(&plain(&c.name)))
            .filter(|w| w.len() >= 4)
            .collect();
        let absent: Vec<&String> = all_conditions
            .iter()
            .filter(|c| {
                letter_words(c)
                    .iter()
                    .all(|w| w.len() < 4 || !own.contains(w))
            })
            .collect();
        if let Some(condition) = absent.choose(&mut rng) {
            unanswerable.push((
                "condition_not_had",
                format!("When was {name} diagnosed with {condition}?"),
            ));
        }
        let never: Vec<&ReadingKind> = READING_KINDS
            .iter()
            .filter(|k| {
                !patient
                    .readings
                    .iter()
                    .any(|r| is_kind(&r.display, k.display))
            })
            .collect();
        if let Some(kind) = never.choose(&mut rng) {
            unanswerable.push((
                "reading_never_taken",
                format!("What is {name}'s most recent {}?", kind.named),
            ));
        }
        if let Some(template) = NOT_IN_ANY_RECORD.choose(&mut rng) {
            unanswerable.push(("not_in_any_record", template.replace("{}", &name)));
        }
        if let Some(condition) = RARE_CONDITIONS.choose(&mut rng) {
            unanswerable.push(("rare_condition", format!("Does {name} have {condition}?")));
        }
        unanswerable.shuffle(&mut rng);
        for (kind, question) in unanswerable.into_iter().take(2) {
            care(Set::Unanswerable, kind, question, Expect::NotFound);
        }
    }
    out.extend(cohort_questions(patients, min_cohort, templates, &mut rng));
    out
}

/// Cohort questions: how many patients have a condition, and which medications are given for
/// it (each by at least `min_cohort` patients, so that the answer may show it).
fn cohort_questions(
    patients: &[PatientTruth],
    min_cohort: usize,
    templates: &Paraphrases,
    rng: &mut ChaCha8Rng,
) -> Vec<AnswerQuestion> {
    let mut with: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut given_for: BTreeMap<String, BTreeMap<String, BTreeSet<&str>>> = BTreeMap::new();
    for p in patients {
        for c in &p.conditions {
            with.entry(plain(&c.name)).or_default().insert(&p.id);
        }
        for m in &p.medications {
            for reason in &m.reasons {
                given_for
                    .entry(plain(reason))
                    .or_default()
                    .entry(plain(&m.name))
                    .or_default()
                    .insert(&p.id);
            }
        }
    }
    let mut out = Vec::new();
    let mut cohort = |set: Set, kind: &'static str, question: String, expect: Expect| {
        out.push(AnswerQuestion {
            set,
            kind,
            asker: Asker::Cohort,
            question,
            panel: None,
            expect,
        })
    };
    // "Patients with sinusitis" are those with any condition whose name holds every word of
    // "sinusitis" (viral sinusitis, chronic sinusitis), as a clinician would count them.
    let holding = |asked: &str| -> usize {
        let asked = letter_words(asked);
        patients
            .iter()
            .filter(|p| {
                p.conditions
                    .iter()
                    .any(|c| asked.is_subset(&letter_words(&plain(&c.name))))
            })
            .count()
    };
    let mut large: Vec<(&String, usize)> = with
        .keys()
        .map(|c| (c, holding(c)))
        .filter(|(_, n)| *n >= min_cohort)
        .collect();
    large.shuffle(rng);
    for (i, (condition, count)) in large.iter().take(40).enumerate() {
        cohort(
            Set::Answerable,
            "cohort_count",
            format!("How many patients have {condition}?"),
            Expect::Count { count: *count },
        );
        if i % 2 == 0 {
            cohort(
                Set::Paraphrased,
                "cohort_count",
                paraphrase(
                    templates,
                    "cohort_count",
                    &[("condition", condition.to_lowercase())],
                    rng,
                ),
                Expect::Count { count: *count },
            );
        }
    }
    for (condition, medications) in &given_for {
        let Some((top, n)) = medications
            .iter()
            .map(|(m, p)| (m, p.len()))
            .max_by_key(|(m, n)| (*n, std::cmp::Reverse(*m)))
        else {
            continue;
        };
        if n < min_cohort || with.get(condition).map_or(0, |p| p.len()) < min_cohort {
            continue;
        }
        cohort(
            Set::Answerable,
            "cohort_medication",
            format!("What medications are patients with {condition} given for it?"),
            Expect::Names {
                names: vec![top.clone()],
            },
        );
        cohort(
            Set::Paraphrased,
            "cohort_medication",
            paraphrase(
                templates,
                "cohort_medication",
                &[("condition", condition.to_lowercase())],
                rng,
            ),
            Expect::Names {
                names: vec![top.clone()],
            },
        );
    }
    for template in ["What is the average shoe size of patients with {}?"] {
        for (condition, _) in large.iter().take(10) {
            cohort(
                Set::Unanswerable,
                "cohort_not_in_any_record",
                template.replace("{}", condition),
                Expect::NotFound,
            );
        }
    }
    out
}

/// Numbers written in a text: each with whether it is one end of a range ("78 to 82",
/// "78-82") and the text right after it.
fn numbers(text: &str) -> Vec<(f64, bool, &str)> {
    static NUMBER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\d+(?:\.\d+)?(?:\s*(?:to|-|–)\s*\d+(?:\.\d+)?)?")
            .expect("valid number regex")
    });
    static PART: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\d+(?:\.\d+)?").expect("valid"));
    let mut out = Vec::new();
    for m in NUMBER.find_iter(text) {
        let parts: Vec<f64> = PART
            .find_iter(m.as_str())
            .filter_map(|p| p.as_str().parse().ok())
            .collect();
        let range = parts.len() > 1 && parts.windows(2).any(|w| w[0] != w[1]);
        for p in parts {
            out.push((p, range, &text[m.end()..]));
        }
    }
    out
}

/// Whether `shown` is `value` written to the published precision: whole numbers from 10 up,
/// one decimal from 1 to 10, two significant digits below 1.
fn same_value(shown: f64, value: f64) -> bool {
    let tolerance = if value.abs() >= 10.0 {
        0.5
    } else if value.abs() >= 1.0 {
        0.05
    } else {
        value.abs() * 0.05
    };
    (shown - value.abs()).abs() <= tolerance + 1e-9
}

/// Lower-case words of letters (numbers dropped: doses are rounded like any value).
fn letter_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
        .collect()
}

/// Whether an answer is right for what was expected.
pub fn check(expect: &Expect, status: AnswerStatus, answer: &str) -> bool {
    if *expect == Expect::NotFound {
        return status == AnswerStatus::NotFound;
    }
    if status != AnswerStatus::Answered {
        return false;
    }
    match expect {
        // The value and its unit together: "81 kg", not a bare 81 somewhere in a list.
        Expect::Value { value, unit } => numbers(answer).iter().any(|(n, range, after)| {
            !range
                && same_value(*n, *value)
                && after
                    .trim_start()
                    .to_lowercase()
                    .starts_with(&unit.to_lowercase())
        }),
        Expect::Month { year, month } => {
            let month = format!("{} {year}", month_name(*month));
            answer.contains(&month)
        }
        // Every word of each name; words holding digits (doses, which are rounded like any
        // value, and product codes such as "NDA020503", which the guard may redact as an
        // identifier) are left out.
        Expect::Names { names } => {
            let words = letter_words(answer);
            names.iter().all(|name| {
                let wordy: Vec<&str> = name
                    .split_whitespace()
                    .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
                    .collect();
                letter_words(&wordy.join(" "))
                    .iter()
                    .all(|w| words.contains(w))
            })
        }
        Expect::Count { count } => numbers(answer).iter().any(|(n, _, _)| *n == *count as f64),
        Expect::AgeBand { age } => {
            if *age >= 90 {
                answer.contains("90")
            } else {
                let low = age / 10 * 10;
                let high = low + 9;
                numbers(answer)
                    .windows(2)
                    .any(|w| w[0].0 == low as f64 && w[1].0 == high as f64)
            }
        }
        Expect::NotFound => unreachable!("handled above"),
    }
}

/// The rank (1 = first) of the first retrieved document that holds the expected answer, 0 when
/// none does; `None` when a document cannot hold it alone (a count, an age band, nothing). A
/// stored document writes the raw value with its unit ("Value is 81.34 kg") and its day as an
/// ISO date ("Record of 2015-03-04"), so a month is looked for as "2015-03".
pub fn answer_rank(expect: &Expect, retrieved: &[String]) -> Option<usize> {
    let holds = |text: &str| match expect {
        Expect::Value { .. } | Expect::Names { .. } => check(expect, AnswerStatus::Answered, text),
        Expect::Month { year, month } => text.contains(&format!("{year:04}-{month:02}")),
        Expect::Count { .. } | Expect::AgeBand { .. } | Expect::NotFound => false,
    };
    match expect {
        Expect::Count { .. } | Expect::AgeBand { .. } | Expect::NotFound => None,
        _ => Some(
            retrieved
                .iter()
                .position(|text| holds(text))
                .map_or(0, |i| i + 1),
        ),
    }
}

/// One question's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The question.
    #[serde(flatten)]
    pub question: AnswerQuestion,
    /// The answer's status.
    pub status: String,
    /// The answer.
    pub answer: String,
    /// Whether it is right.
    pub correct: bool,
    /// Model calls made.
    pub llm_calls: u32,
    /// For a care team's answerable question about a reading, a month or names: the rank (1 =
    /// first) of the first retrieved document holding the expected answer, 0 when none does.
    /// `None` for questions a document cannot answer alone (counts, ages, abstentions).
    pub rank: Option<usize>,
}

/// Figures of one set (or one slice of it).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SetFigures {
    /// Questions asked.
    pub questions: usize,
    /// Right answers.
    pub correct: usize,
    /// correct / questions (`accuracy`, or `correct_abstention` for the unanswerable set).
    pub accuracy: f64,
    /// Mean model calls per answer.
    pub llm_calls_per_answer: f64,
    /// Questions with a rank (see [`Outcome::rank`]).
    pub ranked: usize,
    /// Mean reciprocal rank of the document holding the answer (0 for none retrieved), over
    /// the ranked questions.
    pub mrr: f64,
}

impl SetFigures {
    fn of<'a>(outcomes: impl Iterator<Item = &'a Outcome>) -> SetFigures {
        let mut f = SetFigures::default();
        let mut calls = 0u64;
        let mut reciprocal = 0.0;
        for o in outcomes {
            f.questions += 1;
            f.correct += usize::from(o.correct);
            calls += u64::from(o.llm_calls);
            if let Some(rank) = o.rank {
                f.ranked += 1;
                if rank > 0 {
                    reciprocal += 1.0 / rank as f64;
                }
            }
        }
        if f.questions > 0 {
            f.accuracy = f.correct as f64 / f.questions as f64;
            f.llm_calls_per_answer = calls as f64 / f.questions as f64;
        }
        if f.ranked > 0 {
            f.mrr = reciprocal / f.ranked as f64;
        }
        f
    }
}

/// One backend's run over a question set.
#[derive(Clone, Debug, Serialize)]
pub struct BackendRun {
    /// The backend.
    pub backend: String,
    /// Questions asked (every n-th of the set).
    pub every: usize,
    /// Per set.
    pub sets: BTreeMap<String, SetFigures>,
    /// Per set and asker.
    pub by_asker: BTreeMap<String, SetFigures>,
    /// Per set and kind of question.
    pub by_kind: BTreeMap<String, SetFigures>,
    /// Every question with its answer.
    pub outcomes: Vec<Outcome>,
}

/// Asks every `every`-th question through `engine` and checks the answers.
pub async fn run(
    engine: &AnswerEngine,
    questions: &[AnswerQuestion],
    every: usize,
    mode: Mode,
) -> anyhow::Result<BackendRun> {
    let care_role = engine
        .config()
        .care_team_roles
        .first()
        .cloned()
        .unwrap_or_else(|| "clinician".into());
    let cohort_role = engine
        .config()
        .cohort_roles
        .first()
        .cloned()
        .unwrap_or_else(|| "researcher".into());
    // Each run starts with no cohort remembered for the overlap control (the evaluation's
    // requesters are reused across runs); within a run it applies as to anyone.
    for i in 0..16 {
        engine.forget_cohorts(&format!("eval-answers-{i}")).await?;
    }
    let mut outcomes = Vec::new();
    for (i, question) in questions.iter().enumerate().step_by(every.max(1)) {
        let query = Query {
            query_id: format!("{}-eval-answers-{i}", super::run_tag()),
            requester: Requester {
                id: format!("eval-answers-{}", i % 16),
                role: match question.asker {
                    Asker::CareTeam => care_role.clone(),
                    Asker::Cohort => cohort_role.clone(),
                },
                patients: question.panel.clone(),
            },
            question: question.question.clone(),
            options: QueryOptions {
                mode,
                ..QueryOptions::default()
            },
        };
        let (sealed, trace) = engine.answer_traced(&query).await?;
        let (answer, _) = sealed.into_parts();
        let rank = match question.asker {
            Asker::CareTeam => answer_rank(&question.expect, &trace.retrieved),
            Asker::Cohort => None,
        };
        outcomes.push(Outcome {
            rank,
            correct: check(&question.expect, answer.status, &answer.answer),
            question: question.clone(),
            status: answer.status.as_str().to_string(),
            answer: answer.answer,
            llm_calls: answer.llm_calls,
        });
    }
    let set_name = |s: Set| match s {
        Set::Answerable => "answerable",
        Set::Paraphrased => "paraphrased",
        Set::Unanswerable => "unanswerable",
    };
    let asker_name = |a: Asker| match a {
        Asker::CareTeam => "care_team",
        Asker::Cohort => "cohort",
    };
    let mut sets = BTreeMap::new();
    let mut by_asker = BTreeMap::new();
    let mut by_kind = BTreeMap::new();
    for set in [Set::Answerable, Set::Paraphrased, Set::Unanswerable] {
        sets.insert(
            set_name(set).to_string(),
            SetFigures::of(outcomes.iter().filter(|o| o.question.set == set)),
        );
        for asker in [Asker::CareTeam, Asker::Cohort] {
            let f = SetFigures::of(
                outcomes
                    .iter()
                    .filter(|o| o.question.set == set && o.question.asker == asker),
            );
            if f.questions > 0 {
                by_asker.insert(format!("{}/{}", set_name(set), asker_name(asker)), f);
            }
        }
        let kinds: BTreeSet<&str> = outcomes
            .iter()
            .filter(|o| o.question.set == set)
            .map(|o| o.question.kind)
            .collect();
        for kind in kinds {
            by_kind.insert(
                format!("{}/{kind}", set_name(set)),
                SetFigures::of(
                    outcomes
                        .iter()
                        .filter(|o| o.question.set == set && o.question.kind == kind),
                ),
            );
        }
    }
    Ok(BackendRun {
        backend: engine.backend_name(),
        every: every.max(1),
        sets,
        by_asker,
        by_kind,
        outcomes,
    })
}

/// The Markdown report.
pub fn markdown(runs: &[BackendRun], patients: usize, stamp: &str) -> String {
    let mut md = format!(
        "# Answers checked against the archive\n\n{stamp}\n\n{patients} patients. Expected answers \
         read from the raw bundles (not through the ingest); an answer is right when it holds the \
         expected value at the published precision with its unit, the month, every word of the \
         expected names, the count, or the age band; unanswerable questions must be `not_found`. MRR: \
         the reciprocal rank of the first retrieved document holding the expected reading, month or \
         names (care-team questions of those kinds; 0 when no retrieved document holds it).\n\n"
    );
    for run in runs {
        md.push_str(&format!(
            "## {} (every {} question{})\n\n| set | questions | right | accuracy | model calls per answer | MRR (ranked) |\n|---|---|---|---|---|---|\n",
            run.backend,
            run.every,
            if run.every == 1 { "" } else { "s" }
        ));
        for (name, f) in run.sets.iter().chain(&run.by_asker).chain(&run.by_kind) {
            let mrr = if f.ranked > 0 {
                format!("{:.3} ({})", f.mrr, f.ranked)
            } else {
                "–".into()
            };
            md.push_str(&format!(
                "| {name} | {} | {} | {:.3} | {:.2} | {mrr} |\n",
                f.questions, f.correct, f.accuracy, f.llm_calls_per_answer
            ));
        }
        md.push_str("\nWrong answers (first 40):\n\n");
        for o in run.outcomes.iter().filter(|o| !o.correct).take(40) {
            md.push_str(&format!(
                "- [{:?}/{}] {} → {}: {}\n",
                o.question.set,
                o.question.kind,
                o.question.question,
                o.status,
                o.answer.replace('\n', " ")
            ));
        }
        md.push('\n');
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_is_that_of_the_first_document_holding_the_answer() {
        let retrieved = vec![
            "Record of 2015-02-01.\nCode is Body Weight. Value is 70.2 kg.".to_string(),
            "Record of 2015-03-04.\nCode is Body Weight. Value is 81.34 kg.".to_string(),
        ];
        let weight = Expect::Value {
            value: 81.34,
            unit: "kg".into(),
        };
        assert_eq!(answer_rank(&weight, &retrieved), Some(2));
        let month = Expect::Month {
            year: 2015,
            month: 2,
        };
        assert_eq!(answer_rank(&month, &retrieved), Some(1));
        let absent = Expect::Names {
            names: vec!["Amoxicillin 250 MG".into()],
        };
        assert_eq!(answer_rank(&absent, &retrieved), Some(0));
        assert_eq!(answer_rank(&Expect::Count { count: 3 }, &retrieved), None);
        assert_eq!(answer_rank(&Expect::NotFound, &retrieved), None);
    }

    #[test]
    fn values_match_at_the_published_precision_and_ranges_do_not_count() {
        let expect = Expect::Value {
            value: 81.34,
            unit: "kg".into(),
        };
        assert!(check(
            &expect,
            AnswerStatus::Answered,
            "Body Weight is 81 kg (March 2017)."
        ));
        assert!(!check(
            &expect,
            AnswerStatus::Answered,
            "Body Weight is 80 to 82 kg."
        ));
        assert!(!check(
            &expect,
            AnswerStatus::Answered,
            "Body Weight is 81."
        ));
        assert!(!check(&expect, AnswerStatus::NotFound, "81 kg"));
        let small = Expect::Value {
            value: 5.84,
            unit: "%".into(),
        };
        assert!(check(&small, AnswerStatus::Answered, "A1c is 5.8 %"));
        assert!(!check(&small, AnswerStatus::Answered, "A1c is 6 %"));
    }

    #[test]
    fn names_months_counts_and_bands() {
        let names = Expect::Names {
            names: vec!["Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet".into()],
        };
        assert!(check(
            &names,
            AnswerStatus::Answered,
            "Medication is amoxicillin 250 MG / clavulanate 125 MG Oral Tablet."
        ));
        assert!(!check(
            &names,
            AnswerStatus::Answered,
            "Medication is Amoxicillin."
        ));
        let month = Expect::Month {
            year: 2015,
            month: 3,
        };
        assert!(check(&month, AnswerStatus::Answered, "since March 2015"));
        assert!(!check(&month, AnswerStatus::Answered, "since May 2015"));
        let count = Expect::Count { count: 12 };
        assert!(check(&count, AnswerStatus::Answered, "12 patients."));
        assert!(!check(&count, AnswerStatus::Answered, "120 patients."));
        let band = Expect::AgeBand { age: 47 };
        assert!(check(&band, AnswerStatus::Answered, "aged 40 to 49"));
        assert!(!check(&band, AnswerStatus::Answered, "aged 50 to 59"));
        assert!(check(&Expect::NotFound, AnswerStatus::NotFound, ""));
        assert!(!check(&Expect::NotFound, AnswerStatus::Answered, "none"));
    }

    #[test]
    fn reads_a_bundle_and_generates_every_set() {
        let bundle = serde_json::json!({"resourceType": "Bundle", "entry": [
            {"fullUrl": "urn:uuid:p", "resource": {"resourceType": "Patient", "id": "p1",
              "name": [{"use": "official", "given": ["Ann12"], "family": "Lee34"}],
              "birthDate": "1970-05-02"}},
            {"fullUrl": "urn:uuid:c", "resource": {"resourceType": "Condition",
              "code": {"coding": [{"display": "Acute bronchitis (disorder)"}]},
              "onsetDateTime": "2015-03-04T10:00:00Z"}},
            {"resource": {"resourceType": "MedicationRequest", "authoredOn": "2015-03-04",
              "medicationCodeableConcept": {"coding": [{"display": "Acetaminophen 325 MG Oral Tablet"}]},
              "reasonReference": [{"reference": "urn:uuid:c"}]}},
            {"resource": {"resourceType": "Observation", "effectiveDateTime": "2015-03-04",
              "code": {"coding": [{"display": "Body Weight"}]},
              "valueQuantity": {"value": 70.2, "unit": "kg"}}},
            {"resource": {"resourceType": "Observation", "effectiveDateTime": "2016-07-01",
              "code": {"coding": [{"display": "Blood Pressure"}]},
              "component": [{"code": {"coding": [{"display": "Systolic Blood Pressure"}]},
                             "valueQuantity": {"value": 120, "unit": "mm[Hg]"}}]}}
        ]});
        let patient = patient_of(&bundle).expect("a patient");
        assert_eq!(patient.name(), "Ann12 Lee34");
        assert_eq!(patient.readings.len(), 2);
        assert_eq!(
            patient.medications[0].reasons,
            ["Acute bronchitis (disorder)"]
        );
        let today = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        let templates = read_paraphrases(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/answer-paraphrases.json"),
        )
        .unwrap();
        let questions = generate(&[patient], today, 5, 1, 1, &templates);
        for set in [Set::Answerable, Set::Paraphrased, Set::Unanswerable] {
            assert!(questions.iter().any(|q| q.set == set), "{set:?}");
        }
        let age = questions.iter().find(|q| q.kind == "age");
        assert!(age.is_none_or(|q| q.expect == Expect::AgeBand { age: 55 }));
        assert!(questions.iter().any(|q| q.kind == "cohort_medication"
            && q.expect
                == Expect::Names {
                    names: vec!["Acetaminophen 325 MG Oral Tablet".into()]
                }));
    }
}
