//! Cohort answers: what a cohort role (a researcher, an analyst) may learn. Counts of patients
//! per medication, condition, allergy, procedure or immunization, and medians and middle halves
//! of readings (the latest per patient); every figure stands for at least `k` patients, the
//! cohort itself included. No patient is described, no pseudonym is given, nothing is said
//! about a group smaller than `k`: "fewer than k patients" and "no patient" read the same.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use sha2::{Digest, Sha256};
use sqlx::{PgPool, Row};

use super::document::SyntheticDocument;
use super::population::Population;
use super::question::{Extreme, QuestionAnalysis};
use super::search::{self, Scope};
use crate::dp::{aggregate, Noise};
use crate::privacy::generalize::{format_value, generalize_text, Reading};
use crate::store::StoreError;

/// Most items listed per kind of fact.
const TOP: usize = 10;

/// What a cohort question is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Topic {
    Medications,
    Conditions,
    Allergies,
    Procedures,
    Immunizations,
    Readings,
    /// "How many patients have …": the cohort's size alone.
    Count,
    Overview,
}

/// Words that ask how many, not about what.
pub(crate) const COUNT_WORDS: &[&str] = &[
    "many",
    "count",
    "number",
    "cohort",
    "common",
    "frequent",
    "prevalence",
    "patient",
    "people",
    "total",
    // "at least one", "one or more".
    "least",
    "more",
    // How the count is qualified ("distinct patients", "the size of the cohort").
    "distinct",
    "unique",
    "different",
    "individual",
    "separate",
    "size",
    "large",
    "big",
    // Where the cohort is ("in the hospital", "in our records"), never what is asked.
    "hospital",
    "hospitals",
    "clinic",
    "record",
    "records",
    "database",
    "practice",
    "population",
    "group",
    "everyone",
    "registry",
    "archive",
    "dataset",
    "data",
    "system",
    "overall",
    "altogether",
];

impl Topic {
    fn of(analysis: &QuestionAnalysis) -> Topic {
        // The condition's words choose the cohort, not the topic ("how many patients have
        // hypertension" asks for a count, not for hypertension readings).
        let condition_words = analysis
            .condition
            .as_deref()
            .map(super::question::line_terms)
            .unwrap_or_default();
        let terms: Vec<&String> = analysis
            .terms
            .iter()
            .filter(|t| !condition_words.contains(*t))
            .collect();
        let has = |t: &str| terms.iter().any(|x| *x == t);
        if has("medication") {
            Topic::Medications
        } else if has("allergy") {
            Topic::Allergies
        } else if has("procedure") {
            Topic::Procedures
        } else if has("immunization") {
            Topic::Immunizations
        } else if has("condition") {
            Topic::Conditions
        } else if terms
            .iter()
            .any(|t| !COUNT_WORDS.contains(&t.as_str()) && !super::question::is_generic(t))
        {
            Topic::Readings
        } else if !terms.is_empty() {
            Topic::Count
        } else {
            Topic::Overview
        }
    }

    /// (resource type, the sentence's leading subject) of the facts counted.
    fn facts(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Topic::Medications => ("MedicationRequest", "Medication is "),
            Topic::Conditions => ("Condition", "Condition is "),
            Topic::Allergies => ("AllergyIntolerance", "Allergy is "),
            Topic::Procedures => ("Procedure", "Procedure is "),
            Topic::Immunizations => ("Immunization", "Immunization is "),
            Topic::Readings | Topic::Count | Topic::Overview => return None,
        })
    }
}

/// The first sentence's object: "Medication is Acetaminophen 325 MG Oral Tablet. Status is …"
/// → "Acetaminophen 325 MG Oral Tablet".
fn head<'a>(sentences: &'a str, lead: &str) -> Option<&'a str> {
    let rest = sentences.strip_prefix(lead)?;
    let end = rest
        .match_indices(". ")
        .map(|(i, _)| i)
        .next()
        .unwrap_or(rest.len());
    Some(rest[..end].trim_end_matches('.'))
}

/// The cohort a question is about: the patients in scope with its condition, or the whole scope.
pub(crate) async fn cohort(
    pool: &PgPool,
    scope: &Scope,
    condition: Option<&str>,
) -> Result<Vec<i64>, StoreError> {
    Ok(match condition {
        Some(condition) => match super::question::kind_named_alone(condition) {
            Some((kind, opening)) => search::kind_patients(pool, kind, opening, scope).await?,
            None => search::condition_patients(pool, condition, scope, i64::MAX as usize).await?,
        },
        None => match scope {
            Scope::Patients(keys) => keys.clone(),
            Scope::All => {
                sqlx::query_scalar("SELECT patient_key FROM patients ORDER BY patient_key")
                    .fetch_all(pool)
                    .await?
            }
        },
    })
}

/// A cohort about to be answered to a requester without noise, for the overlap control.
#[derive(Clone, Debug)]
pub struct AskedCohort<'a> {
    /// The requester, as [`super::contract::requester_key`] writes it.
    pub requester: String,
    /// The patient list the requester sent, `None` for every patient ([`overlap`] sorts it and
    /// drops repeats).
    pub list: Option<Vec<i64>>,
    /// The condition as read, "" for none.
    pub condition: &'a str,
    /// The cohort's patients ([`overlap`] sorts them and drops repeats).
    pub patients: &'a [i64],
}

/// Which of `parts` parts a patient key falls in: a fixed hash, so that a set's parts depend on
/// its keys only (any split serves exactness; a mixed one keeps the parts even).
fn part_of(key: i64, parts: usize) -> usize {
    let mixed = (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((mixed >> 32) % parts as u64) as usize
}

/// One digest per part of `keys` (sorted) split into `parts` by [`part_of`], tagged by what the
/// keys are (`b'p'` patients, `b'l'` a list): two sets that differ by fewer than `parts` keys
/// share at least one of them.
pub fn part_digests(tag: u8, keys: &[i64], parts: usize) -> Vec<Vec<u8>> {
    let mut split: Vec<Vec<i64>> = vec![Vec::new(); parts];
    for key in keys {
        split[part_of(*key, parts)].push(*key);
    }
    split
        .iter()
        .enumerate()
        .map(|(part, keys)| {
            let mut digest = Sha256::new();
            digest.update([tag]);
            digest.update((parts as u32).to_le_bytes());
            digest.update((part as u32).to_le_bytes());
            for key in keys {
                digest.update(key.to_le_bytes());
            }
            digest.finalize().to_vec()
        })
        .collect()
}

/// The overlap control: whether answering `asked` could, with an answer given to the same
/// requester in the last `days` days, describe fewer than `k` patients; when not, the cohort is
/// remembered (before it is answered, under a per-requester lock, so that two queries in flight
/// cannot both pass). Refused:
///
/// - a patient list differing from an earlier list by 1..k-1 patients, whatever the question
///   (decided on what the requester sent, so the refusal says nothing about anyone's records);
/// - a cohort of another condition or list whose patients differ from an earlier cohort's by
///   0..k-1 (an identical group too: else "refused" against "answered" would tell 1 from 0);
/// - the same question on the same list whose group has changed by 1..k-1 patients since.
///
/// Its cost does not grow with the requester's history: only the earlier cohorts that share a
/// part digest with the asked one ([`part_digests`], k parts: fewer than k differences leave a
/// part untouched) are compared in full, found by index (migration 0021). Rows remembered
/// before that, or under another k, are compared in full until they expire.
///
/// It does not stop combinations of three or more answers, nor colluding requester ids:
/// differential privacy (mode `dp`) bounds those, and roles that need them should use it.
pub async fn overlap(
    pool: &PgPool,
    asked: &AskedCohort<'_>,
    k: usize,
    days: u32,
) -> Result<bool, StoreError> {
    if k <= 1 || days == 0 {
        return Ok(false);
    }
    // The digests hash keys in order: sorted and distinct here, whatever the caller sent (the
    // rules compare sets).
    let sorted = |keys: &[i64]| {
        let mut keys = keys.to_vec();
        keys.sort_unstable();
        keys.dedup();
        keys
    };
    let patients = sorted(asked.patients);
    let list = asked.list.as_deref().map(sorted);
    // k parts; a k too large for the column (never a sensible k) gets none, and then every
    // remembered row, and this one later, is compared in full: never fewer parts than k.
    let parts = if k <= i16::MAX as usize { k } else { 0 };
    let mut part_keys = Vec::new();
    if parts > 0 {
        part_keys = part_digests(b'p', &patients, parts);
        if let Some(list) = &list {
            part_keys.extend(part_digests(b'l', list, parts));
        }
    }
    let (k, size) = (i32::try_from(k).unwrap_or(i32::MAX), patients.len() as i32);
    let mut digest = Sha256::new();
    for key in list.iter().flatten() {
        digest.update(key.to_le_bytes());
    }
    digest.update([0xff]);
    digest.update(asked.condition.as_bytes());
    digest.update([0xff]);
    for key in &patients {
        digest.update(key.to_le_bytes());
    }
    let digest = digest.finalize().to_vec();
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))")
        .bind(&asked.requester)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "DELETE FROM cohort_history WHERE answered_at <= now() - make_interval(days => $1)",
    )
    .bind(days as i32)
    .execute(&mut *tx)
    .await?;
    let refused: bool = sqlx::query_scalar(
        "WITH candidates AS (
             SELECT h.* FROM cohort_history h
             WHERE h.requester_id = $1 AND h.parts = $9
               AND h.digest IN (SELECT p.digest FROM cohort_history_parts p
                                WHERE p.requester_id = $1 AND p.part_digest = ANY($10))
             -- Rows without parts or under another k, each range by index.
             UNION ALL
             SELECT h.* FROM cohort_history h WHERE h.requester_id = $1 AND h.parts IS NULL
             UNION ALL
             SELECT h.* FROM cohort_history h WHERE h.requester_id = $1 AND h.parts < $9
             UNION ALL
             SELECT h.* FROM cohort_history h WHERE h.requester_id = $1 AND h.parts > $9
         ),
         recent AS (
             SELECT * FROM candidates WHERE answered_at > now() - make_interval(days => $6)
         )
         SELECT EXISTS (
             SELECT 1 FROM recent h
             WHERE $2::bigint[] IS NOT NULL AND h.list IS NOT NULL
               AND abs(cardinality(h.list) - cardinality($2::bigint[])) < $5
               AND (SELECT count(*) FROM (
                       (SELECT unnest(h.list) EXCEPT SELECT unnest($2::bigint[]))
                       UNION ALL
                       (SELECT unnest($2::bigint[]) EXCEPT SELECT unnest(h.list))
                   ) d) BETWEEN 1 AND $5 - 1
         ) OR EXISTS (
             SELECT 1 FROM recent h
             WHERE h.size BETWEEN $7 - $5 + 1 AND $7 + $5 - 1
               AND h.digest <> $8
               AND (SELECT count(*) FROM (
                       (SELECT unnest(h.patients) EXCEPT SELECT unnest($4::bigint[]))
                       UNION ALL
                       (SELECT unnest($4::bigint[]) EXCEPT SELECT unnest(h.patients))
                   ) d) BETWEEN
                     CASE WHEN h.condition = $3 AND h.list IS NOT DISTINCT FROM $2::bigint[]
                          THEN 1 ELSE 0 END
                     AND $5 - 1
         )",
    )
    .bind(&asked.requester)
    .bind(list.as_deref())
    .bind(asked.condition)
    .bind(&patients)
    .bind(k)
    .bind(days as i32)
    .bind(size)
    .bind(&digest)
    .bind(parts as i16)
    .bind(&part_keys)
    .fetch_one(&mut *tx)
    .await?;
    if !refused {
        sqlx::query(
            "INSERT INTO cohort_history (requester_id, list, condition, size, patients, digest, parts)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (requester_id, digest) DO UPDATE SET answered_at = now(), parts = $7",
        )
        .bind(&asked.requester)
        .bind(list.as_deref())
        .bind(asked.condition)
        .bind(size)
        .bind(&patients)
        .bind(&digest)
        .bind(parts as i16)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM cohort_history_parts WHERE requester_id = $1 AND digest = $2")
            .bind(&asked.requester)
            .bind(&digest)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO cohort_history_parts (requester_id, digest, part_digest)
             SELECT $1, $2, unnest($3::bytea[])",
        )
        .bind(&asked.requester)
        .bind(&digest)
        .bind(&part_keys)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(refused)
}

/// A concept asked about: its terms, the months (first days) or the first day it is asked from,
/// and whether only what is active counts.
pub(crate) struct ConceptFilter<'a> {
    /// Terms a fact must hold, each at the start of a word of its sentences.
    pub terms: &'a [String],
    /// The kinds of fact (resource types) that may hold them; empty: any.
    pub kinds: &'a [&'a str],
    /// Months the fact must be dated in (none: any).
    pub months: &'a [NaiveDate],
    /// The first day the fact may be dated (none: any).
    pub since: Option<NaiveDate>,
    /// The first day the fact may no longer be dated (none: any).
    pub before: Option<NaiveDate>,
    /// Only facts whose status says active (a medication, a condition).
    pub active: bool,
}

/// For each patient of `patients` (`None`: every patient) with a fact (of any kind: condition,
/// medication, procedure, immunization, allergy, encounter, reading) that the filter admits,
/// the number of such facts. A summary fact is dated by its own date (an onset, a
/// prescription). Terms match by their root at the start of a word ("diabet" finds "Diabetes"
/// and "diabetic", "implant" finds "Implantable" for "implanted"; a term of three letters or
/// fewer only as a word of its own or its plural), never inside one: the words
/// known to k patients are whole words, and a short term inside a rarer word would count the
/// few who hold that word.
async fn concept_facts(
    pool: &PgPool,
    patients: Option<Vec<i64>>,
    filter: &ConceptFilter<'_>,
) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
    for (patient, _) in concept_fact_days(pool, patients, filter).await? {
        *counts.entry(patient).or_default() += 1;
    }
    Ok(counts.into_iter().collect())
}

/// Each fact [`concept_facts`] counts, as its patient and its day (a timestamp's own calendar
/// day, as written; none when undated).
async fn concept_fact_days(
    pool: &PgPool,
    patients: Option<Vec<i64>>,
    filter: &ConceptFilter<'_>,
) -> Result<Vec<(i64, Option<NaiveDate>)>, StoreError> {
    let terms: Vec<String> = filter
        .terms
        .iter()
        .map(|t| {
            super::question::root(t)
                .chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        // One letter is a term only after "hep" ("Hep B"), a word whole (see `term_patterns`).
        .filter(|t| !t.is_empty())
        .collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let patterns = term_patterns(&terms);
    // The index of the facts' words (`fact_words`, migrations 0015, 0017, 0018) finds the facts
    // that may hold every term; the regular expressions then decide.
    let words = terms
        .iter()
        .map(|t| format!("{t}:*"))
        .collect::<Vec<_>>()
        .join(" & ");
    let mut tx = pool.begin().await?;
    words_index_settings(&mut tx).await?;
    let rows = sqlx::query(
        r#"SELECT f.patient_key, w.d AS day FROM facts f
         CROSS JOIN LATERAL (SELECT coalesce(f.day, CASE WHEN f.event_date ~ '^\d{4}-\d{2}-\d{2}'
                                 THEN substr(f.event_date, 1, 10)::date END) AS d) w
         WHERE ($1::bigint[] IS NULL OR f.patient_key = ANY($1))
           AND (cardinality($6::text[]) = 0 OR f.resource_type = ANY($6))
           AND (fact_words(f.sentences) @@ to_tsquery('simple', $7)
                OR fact_words_unindexed(f.sentences))
           AND f.sentences ~* ALL ($2)
           AND (NOT $5 OR f.sentences ~* '(^|\. )(clinical )?status is active')
           AND (cardinality($3::date[]) = 0 AND $4::date IS NULL AND $8::date IS NULL
                OR w.d IS NOT NULL
                   AND (cardinality($3::date[]) = 0 OR date_trunc('month', w.d)::date = ANY($3))
                   AND ($4::date IS NULL OR w.d >= $4)
                   AND ($8::date IS NULL OR w.d < $8))
         ORDER BY 1, 2"#,
    )
    .bind(patients)
    .bind(&patterns)
    .bind(filter.months)
    .bind(filter.since)
    .bind(filter.active)
    .bind(filter.kinds)
    .bind(&words)
    .bind(filter.before)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows
        .iter()
        .map(|r| (r.get("patient_key"), r.get("day")))
        .collect())
}

/// The regular expressions (PostgreSQL's) a fact must match, one per term (a term's root). A
/// term of three letters or fewer is a word whole, or its plural: "td" is no "Tdap". A word
/// negated by "non-" is its opposite ("Non-urgent orthopedic admission" is no urgent care,
/// "Non-small cell" no small cell), unless the question says "non" itself.
fn term_patterns(terms: &[String]) -> Vec<String> {
    let negation = if terms.iter().any(|t| t == "non") {
        ""
    } else {
        "(?<!non-)"
    };
    terms
        .iter()
        .map(|t| {
            if t.chars().count() <= 3 {
                format!(r"{negation}\m{t}(?:s|es)?\M")
            } else {
                format!(r"{negation}\m{t}")
            }
        })
        .collect()
}

/// Each patient of `scope` with a fact the filter admits, and how many it admits (see
/// [`concept_facts`]): "patients with two varicella doses" keeps those with two or more.
pub(crate) async fn concept_patient_events(
    pool: &PgPool,
    scope: &Scope,
    filter: &ConceptFilter<'_>,
) -> Result<Vec<(i64, i64)>, StoreError> {
    concept_facts(pool, scope.keys(), filter).await
}

/// Each patient of `scope` with a fact the filter admits, and the days of those facts: "given
/// acetaminophen the same day" as a laceration.
pub(crate) async fn concept_patient_days(
    pool: &PgPool,
    scope: &Scope,
    filter: &ConceptFilter<'_>,
) -> Result<BTreeMap<i64, BTreeSet<NaiveDate>>, StoreError> {
    let mut days: BTreeMap<i64, BTreeSet<NaiveDate>> = BTreeMap::new();
    for (patient, day) in concept_fact_days(pool, scope.keys(), filter).await? {
        let entry = days.entry(patient).or_default();
        entry.extend(day);
    }
    Ok(days)
}

/// How many facts of one patient the filter admits: the events a "how many" question counts,
/// over the whole record rather than the documents retrieved for it.
pub(crate) async fn concept_events(
    pool: &PgPool,
    patient: i64,
    filter: &ConceptFilter<'_>,
) -> Result<usize, StoreError> {
    Ok(concept_facts(pool, Some(vec![patient]), filter)
        .await?
        .first()
        .map_or(0, |(_, n)| *n as usize))
}

pub(crate) async fn facts_of(
    pool: &PgPool,
    patients: &[i64],
    resource_type: &str,
) -> Result<Vec<(i64, Option<NaiveDate>, String)>, StoreError> {
    let rows = sqlx::query(
        "SELECT patient_key, day, sentences FROM facts
         WHERE resource_type = $1 AND patient_key = ANY($2) ORDER BY patient_key, day",
    )
    .bind(resource_type)
    .bind(patients)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.get("patient_key"), r.get("day"), r.get("sentences")))
        .collect())
}

/// The readings (Observation facts) of `patients` that may name the concept the question asks
/// about: [`latest_readings`] keeps those that do. The database drops the rest first, by the
/// index of the facts' words (migrations 0015, 0017): a fact naming one of the question's
/// concept terms holds a word that begins with one of the term's substrings
/// ([`super::question::term_substrings`]). A fact with any character outside printable ASCII is
/// always kept, since folding (full-width letters, ligatures, invisible characters) may make a
/// term of it that no indexed word begins; so is one the index cannot hold whole (over 100,000
/// characters, or a word of 2,048). The answer is the one all readings would give.
pub(crate) async fn observations_naming(
    pool: &PgPool,
    patients: &[i64],
    analysis: &QuestionAnalysis,
) -> Result<Vec<(i64, Option<NaiveDate>, String)>, StoreError> {
    // [`latest_readings`] keeps a fact that holds every concept term of one of the question's
    // phrases: the query asks for a word beginning with a substring of each, phrase by phrase.
    let mut phrases = Vec::new();
    for phrase in &analysis.phrases {
        let mut all = Vec::new();
        for term in phrase.iter().filter(|t| super::question::is_concept(t)) {
            let substrings = super::question::term_substrings(term);
            if substrings.is_empty() {
                // A term no substring stands for: every reading is read.
                return facts_of(pool, patients, "Observation").await;
            }
            let any: Vec<String> = substrings.iter().map(|s| format!("{s}:*")).collect();
            all.push(format!("({})", any.join(" | ")));
        }
        if !all.is_empty() {
            phrases.push(format!("({})", all.join(" & ")));
        }
    }
    if phrases.is_empty() {
        return Ok(Vec::new());
    }
    let mut tx = pool.begin().await?;
    words_index_settings(&mut tx).await?;
    let rows = sqlx::query(
        r#"SELECT patient_key, day, sentences FROM facts
         WHERE resource_type = 'Observation' AND patient_key = ANY($1)
           AND (fact_words(sentences) @@ to_tsquery('simple', $2)
                OR fact_words_unindexed(sentences))
         ORDER BY patient_key, day"#,
    )
    .bind(patients)
    .bind(phrases.join(" | "))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.get("patient_key"), r.get("day"), r.get("sentences")))
        .collect())
}

/// Settings (this transaction only) under which the facts' words index serves a query as it
/// should, however large the store:
/// - memory for its bitmaps: with the default 4 MB, a common word's bitmap over a large store
///   turns lossy, and every row of a lossy page has its words parsed again (16 s instead of
///   0.6 s for a cohort's blood pressures at 10,000 patients);
/// - a plan for each query's own words and patients: after five runs PostgreSQL may keep a
///   generic plan of a prepared statement, which cannot know that a word is rare and parses the
///   words of every reading of the cohort (18 s instead of 27 ms at 10,000 patients).
async fn words_index_settings(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
) -> Result<(), StoreError> {
    for setting in [
        "SET LOCAL work_mem = '64MB'",
        "SET LOCAL plan_cache_mode = force_custom_plan",
    ] {
        sqlx::query(setting).execute(&mut **tx).await?;
    }
    Ok(())
}

/// Patients per item, only items with at least `k` patients, most frequent first.
fn counts(
    facts: &[(i64, Option<NaiveDate>, String)],
    lead: &str,
    k: usize,
) -> Vec<(String, usize)> {
    let mut patients: BTreeMap<String, usize> = BTreeMap::new();
    for items in holdings(facts, lead).into_values() {
        for item in items {
            *patients.entry(item).or_default() += 1;
        }
    }
    let mut out: Vec<(String, usize)> = patients.into_iter().filter(|(_, n)| *n >= k).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out.truncate(TOP);
    out
}

/// Whether a fact's item is one the question sets aside: its words hold an excluded phrase
/// whole ("Influenza, seasonal, injectable" for "flu aside").
fn sets_aside(analysis: &QuestionAnalysis, sentences: &str) -> bool {
    let words = super::question::line_terms(sentences);
    analysis.excluded.iter().any(|phrase| {
        let concept: Vec<&String> = phrase
            .iter()
            .filter(|t| super::question::is_concept(t))
            .collect();
        !concept.is_empty()
            && concept
                .iter()
                .all(|t| super::question::holds_term(&words, t))
    })
}

/// Fewest patients behind a quantile (median, middle half) of a cohort answer: four times the
/// minimum group, and never under 20. An order statistic of a handful of patients is one of
/// them's own value (at 5 patients the median *is* the third patient's reading).
pub fn quantile_min_patients(k: usize) -> usize {
    (4 * k).max(20)
}

/// Half the width, in ranks as a share of the group, of the window a released quantile
/// averages over.
const QUANTILE_WINDOW: f64 = 0.1;

/// The `q`-quantile of `sorted` as a cohort answer releases it: the mean of the values ranked
/// within ±10 % of the group around it (at least 5 values from 20 patients), printed rounded
/// like every reading ([`format_value`]): a mean of several patients' values, not an order
/// statistic (how far it moves from the exact quantile is measured in
/// `docs/results/quantiles.json`).
fn released_quantile(sorted: &[f64], q: f64) -> f64 {
    let last = (sorted.len() - 1) as f64;
    let low = ((q - QUANTILE_WINDOW).max(0.0) * last).floor() as usize;
    let high = ((q + QUANTILE_WINDOW).min(1.0) * last).ceil() as usize;
    let window = &sorted[low..=high.min(sorted.len() - 1)];
    window.iter().sum::<f64>() / window.len() as f64
}

/// "median about 74 (middle half about 72 to 76)" over `sorted` (at least
/// [`quantile_min_patients`] values).
fn quantile_summary(sorted: &[f64]) -> String {
    format!(
        "median about {} (middle half about {} to {})",
        format_value(released_quantile(sorted, 0.5)),
        format_value(released_quantile(sorted, 0.25)),
        format_value(released_quantile(sorted, 0.75))
    )
}

/// The latest reading of one code per patient.
type LatestByPatient = BTreeMap<i64, (Option<NaiveDate>, Reading)>;

/// The latest reading per patient of every observation code whose sentences hold one of the
/// question's terms.
fn latest_readings(
    facts: &[(i64, Option<NaiveDate>, String)],
    analysis: &QuestionAnalysis,
) -> BTreeMap<String, LatestByPatient> {
    // code → patient → (day, the reading's values and wording)
    let mut latest: BTreeMap<String, LatestByPatient> = BTreeMap::new();
    for (patient, day, sentences) in facts {
        // The reading the question names, whole ("average shoe size" is not a pain survey
        // that says "on average").
        if !super::question::names_concept(analysis, &super::question::line_terms(sentences)) {
            continue;
        }
        let Some(code_at) = sentences.find("Code is ") else {
            continue;
        };
        let Some(code) = head(&sentences[code_at..], "Code is ") else {
            continue;
        };
        let values =
            sentences[code_at + "Code is ".len() + code.len()..].trim_start_matches(['.', ' ']);
        let reading = Reading::parse(values);
        if reading.values.is_empty() {
            continue;
        }
        let entry = latest.entry(code.to_string()).or_default();
        match entry.get(patient) {
            Some((seen, _)) if *seen >= *day => {}
            _ => {
                entry.insert(*patient, (*day, reading));
            }
        }
    }
    latest
}

/// How many of the question's terms a code's name holds.
fn term_match(code: &str, terms: &[String]) -> usize {
    let words = super::question::line_terms(code);
    terms.iter().filter(|t| words.contains(*t)).count()
}

/// Medians and middle halves of the latest reading per patient, for the observation codes the
/// question's terms name, each over at least `k` patients.
fn readings(
    facts: &[(i64, Option<NaiveDate>, String)],
    analysis: &QuestionAnalysis,
    k: usize,
) -> Vec<String> {
    let terms = &analysis.terms;
    let latest = latest_readings(facts, analysis);
    let mut codes: Vec<(String, LatestByPatient)> =
        latest.into_iter().filter(|(_, p)| p.len() >= k).collect();
    // The code that names the most of the question's terms, then the most patients.
    codes.sort_by_key(|(code, p)| {
        (
            std::cmp::Reverse(term_match(code, terms)),
            std::cmp::Reverse(p.len()),
        )
    });
    let mut lines = Vec::new();
    for (code, patients) in codes.into_iter().take(3) {
        let template = patients
            .values()
            .next()
            .map(|(_, r)| r.template.clone())
            .unwrap_or_default();
        let same: Vec<&Reading> = patients
            .values()
            .map(|(_, r)| r)
            .filter(|r| r.template == template)
            .collect();
        if same.len() < k {
            continue;
        }
        if same.len() < quantile_min_patients(k) {
            lines.push(format!(
                "{code}: {} patients have a latest value; a median needs at least {}, so none \
                 is given.",
                same.len(),
                quantile_min_patients(k)
            ));
            continue;
        }
        let slots = same[0].values.len();
        let summaries: Vec<String> = (0..slots)
            .map(|slot| {
                let mut values: Vec<f64> = same
                    .iter()
                    .filter_map(|r| r.values.get(slot).copied())
                    .collect();
                values.sort_by(f64::total_cmp);
                if values.len() < quantile_min_patients(k) {
                    return "too few values for a median".to_string();
                }
                quantile_summary(&values)
            })
            .collect();
        let rendered = Reading {
            template,
            values: Vec::new(),
        }
        .render(&summaries);
        lines.push(format!(
            "{code}, the latest value of each of {} patients: {}",
            same.len(),
            rendered.trim()
        ));
    }
    lines
}

/// Among the latest reading of each patient, the highest (lowest) of the observation code the
/// question names: one line, "Of the 6 patients with a recorded Body Mass Index, the highest
/// latest value is 35 kg/m2 (November 2017).", or `None` when no patient has a single-valued
/// reading of it. Which patient it is is never said. ("Reading" is not written: it is a town's
/// name, and the guard redacts the towns patients live in.)
pub fn extreme_reading(
    facts: &[(i64, Option<NaiveDate>, String)],
    analysis: &QuestionAnalysis,
    extreme: Extreme,
) -> Option<(String, i64)> {
    let latest = latest_readings(facts, analysis);
    let (code, patients) = latest.into_iter().max_by_key(|(code, p)| {
        (
            term_match(code, &analysis.terms),
            p.len(),
            std::cmp::Reverse(code.clone()),
        )
    })?;
    // The wording most of the patients' readings share, with one value.
    let mut templates: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, reading) in patients.values() {
        *templates.entry(reading.template.as_str()).or_default() += 1;
    }
    let (template, _) = templates
        .into_iter()
        .filter(|(t, _)| t.matches("{}").count() == 1)
        .max_by_key(|(t, n)| (*n, std::cmp::Reverse(*t)))?;
    let same: Vec<(&i64, &(Option<NaiveDate>, Reading))> = patients
        .iter()
        .filter(|(_, (_, r))| r.template == template)
        .collect();
    let pick = |a: &&(&i64, &(Option<NaiveDate>, Reading)),
                b: &&(&i64, &(Option<NaiveDate>, Reading))| {
        a.1 .1.values[0].total_cmp(&b.1 .1.values[0])
    };
    let (patient, chosen) = match extreme {
        Extreme::Highest => same.iter().max_by(pick),
        Extreme::Lowest => same.iter().min_by(pick),
    }?;
    let value = Reading {
        template: template.to_string(),
        values: Vec::new(),
    }
    .render(&[format_value(chosen.1.values[0])]);
    let value = value
        .trim()
        .trim_start_matches("Value is ")
        .trim_end_matches('.');
    let when = chosen
        .0
        .map(|d| format!(" ({})", crate::text::dates::month_year(d)))
        .unwrap_or_default();
    let line = format!(
        "Of the {} patient{} with a recorded {code}, the {} latest value is {value}{when}.",
        same.len(),
        if same.len() == 1 { "" } else { "s" },
        match extreme {
            Extreme::Highest => "highest",
            Extreme::Lowest => "lowest",
        }
    );
    Some((line, **patient))
}

/// Whether a fact names `condition` among its reasons ("… Reason is Acute bronchitis
/// (disorder).", from the record's reasonCode or reasonReference).
#[cfg(test)]
fn treats(sentences: &str, condition: &str) -> bool {
    treats_terms(sentences, &super::question::line_terms(condition))
}

/// [`treats`] with the condition's terms read once.
fn treats_terms(sentences: &str, wanted: &BTreeSet<String>) -> bool {
    let Some((_, reason)) = sentences.split_once("Reason is ") else {
        return false;
    };
    !wanted.is_empty() && wanted.is_subset(&super::question::line_terms(reason))
}

/// Whether a fact's status says it is active ("Clinical status is active.", "Status is
/// active.").
fn active(sentences: &str) -> bool {
    sentences.split(". ").any(|s| {
        let s = s.trim_start().to_ascii_lowercase();
        s.starts_with("status is active") || s.starts_with("clinical status is active")
    })
}

/// Whether the item a fact names (after `lead`) is a member of `class`: every term of one
/// member among its words.
fn in_class(sentences: &str, lead: &str, class: &super::question::Class) -> bool {
    head(sentences, lead).is_some_and(|item| {
        let terms = super::question::line_terms(item);
        class
            .members
            .iter()
            .any(|member| !member.is_empty() && member.iter().all(|t| terms.contains(t)))
    })
}

/// One sentence for the counts of one kind: "Medications: Acetaminophen 325 MG Oral Tablet, 12
/// patients; Amoxicillin 250 MG, 5 patients." `None` when nothing is shared by enough patients.
fn count_line(lead: &str, counts: &[(String, usize)]) -> Option<String> {
    let label = match lead {
        "Medication is " => "Medications",
        "Condition is " => "Conditions",
        "Allergy is " => "Allergies",
        "Procedure is " => "Procedures",
        "Immunization is " => "Immunizations",
        other => other.trim_end_matches(" is "),
    };
    labelled_counts(label, counts)
}

/// [`count_line`] under a label of its own.
fn labelled_counts(label: &str, counts: &[(String, usize)]) -> Option<String> {
    if counts.is_empty() {
        return None;
    }
    let items: Vec<String> = counts
        .iter()
        .map(|(item, n)| {
            format!(
                "{}, {n} patient{}",
                item.trim_end_matches('.'),
                if *n == 1 { "" } else { "s" }
            )
        })
        .collect();
    Some(format!("{label}: {}.", items.join("; ")))
}

/// The cohort document for a question, or `None` when fewer than `k` patients stand behind it.
pub async fn aggregate(
    pool: &PgPool,
    patients: &[i64],
    analysis: &QuestionAnalysis,
    condition: Option<&str>,
    population: &Population,
    k: usize,
) -> Result<Option<SyntheticDocument>, StoreError> {
    let k = k.max(1);
    if patients.len() < k {
        return Ok(None);
    }
    let who = population.describe("patients");
    let described = match condition {
        Some(c) => format!("{} {who} with {c}", patients.len()),
        None => format!("{} {who}", patients.len()),
    };
    let mut lines = vec![format!("Cohort: {described}.")];
    let topic = Topic::of(analysis);
    // Sex and age are the patients' own, not readings: counted from the Patient facts and the
    // vault's ages (never a birth date).
    let asks_age = analysis.terms.iter().any(|t| t == "age");
    if population.by_sex || (asks_age && topic == Topic::Readings) {
        let people = super::population::people(pool, patients).await?;
        if population.by_sex {
            let mut per_sex: BTreeMap<String, usize> = BTreeMap::new();
            for person in people.values() {
                let sex = person.sex.clone().unwrap_or_else(|| "not recorded".into());
                *per_sex.entry(sex).or_default() += 1;
            }
            // All or nothing: the cohort's size less the shown groups would give a hidden one.
            let mut counts: Vec<(String, usize)> = per_sex.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            if counts.iter().all(|(_, n)| *n >= k) {
                if let Some(line) = labelled_counts("Patients by sex", &counts) {
                    lines.push(line);
                }
            }
        }
        if asks_age && topic == Topic::Readings {
            let mut ages: Vec<f64> = people
                .values()
                .filter_map(|p| p.age.map(f64::from))
                .collect();
            ages.sort_by(f64::total_cmp);
            if ages.len() >= quantile_min_patients(k) {
                let at = if population.vital == Some(super::population::Vital::Deceased) {
                    "at death"
                } else {
                    "now, or at death for the deceased"
                };
                lines.push(format!(
                    "Age in years ({at}; the oldest ages top-coded), over {} patients: {}.",
                    ages.len(),
                    quantile_summary(&ages)
                ));
            } else if ages.len() >= k {
                lines.push(format!(
                    "Age: {} patients; a median needs at least {}, so none is given.",
                    ages.len(),
                    quantile_min_patients(k)
                ));
            }
            return Ok(Some(SyntheticDocument {
                lines: if lines.len() > 1 { lines } else { Vec::new() },
                document_ids: Vec::new(),
            }));
        }
        if topic == Topic::Count {
            return Ok(Some(SyntheticDocument {
                lines,
                document_ids: Vec::new(),
            }));
        }
    }
    let mut listed =
        |resource_type: &str, lead: &str, facts: &[(i64, Option<NaiveDate>, String)]| {
            let _ = resource_type;
            if let Some(line) = count_line(lead, &counts(facts, lead, k)) {
                lines.push(line);
            }
        };
    // "Which statin …", "the most common anticoagulant": a class the lexicon names, counted by
    // its members among the cohort's medications, vaccines and procedures.
    if matches!(
        topic,
        Topic::Readings | Topic::Medications | Topic::Immunizations | Topic::Procedures
    ) && !analysis.classes.is_empty()
    {
        let mut found = Vec::new();
        for (resource_type, lead) in [
            ("MedicationRequest", "Medication is "),
            ("Immunization", "Immunization is "),
            ("Procedure", "Procedure is "),
        ] {
            let facts = facts_of(pool, patients, resource_type).await?;
            for class in &analysis.classes {
                let members: Vec<(i64, Option<NaiveDate>, String)> = facts
                    .iter()
                    .filter(|f| in_class(&f.2, lead, class))
                    .filter(|f| !analysis.now || active(&f.2))
                    .cloned()
                    .collect();
                if let Some(line) = labelled_counts(
                    &crate::text::capitalized(&class.written),
                    &counts(&members, lead, k),
                ) {
                    found.push(line);
                }
            }
        }
        if !found.is_empty() {
            lines.extend(found);
            return Ok(Some(SyntheticDocument {
                lines,
                document_ids: Vec::new(),
            }));
        }
    }
    match topic.facts() {
        Some((resource_type, lead)) => {
            let mut facts = facts_of(pool, patients, resource_type).await?;
            // "Ongoing conditions", "on right now": what the record says is active.
            if analysis.now && matches!(topic, Topic::Conditions | Topic::Medications) {
                facts.retain(|f| active(&f.2));
            }
            // "Flu aside, which vaccine …": what the question sets aside is not ranked.
            facts.retain(|f| !sets_aside(analysis, &f.2));
            // Medications for a condition: those the record gives that condition as the
            // reason for, when it says so; otherwise every medication of the cohort.
            // The label does not repeat the requester's words (the cohort line names the
            // condition once).
            let given_for = match condition {
                Some(c) if topic == Topic::Medications => {
                    let wanted = super::question::line_terms(c);
                    let treating: Vec<_> = facts
                        .iter()
                        .filter(|f| treats_terms(&f.2, &wanted))
                        .cloned()
                        .collect();
                    labelled_counts(
                        "Medications given for that condition",
                        &counts(&treating, lead, k),
                    )
                }
                _ => None,
            };
            match given_for {
                Some(line) => lines.push(line),
                None => listed(resource_type, lead, &facts),
            }
        }
        None if topic == Topic::Count => {}
        None if topic == Topic::Readings => {
            let facts = observations_naming(pool, patients, analysis).await?;
            let found = readings(&facts, analysis, k);
            if found.is_empty() {
                return Ok(Some(SyntheticDocument {
                    lines: Vec::new(),
                    document_ids: Vec::new(),
                }));
            }
            lines.extend(found);
        }
        None => {
            for (resource_type, lead) in [
                ("Condition", "Condition is "),
                ("MedicationRequest", "Medication is "),
            ] {
                let facts = facts_of(pool, patients, resource_type).await?;
                listed(resource_type, lead, &facts);
            }
        }
    }
    Ok(Some(SyntheticDocument {
        lines,
        document_ids: Vec::new(),
    }))
}

/// Settings of a DP aggregate answer.
#[derive(Clone, Copy, Debug)]
pub struct DpSettings {
    /// The answer's zCDP ρ, from its (ε, δ/2): the Gaussian parts get half of δ.
    pub rho: f64,
    /// The answer's δ: half for the Gaussian parts, half for the release thresholds of its
    /// histograms (divided among them).
    pub delta: f64,
    /// Most items one patient counts in (the histogram's L2 sensitivity is its square root).
    pub max_items: usize,
    /// Fewest patients (by the noisy count) a cohort answer describes.
    pub min_patients: usize,
}

/// Items per patient: each patient's distinct items of one kind of fact.
fn holdings(
    facts: &[(i64, Option<NaiveDate>, String)],
    lead: &str,
) -> BTreeMap<i64, BTreeSet<String>> {
    let mut held: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    // A cohort's facts name few distinct items many times: each is generalized once.
    let mut generalized: std::collections::HashMap<&str, String> = Default::default();
    for (patient, _, sentences) in facts {
        if let Some(item) = head(sentences, lead) {
            let item = generalized
                .entry(item)
                .or_insert_with(|| generalize_text(item))
                .clone();
            held.entry(*patient).or_default().insert(item);
        }
    }
    held
}

/// "5th", "38th", "62nd", "100th": a percentile, rounded.
fn ordinal(percentile: f64) -> String {
    let n = percentile.round() as u64;
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The cohort document of a DP answer: every figure noisy (see [`crate::dp`]), `None` when the
/// noisy cohort size is below the minimum. ρ is divided: a fifth for the cohort's size, the rest
/// for the histograms (or, for readings, a fifth for the histogram of codes and the rest for
/// the medians, by the exponential mechanism).
pub async fn dp_aggregate(
    pool: &PgPool,
    scope: &Scope,
    analysis: &QuestionAnalysis,
    condition: Option<&str>,
    settings: DpSettings,
    noise: &mut Noise,
) -> Result<Option<SyntheticDocument>, StoreError> {
    let patients = cohort(pool, scope, condition).await?;
    let rho = settings.rho;
    let size = aggregate::noisy_total(patients.len(), 0.2 * rho, noise);
    if size < settings.min_patients as f64 {
        return Ok(None);
    }
    let margin = aggregate::margin(crate::dp::gaussian_sigma(1.0, 0.2 * rho));
    let interval = format!(
        "95 % interval {} to {}",
        (size - margin).round().max(0.0),
        (size + margin).round()
    );
    let size = size.round() as u64;
    let described = match condition {
        Some(c) => format!("about {size} patients with {c} ({interval})"),
        None => format!("about {size} patients ({interval})"),
    };
    let mut lines = vec![format!("Cohort: {described}.")];
    let topic = Topic::of(analysis);
    let kinds: Vec<(&str, &str)> = match topic.facts() {
        Some(kind) => vec![kind],
        None if topic == Topic::Overview => vec![
            ("Condition", "Condition is "),
            ("MedicationRequest", "Medication is "),
        ],
        None => Vec::new(),
    };
    let histogram_delta = settings.delta / 2.0 / kinds.len().max(1) as f64;
    if topic == Topic::Readings {
        let facts = observations_naming(pool, &patients, analysis).await?;
        let latest = latest_readings(&facts, analysis);
        // One (code, wording) item per patient and code: the histogram picks which exist.
        let mut held: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
        for (code, by_patient) in &latest {
            for (patient, (_, reading)) in by_patient {
                held.entry(*patient)
                    .or_default()
                    .insert(format!("{code}\u{1f}{}", reading.template));
            }
        }
        let released =
            aggregate::noisy_counts(&held, settings.max_items, 0.2 * rho, histogram_delta, noise);
        let best = released.iter().max_by_key(|c| {
            let code = c.item.split('\u{1f}').next().unwrap_or("");
            (term_match(code, &analysis.terms), c.count)
        });
        let Some(best) = best else {
            return Ok(Some(SyntheticDocument {
                lines: Vec::new(),
                document_ids: Vec::new(),
            }));
        };
        let (code, template) = best.item.split_once('\u{1f}').unwrap_or((&best.item, ""));
        let same: Vec<&Reading> = latest
            .get(code)
            .map(|p| {
                p.values()
                    .map(|(_, r)| r)
                    .filter(|r| r.template == template)
                    .collect()
            })
            .unwrap_or_default();
        let slots = same.first().map(|r| r.values.len()).unwrap_or(0).max(1);
        let epsilon_each = aggregate::exponential_epsilon(0.6 * rho / slots as f64);
        // How far the drawn median may sit from the true one, as percentiles of the noisy
        // count (public figures only).
        let spread = 50.0 * aggregate::rank_error(epsilon_each, 0.05) / best.count.max(1) as f64;
        let medians: Vec<String> = (0..slots)
            .map(|slot| {
                let values: Vec<f64> = same
                    .iter()
                    .filter_map(|r| r.values.get(slot).copied())
                    .map(|v| v.max(0.0))
                    .collect();
                aggregate::quantile(&values, 0.5, epsilon_each, noise)
                    .map(|m| {
                        format!(
                            "median about {} (95 %: between the {} and {} percentiles)",
                            format_value(m),
                            ordinal((50.0 - spread).max(0.0)),
                            ordinal((50.0 + spread).min(100.0))
                        )
                    })
                    .unwrap_or_else(|| "no value".into())
            })
            .collect();
        let rendered = Reading {
            template: template.to_string(),
            values: Vec::new(),
        }
        .render(&medians);
        lines.push(format!(
            "{code}, the latest value of each of about {} patients (± {}): {}",
            best.count,
            best.margin,
            rendered.trim()
        ));
        return Ok(Some(SyntheticDocument {
            lines,
            document_ids: Vec::new(),
        }));
    }
    let share = 0.8 * rho / kinds.len().max(1) as f64;
    for (resource_type, lead) in kinds {
        let facts = facts_of(pool, &patients, resource_type).await?;
        let held = holdings(&facts, lead);
        let released =
            aggregate::noisy_counts(&held, settings.max_items, share, histogram_delta, noise);
        for count in released.into_iter().take(TOP) {
            lines.push(format!(
                "{lead}{}: about {} patients (± {}).",
                count.item, count.count, count.margin
            ));
        }
    }
    Ok(Some(SyntheticDocument {
        lines,
        document_ids: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_never_matches_its_negation_or_inside_a_word() {
        let terms: Vec<String> = ["urgent", "td"].iter().map(|t| t.to_string()).collect();
        // PostgreSQL reads `(?<!non-)` as a negative lookbehind: "Non-urgent orthopedic
        // admission" is no urgent care.
        assert_eq!(
            term_patterns(&terms),
            [r"(?<!non-)\murgent", r"(?<!non-)\mtd(?:s|es)?\M"]
        );
        let asked: Vec<String> = ["non", "small"].iter().map(|t| t.to_string()).collect();
        assert_eq!(term_patterns(&asked)[1], r"\msmall");
    }

    #[test]
    fn groups_that_differ_by_fewer_than_k_share_a_part() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for k in [2usize, 5, 11] {
            for _ in 0..200 {
                let a: BTreeSet<i64> = (0..rng.random_range(0..60))
                    .map(|_| rng.random_range(0..500))
                    .collect();
                let mut b = a.clone();
                for _ in 0..rng.random_range(0..k) {
                    let key = rng.random_range(0..500);
                    if !b.remove(&key) {
                        b.insert(key);
                    }
                }
                let keys = |s: &BTreeSet<i64>| s.iter().copied().collect::<Vec<_>>();
                let (pa, pb) = (
                    part_digests(b'p', &keys(&a), k),
                    part_digests(b'p', &keys(&b), k),
                );
                assert_eq!(pa.len(), k);
                assert!(pa.iter().zip(&pb).any(|(x, y)| x == y), "{a:?} {b:?}");
                // The digests of each part differ by what the keys are and by the split.
                assert!(part_digests(b'l', &keys(&a), k)
                    .iter()
                    .zip(&pa)
                    .all(|(x, y)| x != y));
            }
        }
        // One key in each of k parts changed: no part in common, the lookup skips the group.
        let a: Vec<i64> = (0..40).collect();
        let mut touched = BTreeSet::new();
        let mut b: BTreeSet<i64> = a.iter().copied().collect();
        for key in 1000.. {
            if touched.insert(part_of(key, 3)) {
                b.insert(key);
            }
            if touched.len() == 3 {
                break;
            }
        }
        let b: Vec<i64> = b.into_iter().collect();
        let (pa, pb) = (part_digests(b'p', &a, 3), part_digests(b'p', &b, 3));
        assert!(pa.iter().zip(&pb).all(|(x, y)| x != y));
    }

    fn fact(patient: i64, sentences: &str) -> (i64, Option<NaiveDate>, String) {
        (patient, None, sentences.to_string())
    }

    #[test]
    fn a_class_is_counted_by_its_members_and_now_by_what_is_active() {
        let none = BTreeSet::new();
        let analysis = super::super::question::analyze("which statin do they take?", &none);
        let statin = &analysis.classes[0];
        let lead = "Medication is ";
        let simva = "Medication is Simvastatin 10 MG Oral Tablet. Status is active.";
        let stopped = "Medication is Atorvastatin 20 MG Oral Tablet. Status is stopped.";
        let other = "Medication is Lisinopril 10 MG Oral Tablet. Status is active.";
        assert!(in_class(simva, lead, statin));
        assert!(in_class(stopped, lead, statin));
        assert!(!in_class(other, lead, statin));
        // Only the item counts: a statin named as a reason elsewhere is not one.
        assert!(!in_class(
            "Condition is Statin intolerance. Clinical status is active.",
            lead,
            statin
        ));
        assert!(active(simva));
        assert!(!active(stopped));
        assert!(active(
            "Condition is Anemia (disorder). Clinical status is active. Onset on May 2019."
        ));
        assert!(!active(
            "Condition is Anemia (disorder). Clinical status is resolved. Note is not active."
        ));
    }

    #[test]
    fn counts_only_items_shared_by_k_patients() {
        let mut facts = Vec::new();
        for p in 0..6 {
            facts.push(fact(
                p,
                "Medication is Acetaminophen 325 MG Oral Tablet. Status is stopped.",
            ));
        }
        for p in 0..2 {
            facts.push(fact(
                p,
                "Medication is Rare drug 0.09 MG/ACTUAT Inhaler. Status is active.",
            ));
        }
        // The same patient twice counts once.
        facts.push(fact(
            0,
            "Medication is Acetaminophen 325 MG Oral Tablet. Status is active.",
        ));
        let listed = counts(&facts, "Medication is ", 5);
        assert_eq!(
            listed,
            vec![("Acetaminophen 325 MG Oral Tablet".to_string(), 6)]
        );
        assert_eq!(
            head(
                "Medication is Albuterol 0.09 MG/ACTUAT Inhaler. Status is x.",
                "Medication is "
            ),
            Some("Albuterol 0.09 MG/ACTUAT Inhaler")
        );
        assert_eq!(
            count_line(
                "Medication is ",
                &[
                    ("Acetaminophen 325 MG".into(), 12),
                    ("Amoxicillin".into(), 1)
                ]
            )
            .as_deref(),
            Some("Medications: Acetaminophen 325 MG, 12 patients; Amoxicillin, 1 patient.")
        );
        assert_eq!(count_line("Medication is ", &[]), None);
        assert!(treats(
            "Medication is Amoxicillin 250 MG. Status is stopped. Reason is Acute bronchitis (disorder).",
            "acute bronchitis"
        ));
        assert!(!treats(
            "Medication is Amoxicillin 250 MG. Reason is Sinusitis (disorder).",
            "acute bronchitis"
        ));
        assert!(!treats("Medication is Aspirin.", "acute bronchitis"));
    }

    #[test]
    fn a_count_question_is_about_the_cohort_not_its_condition() {
        use crate::answer::question::analyze;
        let ask = |q: &str| Topic::of(&analyze(q, &BTreeSet::new()));
        assert_eq!(ask("How many patients have hypertension?"), Topic::Count);
        assert_eq!(
            ask("How many patients with diabetes are there?"),
            Topic::Count
        );
        assert_eq!(
            ask("What medications are patients with acute bronchitis on?"),
            Topic::Medications
        );
        assert_eq!(
            ask("What is the body weight of patients with diabetes?"),
            Topic::Readings
        );
        assert_eq!(ask("Give me an overview"), Topic::Overview);
        // Request and record words are no reading ("check", "charted").
        assert_eq!(
            ask("check how many patients have prediabetes"),
            Topic::Count
        );
    }

    #[test]
    fn extremes_are_taken_over_each_patients_latest_reading() {
        let day = |m: u32| NaiveDate::from_ymd_opt(2015, m, 1);
        let weight =
            |v: i64| format!("Category is vital-signs. Code is Body Weight. Value is {v} kg.");
        let facts = vec![
            // Patient 0's 150 kg is old: its latest is 80.
            (0, day(1), weight(150)),
            (0, day(6), weight(80)),
            (1, day(3), weight(95)),
            (2, day(2), weight(60)),
            (
                2,
                day(2),
                "Category is vital-signs. Code is Heart rate. Value is 40 /min.".to_string(),
            ),
        ];
        let ask = |q: &str| crate::answer::question::analyze(q, &Default::default());
        assert_eq!(
            extreme_reading(&facts, &ask("Who is the heaviest patient?"), Extreme::Highest)
                .map(|(line, _)| line)
                .as_deref(),
            Some("Of the 3 patients with a recorded Body Weight, the highest latest value is 95 kg (March 2015).")
        );
        assert_eq!(
            extreme_reading(&facts, &ask("Which patient has the lowest weight?"), Extreme::Lowest)
                .map(|(line, _)| line)
                .as_deref(),
            Some("Of the 3 patients with a recorded Body Weight, the lowest latest value is 60 kg (February 2015).")
        );
        // The audit learns whose value it was.
        assert_eq!(
            extreme_reading(
                &facts,
                &ask("Who is the heaviest patient?"),
                Extreme::Highest
            )
            .map(|(_, patient)| patient),
            Some(1)
        );
        assert_eq!(
            extreme_reading(
                &facts,
                &ask("Which patient has the highest shoe size?"),
                Extreme::Highest
            ),
            None
        );
        assert_eq!(
            crate::answer::question::extreme("Who is the tallest?"),
            Some(Extreme::Highest)
        );
        assert_eq!(
            crate::answer::question::extreme("What is her weight?"),
            None
        );
    }

    #[test]
    fn readings_give_medians_over_latest_values() {
        let day = |d: u32| NaiveDate::from_ymd_opt(2015, 1, d);
        let mut facts = Vec::new();
        for p in 0..5i64 {
            facts.push((
                p,
                day(1),
                "Category is vital-signs. Code is Body Weight. Value is 50 kg.".to_string(),
            ));
            facts.push((
                p,
                day(2),
                format!(
                    "Category is vital-signs. Code is Body Weight. Value is {} kg.",
                    70 + p * 2
                ),
            ));
        }
        let analysis = crate::answer::question::analyze(
            "What is the average weight of patients with asthma?",
            &Default::default(),
        );
        // Five patients: counted, but no median (it would be the third patient's weight).
        let lines = readings(&facts, &analysis, 5);
        assert_eq!(lines, vec!["Body Weight: 5 patients have a latest value; a median needs at least 20, so none is given."]);
        assert!(readings(&facts, &analysis, 6).is_empty());
        // 21 patients (70 to 110 kg): each figure is the mean of the five ranks around it.
        let mut many = Vec::new();
        for p in 0..21i64 {
            many.push((
                p,
                day(2),
                format!(
                    "Category is vital-signs. Code is Body Weight. Value is {} kg.",
                    70 + p * 2
                ),
            ));
        }
        let lines = readings(&many, &analysis, 5);
        assert_eq!(lines, vec!["Body Weight, the latest value of each of 21 patients: Value is median about 90 (middle half about 80 to 100) kg."]);
        assert_eq!(released_quantile(&[1.0, 2.0, 3.0, 4.0, 10.0], 0.5), 3.0);
        let shoe = crate::answer::question::analyze(
            "What is the average shoe weight of patients with asthma?",
            &Default::default(),
        );
        assert!(readings(&facts, &shoe, 5).is_empty());
    }
}
