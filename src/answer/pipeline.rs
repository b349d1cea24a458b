//! One query through the three agents, the answering step and the guard:
//!
//! ```text
//! limits ─▶ scope ─▶ Search (names, condition, hybrid) ─▶ Synthesis (generalize, select, fold,
//! rewrite) ─▶ Review (bounded corrections) ─▶ answer (model or template) ─▶ guard ─▶ audit
//! ```

use std::collections::BTreeSet;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::contract::{
    Answer, AnswerStatus, DpSpent, Mode, PrivacyFindings, PrivacySummary, Query, Timings,
};
use super::document::SyntheticDocument;
use super::policy::{self, Disclosure};
use super::population::Population;
use super::question::{analyze, named_condition, tsquery_or, ConditionNames, QuestionAnalysis};
use super::respond::{
    answer_request, cohort_answer, numbers_are_grounded, says_not_found, select_request,
    template_answer, words_are_grounded, NOT_FOUND_ANSWER,
};
use super::review::{review_loop, Reviewed, Verdict};
use super::search::{self, RetrievalFilter, RetrievalMode, RetrievedDocument, Scope};
use super::synthesis::{
    assemble, candidates, parse_choice, render_query, retrieval_text, select_by_rules, shortlist,
};
use crate::dp::budget::{Budget, Spend};
use crate::dp::{DpConfig, DpText, Noise, PrivacyCost, TextPlan, VoteChooser};
use crate::embed::batcher::EmbeddingService;
use crate::embed::EmbedError;
use crate::llm::{Backend, ChatRequest, LlmConfig, VoteRequest};
use crate::privacy::digest::DigestKey;
use crate::privacy::guard::PgVault;
use crate::privacy::pseudonym::labels;
use crate::privacy::{Guarded, PrivacyGuard};
use crate::store::{Disposition, Store, StoreError};

pub use super::config::AnswerConfig;

/// Errors that keep a query from being answered now.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The embedding service failed.
    #[error("embedding the question: {0}")]
    Embed(#[from] EmbedError),
    /// A setting is wrong.
    #[error("configuration: {0}")]
    Config(String),
    /// The guard's vault index could not be read.
    #[error(transparent)]
    Guard(#[from] crate::privacy::guard::GuardError),
}

impl AnswerError {
    /// What the worker's retry policy does with it.
    pub fn disposition(&self) -> Disposition {
        match self {
            AnswerError::Store(e) => e.disposition(),
            // Reading the vault index: the same classes as any store read.
            AnswerError::Guard(crate::privacy::guard::GuardError::Index(e)) => {
                crate::store::sqlx_disposition(e)
            }
            AnswerError::Embed(EmbedError::Stopped) => Disposition::Fatal,
            AnswerError::Embed(e) if e.is_out_of_memory() => Disposition::Transient,
            AnswerError::Embed(_) => Disposition::Permanent,
            // A wrong setting fails every query alike.
            AnswerError::Config(_) => Disposition::Fatal,
        }
    }
}

impl From<sqlx::Error> for AnswerError {
    fn from(e: sqlx::Error) -> Self {
        AnswerError::Store(StoreError::Database(e))
    }
}

/// How the Search agent looks for documents. The answer path uses the default; the evaluation
/// measures the parts one by one.
#[derive(Clone, Debug)]
pub struct SearchPlan {
    /// Ranking.
    pub mode: RetrievalMode,
    /// Run the condition search for two-step questions.
    pub condition_search: bool,
    /// Run the ranked retrieval (off: condition search alone).
    pub ranked: bool,
    /// Resolve names and dates into SQL filters (off: rank the whole scope, as the thesis did).
    pub filters: bool,
    /// Most patients a condition search returns.
    pub condition_patients: usize,
    /// Words the records use (None: not known): a concept's words the records never use
    /// ("charted" in "the weight charted in 2017") are dropped from it.
    pub known: Option<BTreeSet<String>>,
}

impl Default for SearchPlan {
    fn default() -> Self {
        SearchPlan {
            mode: RetrievalMode::Hybrid,
            condition_search: true,
            ranked: true,
            filters: true,
            condition_patients: 10,
            known: None,
        }
    }
}

/// What the Search agent found.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// Patients the question names.
    pub resolution: search::NameResolution,
    /// The question, read.
    pub analysis: super::question::QuestionAnalysis,
    /// Documents, best first.
    pub documents: Vec<RetrievedDocument>,
}

/// The Search agent: resolves names within the scope, then a condition search for a two-step
/// question, summaries for an overview of a named patient, or ranked retrieval filtered to the
/// named patients and dates.
pub async fn find_documents(
    pool: &sqlx::PgPool,
    embedder: &EmbeddingService,
    question: &str,
    scope: &Scope,
    plan: &SearchPlan,
    k: usize,
) -> Result<Found, AnswerError> {
    let resolution = if plan.filters {
        let probe = analyze(question, &BTreeSet::new());
        search::resolve_names(pool, &probe.name_candidates, scope).await?
    } else {
        search::NameResolution::default()
    };
    find_documents_resolved(pool, embedder, question, scope, plan, k, resolution).await
}

/// [`find_documents`] with the names already resolved (within the scope).
pub async fn find_documents_resolved(
    pool: &sqlx::PgPool,
    embedder: &EmbeddingService,
    question: &str,
    scope: &Scope,
    plan: &SearchPlan,
    k: usize,
    resolution: search::NameResolution,
) -> Result<Found, AnswerError> {
    let mut analysis = analyze(question, &resolution.name_words);
    if let Some(known) = &plan.known {
        analysis.keep_known(known);
    }
    let found = |documents| Found {
        resolution: resolution.clone(),
        analysis: analysis.clone(),
        documents,
    };
    if resolution.patients.is_empty() {
        if let (true, Some(condition)) = (plan.condition_search, &analysis.condition) {
            let patients =
                search::condition_patients(pool, condition, scope, plan.condition_patients).await?;
            if !patients.is_empty() {
                return Ok(found(search::summaries(pool, &patients).await?));
            }
        }
    } else if analysis.broad && analysis.months.is_empty() {
        return Ok(found(search::summaries(pool, &resolution.patients).await?));
    }
    if !plan.ranked {
        return Ok(found(Vec::new()));
    }
    // "The latest weight", "the first blood pressure": the newest (oldest) documents that
    // mention it, not the most similar ones.
    if let (Some(recency), false, true) = (
        analysis.recency,
        resolution.patients.is_empty(),
        analysis.months.is_empty(),
    ) {
        let patients = scope
            .narrow(&resolution.patients)
            .keys()
            .unwrap_or_default();
        // Documents with a fact that holds the whole concept ("body temperature"), in the
        // words the records use: a word they never use ("hi", "seen") would match nothing,
        // and a concept none of whose words they use is left to the ranked search below
        // (which then finds nothing that holds it).
        let mut concept = super::question::concept_terms(&analysis);
        if let Some(known) = &plan.known {
            concept.retain(|t| known.contains(t));
        }
        let documents = search::by_day(
            pool,
            &patients,
            &concept,
            recency == super::question::Recency::Latest,
            k,
        )
        .await?;
        if !documents.is_empty() {
            return Ok(found(documents));
        }
    }
    let filter = RetrievalFilter {
        patients: if resolution.patients.is_empty() {
            scope.keys()
        } else {
            scope.narrow(&resolution.patients).keys()
        },
        // Never a day: see `QuestionAnalysis::months`.
        summaries_only: false,
        months: (plan.filters && !analysis.months.is_empty()).then(|| analysis.months.clone()),
    };
    // The embedder and the text search see the question without names.
    let text = retrieval_text(question, &resolution.name_words, &[], 500);
    let vector = embedder.embed(vec![text]).await?.pop().unwrap_or_default();
    let mut documents = search::retrieve(
        pool,
        plan.mode,
        &vector,
        &tsquery_or(&analysis.terms),
        &filter,
        k,
    )
    .await?;
    // A named patient's prescriptions, onsets and care plans of the days or months asked live
    // in the summary with their own dates: they answer a dated question too.
    if plan.filters && !resolution.patients.is_empty() {
        let patients = scope
            .narrow(&resolution.patients)
            .keys()
            .unwrap_or_default();
        // After the ranked documents: the ranking stays what the retriever made it.
        documents.extend(search::events(pool, &patients, &analysis.months).await?);
    }
    Ok(found(documents))
}

/// What the agents found, before the answer is sealed.
#[derive(Debug, Default)]
struct Draft {
    policy: Option<Disclosure>,
    status: Option<AnswerStatus>,
    answer: String,
    synthetic_query: String,
    documents: Vec<i64>,
    patients: BTreeSet<i64>,
    llm_calls: u32,
    findings: PrivacyFindings,
    timings: Timings,
    trace: Trace,
    dp: Option<DpSpent>,
    dp_audit: Option<serde_json::Value>,
    /// A DP spend was charged for this answer: the published answer goes to its ledger row.
    dp_charged: bool,
    /// For "how many" about one patient: the events on the whole record (the retrieved
    /// documents hold only some of them).
    events: Option<usize>,
}

impl Draft {
    fn settle(&mut self, outcome: policy::Outcome) {
        self.status = Some(outcome.status);
        self.answer = outcome.answer.to_string();
        self.synthetic_query = outcome.synthetic_query.to_string();
        self.findings.reason = Some(outcome.reason.to_string());
    }
}

/// Whether a name the question writes in full ("Jane Smith") is not the whole name of one
/// listed patient, though one of its words matches one ("Mary Smith" on the list): then it names
/// somebody else (a patient outside the list, or nobody), and answering with the listed
/// patient's record would be about the wrong person. Words the records use ("Smith fracture")
/// are not names, except right before a matched name ("Camila Ankunding": Camila is also a
/// drug the records name, and here a first name). A run none of whose words matched is left to
/// the other checks.
fn names_someone_else(
    runs: &[Vec<String>],
    resolution: &search::NameResolution,
    known: &BTreeSet<String>,
) -> bool {
    let matched = |w: &String, words: &BTreeSet<String>| {
        words.contains(w) || words.contains(&crate::text::strip_digits(w))
    };
    runs.iter().any(|run| {
        let names: Vec<&String> = run
            .iter()
            .enumerate()
            .filter(|(i, w)| {
                !known.contains(*w)
                    || run.get(i + 1).is_some_and(|next| {
                        !known.contains(next) && matched(next, &resolution.name_words)
                    })
            })
            .map(|(_, w)| w)
            .collect();
        let touches = names.iter().any(|w| matched(w, &resolution.name_words));
        touches
            && !resolution
                .words_of
                .values()
                .any(|words| names.iter().all(|w| matched(w, words)))
    })
}

/// Whether a care-team question asks about the patient's death: when, or of what.
fn asks_death(question: &str) -> bool {
    static DEATH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(?:die|died|death|pass\s+away|passed\s+away|deceased)\b")
            .expect("valid death regex")
    });
    // "Her last flu jab before she died", "was X still on her list when she died": the death
    // dates another question; "what did she die of" still asks about it.
    static AS_A_TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(?:before|when|until|till|by\s+the\s+time|at\s+the\s+time|prior\s+to|after|in\s+the\s+years?\s+before)\s+(?:(?:she|he|they|the\s+patient|pt)\s+)?(?:died|passed|death)\b|\b(?:before|prior\s+to|until|at)\s+(?:her|his|their)\s+death\b",
        )
        .expect("valid regex")
    });
    static ABOUT_IT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\bcause\b|\bwhy\b|\bof\s+what\b|\bwhat\s+(?:did|killed)\b|\bhow\s+did\s+(?:she|he|they)\s+die\b")
            .expect("valid regex")
    });
    DEATH.is_match(question) && (!AS_A_TIME.is_match(question) || ABOUT_IT.is_match(question))
}

/// Whether every place `question` writes `word` (folded) writes it in capitals ("ICU") or with a
/// capital inside ("EpiPen"): an abbreviation or a brand, as cohort questions name concepts.
fn written_as_an_abbreviation(question: &str, word: &str) -> bool {
    let mut seen = false;
    for token in question.split(|c: char| !c.is_alphanumeric()) {
        if token.to_lowercase() != word {
            continue;
        }
        seen = true;
        let letters: Vec<char> = token.chars().filter(|c| c.is_alphabetic()).collect();
        let capitals = letters.iter().filter(|c| c.is_uppercase()).count();
        let all_capitals = letters.len() >= 2 && capitals == letters.len();
        let capital_inside = letters.iter().skip(1).any(|c| c.is_uppercase())
            && letters.iter().any(|c| c.is_lowercase())
            && letters.len() >= 4;
        if !(all_capitals || capital_inside) {
            return false;
        }
    }
    seen
}

/// What happened inside one answer, for the evaluation harness only: it holds record text and is
/// never logged or published.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The retrieved documents' text, best first (the "original information").
    pub retrieved: Vec<String>,
    /// The synthetic document the answering step saw.
    pub synthetic_document: String,
}

/// The condition of a cohort question as the records word it (unknown words, which could be
/// names, left out), and the synthetic query rendered from the analysed question.
///
/// Also whether the question names a condition with a naming word the records of k patients
/// never use ("cystic fibrosis" where nobody has it, "asthma and diabetes" where asthma is
/// rarer): that cohort is empty or smaller than k, and it must read like any cohort under k,
/// never like the whole population or a wider condition.
fn cohort_subject(
    analysis: &QuestionAnalysis,
    known: &BTreeSet<String>,
) -> (Option<String>, String, bool) {
    // The condition as the records word it (unknown words, which could be names, left out).
    // Known as written or in the canonical form the analysis looked up ("sinusitis" is looked
    // up as "sinusiti").
    let is_known = |w: &String| {
        known.contains(w) || {
            let terms = super::question::line_terms(w);
            !terms.is_empty() && terms.iter().all(|t| known.contains(t))
        }
    };
    let condition: Option<String> = analysis.condition.as_ref().and_then(|c| {
        let words: Vec<String> = crate::text::words(c)
            .into_iter()
            .filter(|w| is_known(w) && !super::question::is_not_condition(w))
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    });
    // A naming word the records (of k patients) never use: no patient holds that condition
    // ("cystic fibrosis"; "asthma and diabetes" where asthma is rarer is not "diabetes").
    let unknown = analysis.condition.as_deref().is_some_and(|c| {
        crate::text::words(c)
            .iter()
            .any(|w| !is_known(w) && super::question::names_something(w))
    });
    let subject = match &condition {
        Some(c) => format!("patients with {c}"),
        None => "the patients".to_string(),
    };
    // The condition is the subject already, not a topic.
    let condition_terms = super::question::line_terms(analysis.condition.as_deref().unwrap_or(""));
    let topic: Vec<String> = analysis
        .terms
        .iter()
        .filter(|t| !condition_terms.contains(*t))
        .cloned()
        .collect();
    let synthetic = render_query(&subject, &topic, known, &[]);
    (condition, synthetic, unknown)
}

/// Whether a cohort question asks for a count or a number (DP aggregates), not a text.
fn asks_for_figures(question: &str) -> bool {
    let words = crate::text::words(question);
    let has = |w: &str| words.iter().any(|x| x == w);
    (has("how") && (has("many") || has("much")))
        || [
            "number",
            "count",
            "median",
            "average",
            "mean",
            "percentage",
            "percent",
            "proportion",
            "share",
        ]
        .iter()
        .any(|w| has(w))
}

/// How one cohort question is answered privately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DpKind {
    Aggregate,
    Text,
}

impl DpKind {
    fn as_str(self) -> &'static str {
        match self {
            DpKind::Aggregate => "aggregate",
            DpKind::Text => "text",
        }
    }
}

/// ε as written in answers: "5", "0.5".
fn format_epsilon(epsilon: f64) -> String {
    let rounded = (epsilon * 100.0).round() / 100.0;
    format!("{rounded}")
}

/// The deterministic answer to a DP cohort question.
fn dp_cohort_answer(document: &SyntheticDocument, epsilon: f64) -> String {
    format!(
        "From the de-identified records, with differential privacy (ε = {}; every count and \
         median carries calibrated noise, and items few patients share are not named): {}",
        format_epsilon(epsilon),
        document.lines.join(" ")
    )
}

/// The voters of a DP text answer: the patients of the question's cohort (its condition, or
/// the whole scope) with a document at least `--dp-similarity` similar to the question.
pub async fn dp_voters(
    pool: &sqlx::PgPool,
    embedder: &EmbeddingService,
    question: &str,
    condition: Option<&str>,
    scope: &Scope,
    settings: &DpConfig,
) -> Result<Vec<search::Voter>, AnswerError> {
    let patients = super::cohort::cohort(pool, scope, condition).await?;
    let text = retrieval_text(question, &BTreeSet::new(), &[], 500);
    let vector = embedder.embed(vec![text]).await?.pop().unwrap_or_default();
    Ok(search::threshold_voters(
        pool,
        &vector,
        &patients,
        settings.dp_similarity,
        settings.dp_documents_per_voter,
    )
    .await?)
}

/// The condition of a cohort question as the records word it (what [`dp_voters`] takes).
pub async fn cohort_condition(
    pool: &sqlx::PgPool,
    question: &str,
    min_patients: usize,
) -> Result<Option<String>, AnswerError> {
    let analysis = analyze(question, &BTreeSet::new());
    let mut vocabulary: Vec<String> = analysis.terms.clone();
    if let Some(condition) = &analysis.condition {
        vocabulary.extend(crate::text::words(condition));
    }
    let known = search::known_words(pool, &vocabulary, min_patients, None).await?;
    // DP answers: the cohort follows the question's grammar alone (see `cohort_analysis`).
    let analysis = read_cohort(analysis, &known, None);
    Ok(cohort_subject(&analysis, &known).0)
}

/// A cohort question as the cohort path reads it: the context words the records never use
/// dropped, and its condition matched against `names` when given.
fn read_cohort(
    mut analysis: QuestionAnalysis,
    known: &BTreeSet<String>,
    names: Option<&ConditionNames>,
) -> QuestionAnalysis {
    analysis.keep_known(known);
    if let Some(condition) = names.and_then(|names| named_condition(&analysis, names)) {
        analysis.condition = Some(condition);
    }
    analysis
}

/// Keeps a uniformly random `most` of the voters (drawn from the answer's noise).
pub fn subsample(voters: &mut Vec<search::Voter>, most: usize, noise: &mut Noise) {
    let keep = noise.choose_front(voters, most);
    voters.truncate(keep);
}

/// Each voter's context: its documents, one short line per fact (see [`compact_fact`]), the
/// facts of the kind the question asks about first (so that the cut at `--dp-context-tokens`
/// keeps them), dates generalized to months. The order depends on the question's words only.
pub fn voter_contexts(voters: &[search::Voter], question: &str) -> Vec<String> {
    let asked = asked_kind(question);
    voters
        .iter()
        .map(|v| {
            let mut lines: Vec<String> = v
                .texts
                .iter()
                .flat_map(|t| t.lines())
                .filter_map(compact_fact)
                .collect();
            if let Some(kind) = asked {
                lines.sort_by_key(|l| !l.starts_with(kind));
            }
            crate::text::dates::generalize_to_months(&lines.join("\n"))
        })
        .collect()
}

/// One fact line of a document as a voter reads it: what the fact is and its value, without
/// the statuses and categories that fill most of a document's tokens ("Condition is
/// Hypertension. Clinical status is active. …" → "Condition: Hypertension"; "Category is
/// vital-signs. Code is Body Weight. Value is 67.6 kg." → "Body Weight: 67.6 kg"). A voter's
/// context is cut at `--dp-context-tokens`; this lets it hold several times more facts, and
/// a small model copies an item name from a short line far more reliably than from a long one.
/// Lines that are empty after that are dropped.
pub fn compact_fact(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with("Summary of ") {
        return None;
    }
    let sentences: Vec<&str> = line
        .split(". ")
        .map(|s| s.trim().trim_end_matches('.'))
        .filter(|s| !s.is_empty())
        .collect();
    fn field(s: &str) -> Option<(&str, &str)> {
        s.split_once(" is ").map(|(k, v)| (k.trim(), v.trim()))
    }
    let compact = match sentences.first().and_then(|s| field(s)) {
        Some(("Category", _)) => {
            // An observation: "Code is X. Value is Y." or its components "X is Y".
            let rest: Vec<String> = sentences[1..]
                .iter()
                .filter_map(|s| field(s))
                .filter(|(k, _)| *k != "Status" && *k != "Interpretation")
                .map(|(k, v)| match k {
                    "Code" | "Value" => v.to_string(),
                    _ => format!("{k} {v}"),
                })
                .collect();
            rest.join(": ")
        }
        Some((kind, value)) => format!("{kind}: {value}"),
        None => sentences.first().copied().unwrap_or_default().to_string(),
    };
    (!compact.is_empty()).then_some(compact)
}

/// What a question asks for, from its words: the answer's lead and the record lines of that
/// kind (as [`compact_fact`] writes them).
const ASKED: [(&[&str], &str, &str); 6] = [
    (
        &[
            "medication",
            "medications",
            "medicine",
            "drug",
            "drugs",
            "prescribed",
            "take",
            "takes",
        ],
        "Medication:",
        "Medication:",
    ),
    (
        &[
            "vaccine",
            "vaccines",
            "vaccination",
            "immunization",
            "immunizations",
            "immunized",
        ],
        "Vaccine:",
        "Immunization:",
    ),
    (
        &[
            "procedure",
            "procedures",
            "surgery",
            "operation",
            "undergo",
            "undergoes",
        ],
        "Procedure:",
        "Procedure:",
    ),
    (
        &["allergy", "allergies", "allergic"],
        "Allergy:",
        "Allergy:",
    ),
    (
        &[
            "condition",
            "conditions",
            "diagnosis",
            "diagnoses",
            "disease",
            "diseases",
        ],
        "Condition:",
        "Condition:",
    ),
    (&["plan", "plans", "careplan"], "Care plan:", "Care plan:"),
];

fn asked(question: &str) -> Option<&'static (&'static [&'static str], &'static str, &'static str)> {
    let words = crate::text::words(question);
    ASKED
        .iter()
        .find(|(keys, _, _)| words.iter().any(|w| keys.contains(&w.as_str())))
}

fn asked_kind(question: &str) -> Option<&'static str> {
    asked(question).map(|(_, _, kind)| *kind)
}

/// The public start of every voter's answer, from the question's words alone (so it costs no
/// privacy): "Medication:" for a question about medications, and so on; "Answer:" otherwise.
/// A small model that must continue "Medication:" names one, where left alone it spends its
/// few charged tokens on "The patient with …".
pub fn answer_lead(question: &str) -> &'static str {
    asked(question)
        .map(|(_, lead, _)| *lead)
        .unwrap_or("Answer:")
}

/// A DP text answer whose draw said *no answer* (or whose vote produced nothing): the same
/// words whether the group is small, absent or in disagreement.
const DP_NO_AGREEMENT: &str = "No answer stood out among the records of the patients this \
    question concerns (a differentially private answer names an item only where many records \
    agree).";

/// What the voters of a DP text answer are told.
pub const DP_VOTER_SYSTEM: &str = "You read one patient's record and answer the question about \
    it in a few words. Name the item only.";

/// Answers queries. One per worker; cheap to share behind an `Arc`.
pub struct AnswerEngine {
    store: Store,
    embedder: EmbeddingService,
    backend: Backend,
    config: AnswerConfig,
    max_tokens: u32,
    temperature: f32,
    guard: PrivacyGuard,
    per_requester: DefaultKeyedRateLimiter<String>,
    llm_calls: DefaultDirectRateLimiter,
    budget: Budget,
    /// Key of the request digests (audit, DP ledger).
    digests: DigestKey,
    /// Whether answers are recorded (audit rows, the overlap control's memory): off for a dry
    /// run, whose answers must not depend on, nor change, what was asked before.
    record: bool,
    /// The condition names the store holds, read at most once a minute (a cohort question's
    /// condition is matched against them).
    condition_names: tokio::sync::Mutex<Option<(Instant, usize, Arc<ConditionNames>)>>,
}

/// How long the condition names read from the store are used before they are read again.
const CONDITION_NAMES_TTL: Duration = Duration::from_secs(60);

fn nonzero(n: u32, what: &str) -> Result<NonZeroU32, AnswerError> {
    NonZeroU32::new(n).ok_or_else(|| AnswerError::Config(format!("{what} must be at least 1")))
}

impl AnswerEngine {
    /// The guard over the store's vault index and the limiters.
    pub async fn new(
        store: Store,
        embedder: EmbeddingService,
        backend: Backend,
        config: AnswerConfig,
        llm: &LlmConfig,
    ) -> Result<Self, AnswerError> {
        let guard = PrivacyGuard::new(Arc::new(PgVault::new(store.pool().clone())));
        tracing::info!(backend = %backend.name(), "answer engine ready");
        let per_requester = RateLimiter::keyed(
            Quota::per_minute(nonzero(config.queries_per_minute, "--queries-per-minute")?)
                .allow_burst(nonzero(config.query_burst, "--query-burst")?),
        );
        let llm_calls = RateLimiter::direct(Quota::per_minute(nonzero(
            config.llm_calls_per_minute,
            "--llm-calls-per-minute",
        )?));
        if config.k == 0 || config.k > config.max_k {
            return Err(AnswerError::Config(format!(
                "--k ({}) must be between 1 and --max-k ({})",
                config.k, config.max_k
            )));
        }
        if config.cohort_min_patients == 0 {
            return Err(AnswerError::Config(
                "--cohort-min-patients must be at least 1".into(),
            ));
        }
        config.dp.validate().map_err(AnswerError::Config)?;
        let budget = Budget::new(store.pool().clone(), config.dp.limits());
        let digests = match &config.audit_key {
            Some(key) => key.clone(),
            None => {
                tracing::warn!(
                    "no --audit-key: request digests use a key of this process only (a DP \
                     query id asked again after a restart or on another worker is refused)"
                );
                DigestKey::random()
            }
        };
        Ok(AnswerEngine {
            store,
            embedder,
            backend,
            config,
            max_tokens: llm.llm_max_tokens,
            temperature: llm.llm_temperature,
            guard,
            per_requester,
            llm_calls,
            budget,
            digests,
            record: true,
            condition_names: tokio::sync::Mutex::new(None),
        })
    }

    /// The backend's name.
    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    /// This engine as a dry run: no audit row, and the overlap control neither reads nor writes
    /// the cohorts answered before (each question is answered as if it were the first). A DP
    /// question still spends from the budget: noise is never free.
    pub fn dry_run(mut self) -> Self {
        self.record = false;
        self
    }

    /// Forgets the cohorts answered to `requester` (the overlap control's memory), for an
    /// evaluation that asks its questions afresh.
    pub async fn forget_cohorts(&self, requester: &str) -> Result<(), AnswerError> {
        sqlx::query("DELETE FROM cohort_history WHERE requester_id = $1")
            .bind(super::contract::requester_key(requester))
            .execute(self.store.pool())
            .await
            .map_err(StoreError::from)?;
        Ok(())
    }

    /// The settings.
    pub fn config(&self) -> &AnswerConfig {
        &self.config
    }

    /// The store it answers from.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The model backend.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Takes one model call from the worker's budget; false when the wait would be too long.
    async fn take_llm_call(&self) -> bool {
        self.take_llm_calls(1).await
    }

    /// Takes `n` model calls from the worker's limit (at most a minute's allowance at once),
    /// waiting up to `--llm-wait-ms`.
    async fn take_llm_calls(&self, n: usize) -> bool {
        let n = n.clamp(1, self.config.llm_calls_per_minute.max(1) as usize) as u32;
        let Some(n) = std::num::NonZeroU32::new(n) else {
            return false;
        };
        matches!(
            tokio::time::timeout(
                Duration::from_millis(self.config.llm_wait_ms),
                self.llm_calls.until_n_ready(n),
            )
            .await,
            Ok(Ok(()))
        )
    }

    async fn call_model(
        &self,
        request: ChatRequest,
        draft: &mut Draft,
    ) -> Result<Option<String>, ()> {
        let Backend::Model(model) = &self.backend else {
            return Ok(None);
        };
        if !self.take_llm_call().await {
            return Err(());
        }
        draft.llm_calls += 1;
        match model.complete(request).await {
            Ok(completion) => Ok(Some(completion.text)),
            Err(e) => {
                tracing::warn!(error = %e, "model call failed; falling back to rules");
                Ok(None)
            }
        }
    }

    /// The keyed digest of what a query asks: its role, question, patient list (sorted), mode
    /// and ε as sent. Two deliveries of one query id are the same request only when these agree.
    fn request_digest(&self, query: &Query) -> [u8; 32] {
        let mut patients = query.requester.patients.clone().unwrap_or_default();
        patients.sort();
        patients.dedup();
        let patients = patients.join("\u{1f}");
        let listed = [query.requester.patients.is_some() as u8];
        let role = crate::text::fold(query.requester.role.trim());
        let epsilon = query
            .options
            .epsilon
            .map(f64::to_bits)
            .unwrap_or(0)
            .to_be_bytes();
        self.digests.digest(&[
            role.as_bytes(),
            query.question.as_bytes(),
            &listed,
            patients.as_bytes(),
            query.options.mode.as_str().as_bytes(),
            &epsilon,
        ])
    }

    /// Answers one query: the sealed answer (the only thing that may be published). Writes the
    /// audit row. Errors are transient (database, model thread) and worth a retry.
    pub async fn answer(&self, query: &Query) -> Result<Guarded<Answer>, AnswerError> {
        Ok(self.answer_traced(query).await?.0)
    }

    /// [`AnswerEngine::answer`], plus what the agents saw and made (for evaluation).
    pub async fn answer_traced(
        &self,
        query: &Query,
    ) -> Result<(Guarded<Answer>, Trace), AnswerError> {
        let started = Instant::now();
        let mut draft = Draft::default();
        // Requesters whose limit has refilled are forgotten: the limiter holds the requesters
        // of about the last minute, however many ever asked.
        if self.per_requester.len() > 1024 {
            self.per_requester.retain_recent();
            self.per_requester.shrink_to_fit();
        }
        if self.reuses_query_id(query).await? {
            draft.settle(policy::QUERY_ID_REUSED);
        } else if self
            .per_requester
            .check_key(&query.requester.key())
            .is_err()
        {
            draft.status = Some(AnswerStatus::RateLimited);
            draft.answer = format!(
                "Too many questions from this requester (limit {} per minute); please ask again shortly.",
                self.config.queries_per_minute
            );
        } else {
            self.run_agents(query, &mut draft).await?;
            self.read_otherwise(query, &mut draft).await?;
        }
        let status = draft.status.unwrap_or(AnswerStatus::NotFound);
        let answer = Answer {
            query_id: query.query_id.clone(),
            status,
            answer: std::mem::take(&mut draft.answer),
            synthetic_query: std::mem::take(&mut draft.synthetic_query),
            backend: self.backend.name(),
            documents_used: draft.documents.len(),
            llm_calls: draft.llm_calls,
            privacy: PrivacySummary {
                policy: draft
                    .policy
                    .map(Disclosure::as_str)
                    .unwrap_or("none")
                    .into(),
                checks: vec!["synthesis".into(), "review".into()],
                dp: draft.dp.take(),
            },
            timings: Timings::default(),
            answered_at: chrono::Utc::now().to_rfc3339(),
        };
        let guard_started = Instant::now();
        let sealed = self.guard.seal(answer).await?;
        draft.timings.guard_ms = guard_started.elapsed().as_millis() as u64;
        draft.timings.total_ms = started.elapsed().as_millis() as u64;
        // Timings are set after sealing: they are numbers the worker measured, not text.
        let mut sealed = sealed;
        sealed.set_extra(draft.timings.clone());
        let trace = std::mem::take(&mut draft.trace);
        if draft.dp_charged {
            // Kept even in a dry run: the spend happened, and a replay must get this answer.
            let published = serde_json::to_value(sealed.value())
                .map_err(|e| AnswerError::from(sqlx::Error::Decode(Box::new(e))))?;
            self.budget
                .publish(&query.requester.key(), &query.query_id, &published)
                .await?;
        }
        if self.record {
            self.audit(query, &sealed, &draft).await?;
        }
        Ok((sealed, trace))
    }

    /// A cohort question that offers its concept in two wordings ("a viral sore throat
    /// (pharyngitis)", "physio / movement therapy") and found no group as first read is read in
    /// each other wording ([`super::question::alternative_wordings`]) until one answers. Each
    /// reading is a question the requester could ask; the one that answers goes through the
    /// same k threshold and overlap control. Not for DP answers (each reading would spend) nor
    /// for refusals (a question about a person stays refused).
    async fn read_otherwise(&self, query: &Query, draft: &mut Draft) -> Result<(), AnswerError> {
        if draft.policy != Some(Disclosure::Cohort)
            || query.options.mode == Mode::Dp
            || draft.dp_charged
            || draft.status != Some(AnswerStatus::NotFound)
        {
            return Ok(());
        }
        for wording in super::question::alternative_wordings(&query.question) {
            let other = Query {
                question: wording,
                ..query.clone()
            };
            let mut again = Draft::default();
            self.run_agents(&other, &mut again).await?;
            if again.status == Some(AnswerStatus::Answered) {
                *draft = again;
                break;
            }
        }
        Ok(())
    }

    /// Whether this requester's query id was answered before for another request. A query is
    /// audited once; a redelivery of the same request is answered again (and counted), but a
    /// query id is never a way to ask something else under an audit row that says otherwise.
    async fn reuses_query_id(&self, query: &Query) -> Result<bool, AnswerError> {
        let stored: Option<Vec<u8>> = sqlx::query_scalar(
            "SELECT request_digest FROM answer_audit WHERE query_id = $1 AND requester_id = $2
             ORDER BY audit_id LIMIT 1",
        )
        .bind(&query.query_id)
        .bind(query.requester.key())
        .fetch_optional(self.store.pool())
        .await?;
        Ok(stored.is_some_and(|d| d != self.request_digest(query)))
    }

    async fn run_agents(&self, query: &Query, draft: &mut Draft) -> Result<(), AnswerError> {
        let Some(disclosure) = policy::disclosure(&self.config, &query.requester) else {
            draft.settle(policy::NO_ACCESS);
            return Ok(());
        };
        draft.policy = Some(disclosure);
        let pool = self.store.pool();
        let scope = match &query.requester.patients {
            Some(ids) => Scope::Patients(search::patient_keys(pool, ids).await?),
            None => Scope::All,
        };
        let search_started = Instant::now();
        // A cohort's population ("living women 65 or older") is read apart, and its words are
        // not looked for as concepts.
        let (population, asked) = match disclosure {
            Disclosure::Cohort => super::population::read(&query.question),
            Disclosure::CareTeam => (Population::default(), query.question.clone()),
        };
        let first = analyze(&asked, &BTreeSet::new());
        // Which words the records use: this reads documents, never the vault.
        let mut vocabulary: Vec<String> = first.capitalized.clone();
        vocabulary.extend(first.terms.iter().cloned());
        if let Some(condition) = &first.condition {
            vocabulary.extend(crate::text::words(condition));
        }
        // Care teams also know their own patients' words; anyone else only words that at least
        // k patients' records use.
        let own = match (disclosure, &scope) {
            (Disclosure::CareTeam, Scope::Patients(keys)) => Some(keys.as_slice()),
            _ => None,
        };
        let known =
            search::known_words(pool, &vocabulary, self.config.cohort_min_patients, own).await?;
        let unknown_capitalized: Vec<&String> = first
            .capitalized
            .iter()
            .filter(|w| !known.contains(*w))
            .collect();
        match disclosure {
            Disclosure::Cohort => {
                // "ICU", "HPV", "EpiPen": written as an abbreviation or a brand, not as a name;
                // read as a concept the records do not use (the vault is never asked, so the
                // reply cannot tell whether anyone bears such a name).
                let unknown_names = unknown_capitalized
                    .iter()
                    .filter(|w| !written_as_an_abbreviation(&asked, w))
                    .count();
                if first.identifiers > 0 || !first.name_like.is_empty() || unknown_names > 0 {
                    draft.settle(policy::COHORT_INDIVIDUAL);
                    return Ok(());
                }
                let dp = query.options.mode == Mode::Dp
                    || policy::has_role(&self.config.dp.dp_roles, &query.requester.role);
                let first = self.cohort_analysis(first, &known, &scope, dp).await?;
                let result = if dp {
                    self.dp_cohort(query, &scope, &first, &population, &known, draft)
                        .await
                } else {
                    self.cohort(
                        &query.requester.key(),
                        &scope,
                        &first,
                        &population,
                        &known,
                        draft,
                    )
                    .await
                };
                draft.timings.search_ms = search_started.elapsed().as_millis() as u64;
                // A cohort found by none of the question's words may be one of fewer than k
                // patients (their words read as unknown) or none: the reply says so, and says
                // which it is no more than the search did.
                if draft.status == Some(AnswerStatus::NotFound) && draft.answer == NOT_FOUND_ANSWER
                {
                    draft.answer =
                        super::respond::cohort_not_found(self.config.cohort_min_patients);
                }
                result
            }
            Disclosure::CareTeam => {
                if first.identifiers > 0 {
                    draft.settle(policy::NOT_ACCESSIBLE);
                    return Ok(());
                }
                let mut resolution =
                    search::resolve_names(pool, &first.name_candidates, &scope).await?;
                if let Some(sex) = first.titled_sex {
                    if search::keep_sex(pool, &mut resolution, sex).await? {
                        draft.settle(policy::NOT_ACCESSIBLE);
                        return Ok(());
                    }
                }
                let resolved = |w: &String| {
                    resolution.name_words.contains(w)
                        || resolution
                            .name_words
                            .contains(&crate::text::strip_digits(w))
                };
                let unresolved_names = first.name_like.iter().any(|w| !resolved(w));
                let unresolved_capitalized = unknown_capitalized.iter().any(|w| !resolved(w));
                if unresolved_names || (resolution.patients.is_empty() && unresolved_capitalized) {
                    draft.settle(policy::NOT_ACCESSIBLE);
                    return Ok(());
                }
                if names_someone_else(&first.name_runs, &resolution, &known) {
                    draft.settle(policy::NOT_ACCESSIBLE);
                    return Ok(());
                }
                if resolution.ambiguous {
                    draft.settle(policy::AMBIGUOUS);
                    return Ok(());
                }
                // "his latest LDL", "the patient's allergies": a care team of one patient asks
                // about that patient, as if it had named them (the latest reading, a verified
                // absence); never for a name the vault did not resolve.
                if let (true, true, Scope::Patients(keys)) = (
                    resolution.patients.is_empty(),
                    first.speaks_of_the_patient,
                    &scope,
                ) {
                    if let [one] = keys.as_slice() {
                        resolution.patients = vec![*one];
                        resolution.words_of.insert(*one, BTreeSet::new());
                    }
                }
                self.care_team(query, &scope, resolution, &known, search_started, draft)
                    .await
            }
        }
    }

    /// The condition names the patients of `scope` hold, a run of words read as one only when
    /// at least `min_patients` of them hold it: never a rarer condition, nor one outside the
    /// scope, so that which condition a question is read as tells nothing a count would not. The whole store's are cached for
    /// [`CONDITION_NAMES_TTL`]; a list of patients' are read each time.
    async fn condition_names(
        &self,
        scope: &Scope,
        min_patients: usize,
    ) -> Result<Arc<ConditionNames>, AnswerError> {
        let read = || async {
            Ok::<_, AnswerError>(Arc::new(ConditionNames::new(
                search::condition_names(self.store.pool(), scope).await?,
                min_patients,
            )))
        };
        if !matches!(scope, Scope::All) {
            return read().await;
        }
        let mut cached = self.condition_names.lock().await;
        if let Some((at, min, names)) = cached.as_ref() {
            if *min == min_patients && at.elapsed() < CONDITION_NAMES_TTL {
                return Ok(names.clone());
            }
        }
        let names = read().await?;
        *cached = Some((Instant::now(), min_patients, names.clone()));
        Ok(names)
    }

    /// [`read_cohort`] with the condition names at least k patients of the scope hold. A DP
    /// answer keeps to the question's grammar: which cohort it counts must not hang on an
    /// un-noised count of the store.
    async fn cohort_analysis(
        &self,
        analysis: QuestionAnalysis,
        known: &BTreeSet<String>,
        scope: &Scope,
        dp: bool,
    ) -> Result<QuestionAnalysis, AnswerError> {
        if dp {
            return Ok(read_cohort(analysis, known, None));
        }
        let names = self
            .condition_names(scope, self.config.cohort_min_patients.max(1))
            .await?;
        Ok(read_cohort(analysis, known, Some(&names)))
    }

    /// A cohort role's question: aggregates over at least k patients, never an individual.
    async fn cohort(
        &self,
        requester: &str,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        known: &BTreeSet<String>,
        draft: &mut Draft,
    ) -> Result<(), AnswerError> {
        let k = self.config.cohort_min_patients;
        let days = self.config.cohort_overlap_days;
        let pool = self.store.pool();
        // "How many … in 2019 / since 2018 / currently": the condition reading counts over all
        // time, so a count bound in time is taken by the concepts, dated, first.
        let timed = analysis.now
            || !analysis.months.is_empty()
            || analysis.since.is_some()
            || analysis.before.is_some();
        let (condition, synthetic, unknown) = cohort_subject(analysis, known);
        // "How many patients were prescribed tramadol?": no condition to group by, a drug to
        // count; the whole store's medication list would answer another question. (Allergies
        // and vaccines are listed with their counts, which answer.)
        let concept_only = condition.is_none()
            && super::question::asks_concept(analysis)
            && analysis.terms.iter().any(|t| t == "medication");
        if analysis.form == super::question::AnswerForm::Count
            && (timed || concept_only)
            && self
                .concept_count(requester, scope, analysis, population, known, draft)
                .await?
        {
            return Ok(());
        }
        let mut patients = if unknown {
            Vec::new()
        } else {
            super::cohort::cohort(pool, scope, condition.as_deref()).await?
        };
        patients.sort_unstable();
        patients.dedup();
        let patients = super::population::filter(pool, &patients, population).await?;
        // The cohort as the overlap control remembers it: its condition and its population.
        let remembered = match (condition.as_deref(), population.is_everyone()) {
            (c, true) => c.unwrap_or("").to_string(),
            (c, false) => format!("{} {}", population.describe("patients"), c.unwrap_or("")),
        };
        if patients.len() >= k.max(1) {
            let asked = super::cohort::AskedCohort {
                requester: requester.to_string(),
                list: match scope {
                    Scope::All => None,
                    Scope::Patients(keys) => {
                        let mut keys = keys.clone();
                        keys.sort_unstable();
                        keys.dedup();
                        Some(keys)
                    }
                },
                condition: &remembered,
                patients: &patients,
            };
            if self.record && super::cohort::overlap(pool, &asked, k, days).await? {
                draft.settle(policy::COHORT_OVERLAP);
                draft.synthetic_query = synthetic;
                return Ok(());
            }
        }
        let document = super::cohort::aggregate(
            pool,
            &patients,
            analysis,
            condition.as_deref(),
            population,
            k,
        )
        .await?;
        // No cohort by the condition reading: a "how many" may still name another concept.
        if document.as_ref().is_none_or(|d| d.lines.is_empty())
            && analysis.form == super::question::AnswerForm::Count
            && self
                .concept_count(requester, scope, analysis, population, known, draft)
                .await?
        {
            return Ok(());
        }
        let Some(document) = document else {
            draft.settle(policy::TOO_FEW);
            draft.synthetic_query = synthetic;
            return Ok(());
        };
        if document.lines.is_empty() {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            draft.synthetic_query = synthetic;
            return Ok(());
        }
        let Some((document, query)) = self.review(document, synthetic, draft).await? else {
            return Ok(());
        };
        draft.synthetic_query = query.get().clone();
        draft.trace.synthetic_document = document.get().text();
        let template = cohort_answer(document.get(), k);
        self.respond(&document, &query, template, draft).await;
        Ok(())
    }

    /// "How many patients had a colonoscopy since 2018?", "…both hypertension and
    /// hyperlipidemia?", "…a flu shot in 2019?": the patients with a fact of any kind holding
    /// each concept the question names (every one of them: an intersection; alternatives are
    /// not counted), in the months or from the year it names, active when it asks about now. Tried
    /// when the condition reading found no cohort. Every concept word must be one the records
    /// of k patients use (otherwise false: the question is not understood, and the caller's
    /// reply stands); a group under k gets the same reply as any group under k, and a group
    /// of k or more passes the overlap control like any cohort. Returns whether it answered.
    async fn concept_count(
        &self,
        requester: &str,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        known: &BTreeSet<String>,
        draft: &mut Draft,
    ) -> Result<bool, AnswerError> {
        let k = self.config.cohort_min_patients.max(1);
        let concepts = super::question::named_concepts(analysis, known);
        // A class's members the records of k patients never use are simply not among its
        // alternatives ("terfenadine" for an antihistamine).
        let in_class = |t: &String| {
            analysis
                .classes
                .iter()
                .any(|c| c.members.iter().any(|m| m.contains(t)))
        };
        let every_word_known = analysis
            .phrases
            .iter()
            .flatten()
            .filter(|t| super::question::is_concept(t) && !in_class(t))
            .all(|t| known.contains(t));
        // Alternatives ("A or B") are not counted: |A|, |B| and |A or B|, each of k or more and
        // each pair differing by k or more, give |A and B| by inclusion-exclusion, which may be
        // one patient; the overlap control compares answers in pairs only.
        if (concepts.is_empty() && analysis.classes.is_empty())
            || !every_word_known
            || analysis.alternatives
        {
            return Ok(false);
        }
        let pool = self.store.pool();
        // The concepts grouped: a class's members (every one the lexicon lists, whether or not
        // k patients' records use it: the requester did not choose them) are alternatives of
        // one group ("on an antihistamine": any of them), every other concept a group of its
        // own.
        let mut grouped: Vec<(String, Vec<Vec<String>>)> = concepts
            .iter()
            .filter(|concept| !concept.iter().all(in_class))
            .map(|concept| (analysis.as_written(concept.iter()), vec![concept.clone()]))
            .collect();
        grouped.extend(
            analysis
                .classes
                .iter()
                .map(|class| (class.written.clone(), class.members.clone())),
        );
        // "vaccine", "prescribed", "procedure": the one kind of fact named is where to look
        // ("a flu vaccine in 2020" is no influenza test of 2020). Not "allergic" nor
        // "diagnosed": those words are also parts of conditions' names ("allergic rhinitis").
        let kinds: Vec<&str> = [
            ("immunization", "Immunization"),
            ("medication", "MedicationRequest"),
            ("procedure", "Procedure"),
        ]
        .into_iter()
        .filter(|(term, _)| analysis.terms.iter().any(|t| t == term))
        .map(|(_, kind)| kind)
        .collect();
        let kinds: &[&str] = if kinds.len() == 1 { &kinds } else { &[] };
        let mut groups = Vec::new();
        for (_, members) in &grouped {
            let mut group: BTreeSet<i64> = BTreeSet::new();
            for member in members {
                let filter = super::cohort::ConceptFilter {
                    terms: member,
                    kinds,
                    months: &analysis.months,
                    since: analysis.since,
                    before: analysis.before,
                    active: analysis.now,
                };
                group.extend(super::cohort::concept_patients(pool, scope, &filter).await?);
            }
            groups.push(group.into_iter().collect::<Vec<i64>>());
        }
        let mut patients: BTreeSet<i64> = groups
            .first()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .collect();
        for group in &groups[1..] {
            let group: BTreeSet<i64> = group.iter().copied().collect();
            patients = patients.intersection(&group).copied().collect();
        }
        let patients: Vec<i64> = patients.into_iter().collect();
        let patients = super::population::filter(pool, &patients, population).await?;
        let who = population.describe("patients");
        let mut described: Vec<String> = Vec::new();
        for (written, _) in &grouped {
            if !described.contains(written) {
                described.push(written.clone());
            }
        }
        let described = described.join(" and ");
        let mut when = String::new();
        if let (Some(first), Some(last)) = (analysis.months.first(), analysis.months.last()) {
            when = if first == last {
                format!(" in {}", crate::text::dates::month_year(*first))
            } else {
                format!(
                    " from {} to {}",
                    crate::text::dates::month_year(*first),
                    crate::text::dates::month_year(*last)
                )
            };
        }
        if let Some(since) = analysis.since {
            when.push_str(&format!(" since {}", since.format("%Y")));
        }
        if let Some(before) = analysis.before {
            when.push_str(&format!(" before {}", before.format("%Y")));
        }
        let synthetic = format!("How many {who} have a record of {described}{when}?");
        if patients.len() < k {
            draft.settle(policy::TOO_FEW);
            draft.synthetic_query = synthetic;
            return Ok(true);
        }
        let asked = super::cohort::AskedCohort {
            requester: requester.to_string(),
            list: scope.keys().map(|mut keys| {
                keys.sort_unstable();
                keys.dedup();
                keys
            }),
            condition: &format!("concept:{described}{when}"),
            patients: &patients,
        };
        if self.record
            && super::cohort::overlap(pool, &asked, k, self.config.cohort_overlap_days).await?
        {
            draft.settle(policy::COHORT_OVERLAP);
            draft.synthetic_query = synthetic;
            return Ok(true);
        }
        draft.status = Some(AnswerStatus::Answered);
        draft.answer = format!(
            "From the de-identified records (counts of patients; groups of fewer than {k} \
             patients are not reported): {} {who} have a record of {described}{when}{}.",
            patients.len(),
            if analysis.now { " (active now)" } else { "" }
        );
        draft.synthetic_query = synthetic;
        Ok(true)
    }

    /// A cohort question answered with differential privacy: spend from the requester's budget
    /// (nothing when exhausted), then DP aggregates for counts and numbers, or a text by noisy
    /// votes of the patients whose records match (a local GGUF model is needed; without one the
    /// question gets DP aggregates).
    async fn dp_cohort(
        &self,
        query: &Query,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        known: &BTreeSet<String>,
        draft: &mut Draft,
    ) -> Result<(), AnswerError> {
        let settings = &self.config.dp;
        let epsilon = query.options.epsilon.unwrap_or(settings.dp_epsilon);
        if epsilon > settings.dp_max_epsilon {
            draft.settle(policy::EPSILON_TOO_LARGE);
            return Ok(());
        }
        let cost = PrivacyCost {
            epsilon,
            delta: settings.dp_delta,
        };
        let (condition, synthetic, unknown) = cohort_subject(analysis, known);
        draft.synthetic_query = synthetic.clone();
        // A condition the records of k patients never name: an empty cohort, answered (and
        // charged) like any other, so that whether a word is known never shows un-noised.
        let empty = Scope::Patients(Vec::new());
        // The population narrows the scope: a per-patient predicate, so the noise needed is
        // the same.
        let narrowed = if population.is_everyone() {
            None
        } else {
            let pool = self.store.pool();
            let everyone = super::cohort::cohort(pool, scope, None).await?;
            Some(Scope::Patients(
                super::population::filter(pool, &everyone, population).await?,
            ))
        };
        let scope = narrowed.as_ref().unwrap_or(scope);
        let (scope, condition) = if unknown {
            (&empty, None)
        } else {
            (scope, condition)
        };
        let votes = matches!(&self.backend, Backend::Model(m) if m.supports_votes());
        let kind = if asks_for_figures(&query.question) || !votes {
            DpKind::Aggregate
        } else {
            DpKind::Text
        };
        let requester = &query.requester.key();
        let digest = self.request_digest(query);
        let spend = self
            .budget
            .spend(requester, &query.query_id, &digest, cost)
            .await?;
        match spend {
            Spend::Exhausted { epsilon_left } => {
                draft.settle(policy::BUDGET_EXHAUSTED);
                draft.dp = Some(DpSpent {
                    epsilon: 0.0,
                    delta: 0.0,
                    epsilon_left,
                });
                return Ok(());
            }
            Spend::Conflict => {
                draft.settle(policy::QUERY_ID_REUSED);
                return Ok(());
            }
            Spend::Replay { published } => {
                // The answer as first published, unchanged: it tells nothing new and costs
                // nothing. (Recomputing it would draw fresh noise, or need a stored seed.)
                let published: Answer = serde_json::from_value(published)
                    .map_err(|e| AnswerError::from(sqlx::Error::Decode(Box::new(e))))?;
                draft.status = Some(published.status);
                draft.answer = published.answer;
                draft.synthetic_query = published.synthetic_query;
                draft.dp_audit = Some(serde_json::json!({"replay": true, "charged_epsilon": 0.0}));
                draft.dp = Some(DpSpent {
                    epsilon: 0.0,
                    delta: 0.0,
                    epsilon_left: self.budget.epsilon_left(requester).await?,
                });
                return Ok(());
            }
            Spend::Granted => draft.dp_charged = true,
        }
        let mut noise = Noise::from_seed(Noise::fresh_seed());
        let mut audit = serde_json::json!({
            "kind": kind.as_str(),
            "epsilon": epsilon,
            "delta": cost.delta,
            "replay": false,
        });
        let refund = match kind {
            DpKind::Aggregate => {
                self.dp_aggregate(
                    scope,
                    analysis,
                    condition.as_deref(),
                    cost,
                    &mut noise,
                    draft,
                )
                .await?
            }
            DpKind::Text => {
                self.dp_text(
                    query,
                    condition.as_deref(),
                    scope,
                    cost,
                    &mut noise,
                    &mut audit,
                    draft,
                )
                .await?
            }
        };
        let mut charged = epsilon;
        if refund > 0.0 {
            self.budget
                .refund(requester, &query.query_id, refund)
                .await?;
            charged -= refund;
        }
        audit["charged_epsilon"] = serde_json::json!(charged);
        draft.dp_audit = Some(audit);
        draft.dp = Some(DpSpent {
            epsilon: charged,
            delta: cost.delta,
            epsilon_left: self.budget.epsilon_left(requester).await?,
        });
        if draft.synthetic_query.is_empty() {
            draft.synthetic_query = synthetic;
        }
        Ok(())
    }

    /// DP counts and medians. Returns the ε to give back (a cohort whose noisy size is below
    /// the minimum used only the size's share).
    async fn dp_aggregate(
        &self,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        condition: Option<&str>,
        cost: PrivacyCost,
        noise: &mut Noise,
        draft: &mut Draft,
    ) -> Result<f64, AnswerError> {
        let half = PrivacyCost {
            epsilon: cost.epsilon,
            delta: cost.delta / 2.0,
        };
        let settings = super::cohort::DpSettings {
            rho: half.rho(),
            delta: cost.delta,
            max_items: self.config.dp.dp_max_items,
            min_patients: self.config.cohort_min_patients,
        };
        let Some(document) = super::cohort::dp_aggregate(
            self.store.pool(),
            scope,
            analysis,
            condition,
            settings,
            noise,
        )
        .await?
        else {
            draft.settle(policy::TOO_FEW);
            let used = crate::dp::epsilon_of(0.2 * settings.rho, half.delta);
            return Ok((cost.epsilon - used).max(0.0));
        };
        // The noisy cohort size alone is an answer too ("about 12 patients"; no item named).
        if document.lines.is_empty() {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            return Ok(0.0);
        }
        let Some((document, query)) = self
            .review(document, draft.synthetic_query.clone(), draft)
            .await?
        else {
            return Ok(0.0);
        };
        draft.synthetic_query = query.get().clone();
        draft.trace.synthetic_document = document.get().text();
        // The template, not a model's rephrasing: a model drops "about" and the noise notice.
        draft.status = Some(AnswerStatus::Answered);
        draft.answer = dp_cohort_answer(document.get(), cost.epsilon);
        Ok(0.0)
    }

    /// DP-RAG: the patients with a document above the similarity threshold are the voters
    /// (see [`crate::dp`]); by default each answers in full and the exponential mechanism over a
    /// public keyword universe draws the answer ([`crate::dp::keywords`], pure ε-DP), or, with
    /// `--dp-text tokens`, they vote on every token. Returns the ε to give back (token votes
    /// refused on the noisy voter count used only the count's share).
    #[allow(clippy::too_many_arguments)]
    async fn dp_text(
        &self,
        query: &Query,
        condition: Option<&str>,
        scope: &Scope,
        cost: PrivacyCost,
        noise: &mut Noise,
        audit: &mut serde_json::Value,
        draft: &mut Draft,
    ) -> Result<f64, AnswerError> {
        let settings = &self.config.dp;
        let Backend::Model(model) = &self.backend else {
            return Err(AnswerError::Config("DP text answers need a model".into()));
        };
        let search_started = Instant::now();
        let mut voters = dp_voters(
            self.store.pool(),
            &self.embedder,
            &query.question,
            condition,
            scope,
            settings,
        )
        .await?;
        draft.timings.search_ms += search_started.elapsed().as_millis() as u64;
        audit["voters"] = serde_json::json!(voters.len());
        audit["mechanism"] = serde_json::json!(settings.dp_text.as_str());
        let plan = TextPlan::new(cost, settings.dp_max_tokens);
        let mut noisy_voters = None;
        if settings.dp_text == DpText::Tokens {
            let noisy = voters.len() as f64 + noise.gaussian(plan.count_sigma);
            if noisy < settings.dp_min_voters as f64 {
                draft.settle(policy::DP_TOO_FEW);
                let used = crate::dp::epsilon_of(crate::dp::COUNT_SHARE * cost.rho(), cost.delta);
                return Ok((cost.epsilon - used).max(0.0));
            }
            noisy_voters = Some(noisy.round().max(0.0));
        }
        // More voters than the model can afford: a random subset (drawn from the answer's
        // noise, independent of who the voters are).
        subsample(&mut voters, settings.dp_max_voters, noise);
        draft.patients.extend(voters.iter().map(|v| v.patient_key));
        let contexts = voter_contexts(&voters, &query.question);
        // One forward pass per voter for the prompts, and one per voter for each token: a DP
        // text answer is charged as that many model calls against the worker's limit.
        if !self
            .take_llm_calls(voters.len() * (1 + settings.dp_max_tokens))
            .await
        {
            self.busy(draft);
            return Ok(0.0);
        }
        let answer_started = Instant::now();
        let mut request = VoteRequest {
            system: DP_VOTER_SYSTEM.into(),
            question: query.question.clone(),
            contexts,
            max_context_tokens: settings.dp_context_tokens,
            lead: answer_lead(&query.question).into(),
            max_tokens: settings.dp_max_tokens,
            choosers: Vec::new(),
        };
        let output = match settings.dp_text {
            DpText::Keywords if voters.is_empty() => Ok(Vec::new()),
            DpText::Keywords => model.each(request).await,
            DpText::Tokens => {
                request.choosers.push(Box::new(VoteChooser::new(
                    settings.dp_vote_temperature,
                    plan.token_sigma,
                    Noise::from_seed(noise.seed()),
                )));
                model.vote(request).await
            }
        };
        draft.timings.answer_ms += answer_started.elapsed().as_millis() as u64;
        let outputs = match output {
            Ok(outputs) => outputs,
            Err(e) => {
                // The budget stays spent: this refusal is what the same query id gets back
                // from the ledger; asking again takes a new query id, and pays again.
                tracing::warn!(error = %e, "DP generation failed");
                draft.status = Some(AnswerStatus::Refused);
                draft.answer =
                    "The private answer could not be generated; please ask again.".into();
                draft.findings.reason = Some("dp_model_error".into());
                return Ok(0.0);
            }
        };
        let passes: u32 = outputs.iter().map(|o| o.passes).sum();
        audit["passes"] = serde_json::json!(passes);
        draft.llm_calls += passes;
        let lead = answer_lead(&query.question);
        let epsilon = format_epsilon(cost.epsilon);
        let answer = match noisy_voters {
            None => {
                let space = crate::dp::keywords::KeywordSpace::public();
                let counts = space.tally(outputs.iter().map(|o| o.text.as_str()), &query.question);
                crate::dp::keywords::choose(space, &counts, cost.epsilon, noise).map(|word| {
                    format!(
                        "Private answer (differential privacy, ε = {epsilon}: the keyword the \
                         records of the question's patients named most, drawn with noise from \
                         a public list of clinical words; it may be wrong where few records \
                         agree): {lead} {word}"
                    )
                })
            }
            Some(noisy) => {
                let output = outputs.into_iter().next().unwrap_or_default();
                audit["tokens"] = serde_json::json!(output.tokens);
                let text = crate::text::strip_control_sequences(&output.text);
                (!(text.trim().is_empty() || says_not_found(&text))).then(|| {
                    format!(
                        "Private answer (differential privacy, ε = {epsilon}; voted by the \
                         records of about {noisy} patients): {lead} {}",
                        text.trim()
                    )
                })
            }
        };
        match answer {
            Some(answer) => {
                draft.status = Some(AnswerStatus::Answered);
                draft.answer = answer;
            }
            None => {
                draft.status = Some(AnswerStatus::NotFound);
                draft.answer = DP_NO_AGREEMENT.into();
            }
        }
        Ok(0.0)
    }

    /// A care team's question about its patients.
    async fn care_team(
        &self,
        query: &Query,
        scope: &Scope,
        resolution: search::NameResolution,
        known: &BTreeSet<String>,
        search_started: Instant,
        draft: &mut Draft,
    ) -> Result<(), AnswerError> {
        // The patient named, or the care team's only patient ("How old is the patient?").
        let only = match (resolution.patients.as_slice(), scope) {
            ([one], _) => Some(*one),
            ([], Scope::Patients(keys)) if keys.len() == 1 => Some(keys[0]),
            _ => None,
        };
        if let (Some(patient), true) = (only, super::question::asks_age(&query.question)) {
            draft.patients.insert(patient);
            draft.timings.search_ms = search_started.elapsed().as_millis() as u64;
            return self.age(patient, draft).await;
        }
        if let (Some(patient), true) = (only, asks_death(&query.question)) {
            draft.patients.insert(patient);
            draft.timings.search_ms = search_started.elapsed().as_millis() as u64;
            return self.death(patient, draft).await;
        }
        if resolution.patients.is_empty() {
            if let Some(extreme) = super::question::extreme(&query.question) {
                if self.extreme(query, scope, known, extreme, draft).await? {
                    draft.timings.search_ms = search_started.elapsed().as_millis() as u64;
                    return Ok(());
                }
            }
        }
        let k = query
            .options
            .k
            .unwrap_or(self.config.k)
            .min(self.config.max_k) as usize;
        let plan = SearchPlan {
            condition_patients: self.config.condition_patients,
            known: Some(known.clone()),
            ..SearchPlan::default()
        };
        let Found {
            resolution,
            analysis,
            documents,
        } = find_documents_resolved(
            self.store.pool(),
            &self.embedder,
            &query.question,
            scope,
            &plan,
            k,
            resolution,
        )
        .await?;
        draft.timings.search_ms = search_started.elapsed().as_millis() as u64;
        if let ([patient], Some(asked)) = (
            resolution.patients.as_slice(),
            super::trend::asked(&query.question),
        ) {
            if self.trend(*patient, &analysis, asked, draft).await? {
                draft.patients.insert(*patient);
                return Ok(());
            }
        }
        if let (super::question::AnswerForm::Count, [patient]) =
            (analysis.form, resolution.patients.as_slice())
        {
            if let Some(concept) = super::question::named_concepts(&analysis, known).first() {
                // "How many ear infections": the episodes (conditions), not also the visits and
                // prescriptions that give one as their reason; "how many dialysis sessions":
                // the procedures. The first kind of fact that names the concept is counted.
                const KINDS: &[&[&str]] = &[
                    &["Condition"],
                    &["Procedure"],
                    &["Immunization"],
                    &["MedicationRequest"],
                    &["Encounter"],
                    &[],
                ];
                for kinds in KINDS {
                    let filter = super::cohort::ConceptFilter {
                        terms: concept,
                        kinds,
                        months: &analysis.months,
                        since: analysis.since,
                        before: analysis.before,
                        active: false,
                    };
                    let events =
                        super::cohort::concept_events(self.store.pool(), *patient, &filter).await?;
                    if events > 0 {
                        draft.events = Some(events);
                        break;
                    }
                }
            }
        }
        draft.trace.retrieved = documents.iter().map(|d| d.text.clone()).collect();
        draft.patients.extend(resolution.patients.iter().copied());
        let subject = match resolution.patients.len() {
            0 => "the patients",
            1 => "the patient",
            _ => "the named patients",
        };
        let synthetic = render_query(subject, &analysis.terms, known, &analysis.months);
        // "Lane's active meds?", "what is she allergic to?" of a patient whose record holds no
        // fact of that kind at all: that is the answer, not other facts the search brought.
        if let ([patient], Some((kind, resource_type))) = (
            resolution.patients.as_slice(),
            super::question::asked_kind_only(&analysis),
        ) {
            let any: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM facts WHERE patient_key = $1 AND resource_type = $2)",
            )
            .bind(patient)
            .bind(resource_type)
            .fetch_one(self.store.pool())
            .await?;
            if !any {
                draft.patients.insert(*patient);
                draft.status = Some(AnswerStatus::NotFound);
                draft.answer = format!("No {kind} is on record for the patient.");
                draft.synthetic_query = synthetic;
                return Ok(());
            }
        }
        // For one named patient of the requester's own, "not found" says what is missing, but
        // only after the whole record was searched for it: a concept on record that the
        // retrieved documents did not answer is "could not answer", never "nothing on record".
        // A yes/no question asks about its items, not the reason it gives ("was he on metformin
        // for the diabetes?": whether metformin is on record).
        let asked = if analysis.form == super::question::AnswerForm::YesNo {
            analysis.yes_items()
        } else {
            analysis.clone()
        };
        let missing = match (
            resolution.patients.as_slice(),
            super::question::not_on_record(&asked, known),
        ) {
            ([patient], Some(absent)) => {
                let concepts = super::question::named_concepts(&asked, known);
                let mut on_record = false;
                for concept in &concepts {
                    if !search::by_day(self.store.pool(), &[*patient], concept, true, 1)
                        .await?
                        .is_empty()
                    {
                        on_record = true;
                        break;
                    }
                }
                // No fact holds a whole concept; "nothing about mmr doses" is still said only
                // when no fact holds any of its words either: a record that speaks of "MMR"
                // (or "brain" for "traumatic brain injury") may answer in words the question
                // did not use, and a confident "nothing" would then be false.
                let mut partly = Vec::new();
                if !on_record {
                    for term in concepts.iter().flatten() {
                        if !partly.contains(term)
                            && !search::by_day(
                                self.store.pool(),
                                &[*patient],
                                std::slice::from_ref(term),
                                true,
                                1,
                            )
                            .await?
                            .is_empty()
                        {
                            partly.push(term.clone());
                        }
                    }
                }
                Some(if on_record {
                    super::question::on_record_but_unanswered(&asked, known)
                } else if !partly.is_empty() {
                    super::question::on_record_in_part(&asked, known, &partly)
                } else if analysis.form == super::question::AnswerForm::YesNo {
                    format!("No. {absent}")
                } else {
                    absent
                })
            }
            _ => None,
        };
        if documents.is_empty() {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = missing.unwrap_or_else(|| NOT_FOUND_ANSWER.into());
            draft.synthetic_query = synthetic;
            return Ok(());
        }
        draft
            .patients
            .extend(documents.iter().map(|d| d.patient_key));
        // Per-answer labels, in order of relevance.
        let labels = labels(documents.iter().map(|d| d.patient_key));

        // Incremental mode: one document at a time until one answers.
        let batches: Vec<&[RetrievedDocument]> = match query.options.mode {
            // DP is for cohort roles; a care team's answer is about its own patients.
            Mode::Synthetic | Mode::Dp => vec![&documents[..]],
            Mode::Incremental => documents.chunks(1).collect(),
        };
        for batch in batches {
            self.synthesize_and_answer(batch, &labels, &analysis, &synthetic, draft)
                .await?;
            if draft.status != Some(AnswerStatus::NotFound) {
                break;
            }
        }
        if draft.synthetic_query.is_empty() {
            draft.synthetic_query = synthetic;
        }
        if let (Some(AnswerStatus::NotFound), Some(missing)) = (draft.status, missing) {
            if draft.answer == NOT_FOUND_ANSWER {
                draft.answer = missing;
            }
        }
        Ok(())
    }

    /// "Is she losing weight?": the reading the question names, the last value of each year over
    /// the last years of the record (or since the year asked), and which way it went. `false`,
    /// with nothing settled, when no reading of two years or more answers.
    async fn trend(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        asked: super::trend::Asked,
        draft: &mut Draft,
    ) -> Result<bool, AnswerError> {
        use crate::privacy::generalize::Reading;
        let facts = super::cohort::facts_of(self.store.pool(), &[patient], "Observation").await?;
        // code → (the reading's wording, its dated values)
        let mut codes: std::collections::BTreeMap<
            String,
            (Reading, Vec<(chrono::NaiveDate, f64)>),
        > = std::collections::BTreeMap::new();
        for (_, day, sentences) in &facts {
            let Some(day) = day else { continue };
            // Any reading that holds a word of the question ("losing", "past" hold none); the
            // code naming the most of them is chosen below.
            let words = super::question::line_terms(sentences);
            if !analysis.terms.iter().any(|t| words.contains(t)) {
                continue;
            }
            let Some(at) = sentences.find("Code is ") else {
                continue;
            };
            let rest = &sentences[at + "Code is ".len()..];
            let end = rest.find(". ").unwrap_or(rest.len());
            let code = rest[..end].trim_end_matches('.').to_string();
            let reading = Reading::parse(rest[end..].trim_start_matches(['.', ' ']));
            if reading.values.len() != 1 {
                continue;
            }
            let entry = codes
                .entry(code)
                .or_insert_with(|| (reading.clone(), Vec::new()));
            if entry.0.template == reading.template {
                entry.1.push((*day, reading.values[0]));
            }
        }
        let matched = |code: &str| {
            let words = super::question::line_terms(code);
            analysis.terms.iter().filter(|t| words.contains(*t)).count()
        };
        let best = codes.keys().map(|c| matched(c)).max().unwrap_or(0);
        if best == 0 {
            return Ok(false);
        }
        let Some((code, (reading, values))) = codes
            .into_iter()
            .max_by_key(|(code, (_, values))| (matched(code), values.len()))
        else {
            return Ok(false);
        };
        let since = analysis.since.map(|d| chrono::Datelike::year(&d));
        let series = super::trend::window(&super::trend::yearly(&values), since);
        let answer = super::trend::sentence(&code, &reading, &series, asked);
        if answer.is_empty() {
            return Ok(false);
        }
        let line = format!("The patient, overall record: {answer}");
        let synthetic = format!("How has the patient's {code} changed over the years?");
        let template = format!("From the de-identified record (values rounded): {answer}");
        self.answer_line(line, synthetic, template, draft).await?;
        Ok(true)
    }

    /// "Which of my patients has the highest BMI?": the highest (lowest) of each patient's
    /// latest reading over the patients the requester may see (those with the question's
    /// condition, when it names one). Which patient it is is never said (the audit records
    /// it). `false`, with nothing settled, when no reading answers: the question then takes
    /// the ordinary path ("the highest dose of lisinopril").
    async fn extreme(
        &self,
        query: &Query,
        scope: &Scope,
        known: &BTreeSet<String>,
        extreme: super::question::Extreme,
        draft: &mut Draft,
    ) -> Result<bool, AnswerError> {
        let mut analysis = analyze(&query.question, &BTreeSet::new());
        // "Which patient has the highest BMI": what follows "has" is the reading, not a
        // condition.
        if analysis
            .condition
            .as_deref()
            .is_some_and(|c| super::question::extreme(c).is_some())
        {
            analysis.condition = None;
        }
        // The care team's own patients' condition names, any one of them.
        let names = self.condition_names(scope, 1).await?;
        let analysis = read_cohort(analysis, known, Some(&names));
        let pool = self.store.pool();
        let (condition, synthetic, unknown) = cohort_subject(&analysis, known);
        if unknown {
            return Ok(false);
        }
        let patients = super::cohort::cohort(pool, scope, condition.as_deref()).await?;
        let facts = super::cohort::observations_naming(pool, &patients, &analysis).await?;
        let Some((line, patient)) = super::cohort::extreme_reading(&facts, &analysis, extreme)
        else {
            return Ok(false);
        };
        draft.patients.insert(patient);
        let template = format!(
            "{line} Answers never say which patient a value is; ask about a patient by name \
             for their record."
        );
        self.answer_line(line, synthetic, template, draft).await?;
        Ok(true)
    }

    /// "How old is …": the ten-year age band (90 and over as one), from the vault's birth date
    /// and, for a patient who died, the day of death the record gives. The birth date itself
    /// never leaves; a band is what HIPAA's Safe Harbor lets an age be.
    async fn age(&self, patient: i64, draft: &mut Draft) -> Result<(), AnswerError> {
        let pool = self.store.pool();
        // The vault computes the decade (at death, or today); the birth date never leaves it.
        let decade: Option<i32> = sqlx::query_scalar("SELECT vault.age_decade($1)")
            .bind(patient)
            .fetch_one(pool)
            .await
            .map_err(StoreError::from)?;
        let synthetic = "What does the record of the patient say about age?".to_string();
        let Some(decade) = decade else {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            draft.synthetic_query = synthetic;
            return Ok(());
        };
        let died: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM facts WHERE patient_key = $1 AND resource_type = 'Patient'
               AND sentences ~ 'The patient died on [0-9]{4}-[0-9]{2}-[0-9]{2}')",
        )
        .bind(patient)
        .fetch_one(pool)
        .await
        .map_err(StoreError::from)?;
        let death = died.then_some(());
        let band = crate::privacy::generalize::age_band(decade.max(0) as u32);
        // "90 or older" is open-ended: "90 years or older", never "90 or older years old".
        let open = band.ends_with("or older");
        let band = if open {
            band.replace(" or older", " years or older")
        } else {
            format!("{band} years")
        };
        let (line, template) = match death {
            Some(_) => (
                format!("The patient, overall record: Age at death is {band}"),
                format!("The patient died aged {band}."),
            ),
            None => (
                format!("The patient, overall record: Age is {band}"),
                if open {
                    format!("The patient is {band}.")
                } else {
                    format!("The patient is {band} old.")
                },
            ),
        };
        self.answer_line(line, synthetic, template, draft).await
    }

    /// "When did he pass away?", "What did she die of?": the month of death the Patient record
    /// gives and the cause of death on its certificate, when recorded. A record that says no
    /// death is answered so (the whole Patient record was read).
    async fn death(&self, patient: i64, draft: &mut Draft) -> Result<(), AnswerError> {
        let pool = self.store.pool();
        let synthetic = "What does the record of the patient say about death?".to_string();
        let died: Option<String> = sqlx::query_scalar(
            "SELECT substring(sentences FROM 'The patient died on ([0-9]{4}-[0-9]{2}-[0-9]{2})')
             FROM facts WHERE patient_key = $1 AND resource_type = 'Patient'",
        )
        .bind(patient)
        .fetch_optional(pool)
        .await
        .map_err(StoreError::from)?
        .flatten();
        let deceased = died.is_some()
            || sqlx::query_scalar::<_, bool>(
                "SELECT EXISTS (SELECT 1 FROM facts WHERE patient_key = $1
                   AND resource_type = 'Patient' AND sentences LIKE '%The patient is deceased%')",
            )
            .bind(patient)
            .fetch_one(pool)
            .await
            .map_err(StoreError::from)?;
        if !deceased {
            let line = "The patient, overall record: No death is recorded".to_string();
            let template = "No death is recorded for the patient.".to_string();
            return self.answer_line(line, synthetic, template, draft).await;
        }
        let cause: Option<String> = sqlx::query_scalar(
            "SELECT substring(sentences FROM 'Code is Cause of Death[^.]*\\. Value is ([^.]+)')
             FROM facts WHERE patient_key = $1 AND resource_type = 'Observation'
               AND sentences LIKE '%Cause of Death%'
             ORDER BY day DESC NULLS LAST LIMIT 1",
        )
        .bind(patient)
        .fetch_optional(pool)
        .await
        .map_err(StoreError::from)?
        .flatten();
        let when = died
            .as_deref()
            .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            .map(crate::text::dates::month_year);
        let mut said = match &when {
            Some(when) => format!("The patient died in {when}"),
            None => "The patient is deceased".to_string(),
        };
        if let Some(cause) = &cause {
            said.push_str(&format!(
                "; the cause of death recorded is {}",
                cause.trim()
            ));
        }
        let line = format!("The patient, overall record: {said}");
        let template = format!("From the de-identified record (dates by month): {said}.");
        self.answer_line(line, synthetic, template, draft).await
    }

    /// A one-line synthetic document and its deterministic answer, through the Review agent
    /// and then the responder.
    async fn answer_line(
        &self,
        line: String,
        synthetic: String,
        template: String,
        draft: &mut Draft,
    ) -> Result<(), AnswerError> {
        let document = SyntheticDocument {
            lines: vec![line],
            document_ids: Vec::new(),
        };
        let Some((document, query)) = self.review(document, synthetic, draft).await? else {
            return Ok(());
        };
        draft.synthetic_query = query.get().clone();
        draft.trace.synthetic_document = document.get().text();
        self.respond(&document, &query, template, draft).await;
        Ok(())
    }

    /// Review of a synthetic document and query, with its own vault lookup. `None` (and a
    /// refusal in the draft) when it cannot be made safe.
    async fn review(
        &self,
        document: SyntheticDocument,
        query: String,
        draft: &mut Draft,
    ) -> Result<Option<(Reviewed<SyntheticDocument>, Reviewed<String>)>, AnswerError> {
        let started = Instant::now();
        let mut texts: Vec<&str> = document.lines.iter().map(String::as_str).collect();
        texts.push(&query);
        let scanner = self.guard.scanner(&texts).await?;
        let verdict = review_loop(document, query, &scanner, self.config.review_rounds);
        draft.timings.review_ms += started.elapsed().as_millis() as u64;
        match verdict {
            Verdict::Passed {
                document,
                query,
                corrections,
                fixed,
            } => {
                draft.findings.review_corrections += corrections;
                for (rule, n) in fixed {
                    *draft.findings.review_findings.entry(rule).or_default() += n;
                }
                Ok(Some((document, query)))
            }
            Verdict::Refused { rules, corrections } => {
                draft.findings.review_corrections += corrections;
                draft.status = Some(AnswerStatus::Refused);
                draft.answer = "The answer could not be de-identified safely.".into();
                draft.findings.reason = Some(format!("review: {}", rules.join(", ")));
                Ok(None)
            }
        }
    }

    async fn synthesize_and_answer(
        &self,
        documents: &[RetrievedDocument],
        labels: &std::collections::BTreeMap<i64, String>,
        analysis: &QuestionAnalysis,
        synthetic: &str,
        draft: &mut Draft,
    ) -> Result<(), AnswerError> {
        // Synthesis.
        let synthesis_started = Instant::now();
        let candidates = candidates(documents, labels);
        // Facts the rules cannot tie to the question do not answer it, whoever words the
        // answer: no model call then (a model shown unrelated facts answers from them, "eye
        // color" from the gender line). In incremental mode such a page is passed over for the
        // next, so a question costs the calls of the page that answers it.
        let by_rules = select_by_rules(&candidates, analysis, self.config.max_facts);
        if by_rules.is_empty() {
            draft.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            return Ok(());
        }
        let mut chosen = Vec::new();
        if self.config.llm_fact_selection && matches!(self.backend, Backend::Model(_)) {
            let short = shortlist(&candidates, analysis, self.config.llm_shortlist);
            // The sentences alone: who and when do not help choosing, and every token costs.
            let lines = SyntheticDocument {
                lines: short
                    .iter()
                    .map(|i| candidates[*i].sentence.clone())
                    .collect(),
                document_ids: Vec::new(),
            };
            // The model sees the shortlist only after Review passed it.
            draft.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
            let Some((reviewed, query)) = self.review(lines, synthetic.to_string(), draft).await?
            else {
                return Ok(());
            };
            match self
                .call_model(select_request(&reviewed, &query), draft)
                .await
            {
                Ok(Some(reply)) => {
                    // Review may have dropped lines: choices are read among what the model saw.
                    if reviewed.get().lines.len() == short.len() {
                        chosen = parse_choice(&reply, &short);
                        chosen.truncate(self.config.max_facts);
                    }
                }
                Ok(None) => {}
                Err(()) => {
                    self.busy(draft);
                    return Ok(());
                }
            }
        } else {
            draft.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
        }
        if chosen.is_empty() {
            chosen = by_rules;
        }
        let document = assemble(&candidates, &chosen);
        // A yes stands on a fact of what is asked, never on the reason it was asked for ("was
        // he on metformin for the diabetes?" is not answered by the diabetes).
        if analysis.form == super::question::AnswerForm::YesNo
            && !super::respond::supports_yes(&document, analysis)
        {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            return Ok(());
        }
        let Some((document, query)) = self.review(document, synthetic.to_string(), draft).await?
        else {
            return Ok(());
        };
        draft.synthetic_query = query.get().clone();
        draft.documents = document.get().document_ids.clone();
        draft.trace.synthetic_document = document.get().text();
        // A count is said only as the whole record gives it, never from the retrieved part.
        let lead = match (analysis.form, draft.events) {
            (super::question::AnswerForm::Count, Some(n)) => format!("{n} on record. "),
            (super::question::AnswerForm::Count, None) => String::new(),
            (form, _) => super::respond::lead(document.get(), form, analysis.now),
        };
        let template = format!("{lead}{}", template_answer(document.get()));
        self.respond(&document, &query, template, draft).await;
        Ok(())
    }

    /// The answering step: the model (or the template) sees only the reviewed document and
    /// query. A reply with a number or a content word that neither the document nor the query
    /// holds is replaced by the template: a model may phrase, never add a fact.
    async fn respond(
        &self,
        document: &Reviewed<SyntheticDocument>,
        query: &Reviewed<String>,
        template: String,
        draft: &mut Draft,
    ) {
        let answer_started = Instant::now();
        let reply = match self
            .call_model(
                answer_request(document, query, self.max_tokens, self.temperature),
                draft,
            )
            .await
        {
            Ok(reply) => reply,
            Err(()) => return self.busy(draft),
        };
        draft.timings.answer_ms += answer_started.elapsed().as_millis() as u64;
        match reply {
            Some(text) if says_not_found(&text) => {
                draft.status = Some(AnswerStatus::NotFound);
                draft.answer = NOT_FOUND_ANSWER.into();
            }
            Some(text)
                if numbers_are_grounded(&text, document.get())
                    && words_are_grounded(&text, document.get(), query.get()) =>
            {
                draft.status = Some(AnswerStatus::Answered);
                draft.answer = crate::text::strip_control_sequences(&text);
            }
            _ => {
                draft.status = Some(AnswerStatus::Answered);
                draft.answer = template;
            }
        }
    }

    fn busy(&self, draft: &mut Draft) {
        draft.status = Some(AnswerStatus::RateLimited);
        draft.answer =
            "The answering service is at its model-call limit; please ask again shortly.".into();
    }

    async fn audit(
        &self,
        query: &Query,
        sealed: &Guarded<Answer>,
        draft: &Draft,
    ) -> Result<(), AnswerError> {
        let answer = sealed.value();
        let report = serde_json::json!({
            "guard": sealed.report(),
            "review_corrections": draft.findings.review_corrections,
            "review_findings": draft.findings.review_findings,
            "reason": draft.findings.reason,
            "policy": answer.privacy.policy,
            "dp": draft.dp_audit,
        });
        let patients: Vec<i64> = draft.patients.iter().copied().collect();
        sqlx::query(
            "INSERT INTO answer_audit (query_id, requester_id, requester_role, status, backend,
                 request_digest, document_ids, patient_keys, llm_calls, guard_report, total_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&query.query_id)
        .bind(query.requester.key())
        .bind(&query.requester.role)
        .bind(answer.status.as_str())
        .bind(&answer.backend)
        .bind(self.request_digest(query).to_vec())
        .bind(&draft.documents)
        .bind(&patients)
        .bind(answer.llm_calls as i32)
        .bind(report)
        .bind(answer.timings.total_ms as i64)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_death_that_dates_another_question_is_not_asked_about() {
        for asked in [
            "when did she die?",
            "what did he die of?",
            "cause of death?",
            "is she deceased",
            "when she died, what was the cause?",
        ] {
            assert!(asks_death(asked), "{asked}");
        }
        for dating in [
            "her last flu jab before she died - when was it?",
            "was astemizole still on her active list when she died?",
            "was his LDL climbing in the years before he died?",
            "dementia meds Ginny was on when she died?",
            "weight at her death?",
        ] {
            assert!(!asks_death(dating), "{dating}");
        }
    }

    #[test]
    fn a_full_name_must_be_one_listed_patients_whole_name() {
        let set = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<BTreeSet<_>>();
        // Mary Smith (1) and Jane Doe (2) are listed.
        let resolution = |words_of: &[(i64, &[&str])]| search::NameResolution {
            patients: words_of.iter().map(|(k, _)| *k).collect(),
            name_words: words_of.iter().flat_map(|(_, w)| set(w)).collect(),
            words_of: words_of.iter().map(|(k, w)| (*k, set(w))).collect(),
            ambiguous: false,
        };
        let runs = |q: &str| analyze(q, &BTreeSet::new()).name_runs;
        let known = set(&["fracture"]);
        // "Jane Smith": Smith matched Mary Smith, Jane is nobody's first name there.
        assert!(names_someone_else(
            &runs("What is Jane Smith's latest weight?"),
            &resolution(&[(1, &["smith"])]),
            &known
        ));
        // Each word matched a different listed patient: still nobody's whole name.
        assert!(names_someone_else(
            &runs("Does Jane Smith have asthma?"),
            &resolution(&[(1, &["smith"]), (2, &["jane"])]),
            &known
        ));
        // The listed patient's own full name, a surname alone, a record word beside it.
        assert!(!names_someone_else(
            &runs("What is Mary Smith's latest weight?"),
            &resolution(&[(1, &["mary", "smith"])]),
            &known
        ));
        assert!(!names_someone_else(
            &runs("Has Mrs. Smith had a flu shot?"),
            &resolution(&[(1, &["smith"])]),
            &known
        ));
        // A record word written as the first name before a listed surname is a first name.
        assert!(names_someone_else(
            &runs("Camila Smith - sepsis back in the 40s?"),
            &resolution(&[(1, &["smith"])]),
            &set(&["camila", "sepsis"])
        ));
        assert!(!names_someone_else(
            &runs("Camila Smith - sepsis back in the 40s?"),
            &resolution(&[(1, &["camila", "smith"])]),
            &set(&["camila", "sepsis"])
        ));
        assert!(!names_someone_else(
            &runs("Did Smith Fracture heal for Mary Smith?"),
            &resolution(&[(1, &["mary", "smith"])]),
            &known
        ));
    }

    #[test]
    fn voters_read_one_short_line_per_fact() {
        let compact = |l| compact_fact(l);
        assert_eq!(
            compact(
                "Condition is Essential hypertension (disorder). Clinical status is active. \
                 Verification status is confirmed. Onset on 2015-11-18."
            )
            .as_deref(),
            Some("Condition: Essential hypertension (disorder)")
        );
        assert_eq!(
            compact("Category is vital-signs. Code is Body Weight. Value is 67.6 kg.").as_deref(),
            Some("Body Weight: 67.6 kg")
        );
        assert_eq!(
            compact(
                "Category is vital-signs. Code is Blood Pressure. Diastolic Blood Pressure is 79 \
                 mm[Hg]. Systolic Blood Pressure is 129 mm[Hg]."
            )
            .as_deref(),
            Some("Blood Pressure: Diastolic Blood Pressure 79 mm[Hg]: Systolic Blood Pressure 129 mm[Hg]")
        );
        assert_eq!(
            compact("Medication is Amlodipine 2.5 MG Oral Tablet. Status is active.").as_deref(),
            Some("Medication: Amlodipine 2.5 MG Oral Tablet")
        );
        assert_eq!(
            compact("Record of 2012-07-04.").as_deref(),
            Some("Record of 2012-07-04")
        );
        assert_eq!(compact("Summary of the patient's record."), None);
        assert_eq!(compact("   "), None);
    }

    #[test]
    fn the_answer_lead_comes_from_the_question_alone() {
        assert_eq!(
            answer_lead("What medication do patients with hypertension take?"),
            "Medication:"
        );
        assert_eq!(
            answer_lead("Which vaccine do patients with asthma receive?"),
            "Vaccine:"
        );
        assert_eq!(
            answer_lead("What procedure do patients with covid-19 undergo?"),
            "Procedure:"
        );
        assert_eq!(
            answer_lead("What other condition do patients with fever have?"),
            "Condition:"
        );
        assert_eq!(answer_lead("How are patients with gout doing?"), "Answer:");
    }
}
