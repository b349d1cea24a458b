//! The answer engine: one query through the limits, the disclosure path its requester gets
//! (care team: [`care_team`], cohort: [`cohort`], DP: [`dp`], each a file of its own), the three
//! agents, the answering step, the guard and the audit:
//!
//! ```text
//! limits ─▶ scope ─▶ Search (names, condition, hybrid) ─▶ Synthesis (generalize, select, fold,
//! rewrite) ─▶ Review (bounded corrections) ─▶ answer (model or template) ─▶ guard ─▶ audit
//! ```
//!
//! Each path, and each step it takes, *returns* what the requester is told (a [`Reply`]); what
//! the answer cost and touched (timings, model calls, review findings, patients, a DP spend) is
//! added to one [`Work`] record, which the engine reads only to seal, publish and audit.

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
pub use cohort::cohort_condition;
pub use dp::{answer_lead, compact_fact, dp_voters, subsample, voter_contexts, DP_VOTER_SYSTEM};

mod care_team;
mod cohort;
mod dp;
use care_team::{names_someone_else, written_as_an_abbreviation};
use cohort::{asks_for_figures, cohort_subject, read_cohort};

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
        let latest = recency == super::question::Recency::Latest;
        let documents = search::by_day(pool, &patients, &concept, latest, k).await?;
        if !documents.is_empty() {
            return Ok(found(documents));
        }
        // "Kidney function - what was his latest eGFR?": no fact holds every phrase's words.
        // When the records' words are known and exactly one of its phrases names facts,
        // those are the reading asked about (a context phrase names none); two or more that
        // do leave the question to the ranked search.
        let phrases: Vec<Vec<String>> = plan
            .known
            .as_ref()
            .map(|known| super::question::named_concepts(&analysis, known))
            .unwrap_or_default()
            .into_iter()
            .filter(|phrase| *phrase != concept)
            .collect();
        if phrases.len() > 1 {
            let mut answering = Vec::new();
            for phrase in &phrases {
                let documents = search::by_day(pool, &patients, phrase, latest, k).await?;
                if !documents.is_empty() {
                    answering.push(documents);
                }
            }
            if answering.len() == 1 {
                return Ok(found(answering.remove(0)));
            }
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
        // "His shingles vaccines - dates?", "has he started his hep B series?": of one named
        // patient, the days whose facts name the concept, over the whole record (the ranked
        // documents hold only the most similar days: one dose of two). Kind words ("shot",
        // "medication") are left to the synthesis, which reads each fact's kind.
        if let ([_], true, Some(known)) = (
            patients.as_slice(),
            analysis.months.is_empty() && analysis.since.is_none() && analysis.before.is_none(),
            &plan.known,
        ) {
            let concept: Vec<String> = super::question::concept_terms(&analysis)
                .into_iter()
                .filter(|t| known.contains(t))
                .collect();
            if !concept.is_empty() {
                let mut seen: BTreeSet<i64> = documents.iter().map(|d| d.document_id).collect();
                let whole = search::by_day(pool, &patients, &concept, true, k).await?;
                // "Did he need dialysis during his covid admission?": no fact names the item
                // and its occasion together; the days of each item asked answer a yes.
                let items =
                    if whole.is_empty() && analysis.form == super::question::AnswerForm::YesNo {
                        super::question::named_concepts(&analysis.yes_support(), known)
                    } else {
                        Vec::new()
                    };
                documents.extend(whole.into_iter().filter(|d| seen.insert(d.document_id)));
                for item in items.iter().filter(|item| **item != concept) {
                    let days = search::by_day(pool, &patients, item, true, k).await?;
                    documents.extend(days.into_iter().filter(|d| seen.insert(d.document_id)));
                }
            }
        }
    }
    Ok(found(documents))
}

/// What a disclosure path tells the requester. Every path and step *returns* one; the engine
/// seals the one that ends the path.
#[derive(Debug)]
struct Reply {
    status: AnswerStatus,
    answer: String,
    /// The synthetic query the answer stands on (empty: none was made; the path gives its own).
    synthetic_query: String,
    /// Why the question was not answered, when a rule said so (the audit's `reason`:
    /// `cohort_individual`, `unresolved_name_or_identifier`, `too_few_patients`, …).
    reason: Option<String>,
    /// The documents the answering step was shown.
    documents: Vec<i64>,
}

impl From<policy::Outcome> for Reply {
    fn from(outcome: policy::Outcome) -> Self {
        Reply {
            status: outcome.status,
            answer: outcome.answer.to_string(),
            synthetic_query: outcome.synthetic_query.to_string(),
            reason: Some(outcome.reason.to_string()),
            documents: Vec::new(),
        }
    }
}

impl Reply {
    fn new(status: AnswerStatus, answer: impl Into<String>) -> Self {
        Reply {
            status,
            answer: answer.into(),
            synthetic_query: String::new(),
            reason: None,
            documents: Vec::new(),
        }
    }

    fn answered(answer: impl Into<String>) -> Self {
        Reply::new(AnswerStatus::Answered, answer)
    }

    fn not_found(answer: impl Into<String>) -> Self {
        Reply::new(AnswerStatus::NotFound, answer)
    }

    /// The generic "nothing found" reply, which a path may replace by what it knows is missing.
    fn nothing_found() -> Self {
        Reply::not_found(NOT_FOUND_ANSWER)
    }

    fn is_nothing_found(&self) -> bool {
        self.status == AnswerStatus::NotFound && self.answer == NOT_FOUND_ANSWER
    }

    /// The model-call limit was reached.
    fn busy() -> Self {
        Reply::new(
            AnswerStatus::RateLimited,
            "The answering service is at its model-call limit; please ask again shortly.",
        )
    }

    /// This reply, standing on the synthetic query `query`.
    fn asking(mut self, query: impl Into<String>) -> Self {
        self.synthetic_query = query.into();
        self
    }

    /// This reply, standing on `query` when no step made one.
    fn or_asking(self, query: impl Into<String>) -> Self {
        if self.synthetic_query.is_empty() {
            self.asking(query)
        } else {
            self
        }
    }
}

/// What answering one query spent and touched, whichever path it took: timings, model calls,
/// review findings, the patients read, a DP spend, the trace for evaluation. Steps add to it;
/// what they tell the requester they return as a [`Reply`].
#[derive(Debug, Default)]
struct Work {
    policy: Option<Disclosure>,
    patients: BTreeSet<i64>,
    llm_calls: u32,
    findings: PrivacyFindings,
    timings: Timings,
    trace: Trace,
    dp: Option<DpSpent>,
    dp_audit: Option<serde_json::Value>,
    /// A DP spend was charged for this answer: the published answer goes to its ledger row.
    dp_charged: bool,
    /// Words of the question read otherwise ([`super::spelling`]): the answer says so.
    read_as: Vec<(String, String)>,
}

/// What happened inside one answer, for the evaluation harness only: it holds record text and is
/// never logged or published.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The retrieved documents' text, best first (the "original information").
    pub retrieved: Vec<String>,
    /// The synthetic document the answering step saw.
    pub synthetic_document: String,
    /// How the question was read (its analysis, for a developer), when a path read it.
    pub analysis: String,
}

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
        work: &mut Work,
    ) -> Result<Option<String>, ()> {
        let Backend::Model(model) = &self.backend else {
            return Ok(None);
        };
        if !self.take_llm_call().await {
            return Err(());
        }
        work.llm_calls += 1;
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
        let mut work = Work::default();
        // Requesters whose limit has refilled are forgotten: the limiter holds the requesters
        // of about the last minute, however many ever asked.
        if self.per_requester.len() > 1024 {
            self.per_requester.retain_recent();
            self.per_requester.shrink_to_fit();
        }
        let reply = if self.reuses_query_id(query).await? {
            Reply::from(policy::QUERY_ID_REUSED)
        } else if self
            .per_requester
            .check_key(&query.requester.key())
            .is_err()
        {
            Reply::new(
                AnswerStatus::RateLimited,
                format!(
                    "Too many questions from this requester (limit {} per minute); please ask again shortly.",
                    self.config.queries_per_minute
                ),
            )
        } else {
            let reply = self.run_agents(query, &mut work).await?;
            let mut reply = self.read_otherwise(query, reply, &mut work).await?;
            if !work.read_as.is_empty()
                && matches!(
                    reply.status,
                    AnswerStatus::Answered | AnswerStatus::NotFound
                )
            {
                reply.answer = super::spelling::note(&work.read_as) + &reply.answer;
            }
            reply
        };
        let answer = Answer {
            query_id: query.query_id.clone(),
            status: reply.status,
            answer: reply.answer,
            synthetic_query: reply.synthetic_query,
            backend: self.backend.name(),
            documents_used: reply.documents.len(),
            llm_calls: work.llm_calls,
            privacy: PrivacySummary {
                policy: work.policy.map(Disclosure::as_str).unwrap_or("none").into(),
                checks: vec!["synthesis".into(), "review".into()],
                dp: work.dp.take(),
            },
            timings: Timings::default(),
            answered_at: chrono::Utc::now().to_rfc3339(),
        };
        let guard_started = Instant::now();
        let sealed = self.guard.seal(answer).await?;
        work.timings.guard_ms = guard_started.elapsed().as_millis() as u64;
        work.timings.total_ms = started.elapsed().as_millis() as u64;
        // Timings are set after sealing: they are numbers the worker measured, not text.
        let mut sealed = sealed;
        sealed.set_extra(work.timings.clone());
        let trace = std::mem::take(&mut work.trace);
        if work.dp_charged {
            // Kept even in a dry run: the spend happened, and a replay must get this answer.
            let published = serde_json::to_value(sealed.value())
                .map_err(|e| AnswerError::from(sqlx::Error::Decode(Box::new(e))))?;
            self.budget
                .publish(&query.requester.key(), &query.query_id, &published)
                .await?;
        }
        if self.record {
            let reason = reply.reason;
            self.audit(query, &sealed, reason, &reply.documents, &work)
                .await?;
        }
        Ok((sealed, trace))
    }

    /// A cohort question that offers its concept in two wordings ("a viral sore throat
    /// (pharyngitis)", "physio / movement therapy") and found no group as first read is read in
    /// each other wording ([`super::question::alternative_wordings`]) until one answers. Each
    /// reading is a question the requester could ask; the one that answers goes through the
    /// same k threshold and overlap control. Not for DP answers (each reading would spend) nor
    /// for refusals (a question about a person stays refused).
    async fn read_otherwise(
        &self,
        query: &Query,
        reply: Reply,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        if work.policy != Some(Disclosure::Cohort)
            || query.options.mode == Mode::Dp
            || work.dp_charged
            || reply.status != AnswerStatus::NotFound
        {
            return Ok(reply);
        }
        for wording in super::question::alternative_wordings(&query.question) {
            let other = Query {
                question: wording,
                ..query.clone()
            };
            let mut again = Work::default();
            let answered = self.run_agents(&other, &mut again).await?;
            if answered.status == AnswerStatus::Answered {
                *work = again;
                return Ok(answered);
            }
        }
        Ok(reply)
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

    /// The question's words that no record of the vocabulary uses and that are one edit from
    /// exactly one word it does use, each with that word. Never a word that names a listed
    /// patient (a care team's lower-case "margarita" stays a name).
    async fn corrections(
        &self,
        first: &QuestionAnalysis,
        known: &BTreeSet<String>,
        scope: &Scope,
        disclosure: Disclosure,
        own: Option<&[i64]>,
    ) -> Result<Vec<(String, String)>, AnswerError> {
        let mut suspects: Vec<String> = first
            .terms
            .iter()
            // A class's members come from the lexicon ("gluconate" of an iron tablet): never
            // a typo.
            .filter(|t| !known.contains(*t) && !first.is_class_member(t))
            // "Highest", "finished": how a fact is asked about, never a misspelt concept.
            .filter(|t| super::question::is_concept(t))
            .map(|t| first.written.get(t).unwrap_or(t).clone())
            .filter(|w| super::spelling::may_be_misspelt(w) && !known.contains(w))
            .collect();
        suspects.sort();
        suspects.dedup();
        if suspects.is_empty() {
            return Ok(Vec::new());
        }
        let pool = self.store.pool();
        if disclosure == Disclosure::CareTeam {
            let names = search::resolve_names(pool, &suspects, scope).await?;
            suspects.retain(|w| !names.name_words.contains(w));
        }
        // Every suspect's neighbours in one lookup (a few hundred words each).
        let near: BTreeSet<String> = suspects
            .iter()
            .flat_map(|w| super::spelling::one_edit(w))
            .collect();
        let near: Vec<String> = near.into_iter().collect();
        let held = search::known_words(pool, &near, self.config.cohort_min_patients, own).await?;
        Ok(suspects
            .into_iter()
            .filter_map(|word| super::spelling::correction(&word, &held).map(|to| (word, to)))
            .collect())
    }

    async fn run_agents(&self, query: &Query, work: &mut Work) -> Result<Reply, AnswerError> {
        let Some(disclosure) = policy::disclosure(&self.config, &query.requester) else {
            return Ok(Reply::from(policy::NO_ACCESS));
        };
        work.policy = Some(disclosure);
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
        // Typos read against the same vocabulary ([`super::spelling`]): the question is asked
        // again as corrected, and the answer says how it was read.
        if work.read_as.is_empty() {
            let corrections = self
                .corrections(&first, &known, &scope, disclosure, own)
                .await?;
            if !corrections.is_empty() {
                let corrected = Query {
                    question: super::spelling::rewrite(&query.question, &corrections),
                    ..query.clone()
                };
                work.read_as = corrections;
                return Box::pin(self.run_agents(&corrected, work)).await;
            }
        }
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
                    return Ok(Reply::from(policy::COHORT_INDIVIDUAL));
                }
                let dp = query.options.mode == Mode::Dp
                    || policy::has_role(&self.config.dp.dp_roles, &query.requester.role);
                let first = self.cohort_analysis(first, &known, &scope, dp).await?;
                let reply = if dp {
                    self.dp_cohort(query, &scope, &first, &population, &known, work)
                        .await
                } else {
                    self.cohort(
                        &query.requester.key(),
                        &scope,
                        &first,
                        &population,
                        &known,
                        work,
                    )
                    .await
                };
                work.timings.search_ms = search_started.elapsed().as_millis() as u64;
                let mut reply = reply?;
                // A cohort found by none of the question's words may be one of fewer than k
                // patients (their words read as unknown) or none: the reply says so, and says
                // which it is no more than the search did.
                if reply.is_nothing_found() {
                    reply.answer =
                        super::respond::cohort_not_found(self.config.cohort_min_patients);
                }
                Ok(reply)
            }
            Disclosure::CareTeam => {
                if first.identifiers > 0 {
                    return Ok(Reply::from(policy::NOT_ACCESSIBLE));
                }
                let mut resolution =
                    search::resolve_names(pool, &first.name_candidates, &scope).await?;
                if let Some(sex) = first.titled_sex {
                    if search::keep_sex(pool, &mut resolution, sex).await? {
                        return Ok(Reply::from(policy::NOT_ACCESSIBLE));
                    }
                }
                // "Karren S.": of the listed Karrens, the one whose family name begins so
                // (none: somebody else). Only after a word that named a listed patient.
                if let Some((word, initial)) = &first.family_initial {
                    if resolution.name_words.contains(word)
                        && search::keep_family_initial(pool, &mut resolution, *initial).await?
                    {
                        return Ok(Reply::from(policy::NOT_ACCESSIBLE));
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
                    return Ok(Reply::from(policy::NOT_ACCESSIBLE));
                }
                if names_someone_else(&first.name_runs, &resolution, &known) {
                    return Ok(Reply::from(policy::NOT_ACCESSIBLE));
                }
                if resolution.ambiguous {
                    return Ok(Reply::from(policy::AMBIGUOUS));
                }
                // "his latest LDL", "the patient's allergies": a care team of one patient (or
                // one patient of the sex the pronouns say) asks about that patient, as if it had
                // named them (the latest reading, a verified absence); never for a name the
                // vault did not resolve.
                if let (true, true, Scope::Patients(keys)) = (
                    resolution.patients.is_empty(),
                    first.speaks_of_the_patient,
                    &scope,
                ) {
                    // "Most recent HbA1c for her?" of a list with one woman: her.
                    let one = match (keys.as_slice(), first.pronoun_sex) {
                        ([one], _) => Some(*one),
                        (_, Some(sex)) => {
                            let people =
                                crate::answer::population::people(self.store.pool(), keys).await?;
                            let mut of_sex = people
                                .iter()
                                .filter(|(_, person)| person.sex.as_deref() == Some(sex));
                            match (of_sex.next(), of_sex.next()) {
                                (Some((key, _)), None) => Some(*key),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    if let Some(one) = one {
                        resolution.patients = vec![one];
                        resolution.words_of.insert(one, BTreeSet::new());
                    }
                }
                self.care_team(
                    query,
                    &scope,
                    &first,
                    resolution,
                    &known,
                    search_started,
                    work,
                )
                .await
            }
        }
    }

    /// A one-line synthetic document and its deterministic answer, through the Review agent
    /// and then the responder.
    async fn answer_line(
        &self,
        line: String,
        synthetic: String,
        template: String,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        let document = SyntheticDocument {
            lines: vec![line],
            document_ids: Vec::new(),
        };
        let (document, query) = match self.review(document, synthetic, work).await? {
            Ok(passed) => passed,
            Err(refused) => return Ok(refused),
        };
        work.trace.synthetic_document = document.get().text();
        let reply = self.respond(&document, &query, template, work).await;
        Ok(reply.asking(query.get().clone()))
    }

    /// Review of a synthetic document and query, with its own vault lookup. The refusal to
    /// return when it cannot be made safe.
    async fn review(
        &self,
        document: SyntheticDocument,
        query: String,
        work: &mut Work,
    ) -> Result<Result<(Reviewed<SyntheticDocument>, Reviewed<String>), Reply>, AnswerError> {
        let started = Instant::now();
        let mut texts: Vec<&str> = document.lines.iter().map(String::as_str).collect();
        texts.push(&query);
        let scanner = self.guard.scanner(&texts).await?;
        let verdict = review_loop(document, query, &scanner, self.config.review_rounds);
        work.timings.review_ms += started.elapsed().as_millis() as u64;
        match verdict {
            Verdict::Passed {
                document,
                query,
                corrections,
                fixed,
            } => {
                work.findings.review_corrections += corrections;
                for (rule, n) in fixed {
                    *work.findings.review_findings.entry(rule).or_default() += n;
                }
                Ok(Ok((document, query)))
            }
            Verdict::Refused { rules, corrections } => {
                work.findings.review_corrections += corrections;
                let mut refused = Reply::new(
                    AnswerStatus::Refused,
                    "The answer could not be de-identified safely.",
                );
                refused.reason = Some(format!("review: {}", rules.join(", ")));
                Ok(Err(refused))
            }
        }
    }

    /// Synthesis and the answer over retrieved documents. `events`: for "how many" about one
    /// patient, the events on the whole record (the documents hold only some of them).
    async fn synthesize_and_answer(
        &self,
        documents: &[RetrievedDocument],
        labels: &std::collections::BTreeMap<i64, String>,
        analysis: &QuestionAnalysis,
        synthetic: &str,
        events: Option<usize>,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        // Synthesis.
        let synthesis_started = Instant::now();
        let candidates = candidates(documents, labels);
        // Facts the rules cannot tie to the question do not answer it, whoever words the
        // answer: no model call then (a model shown unrelated facts answers from them, "eye
        // color" from the gender line). In incremental mode such a page is passed over for the
        // next, so a question costs the calls of the page that answers it.
        // A yes/no question is answered by facts of what it asks, not of its reason or
        // occasion ("dialysis during his covid admission": the dialysis).
        let yes_no = analysis.form == super::question::AnswerForm::YesNo;
        let selecting = if yes_no {
            std::borrow::Cow::Owned(analysis.yes_support())
        } else {
            std::borrow::Cow::Borrowed(analysis)
        };
        let mut by_rules = select_by_rules(&candidates, &selecting, self.config.max_facts);
        // "Has he had his second MMR?" with one dose on record: the doses there are, and how
        // many ("No. Only 1 on record."), not a refusal.
        let mut fewer: Option<usize> = None;
        if let (true, Some(n)) = (by_rules.is_empty(), analysis.nth) {
            let mut series = analysis.clone();
            series.nth = None;
            series.recency = None;
            series.asks_series = true;
            let all = select_by_rules(&candidates, &series, self.config.max_facts);
            let days: BTreeSet<chrono::NaiveDate> =
                all.iter().filter_map(|i| candidates[*i].day).collect();
            if !days.is_empty() && days.len() < n {
                fewer = Some(days.len());
                by_rules = all;
            }
        }
        if by_rules.is_empty() {
            work.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
            return Ok(Reply::nothing_found());
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
            work.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
            let (reviewed, query) = match self.review(lines, synthetic.to_string(), work).await? {
                Ok(passed) => passed,
                Err(refused) => return Ok(refused),
            };
            match self
                .call_model(select_request(&reviewed, &query), work)
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
                Err(()) => return Ok(Reply::busy()),
            }
        } else {
            work.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
        }
        if chosen.is_empty() {
            chosen = by_rules;
        }
        let document = assemble(&candidates, &chosen);
        if let Some(days) = fewer {
            let no = if analysis.form == super::question::AnswerForm::YesNo {
                "No. "
            } else {
                ""
            };
            let lead = format!("{no}Only {days} on record. ");
            return self
                .answer_document(document, analysis, synthetic, Some(&lead), events, work)
                .await;
        }
        // A yes stands on a fact of what is asked, never on the reason it was asked for ("was
        // he on metformin for the diabetes?" is not answered by the diabetes).
        if analysis.form == super::question::AnswerForm::YesNo
            && !super::respond::supports_yes(&document, analysis)
        {
            return Ok(Reply::nothing_found());
        }
        self.answer_document(document, analysis, synthetic, None, events, work)
            .await
    }

    /// Review, then the answer of a synthetic document: the template leads with `lead`, or
    /// with what the question's form asks ("Yes.", a count of the whole record: `events`), and
    /// a model may phrase it.
    async fn answer_document(
        &self,
        document: SyntheticDocument,
        analysis: &QuestionAnalysis,
        synthetic: &str,
        lead: Option<&str>,
        events: Option<usize>,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        let (document, query) = match self.review(document, synthetic.to_string(), work).await? {
            Ok(passed) => passed,
            Err(refused) => return Ok(refused),
        };
        work.trace.synthetic_document = document.get().text();
        // A count is said only as the whole record gives it, never from the retrieved part.
        let lead = match (lead, analysis.form, events) {
            (Some(lead), _, _) => lead.to_string(),
            (None, super::question::AnswerForm::Count, Some(n)) => format!("{n} on record. "),
            (None, super::question::AnswerForm::Count, None) => String::new(),
            (None, form, _) => super::respond::lead(document.get(), form, analysis.now),
        };
        let template = format!("{lead}{}", template_answer(document.get()));
        let mut reply = self
            .respond(&document, &query, template, work)
            .await
            .asking(query.get().clone());
        reply.documents = document.get().document_ids.clone();
        Ok(reply)
    }

    /// The answering step: the model (or the template) sees only the reviewed document and
    /// query. A reply with a number or a content word that neither the document nor the query
    /// holds is replaced by the template: a model may phrase, never add a fact.
    async fn respond(
        &self,
        document: &Reviewed<SyntheticDocument>,
        query: &Reviewed<String>,
        template: String,
        work: &mut Work,
    ) -> Reply {
        let answer_started = Instant::now();
        let reply = match self
            .call_model(
                answer_request(document, query, self.max_tokens, self.temperature),
                work,
            )
            .await
        {
            Ok(reply) => reply,
            Err(()) => return Reply::busy(),
        };
        work.timings.answer_ms += answer_started.elapsed().as_millis() as u64;
        match reply {
            Some(text) if says_not_found(&text) => Reply::nothing_found(),
            Some(text)
                if numbers_are_grounded(&text, document.get())
                    && words_are_grounded(&text, document.get(), query.get()) =>
            {
                Reply::answered(crate::text::strip_control_sequences(&text))
            }
            _ => Reply::answered(template),
        }
    }

    async fn audit(
        &self,
        query: &Query,
        sealed: &Guarded<Answer>,
        reason: Option<String>,
        documents: &[i64],
        work: &Work,
    ) -> Result<(), AnswerError> {
        let answer = sealed.value();
        let report = serde_json::json!({
            "guard": sealed.report(),
            "review_corrections": work.findings.review_corrections,
            "review_findings": work.findings.review_findings,
            "reason": reason,
            "policy": answer.privacy.policy,
            "dp": work.dp_audit,
        });
        let patients: Vec<i64> = work.patients.iter().copied().collect();
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
        .bind(documents)
        .bind(&patients)
        .bind(answer.llm_calls as i32)
        .bind(report)
        .bind(answer.timings.total_ms as i64)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }
}
