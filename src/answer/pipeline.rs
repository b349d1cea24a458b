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
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;

use super::contract::{Answer, AnswerStatus, Mode, PrivacySummary, Query, Timings};
use super::question::{analyze, tsquery_or};
use super::respond::{
    answer_request, says_not_found, select_request, template_answer, NOT_FOUND_ANSWER,
};
use super::review::{review_loop, Verdict};
use super::search::{self, RetrievalFilter, RetrievalMode, RetrievedDocument, Scope};
use super::synthesis::{
    assemble, candidates, parse_choice, select_by_rules, shortlist, synthetic_query,
};
use crate::embed::batcher::EmbeddingService;
use crate::embed::EmbedError;
use crate::llm::{Backend, ChatRequest, LlmConfig};
use crate::privacy::pseudonym::pseudonym;
use crate::privacy::{Guarded, PrivacyGuard};
use crate::store::{Store, StoreError};

/// Settings of the answer path.
#[derive(Clone, Debug, clap::Args)]
pub struct AnswerConfig {
    /// Consumer group of answer workers.
    #[arg(long, env = "FHIR_RAG_ANSWER_GROUP", default_value = "fhir-rag-answer")]
    pub answer_group: String,
    /// Topic carrying questions.
    #[arg(long, env = "FHIR_RAG_QUERY_TOPIC", default_value = "rag.queries")]
    pub query_topic: String,
    /// Topic answers are published to.
    #[arg(long, env = "FHIR_RAG_ANSWER_TOPIC", default_value = "rag.answers")]
    pub answer_topic: String,
    /// Dead-letter topic for query messages that cannot be read.
    #[arg(
        long,
        env = "FHIR_RAG_QUERY_DLQ_TOPIC",
        default_value = "rag.queries.dlq"
    )]
    pub query_dlq_topic: String,
    /// Documents retrieved per question (a query's options.k overrides it).
    #[arg(long, env = "FHIR_RAG_K", default_value_t = 4)]
    pub k: u32,
    /// Most documents a query may ask for.
    #[arg(long, env = "FHIR_RAG_MAX_K", default_value_t = 20)]
    pub max_k: u32,
    /// Most patients the condition search of a two-step question returns.
    #[arg(long, env = "FHIR_RAG_CONDITION_PATIENTS", default_value_t = 10)]
    pub condition_patients: usize,
    /// Most facts in a synthetic document.
    #[arg(long, env = "FHIR_RAG_MAX_FACTS", default_value_t = 16)]
    pub max_facts: usize,
    /// Candidate lines a model chooses facts among (fact selection by model).
    #[arg(long, env = "FHIR_RAG_LLM_SHORTLIST", default_value_t = 10)]
    pub llm_shortlist: usize,
    /// Let the model choose the facts (otherwise rules choose, and the model only answers).
    #[arg(long, env = "FHIR_RAG_LLM_FACT_SELECTION", default_value_t = true, action = clap::ArgAction::Set)]
    pub llm_fact_selection: bool,
    /// Times the Review agent sends a synthetic document back before refusing.
    #[arg(long, env = "FHIR_RAG_REVIEW_ROUNDS", default_value_t = 2)]
    pub review_rounds: u32,
    /// Roles that may ask about every patient (a requester without a patient list needs one).
    #[arg(
        long,
        env = "FHIR_RAG_ALL_PATIENTS_ROLES",
        value_delimiter = ',',
        default_value = "researcher"
    )]
    pub all_patients_roles: Vec<String>,
    /// Questions per minute one requester may ask.
    #[arg(long, env = "FHIR_RAG_QUERIES_PER_MINUTE", default_value_t = 60)]
    pub queries_per_minute: u32,
    /// Questions one requester may ask at once before the per-minute rate applies.
    #[arg(long, env = "FHIR_RAG_QUERY_BURST", default_value_t = 10)]
    pub query_burst: u32,
    /// Model calls per minute for this worker.
    #[arg(long, env = "FHIR_RAG_LLM_CALLS_PER_MINUTE", default_value_t = 600)]
    pub llm_calls_per_minute: u32,
    /// Longest wait for the model-call limit before answering "rate limited", in milliseconds.
    #[arg(long, env = "FHIR_RAG_LLM_WAIT_MS", default_value_t = 30_000)]
    pub llm_wait_ms: u64,
    /// Seconds between checks of the vault's size (the shared guard is rebuilt when it grew).
    #[arg(long, env = "FHIR_RAG_VAULT_REFRESH_SECS", default_value_t = 5)]
    pub vault_refresh_secs: u64,
    /// Longest pause between retries of a transient failure, in milliseconds.
    #[arg(
        long,
        env = "FHIR_RAG_ANSWER_RETRY_MAX_BACKOFF_MS",
        default_value_t = 30_000
    )]
    pub answer_retry_max_backoff_ms: u64,
    /// Stop after this many seconds without a query (default: never).
    #[arg(long, env = "FHIR_RAG_ANSWER_STOP_AFTER_IDLE_SECS")]
    pub answer_stop_after_idle_secs: Option<u64>,
    /// Stop after this many queries (default: never).
    #[arg(long, env = "FHIR_RAG_ANSWER_STOP_AFTER_MESSAGES")]
    pub answer_stop_after_messages: Option<u64>,
}

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
}

impl Default for SearchPlan {
    fn default() -> Self {
        SearchPlan {
            mode: RetrievalMode::Hybrid,
            condition_search: true,
            ranked: true,
            filters: true,
            condition_patients: 10,
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
    let analysis = analyze(question, &resolution.name_words);
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
    } else if analysis.broad && analysis.dates.is_empty() {
        return Ok(found(search::summaries(pool, &resolution.patients).await?));
    }
    if !plan.ranked {
        return Ok(found(Vec::new()));
    }
    let filter = RetrievalFilter {
        patients: if resolution.patients.is_empty() {
            scope.keys()
        } else {
            scope.narrow(&resolution.patients).keys()
        },
        days: (plan.filters && !analysis.dates.is_empty()).then(|| analysis.dates.clone()),
        summaries_only: false,
    };
    // The embedder and the text search see the question without names.
    let text = synthetic_query(question, &resolution.name_words, &[], 500);
    let vector = embedder.embed(vec![text]).await?.pop().unwrap_or_default();
    let documents = search::retrieve(
        pool,
        plan.mode,
        &vector,
        &tsquery_or(&analysis.terms),
        &filter,
        k,
    )
    .await?;
    Ok(found(documents))
}

/// What the agents found, before the answer is sealed.
#[derive(Debug, Default)]
struct Draft {
    status: Option<AnswerStatus>,
    answer: String,
    synthetic_query: String,
    documents: Vec<i64>,
    patients: BTreeSet<i64>,
    llm_calls: u32,
    privacy: PrivacySummary,
    timings: Timings,
    trace: Trace,
    /// The guard built for the patients this answer involves, once they are known; the review
    /// and the final seal share it instead of reading the vault twice.
    guard: Option<PrivacyGuard>,
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

/// The shared guard and when it was last checked against the vault.
struct GuardCache {
    guard: Arc<PrivacyGuard>,
    vault_size: i64,
    checked: Instant,
}

/// Answers queries. One per worker; cheap to share behind an `Arc`.
pub struct AnswerEngine {
    store: Store,
    embedder: EmbeddingService,
    backend: Backend,
    config: AnswerConfig,
    max_tokens: u32,
    temperature: f32,
    secret: Vec<u8>,
    guard: Mutex<GuardCache>,
    per_requester: DefaultKeyedRateLimiter<String>,
    llm_calls: DefaultDirectRateLimiter,
}

fn nonzero(n: u32, what: &str) -> Result<NonZeroU32, AnswerError> {
    NonZeroU32::new(n).ok_or_else(|| AnswerError::Config(format!("{what} must be at least 1")))
}

impl AnswerEngine {
    /// Reads the pseudonym secret, builds the guard from the whole vault and the limiters.
    pub async fn new(
        store: Store,
        embedder: EmbeddingService,
        backend: Backend,
        config: AnswerConfig,
        llm: &LlmConfig,
    ) -> Result<Self, AnswerError> {
        let secret: Vec<u8> = sqlx::query_scalar("SELECT pseudonym_secret FROM answer_settings")
            .fetch_one(store.pool())
            .await?;
        let size = search::vault_size(store.pool()).await?;
        let entries = search::vault_entries(store.pool(), None).await?;
        let guard = PrivacyGuard::new(entries.iter().map(|(k, v)| (*k, v.as_str())));
        tracing::info!(vault_patterns = guard.vault_patterns(), backend = %backend.name(), "answer engine ready");
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
        Ok(AnswerEngine {
            store,
            embedder,
            backend,
            config,
            max_tokens: llm.llm_max_tokens,
            temperature: llm.llm_temperature,
            secret,
            guard: Mutex::new(GuardCache {
                guard: Arc::new(guard),
                vault_size: size,
                checked: Instant::now(),
            }),
            per_requester,
            llm_calls,
        })
    }

    /// The backend's name.
    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    /// The settings.
    pub fn config(&self) -> &AnswerConfig {
        &self.config
    }

    /// The shared guard, rebuilt if the vault grew since the last check.
    async fn shared_guard(&self) -> Result<Arc<PrivacyGuard>, AnswerError> {
        let mut cache = self.guard.lock().await;
        if cache.checked.elapsed() >= Duration::from_secs(self.config.vault_refresh_secs) {
            let size = search::vault_size(self.store.pool()).await?;
            if size != cache.vault_size {
                let entries = search::vault_entries(self.store.pool(), None).await?;
                cache.guard = Arc::new(PrivacyGuard::new(
                    entries.iter().map(|(k, v)| (*k, v.as_str())),
                ));
                cache.vault_size = size;
                tracing::info!(
                    vault_patterns = cache.guard.vault_patterns(),
                    "privacy guard rebuilt"
                );
            }
            cache.checked = Instant::now();
        }
        Ok(cache.guard.clone())
    }

    /// The shared guard plus the vault rows of the patients this answer involves, read now.
    async fn answer_guard(&self, patients: &BTreeSet<i64>) -> Result<PrivacyGuard, AnswerError> {
        let shared = self.shared_guard().await?;
        let keys: Vec<i64> = patients.iter().copied().collect();
        if keys.is_empty() {
            return Ok((*shared).clone());
        }
        let entries = search::vault_entries(self.store.pool(), Some(&keys)).await?;
        Ok(shared.with_entries(entries.iter().map(|(k, v)| (*k, v.as_str()))))
    }

    /// Takes one model call from the worker's budget; false when the wait would be too long.
    async fn take_llm_call(&self) -> bool {
        tokio::time::timeout(
            Duration::from_millis(self.config.llm_wait_ms),
            self.llm_calls.until_ready(),
        )
        .await
        .is_ok()
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
        if self.per_requester.check_key(&query.requester.id).is_err() {
            draft.status = Some(AnswerStatus::RateLimited);
            draft.answer = format!(
                "Too many questions from this requester (limit {} per minute); please ask again shortly.",
                self.config.queries_per_minute
            );
        } else {
            self.run_agents(query, &mut draft).await?;
        }
        let guard_started = Instant::now();
        let guard = match draft.guard.take() {
            Some(guard) => guard,
            None => self.answer_guard(&draft.patients).await?,
        };
        draft.timings.guard_ms = guard_started.elapsed().as_millis() as u64;
        draft.timings.total_ms = started.elapsed().as_millis() as u64;
        let status = draft.status.unwrap_or(AnswerStatus::NotFound);
        let answer = Answer {
            query_id: query.query_id.clone(),
            status,
            answer: draft.answer,
            synthetic_query: draft.synthetic_query,
            backend: self.backend.name(),
            documents_used: draft.documents.len(),
            llm_calls: draft.llm_calls,
            privacy: draft.privacy,
            timings: draft.timings,
            answered_at: chrono::Utc::now().to_rfc3339(),
        };
        // Matching is microseconds next to building the per-answer layer, timed above.
        let sealed = guard.seal(answer);
        let trace = std::mem::take(&mut draft.trace);
        self.audit(query, &sealed, &draft.documents, &draft.patients)
            .await?;
        Ok((sealed, trace))
    }

    async fn run_agents(&self, query: &Query, draft: &mut Draft) -> Result<(), AnswerError> {
        // Who may be seen.
        let scope = match &query.requester.patients {
            Some(ids) => Scope::Patients(search::patient_keys(self.store.pool(), ids).await?),
            None if self
                .config
                .all_patients_roles
                .iter()
                .any(|r| r == &query.requester.role) =>
            {
                Scope::All
            }
            None => {
                draft.status = Some(AnswerStatus::Refused);
                draft.answer =
                    "This requester has no patient list and a role that may not see all patients."
                        .into();
                return Ok(());
            }
        };

        // Search.
        let search_started = Instant::now();
        let k = query
            .options
            .k
            .unwrap_or(self.config.k)
            .min(self.config.max_k) as usize;
        let plan = SearchPlan {
            condition_patients: self.config.condition_patients,
            ..SearchPlan::default()
        };
        let Found {
            resolution,
            analysis,
            documents,
        } = find_documents(
            self.store.pool(),
            &self.embedder,
            &query.question,
            &scope,
            &plan,
            k,
        )
        .await?;
        draft.timings.search_ms = search_started.elapsed().as_millis() as u64;
        draft.trace.retrieved = documents.iter().map(|d| d.text.clone()).collect();
        draft.patients.extend(resolution.patients.iter().copied());
        draft.privacy.checks = vec!["synthesis".into(), "review".into()];
        if documents.is_empty() {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            return Ok(());
        }
        draft
            .patients
            .extend(documents.iter().map(|d| d.patient_key));
        let pseudonyms: Vec<String> = resolution
            .patients
            .iter()
            .map(|p| pseudonym(&self.secret, *p))
            .collect();
        let synthetic = synthetic_query(&query.question, &resolution.name_words, &pseudonyms, 300);
        let review_guard = self.answer_guard(&draft.patients).await?;
        draft.guard = Some(review_guard.clone());

        // Incremental mode: one document at a time until one answers.
        let batches: Vec<&[RetrievedDocument]> = match query.options.mode {
            Mode::Synthetic => vec![&documents[..]],
            Mode::Incremental => documents.chunks(1).collect(),
        };
        for batch in batches {
            self.synthesize_and_answer(batch, &analysis, &synthetic, &review_guard, draft)
                .await;
            if draft.status != Some(AnswerStatus::NotFound) {
                break;
            }
        }
        Ok(())
    }

    async fn synthesize_and_answer(
        &self,
        documents: &[RetrievedDocument],
        analysis: &super::question::QuestionAnalysis,
        synthetic: &str,
        guard: &PrivacyGuard,
        draft: &mut Draft,
    ) {
        // Synthesis.
        let synthesis_started = Instant::now();
        let candidates = candidates(documents, &self.secret);
        let mut chosen = Vec::new();
        if self.config.llm_fact_selection && matches!(self.backend, Backend::Model(_)) {
            let short = shortlist(&candidates, analysis, self.config.llm_shortlist);
            // The sentences alone: who and when do not help choosing, and every token costs.
            let lines: Vec<String> = short
                .iter()
                .map(|i| candidates[*i].sentence.clone())
                .collect();
            match self
                .call_model(select_request(&lines, synthetic), draft)
                .await
            {
                Ok(Some(reply)) => {
                    chosen = parse_choice(&reply, &short);
                    chosen.truncate(self.config.max_facts);
                }
                Ok(None) => {}
                Err(()) => return self.busy(draft),
            }
        }
        if chosen.is_empty() {
            chosen = select_by_rules(&candidates, analysis, self.config.max_facts);
        }
        draft.timings.synthesis_ms += synthesis_started.elapsed().as_millis() as u64;
        if chosen.is_empty() {
            draft.status = Some(AnswerStatus::NotFound);
            draft.answer = NOT_FOUND_ANSWER.into();
            return;
        }
        let document = assemble(&candidates, &chosen);

        // Review.
        let review_started = Instant::now();
        let verdict = review_loop(
            document,
            synthetic.to_string(),
            guard,
            self.config.review_rounds,
        );
        draft.timings.review_ms += review_started.elapsed().as_millis() as u64;
        let (document, query) = match verdict {
            Verdict::Passed {
                document,
                query,
                corrections,
                fixed,
            } => {
                draft.privacy.review_corrections = corrections;
                draft.privacy.review_findings = fixed;
                (document, query)
            }
            Verdict::Refused { rules, corrections } => {
                draft.privacy.review_corrections = corrections;
                draft.status = Some(AnswerStatus::Refused);
                draft.answer = format!(
                    "The answer could not be de-identified safely (rules still broken: {}).",
                    rules.join(", ")
                );
                return;
            }
        };
        draft.synthetic_query = query.clone();
        draft.documents = document.document_ids.clone();
        draft.trace.synthetic_document = document.text();

        // Answer from the synthetic document only.
        let answer_started = Instant::now();
        let reply = match self
            .call_model(
                answer_request(&document, &query, self.max_tokens, self.temperature),
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
            Some(text) => {
                draft.status = Some(AnswerStatus::Answered);
                draft.answer = text;
            }
            None => {
                draft.status = Some(AnswerStatus::Answered);
                draft.answer = template_answer(&document);
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
        documents: &[i64],
        patients: &BTreeSet<i64>,
    ) -> Result<(), AnswerError> {
        let answer = sealed.value();
        let report = serde_json::json!({
            "guard": sealed.report(),
            "review_corrections": answer.privacy.review_corrections,
            "review_findings": answer.privacy.review_findings,
        });
        let patients: Vec<i64> = patients.iter().copied().collect();
        sqlx::query(
            "INSERT INTO answer_audit (query_id, requester_id, requester_role, status, backend,
                 question_sha256, document_ids, patient_keys, llm_calls, guard_report, total_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT (query_id, requester_id) DO UPDATE SET
                 status = EXCLUDED.status, document_ids = EXCLUDED.document_ids,
                 patient_keys = EXCLUDED.patient_keys, llm_calls = EXCLUDED.llm_calls,
                 guard_report = EXCLUDED.guard_report, total_ms = EXCLUDED.total_ms,
                 answered_at = now(), times_answered = answer_audit.times_answered + 1",
        )
        .bind(&query.query_id)
        .bind(&query.requester.id)
        .bind(&query.requester.role)
        .bind(answer.status.as_str())
        .bind(&answer.backend)
        .bind(Sha256::digest(query.question.as_bytes()).to_vec())
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
