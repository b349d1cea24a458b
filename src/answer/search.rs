//! The Search agent: who the requester may see, which patients the question names, which
//! patients have the condition of a two-step question, and hybrid retrieval (pgvector cosine and
//! PostgreSQL full text, fused by reciprocal rank). Every query carries the requester's patient
//! restriction in SQL: nothing outside it is ever read into the answer path.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use pgvector::Vector;
use serde::Serialize;
use sqlx::{PgPool, Row};

use crate::phi::PhiKind;
use crate::store::StoreError;

/// Reciprocal-rank-fusion constant (the usual 60).
const RRF_K: f64 = 60.0;

/// The patients a requester may see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every patient (a role listed in `--all-patients-roles`).
    All,
    /// Only these internal keys (possibly none).
    Patients(Vec<i64>),
}

impl Scope {
    /// The SQL filter: `None` means unrestricted.
    pub fn keys(&self) -> Option<Vec<i64>> {
        match self {
            Scope::All => None,
            Scope::Patients(keys) => Some(keys.clone()),
        }
    }

    /// Narrows the scope to `keys` (those outside it are dropped).
    pub fn narrow(&self, keys: &[i64]) -> Scope {
        match self {
            Scope::All => Scope::Patients(keys.to_vec()),
            Scope::Patients(allowed) => Scope::Patients(
                keys.iter()
                    .copied()
                    .filter(|k| allowed.contains(k))
                    .collect(),
            ),
        }
    }
}

/// Maps FHIR Patient ids to internal keys (unknown ids are ignored). Patient ids are unique
/// within a source system: `123` names the patient of the default source (messages without
/// `meta.source`), `https://ehr-b.example/fhir|123` the one of that source. An unqualified id
/// never reaches a patient of another source.
pub async fn patient_keys(pool: &PgPool, fhir_ids: &[String]) -> Result<Vec<i64>, StoreError> {
    let (sources, ids): (Vec<&str>, Vec<&str>) = fhir_ids
        .iter()
        .map(|id| id.rsplit_once('|').unwrap_or(("", id.as_str())))
        .unzip();
    let rows = sqlx::query_scalar::<_, i64>(
        "SELECT p.patient_key FROM patients p
         JOIN UNNEST($1::text[], $2::text[]) AS q(source, fhir_id) USING (source, fhir_id)
         ORDER BY p.patient_key",
    )
    .bind(&sources)
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// Patients the question names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameResolution {
    /// The best-matching patients in scope.
    pub patients: Vec<i64>,
    /// The question's words (folded) that matched a name.
    pub name_words: BTreeSet<String>,
    /// The question's words that matched each of the best patients' names.
    pub words_of: BTreeMap<i64, BTreeSet<String>>,
    /// Whether one name word matched several of the best patients: the question does not say
    /// which of them it means.
    pub ambiguous: bool,
}

impl NameResolution {
    /// Keeps the patients `keep` admits, and the name words that matched them.
    fn retain_patients(&mut self, keep: impl Fn(i64) -> bool) {
        self.patients.retain(|p| keep(*p));
        self.words_of.retain(|p, _| keep(*p));
        self.name_words = self.words_of.values().flatten().cloned().collect();
        self.ambiguous = self.ambiguous && self.patients.len() > 1;
    }
}

/// Resolves name candidates (folded words) through the vault's normalized keys, **within
/// `scope` only**: a word matches a given, family or maiden name as written (2 points) or
/// digit-stripped (1 point); a patient scores its best given-name match plus its best
/// family-name match, and the best-scoring patients win. Patients outside the scope are never
/// read, so a name outside it and a name of nobody resolve the same way: to nothing.
pub async fn resolve_names(
    pool: &PgPool,
    candidates: &[String],
    scope: &Scope,
) -> Result<NameResolution, StoreError> {
    if candidates.is_empty() {
        return Ok(NameResolution::default());
    }
    // The vault takes at most 512 keys a call; a question of 2000 characters has fewer words.
    let keys: Vec<String> = candidates
        .iter()
        .take(512)
        .map(|c| format!("t:{c}"))
        .collect();
    // Which patients a word names, and whether as written (with its digits) or only stripped:
    // the vault says so without giving any name back.
    let rows = sqlx::query(
        "SELECT patient_key, kind, word, exact FROM vault.match_names($1, $2::bigint[])",
    )
    .bind(&keys)
    .bind(scope.keys())
    .fetch_all(pool)
    .await?;
    // patient → (best given score, best family score)
    let mut scores: BTreeMap<i64, (u8, u8)> = BTreeMap::new();
    let mut words_of: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    for row in rows {
        let key: i64 = row.get("patient_key");
        let kind: String = row.get("kind");
        let word: String = row.get("word");
        let score = if row.get::<bool, _>("exact") { 2 } else { 1 };
        let entry = scores.entry(key).or_default();
        if kind == PhiKind::GivenName.as_str() {
            entry.0 = entry.0.max(score);
        } else {
            entry.1 = entry.1.max(score);
        }
        words_of.entry(key).or_default().insert(word);
    }
    let best = scores.values().map(|(g, f)| g + f).max().unwrap_or(0);
    let mut resolution = NameResolution::default();
    let mut patients_of_word: BTreeMap<String, usize> = BTreeMap::new();
    for (key, (g, f)) in scores {
        if best > 0 && g + f == best {
            resolution.patients.push(key);
            let words = words_of.remove(&key).unwrap_or_default();
            for word in &words {
                *patients_of_word.entry(word.clone()).or_default() += 1;
                resolution.name_words.insert(word.clone());
            }
            resolution.words_of.insert(key, words);
        }
    }
    resolution.ambiguous = resolution.patients.len() > 1
        && patients_of_word
            .values()
            .all(|n| *n == resolution.patients.len());
    // The digit-bearing spelling of a matched stripped name is a name word too.
    let extra: Vec<String> = candidates
        .iter()
        .filter(|c| {
            resolution
                .name_words
                .contains(&crate::text::strip_digits(c))
        })
        .cloned()
        .collect();
    resolution.name_words.extend(extra);
    Ok(resolution)
}

/// Keeps, of the patients a name matched, those whose record gives the sex a title says ("Mr.
/// Homenick" when the list holds Mr. and Mrs. Homenick). Returns true when the title names
/// nobody matched: every matched patient's record gives the other sex ("Mr. Wiza" where the
/// list's only Wiza is a girl names a man who is not on it). A patient whose record gives no sex
/// is kept. Reads only the matched patients' own records (all within the scope).
pub async fn keep_sex(
    pool: &PgPool,
    resolution: &mut NameResolution,
    sex: &str,
) -> Result<bool, StoreError> {
    if resolution.patients.is_empty() {
        return Ok(false);
    }
    let rows = sqlx::query(
        "SELECT patient_key, bool_or(sentences ILIKE $2) AS matches FROM facts
         WHERE patient_key = ANY($1) AND resource_type = 'Patient' AND sentences ILIKE '%Gender is %'
         GROUP BY patient_key",
    )
    .bind(&resolution.patients)
    .bind(format!("%Gender is {sex}.%"))
    .fetch_all(pool)
    .await?;
    let other: Vec<i64> = rows
        .iter()
        .filter(|r| !r.get::<bool, _>("matches"))
        .map(|r| r.get("patient_key"))
        .collect();
    if other.len() == resolution.patients.len() {
        return Ok(true);
    }
    resolution.retain_patients(|p| !other.contains(&p));
    Ok(false)
}

/// Keeps, of the patients a name matched, those whose family (or maiden) name begins with
/// `initial` ("Karren S." when the list holds two Karrens). Returns true when none does: the
/// question names somebody who is not on the list. Asks the vault about the matched patients
/// only (all within the scope), and only whether each matches.
pub async fn keep_family_initial(
    pool: &PgPool,
    resolution: &mut NameResolution,
    initial: char,
) -> Result<bool, StoreError> {
    if resolution.patients.is_empty() || resolution.patients.len() > 64 {
        return Ok(false);
    }
    let matching: Vec<i64> =
        sqlx::query_scalar("SELECT vault.match_family_initial($1::bigint[], $2)")
            .bind(&resolution.patients)
            .bind(initial.to_string())
            .fetch_all(pool)
            .await?;
    if matching.is_empty() {
        return Ok(true);
    }
    resolution.retain_patients(|p| matching.contains(&p));
    Ok(false)
}

/// The words among `words` that the records use (full text over the documents' chunks, English
/// stemming): the records of at least `min_patients` patients, or of one of the requester's own
/// patients (`own`, care teams only). Names live in the vault, never in documents, so this says
/// nothing about who is a patient: it tells clinical vocabulary ("Bronchitis") from names and
/// typos. The k-patient rule keeps it from telling anything about a patient outside the scope:
/// whether a word is "known" changes how a question is read and answered ("Nothing about
/// alcoholism is on record" against "No information…"), and a word only one other patient's
/// record uses would otherwise show that someone here has it.
///
/// Patients are counted in `patient_words` (the lexemes of each patient's chunks, kept at
/// ingest): exact, and at most `min_patients` rows read per word whatever the store's size. A
/// word of several lexemes counts a patient only when one chunk holds them all, as the
/// full-text match reads it.
pub async fn known_words(
    pool: &PgPool,
    words: &[String],
    min_patients: usize,
    own: Option<&[i64]>,
) -> Result<BTreeSet<String>, StoreError> {
    if words.is_empty() {
        return Ok(BTreeSet::new());
    }
    let rows: Vec<String> = sqlx::query_scalar(
        "SELECT w FROM unnest($1::text[]) AS w
         WHERE numnode(plainto_tsquery('english', w)) = 0
            OR ($3::bigint[] IS NOT NULL AND EXISTS (
                   SELECT 1 FROM chunks c JOIN documents d USING (document_id)
                   WHERE d.patient_key = ANY($3)
                     AND c.text_search @@ plainto_tsquery('english', w)))
            OR (SELECT count(*) FROM (
                    SELECT pw.patient_key
                    FROM patient_words pw
                    -- Looked up by its longest lexeme (for 'covid-19', the compound, not
                    -- '19' that most patients hold): few candidates beyond the k wanted.
                    WHERE pw.word = (SELECT l
                                     FROM unnest(tsvector_to_array(to_tsvector('english', w))) l
                                     ORDER BY length(l) DESC, l LIMIT 1)
                      -- A word of several lexemes ('covid-19'): each of them in the patient's
                      -- records, and all of them in one chunk, as the full-text match reads it.
                      AND NOT EXISTS (
                          SELECT 1 FROM unnest(tsvector_to_array(to_tsvector('english', w))) l
                          WHERE NOT EXISTS (SELECT 1 FROM patient_words p2
                                            WHERE p2.word = l
                                              AND p2.patient_key = pw.patient_key))
                      AND (length(to_tsvector('english', w)) = 1 OR EXISTS (
                          SELECT 1 FROM documents d JOIN chunks c USING (document_id)
                          WHERE d.patient_key = pw.patient_key
                            AND c.text_search @@ plainto_tsquery('english', w)))
                    LIMIT $2) k) >= $2",
    )
    .bind(words)
    .bind(min_patients.max(1) as i64)
    .bind(own)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().collect())
}

/// The condition names (the subject of condition facts) the patients of `scope` hold, each with
/// those patients, for reading which condition a question names. Never shown to a requester.
pub async fn condition_names(
    pool: &PgPool,
    scope: &Scope,
) -> Result<Vec<(String, Vec<i64>)>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT split_part(substr(sentences, length('Condition is ') + 1), '. ', 1) AS name,
                array_agg(DISTINCT patient_key)
         FROM facts
         WHERE resource_type = 'Condition' AND sentences LIKE 'Condition is %'
           AND ($1::bigint[] IS NULL OR patient_key = ANY($1))
         GROUP BY name",
    )
    .bind(scope.keys())
    .fetch_all(pool)
    .await?)
}

/// Patients in scope with a condition whose text matches `phrase` (full text, English stemming).
pub async fn condition_patients(
    pool: &PgPool,
    phrase: &str,
    scope: &Scope,
    limit: usize,
) -> Result<Vec<i64>, StoreError> {
    // PostgreSQL's parser reads "COVID-19" as 'covid' and '-19' (a signed number), so words
    // without a letter would never match: the phrase's lettered words are searched.
    let lettered: Vec<String> = crate::text::words(phrase)
        .into_iter()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let phrase = if lettered.is_empty() {
        phrase.to_string()
    } else {
        lettered.join(" ")
    };
    let rows = sqlx::query_scalar::<_, i64>(
        "SELECT DISTINCT patient_key FROM facts
         WHERE resource_type = 'Condition'
           AND to_tsvector('english', translate(sentences, '/', ' ')) @@ plainto_tsquery('english', $1)
           AND ($2::bigint[] IS NULL OR patient_key = ANY($2))
         ORDER BY patient_key
         LIMIT $3",
    )
    .bind(phrase)
    .bind(scope.keys())
    .bind(limit as i64)
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// The patients of `scope` with at least one fact of `resource_type` ("patients with an
/// allergy") whose sentences open with `opening` when given (an allergy, not a refuted or
/// suspected one).
pub async fn kind_patients(
    pool: &PgPool,
    resource_type: &str,
    opening: Option<&str>,
    scope: &Scope,
) -> Result<Vec<i64>, StoreError> {
    Ok(sqlx::query_scalar::<_, i64>(
        "SELECT DISTINCT patient_key FROM facts
         WHERE resource_type = $1 AND ($2::bigint[] IS NULL OR patient_key = ANY($2))
           AND ($3::text IS NULL OR starts_with(sentences, $3))
         ORDER BY patient_key",
    )
    .bind(resource_type)
    .bind(scope.keys())
    .bind(opening)
    .fetch_all(pool)
    .await?)
}

/// Which retrievers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RetrievalMode {
    /// pgvector cosine only.
    Dense,
    /// PostgreSQL full text only.
    Text,
    /// Both, fused by reciprocal rank.
    Hybrid,
}

/// What a retrieval is restricted to.
#[derive(Clone, Debug, Default)]
pub struct RetrievalFilter {
    /// Patients (None: every patient).
    pub patients: Option<Vec<i64>>,
    /// Only summary documents (conditions, allergies, medications).
    pub summaries_only: bool,
    /// Months of the document days, as their first days (None: any).
    pub months: Option<Vec<NaiveDate>>,
}

/// One retrieved document.
#[derive(Clone, Debug, PartialEq)]
pub struct RetrievedDocument {
    /// Its id.
    pub document_id: i64,
    /// Its patient.
    pub patient_key: i64,
    /// Its day (None: the summary).
    pub day: Option<NaiveDate>,
    /// Its text.
    pub text: String,
    /// Fused score.
    pub score: f64,
}

/// Ranks documents for a query vector and full-text terms, within the filter.
pub async fn retrieve(
    pool: &PgPool,
    mode: RetrievalMode,
    embedding: &[f32],
    tsquery: &str,
    filter: &RetrievalFilter,
    k: usize,
) -> Result<Vec<RetrievedDocument>, StoreError> {
    let depth = (k * 4).max(20) as i64;
    let mut tx = pool.begin().await?;
    // Cross-patient questions use the HNSW index; with a filter, keep scanning until enough rows
    // pass it (pgvector 0.8 iterative scans). Per-patient questions are exact either way.
    sqlx::query("SET LOCAL hnsw.ef_search = 100")
        .execute(&mut *tx)
        .await?;
    sqlx::query("SET LOCAL hnsw.iterative_scan = relaxed_order")
        .execute(&mut *tx)
        .await?;
    let rows = sqlx::query(
        "WITH dense AS (
            SELECT document_id, row_number() OVER (ORDER BY distance) AS rank FROM (
                SELECT c.document_id, c.embedding <=> $1 AS distance
                FROM chunks c JOIN documents d USING (document_id)
                WHERE $6 AND ($2::bigint[] IS NULL OR d.patient_key = ANY($2))
                  AND ($10::date[] IS NULL OR date_trunc('month', d.day)::date = ANY($10))
                  AND (NOT $3 OR d.day IS NULL)
                ORDER BY c.embedding <=> $1
                LIMIT $4) ranked
         ), sparse AS (
            SELECT document_id, row_number() OVER (ORDER BY score DESC, document_id) AS rank FROM (
                SELECT c.document_id, ts_rank_cd(c.text_search, q.query) AS score
                FROM chunks c JOIN documents d USING (document_id),
                     to_tsquery('english', $5) AS q(query)
                WHERE $7 AND $5 <> '' AND c.text_search @@ q.query
                  AND ($2::bigint[] IS NULL OR d.patient_key = ANY($2))
                  AND ($10::date[] IS NULL OR date_trunc('month', d.day)::date = ANY($10))
                  AND (NOT $3 OR d.day IS NULL)
                ORDER BY score DESC, c.document_id
                LIMIT $4) ranked
         ), fused AS (
            SELECT document_id, min(rank) AS rank FROM dense GROUP BY document_id
            UNION ALL
            SELECT document_id, min(rank) AS rank FROM sparse GROUP BY document_id
         ), scored AS (
            SELECT document_id, sum(1.0 / ($8 + rank))::float8 AS score
            FROM fused GROUP BY document_id
         )
         SELECT s.document_id, d.patient_key, d.day, d.text, s.score
         FROM scored s JOIN documents d USING (document_id)
         ORDER BY s.score DESC, s.document_id
         LIMIT $9",
    )
    .bind(Vector::from(embedding.to_vec()))
    .bind(filter.patients.clone())
    .bind(filter.summaries_only)
    .bind(depth)
    .bind(tsquery)
    .bind(mode != RetrievalMode::Text)
    .bind(mode != RetrievalMode::Dense)
    .bind(RRF_K)
    .bind(k as i64)
    .bind(filter.months.clone())
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows.iter().map(document_from_row).collect())
}

/// The documents of `patients` with a fact that holds every one of `terms` (as substrings, so
/// "a1c" is found inside "A1c/Hemoglobin.total", which text search reads as one token): the
/// summary first (a condition's onset, a medication's first and last prescription live there),
/// then the dated ones newest first (or oldest first): the candidates of a "latest" or "first"
/// question, which relevance ranking would pick among at random (every weighing mentions weight
/// alike). No terms: nothing.
pub async fn by_day(
    pool: &PgPool,
    patients: &[i64],
    terms: &[String],
    newest_first: bool,
    k: usize,
) -> Result<Vec<RetrievedDocument>, StoreError> {
    // By the term's root: "implanted" finds "Implantable defibrillator" (the exact reading
    // follows, in the synthesis).
    let roots: Vec<String> = terms
        .iter()
        .map(|t| {
            crate::answer::question::root(t)
                .chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        .collect();
    let patterns: Vec<String> = roots
        .iter()
        .filter(|t| t.len() >= 2)
        .map(|t| format!("%{t}%"))
        .collect();
    // A term of one letter (the "B" of "Hep B") is a word of its own.
    let letters: Vec<String> = roots
        .iter()
        .filter(|t| t.len() == 1)
        .map(|t| format!(r"\m{t}\M"))
        .collect();
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "SELECT d.document_id, d.patient_key, d.day, d.text, 1.0::float8 AS score
         FROM documents d
         WHERE d.patient_key = ANY($1)
           AND EXISTS (SELECT 1 FROM facts f
                       WHERE f.patient_key = d.patient_key AND f.day IS NOT DISTINCT FROM d.day
                         AND f.sentences ILIKE ALL ($2)
                         AND f.sentences ~* ALL ($5))
         ORDER BY d.day IS NOT NULL, CASE WHEN $3 THEN d.day END DESC,
                  CASE WHEN NOT $3 THEN d.day END ASC, d.document_id
         LIMIT $4",
    )
    .bind(patients)
    .bind(&patterns)
    .bind(newest_first)
    .bind(k as i64)
    .bind(&letters)
    .fetch_all(pool)
    .await?;
    Ok(rows.iter().map(document_from_row).collect())
}

/// A patient's facts of `kinds` (resource types), each as a document of one fact: its day is
/// the day of the document that holds it, or its own date (a prescription's, a diagnosis'
/// onset) for a fact of the summary; its id is that document's.
pub async fn dated_facts(
    pool: &PgPool,
    patient: i64,
    kinds: &[&str],
) -> Result<Vec<RetrievedDocument>, StoreError> {
    let rows = sqlx::query(
        "SELECT f.day, f.event_date, f.sentences,
                (SELECT min(d.document_id) FROM documents d
                 WHERE d.patient_key = f.patient_key AND d.day IS NOT DISTINCT FROM f.day)
                    AS document_id
         FROM facts f WHERE f.patient_key = $1 AND f.resource_type = ANY($2)
         ORDER BY f.day, f.event_date, f.resource_id",
    )
    .bind(patient)
    .bind(kinds)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let day: Option<NaiveDate> = r.get("day");
            let event: Option<String> = r.get("event_date");
            // A date the record wrote oddly is no day, never an error.
            let own = event.and_then(|e| NaiveDate::parse_from_str(e.get(..10)?, "%Y-%m-%d").ok());
            RetrievedDocument {
                document_id: r.get::<Option<i64>, _>("document_id").unwrap_or_default(),
                patient_key: patient,
                day: day.or(own),
                text: r.get("sentences"),
                score: 1.0,
            }
        })
        .collect())
}

/// The facts a patient's summary keeps whose own date (a prescription, an onset, a care plan's
/// start) falls in one of `months`: one document per patient and date,
/// dated that day and carrying the summary's id. A dated question ("prescribed in November
/// 2018") is answered from them as well as from the documents of those days.
pub async fn events(
    pool: &PgPool,
    patients: &[i64],
    months: &[NaiveDate],
) -> Result<Vec<RetrievedDocument>, StoreError> {
    if patients.is_empty() || months.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "SELECT d.document_id, f.patient_key, f.event_day AS day,
                string_agg(DISTINCT f.sentences, E'\n') AS text, 1.0::float8 AS score
         FROM (SELECT patient_key, sentences, to_date(substr(event_date, 1, 10), 'YYYY-MM-DD') AS event_day
               FROM facts
               WHERE patient_key = ANY($1) AND day IS NULL
                 AND event_date ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])') f
         JOIN documents d ON d.patient_key = f.patient_key AND d.day IS NULL
         WHERE date_trunc('month', f.event_day)::date = ANY($2)
         GROUP BY d.document_id, f.patient_key, f.event_day
         ORDER BY f.event_day, f.patient_key
         LIMIT 64",
    )
    .bind(patients)
    .bind(months)
    .fetch_all(pool)
    .await?;
    Ok(rows.iter().map(document_from_row).collect())
}

fn document_from_row(row: &sqlx::postgres::PgRow) -> RetrievedDocument {
    RetrievedDocument {
        document_id: row.get("document_id"),
        patient_key: row.get("patient_key"),
        day: row.get("day"),
        text: row.get("text"),
        score: row.get("score"),
    }
}

/// Whether the patient's record holds any fact of `resource_type` ("Lane's active meds?" of a
/// record with no medication at all is answered so).
pub async fn holds_kind(
    pool: &PgPool,
    patient: i64,
    resource_type: &str,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM facts WHERE patient_key = $1 AND resource_type = $2)",
    )
    .bind(patient)
    .bind(resource_type)
    .fetch_one(pool)
    .await?)
}

/// The patient's age in whole decades, at death or today, computed by the vault: the birth
/// date never leaves it. `None` without a usable birth date.
pub async fn age_decade(pool: &PgPool, patient: i64) -> Result<Option<i32>, StoreError> {
    Ok(sqlx::query_scalar("SELECT vault.age_decade($1)")
        .bind(patient)
        .fetch_one(pool)
        .await?)
}

/// What a patient's record says of a death.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Death {
    /// The day of death the Patient record gives (`YYYY-MM-DD`).
    pub day: Option<String>,
    /// Dead, by a day of death or by the record's "deceased" flag.
    pub deceased: bool,
    /// The cause on the latest death certificate observation, when recorded.
    pub cause: Option<String>,
}

/// The death on the patient's record (the Patient fact and the death certificate's cause).
pub async fn death(pool: &PgPool, patient: i64) -> Result<Death, StoreError> {
    let day: Option<String> = sqlx::query_scalar(
        "SELECT substring(sentences FROM 'The patient died on ([0-9]{4}-[0-9]{2}-[0-9]{2})')
         FROM facts WHERE patient_key = $1 AND resource_type = 'Patient'",
    )
    .bind(patient)
    .fetch_optional(pool)
    .await?
    .flatten();
    let deceased = day.is_some()
        || sqlx::query_scalar::<_, bool>(
            "SELECT EXISTS (SELECT 1 FROM facts WHERE patient_key = $1
               AND resource_type = 'Patient' AND sentences LIKE '%The patient is deceased%')",
        )
        .bind(patient)
        .fetch_one(pool)
        .await?;
    let cause = if deceased {
        sqlx::query_scalar(
            "SELECT substring(sentences FROM 'Code is Cause of Death[^.]*\\. Value is ([^.]+)')
             FROM facts WHERE patient_key = $1 AND resource_type = 'Observation'
               AND sentences LIKE '%Cause of Death%'
             ORDER BY day DESC NULLS LAST LIMIT 1",
        )
        .bind(patient)
        .fetch_optional(pool)
        .await?
        .flatten()
    } else {
        None
    };
    Ok(Death {
        day,
        deceased,
        cause,
    })
}

/// The summary documents of these patients (the second step of a condition question).
pub async fn summaries(
    pool: &PgPool,
    patients: &[i64],
) -> Result<Vec<RetrievedDocument>, StoreError> {
    let rows = sqlx::query(
        "SELECT document_id, patient_key, day, text, 1.0::float8 AS score FROM documents
         WHERE day IS NULL AND patient_key = ANY($1) ORDER BY patient_key",
    )
    .bind(patients)
    .fetch_all(pool)
    .await?;
    Ok(rows.iter().map(document_from_row).collect())
}

/// One voter of a DP text answer: a patient and the documents it reads.
#[derive(Clone, Debug)]
pub struct Voter {
    /// The patient.
    pub patient_key: i64,
    /// Its documents: those that hold the asked kind of fact first, then the most similar.
    pub texts: Vec<String>,
    /// The best document's cosine similarity to the question.
    pub similarity: f64,
}

/// Threshold retrieval for DP answers: every patient among `patients` with a document whose
/// best chunk reaches cosine similarity `threshold` to `embedding` votes, and reads its
/// `per_patient` documents that hold a fact of the asked kind (a sentence starting `prefer`,
/// e.g. "Immunization is "), most similar first, then its other documents by similarity.
/// Without that preference a vaccine question's voters read the days of the question's
/// condition, which name no vaccine, and answer with the condition. Whether a patient votes
/// and what it reads depend on that patient's records and the question only (no top-k across
/// patients, which one patient could change).
pub async fn threshold_voters(
    pool: &PgPool,
    embedding: &[f32],
    patients: &[i64],
    threshold: f64,
    per_patient: usize,
    prefer: Option<&str>,
) -> Result<Vec<Voter>, StoreError> {
    let rows = sqlx::query(
        "WITH scored AS (
             SELECT d.patient_key, d.document_id, d.text, 1 - s.distance AS similarity,
                    coalesce(strpos(d.text, $5) > 0, false) AS holds_kind
             FROM (SELECT c.document_id, min(c.embedding <=> $1) AS distance
                   FROM chunks c JOIN documents d USING (document_id)
                   WHERE d.patient_key = ANY($2)
                   GROUP BY c.document_id) s
             JOIN documents d USING (document_id)),
         voting AS (
             SELECT patient_key, max(similarity) AS best FROM scored
             GROUP BY patient_key HAVING max(similarity) >= $3)
         SELECT patient_key, text, best AS similarity FROM (
             SELECT s.patient_key, s.text, v.best,
                    row_number() OVER (PARTITION BY s.patient_key
                                       ORDER BY s.holds_kind DESC, s.similarity DESC,
                                                s.document_id) AS place
             FROM scored s JOIN voting v USING (patient_key)
             WHERE s.holds_kind OR s.similarity >= $3) ranked
         WHERE place <= $4
         ORDER BY patient_key, place",
    )
    .bind(Vector::from(embedding.to_vec()))
    .bind(patients)
    .bind(threshold)
    .bind(per_patient as i64)
    .bind(prefer)
    .fetch_all(pool)
    .await?;
    let mut voters: Vec<Voter> = Vec::new();
    for row in rows {
        let patient_key: i64 = row.get("patient_key");
        let text: String = row.get("text");
        let similarity: f64 = row.get("similarity");
        match voters.last_mut() {
            Some(v) if v.patient_key == patient_key => v.texts.push(text),
            _ => voters.push(Voter {
                patient_key,
                texts: vec![text],
                similarity,
            }),
        }
    }
    Ok(voters)
}
