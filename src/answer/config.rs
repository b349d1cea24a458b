//! The answer path's settings (`fhir-rag answer`): topics, retrieval, disclosure, limits, DP.

use crate::dp::DpConfig;
use crate::privacy::digest::DigestKey;

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
    #[arg(long, env = "FHIR_RAG_MAX_FACTS", default_value_t = 40)]
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
    /// Cohort roles: they may ask about groups of patients (all patients, or the list the query
    /// carries) and get cohort answers only: no lookup of a person, at least
    /// `--cohort-min-patients` patients behind every figure, no pseudonyms.
    #[arg(
        long,
        env = "FHIR_RAG_COHORT_ROLES",
        value_delimiter = ',',
        default_value = "researcher,analyst,quality"
    )]
    pub cohort_roles: Vec<String>,
    /// Care-team roles: with the explicit patient list the query carries, they may ask about
    /// those patients by name (and about nobody else).
    #[arg(
        long,
        env = "FHIR_RAG_CARE_TEAM_ROLES",
        value_delimiter = ',',
        default_value = "clinician,physician,nurse,care_team,patient"
    )]
    pub care_team_roles: Vec<String>,
    /// Fewest patients a cohort answer may describe (k): smaller groups, and every item or
    /// reading shared by fewer patients, are not shown.
    #[arg(long, env = "FHIR_RAG_COHORT_MIN_PATIENTS", default_value_t = 5)]
    pub cohort_min_patients: usize,
    /// Days a cohort answered to a requester is remembered for the overlap control: a cohort
    /// differing from one of them by fewer than k patients (but at least one) is not answered
    /// (0: off). Answers with differential privacy are exempt: their noise bounds that.
    #[arg(long, env = "FHIR_RAG_COHORT_OVERLAP_DAYS", default_value_t = 30)]
    pub cohort_overlap_days: u32,
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
    /// Longest pause between retries of a transient failure, in milliseconds.
    #[arg(
        long,
        env = "FHIR_RAG_ANSWER_RETRY_MAX_BACKOFF_MS",
        default_value_t = 30_000
    )]
    pub answer_retry_max_backoff_ms: u64,
    /// Attempts at a transient failure before the query is dead-lettered (an unreachable
    /// database is retried without limit).
    #[arg(long, env = "FHIR_RAG_ANSWER_RETRY_MAX_ATTEMPTS", default_value_t = 8)]
    pub answer_retry_max_attempts: u32,
    /// Stop after this many seconds without a query (default: never).
    #[arg(long, env = "FHIR_RAG_ANSWER_STOP_AFTER_IDLE_SECS")]
    pub answer_stop_after_idle_secs: Option<u64>,
    /// Stop after this many queries (default: never).
    #[arg(long, env = "FHIR_RAG_ANSWER_STOP_AFTER_MESSAGES")]
    pub answer_stop_after_messages: Option<u64>,
    /// Secret key of the request digests that the audit table and the DP ledger keep
    /// (HMAC-SHA-256; at least 32 characters, e.g. `openssl rand -hex 32`). Every answer worker
    /// of a deployment needs the same key. Without one, each worker draws a random key at start:
    /// digests then differ between workers and restarts, so a DP query id asked again is
    /// refused instead of getting its answer back.
    #[arg(long, env = "FHIR_RAG_AUDIT_KEY", hide_env_values = true)]
    pub audit_key: Option<DigestKey>,
    /// Differentially private answers and the per-requester budget.
    #[command(flatten)]
    pub dp: DpConfig,
}
