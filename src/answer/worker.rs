//! The answer worker (a member of a consumer group on `rag.queries`), the answer publisher, and
//! `ask`, the command-line client of the gateway.
//!
//! Per message, in partition order: verify the gateway's signature and that the envelope was not
//! seen before at another position (unsigned, tampered, expired or replayed → dead-letter topic as
//! `unauthenticated`), validate the query (unreadable → dead-letter topic), answer it (transient
//! failures retried while the offset is held), publish the sealed answer signed with the
//! worker's key, then commit the offset. Logs carry ids, statuses and counts, never questions or
//! answers.

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use futures::future::{FutureExt, LocalBoxFuture};
use rdkafka::message::{Message, OwnedMessage};
use rdkafka::producer::{FutureProducer, FutureRecord};
use serde::Serialize;
use tokio::sync::watch;

use super::contract::{Answer, AnswerStatus, Query};
use super::engine::{AnswerEngine, AnswerError};
use crate::auth::envelope::{now_secs, Signer, Verifier, MAX_LIFETIME_SECS};
use crate::bus::consume::{consume, Handler, LoopSettings};
use crate::bus::retry::{Retried, RetryPolicy};
use crate::bus::{publish_dead_letter, BusConfig, BusError, DeadLetter};
use crate::privacy::Guarded;

/// Publishes answers. Takes only [`Guarded`] answers: nothing reaches the answer topic without
/// passing the privacy guard.
pub struct AnswerPublisher {
    producer: FutureProducer,
    topic: String,
}

impl AnswerPublisher {
    /// A publisher to `topic`.
    pub fn new(bus: &BusConfig, topic: &str) -> Result<Self, BusError> {
        Ok(AnswerPublisher {
            producer: bus
                .producer()
                .create()
                .map_err(|e| BusError::Client(e.to_string()))?,
            topic: topic.to_string(),
        })
    }

    /// Publishes one answer, keyed by its query id, signed when there is a signer, and waits for
    /// the broker.
    pub async fn publish(
        &self,
        answer: Guarded<Answer>,
        signer: Option<&Signer>,
    ) -> Result<(), BusError> {
        let (answer, report) = answer.into_parts();
        let answer = answer.with_guard_report(&report);
        let payload = match signer {
            Some(signer) => signer.sign_answer(&answer, MAX_LIFETIME_SECS).into_bytes(),
            None => serde_json::to_vec(&answer).expect("answers serialize"),
        };
        self.producer
            .send(
                FutureRecord::to(&self.topic)
                    .key(answer.query_id.as_bytes())
                    .payload(&payload),
                Duration::from_secs(60),
            )
            .await
            .map(|_| ())
            .map_err(|(e, _)| BusError::Delivery {
                topic: self.topic.clone(),
                reason: e.to_string(),
            })
    }
}

/// Errors that stop the worker.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// Kafka failed in a way the worker cannot ride out.
    #[error(transparent)]
    Bus(#[from] BusError),
    /// The store or the model failed fatally.
    #[error(transparent)]
    Answer(#[from] AnswerError),
}

/// What an answer worker did, reported when it stops.
#[derive(Debug, Default, Clone, Serialize)]
pub struct AnswerReport {
    /// Messages handled and committed.
    pub messages: u64,
    /// Answers published, by status.
    pub answered: u64,
    /// Not found.
    pub not_found: u64,
    /// Refused.
    pub refused: u64,
    /// Rate limited.
    pub rate_limited: u64,
    /// Refused for an exhausted privacy budget.
    pub budget_exhausted: u64,
    /// Unreadable queries sent to the dead-letter topic.
    pub dead_lettered: u64,
    /// Retries of transient failures.
    pub retries: u64,
    /// Redactions the final guard made.
    pub guard_redactions: u64,
}

/// How an answer worker trusts its queries (`fhir-rag answer`, `fhir-rag serve`).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct EnvelopeConfig {
    /// The gateways' public keys (a JWK set of Ed25519 keys; several for rotation): only queries
    /// one of them signed are answered.
    #[arg(long, env = "FHIR_RAG_GATEWAY_KEYS")]
    pub gateway_keys: Option<PathBuf>,
    /// This worker's Ed25519 private key (PKCS#8 PEM, mode 600): it signs every answer, for the
    /// gateway to check. Create one with `fhir-rag keygen`.
    #[arg(long, env = "FHIR_RAG_WORKER_SIGNING_KEY")]
    pub worker_signing_key: Option<PathBuf>,
    /// The worker's name (the `iss` of its answers).
    #[arg(long, env = "FHIR_RAG_WORKER_NAME", default_value = "fhir-rag-answer")]
    pub worker_name: String,
    /// Development only: answer unsigned queries (whatever requester, role and patients they
    /// claim) and publish unsigned answers. Never on a shared bus.
    #[arg(long, env = "FHIR_RAG_INSECURE_UNSIGNED_QUERIES")]
    pub insecure_unsigned_queries: bool,
}

/// How the worker trusts its queries and signs its answers.
#[derive(Debug)]
pub enum QueryAuth {
    /// Queries must carry a gateway's signature; answers are signed.
    Signed {
        /// The gateways' keys.
        gateways: Verifier,
        /// The worker's key.
        signer: Signer,
    },
    /// Development only: nothing is checked or signed.
    Unsigned,
}

impl EnvelopeConfig {
    /// The keys, read; refuses a half-configured worker.
    pub fn open(&self) -> Result<QueryAuth, WorkerError> {
        let config = |m: &str| WorkerError::Answer(AnswerError::Config(m.to_string()));
        match (
            &self.gateway_keys,
            &self.worker_signing_key,
            self.insecure_unsigned_queries,
        ) {
            (None, None, true) => {
                tracing::warn!("answering UNSIGNED queries: any producer on the query topic can claim any requester, role and patients; development only");
                Ok(QueryAuth::Unsigned)
            }
            (Some(_), _, true) | (_, Some(_), true) => Err(config(
                "--insecure-unsigned-queries with keys: choose one",
            )),
            (Some(gateways), Some(key), false) => Ok(QueryAuth::Signed {
                gateways: Verifier::read(gateways)
                    .map_err(|e| config(&e.to_string()))?,
                signer: Signer::read(key, &self.worker_name).map_err(|e| config(&e.to_string()))?,
            }),
            _ => Err(config(
                "an answer worker needs --gateway-keys (whose signatures it trusts) and --worker-signing-key (to sign its answers); see `fhir-rag keygen`",
            )),
        }
    }
}

/// Runs an answer worker until shutdown, the idle or message limit, or a fatal error.
pub async fn run(
    engine: &AnswerEngine,
    bus: &BusConfig,
    auth: &QueryAuth,
    shutdown: watch::Receiver<bool>,
) -> Result<AnswerReport, WorkerError> {
    let config = engine.config().clone();
    let publisher = AnswerPublisher::new(bus, &config.answer_topic)?;
    let dlq: FutureProducer = bus
        .producer()
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    tracing::info!(topic = %config.query_topic, group = %config.answer_group, backend = %engine.backend_name(), "answer worker started");
    let handler = AnswerHandler {
        engine,
        auth,
        publisher: &publisher,
        dlq: &dlq,
        report: RefCell::new(AnswerReport::default()),
    };
    let mut settings = LoopSettings::new("answer", &config.answer_group, &config.query_topic, bus);
    settings.stop_after_idle = config.answer_stop_after_idle_secs.map(Duration::from_secs);
    settings.stop_after_messages = config.answer_stop_after_messages;
    let consumed = consume(bus, &settings, &handler, shutdown).await?;
    let mut report = handler.report.into_inner();
    report.messages = consumed.handled;
    tracing::info!(
        messages = report.messages,
        answered = report.answered,
        dead_lettered = report.dead_lettered,
        "answer worker stopped"
    );
    Ok(report)
}

/// Reads a query message; the error says why it cannot be answered, and its kind.
pub fn read_query(payload: &[u8]) -> Result<Query, (&'static str, String)> {
    let value: serde_json::Value =
        serde_json::from_slice(payload).map_err(|e| ("invalid_query", e.to_string()))?;
    if holds_control_characters(&value, 0) {
        return Err((
            "invalid_query",
            "a field holds a NUL or another control character".into(),
        ));
    }
    let query: Query =
        serde_json::from_value(value).map_err(|e| ("invalid_query", e.to_string()))?;
    query.validate().map_err(|e| ("invalid_query", e))?;
    Ok(query)
}

/// Whether any string (or key) in the query holds a control character other than ordinary
/// whitespace: no field of the contract needs one, and PostgreSQL refuses NUL.
fn holds_control_characters(value: &serde_json::Value, depth: usize) -> bool {
    let bad = |s: &str| {
        s.chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    };
    if depth > 32 {
        return true;
    }
    match value {
        serde_json::Value::String(s) => bad(s),
        serde_json::Value::Array(items) => {
            items.iter().any(|v| holds_control_characters(v, depth + 1))
        }
        serde_json::Value::Object(map) => map
            .iter()
            .any(|(k, v)| bad(k) || holds_control_characters(v, depth + 1)),
        _ => false,
    }
}

/// The answer worker's part of the consume loop.
struct AnswerHandler<'a> {
    engine: &'a AnswerEngine,
    auth: &'a QueryAuth,
    publisher: &'a AnswerPublisher,
    dlq: &'a FutureProducer,
    report: RefCell<AnswerReport>,
}

#[async_trait(?Send)]
impl Handler for AnswerHandler<'_> {
    type Error = WorkerError;
    type Prepared = ();

    fn prepare(&self, _: &OwnedMessage) -> LocalBoxFuture<'static, ()> {
        futures::future::ready(()).boxed_local()
    }

    fn dead_letters(&self) -> Option<(&FutureProducer, &str)> {
        Some((self.dlq, self.engine.config().query_dlq_topic.as_str()))
    }

    async fn handle(
        &self,
        message: &OwnedMessage,
        (): (),
        mut shutdown: watch::Receiver<bool>,
    ) -> Result<bool, WorkerError> {
        let mut report = AnswerReport::default();
        let handled = handle(self, message, &mut report, &mut shutdown).await;
        self.report.borrow_mut().absorb(&report);
        handled
    }
}

impl AnswerReport {
    /// Adds what handling another message did.
    fn absorb(&mut self, o: &AnswerReport) {
        self.messages += o.messages;
        self.answered += o.answered;
        self.not_found += o.not_found;
        self.refused += o.refused;
        self.rate_limited += o.rate_limited;
        self.budget_exhausted += o.budget_exhausted;
        self.dead_lettered += o.dead_lettered;
        self.retries += o.retries;
        self.guard_redactions += o.guard_redactions;
    }
}

async fn handle(
    handler: &AnswerHandler<'_>,
    message: &OwnedMessage,
    report: &mut AnswerReport,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<bool, WorkerError> {
    let AnswerHandler {
        engine,
        auth,
        publisher,
        dlq,
        ..
    } = handler;
    let (engine, auth, publisher, dlq) = (*engine, *auth, *publisher, *dlq);
    let dlq_topic = engine.config().query_dlq_topic.as_str();
    let max_backoff_ms = engine.config().answer_retry_max_backoff_ms;
    let partition = message.partition();
    let offset = message.offset();
    let Some(payload) = message.payload() else {
        return Ok(true);
    };
    let policy = RetryPolicy {
        retry_max_attempts: engine.config().answer_retry_max_attempts,
        retry_max_backoff_ms: max_backoff_ms,
    };
    let read = match auth {
        QueryAuth::Unsigned => read_query(payload),
        QueryAuth::Signed { gateways, .. } => match gateways.verify_query(payload, now_secs()) {
            // Signed by a gateway, but not a valid query (a gateway validates before it signs).
            Err(crate::auth::envelope::EnvelopeError::InvalidClaims(reason)) => {
                Err(("invalid_query", reason))
            }
            Err(e) => Err(("unauthenticated", e.to_string())),
            Ok(claims) => {
                let query = claims.query;
                let first = policy
                    .run(
                        shutdown,
                        &mut report.retries,
                        AnswerError::disposition,
                        || first_sight(engine, &query.query_id, message, claims.exp),
                    )
                    .await;
                match first {
                    Retried::Done(true) => Ok(query),
                    Retried::Done(false) => Err((
                        "unauthenticated",
                        "replayed envelope: this query id was already taken from another position"
                            .to_string(),
                    )),
                    Retried::Interrupted => return Ok(false),
                    Retried::Fatal(e) | Retried::Refused(e) | Retried::GaveUp(e) => {
                        return Err(e.into())
                    }
                }
            }
        },
    };
    let query = match read {
        Ok(query) => query,
        Err((kind, reason)) => {
            tracing::warn!(
                partition,
                offset,
                error_kind = kind,
                "unreadable query; sent to the dead-letter topic"
            );
            let letter = DeadLetter {
                error_kind: kind,
                disposition: "rejected",
                reason,
                source: Some((message.topic(), partition, offset)),
            };
            publish_dead_letter(dlq, dlq_topic, message.key(), payload, &letter).await?;
            report.dead_lettered += 1;
            if kind == "unauthenticated" {
                crate::metrics::count(
                    "fhir_rag_unauthenticated_queries_total",
                    "Queries refused for a missing, bad, expired or replayed signature.",
                    &[],
                    1.0,
                );
            }
            return Ok(true);
        }
    };
    let attempt = policy
        .run(
            shutdown,
            &mut report.retries,
            AnswerError::disposition,
            || engine.answer(&query),
        )
        .await;
    let sealed = match attempt {
        Retried::Done(sealed) => sealed,
        Retried::Interrupted => return Ok(false),
        Retried::Fatal(e) => return Err(e.into()),
        Retried::Refused(e) | Retried::GaveUp(e) => {
            // This query fails every time: dead-letter it and go on with the next one.
            tracing::warn!(
                partition,
                offset,
                error_kind = "answer_failed",
                "the query could not be answered; sent to the dead-letter topic"
            );
            let letter = DeadLetter {
                error_kind: "answer_failed",
                disposition: "rejected",
                reason: e.to_string(),
                source: Some((message.topic(), partition, offset)),
            };
            publish_dead_letter(dlq, dlq_topic, message.key(), payload, &letter).await?;
            report.dead_lettered += 1;
            return Ok(true);
        }
    };
    let status = sealed.value().status;
    let redactions = sealed.report().redactions;
    match status {
        AnswerStatus::Answered => report.answered += 1,
        AnswerStatus::NotFound => report.not_found += 1,
        AnswerStatus::Refused => report.refused += 1,
        AnswerStatus::RateLimited => report.rate_limited += 1,
        AnswerStatus::BudgetExhausted => report.budget_exhausted += 1,
    }
    report.guard_redactions += redactions as u64;
    let total_ms = sealed.value().timings.total_ms;
    crate::metrics::observe(
        "fhir_rag_answer_seconds",
        "Time to answer a query, by status.",
        &[("status", status.as_str())],
        total_ms as f64 / 1000.0,
    );
    crate::metrics::count(
        "fhir_rag_guard_redactions_total",
        "Spans the privacy guard redacted from answers.",
        &[],
        redactions as f64,
    );
    let signer = match auth {
        QueryAuth::Signed { signer, .. } => Some(signer),
        QueryAuth::Unsigned => None,
    };
    publisher.publish(sealed, signer).await?;
    tracing::info!(
        partition,
        offset,
        status = status.as_str(),
        redactions,
        total_ms,
        "answer published"
    );
    Ok(true)
}

/// Whether this envelope is seen here for the first time, or again at the same position (a
/// redelivery after a crash): `false` when its query id was taken from another position (a
/// copy published again: a replay).
async fn first_sight(
    engine: &AnswerEngine,
    query_id: &str,
    message: &OwnedMessage,
    expires: u64,
) -> Result<bool, AnswerError> {
    let pool = engine.store().pool();
    let inserted = sqlx::query(
        "INSERT INTO envelopes_seen (query_id, topic, partition, \"offset\", expires_at)
         VALUES ($1, $2, $3, $4, to_timestamp($5))
         ON CONFLICT (query_id) DO NOTHING",
    )
    .bind(query_id)
    .bind(message.topic())
    .bind(message.partition())
    .bind(message.offset())
    .bind(expires as f64)
    .execute(pool)
    .await?
    .rows_affected();
    if inserted == 1 {
        return Ok(true);
    }
    let same: Option<bool> = sqlx::query_scalar(
        "SELECT topic = $2 AND partition = $3 AND \"offset\" = $4 FROM envelopes_seen
         WHERE query_id = $1",
    )
    .bind(query_id)
    .bind(message.topic())
    .bind(message.partition())
    .bind(message.offset())
    .fetch_optional(pool)
    .await?;
    Ok(same.unwrap_or(false))
}

/// `fhir-rag ask`: a client of the gateway.
#[derive(Clone, Debug, clap::Args)]
pub struct AskConfig {
    /// The question.
    pub question: String,
    /// The gateway's base URL.
    #[arg(
        long,
        env = "FHIR_RAG_GATEWAY_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub gateway: String,
    /// Access token (better: `--token-file`, or the environment, so that it is not in the
    /// process list).
    #[arg(long, env = "FHIR_RAG_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// File holding the access token.
    #[arg(long, env = "FHIR_RAG_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// Answering mode.
    #[arg(long, value_enum, default_value = "synthetic")]
    pub mode: AskMode,
    /// Documents to retrieve.
    #[arg(long)]
    pub k: Option<u32>,
    /// ε of a DP answer (mode dp).
    #[arg(long)]
    pub epsilon: Option<f64>,
    /// Seconds to wait for the answer.
    #[arg(long, env = "FHIR_RAG_ASK_TIMEOUT_SECS", default_value_t = 60)]
    pub timeout_secs: u64,
    /// Break the glass: a patient outside your relationships (with `--reason`).
    #[arg(long, requires = "reason")]
    pub break_glass_patient: Option<String>,
    /// Why you break the glass (kept in the audit).
    #[arg(long)]
    pub reason: Option<String>,
}

/// Mode flag of `ask`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum AskMode {
    /// One synthetic document from all retrieved documents.
    Synthetic,
    /// One document at a time until one answers.
    Incremental,
    /// Differentially private (cohort roles), spending from the requester's budget.
    Dp,
}

/// Errors of `ask`.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// No token given.
    #[error("no access token: give --token-file, or FHIR_RAG_TOKEN")]
    NoToken,
    /// The token file.
    #[error("{0}")]
    TokenFile(String),
    /// The gateway could not be reached.
    #[error("gateway: {0}")]
    Http(#[from] reqwest::Error),
    /// The gateway refused.
    #[error("the gateway answered {status}: {body}")]
    Refused {
        /// HTTP status.
        status: u16,
        /// Its body.
        body: String,
    },
    /// No answer in time.
    #[error(
        "no answer to {query_id} within {secs} s; fetch it later with GET /v1/questions/{query_id}"
    )]
    Timeout {
        /// The query.
        query_id: String,
        /// The wait.
        secs: u64,
    },
}

/// Asks the gateway and waits for the answer.
pub async fn ask(config: &AskConfig) -> Result<Answer, AskError> {
    let token = match (&config.token_file, &config.token) {
        (Some(path), _) => std::fs::read_to_string(path)
            .map_err(|e| AskError::TokenFile(format!("{}: {e}", path.display())))?
            .trim()
            .to_string(),
        (None, Some(token)) => token.trim().to_string(),
        (None, None) => return Err(AskError::NoToken),
    };
    let mut body = serde_json::json!({
        "question": config.question,
        "mode": match config.mode {
            AskMode::Synthetic => "synthetic",
            AskMode::Incremental => "incremental",
            AskMode::Dp => "dp",
        },
        "wait_secs": config.timeout_secs.min(60),
    });
    if let Some(k) = config.k {
        body["k"] = k.into();
    }
    if let Some(epsilon) = config.epsilon {
        body["epsilon"] = epsilon.into();
    }
    if let (Some(patient), Some(reason)) = (&config.break_glass_patient, &config.reason) {
        body["break_glass"] = serde_json::json!({"patient": patient, "reason": reason});
    }
    let base = config.gateway.trim_end_matches('/');
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(config.timeout_secs + 30))
        .build()?;
    let response = client
        .post(format!("{base}/v1/questions"))
        .bearer_auth(&token)
        .json(&body)
        .send()
        .await?;
    let deadline = std::time::Instant::now() + Duration::from_secs(config.timeout_secs);
    let mut response = response;
    loop {
        let status = response.status();
        let text = response.text().await?;
        if !status.is_success() {
            return Err(AskError::Refused {
                status: status.as_u16(),
                body: text,
            });
        }
        let state: crate::gateway::QuestionState =
            serde_json::from_str(&text).map_err(|e| AskError::Refused {
                status: status.as_u16(),
                body: format!("unreadable: {e}"),
            })?;
        if let Some(answer) = state.answer {
            return Ok(answer);
        }
        if state.state != "pending" || std::time::Instant::now() >= deadline {
            return Err(AskError::Timeout {
                query_id: state.query_id,
                secs: config.timeout_secs,
            });
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        response = client
            .get(format!("{base}/v1/questions/{}", state.query_id))
            .bearer_auth(&token)
            .send()
            .await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_queries_say_why() {
        assert_eq!(read_query(b"not json").unwrap_err().0, "invalid_query");
        assert!(
            read_query(br#"{"query_id":"q","requester":{"id":"u","role":"r"}}"#)
                .unwrap_err()
                .1
                .contains("question")
        );
        assert!(read_query(
            br#"{"query_id":"q","requester":{"id":"u","role":"r"},"question":"  "}"#
        )
        .is_err());
        assert!(read_query(
            br#"{"query_id":"q","requester":{"id":"u","role":"r"},"question":"Weight?"}"#
        )
        .is_ok());
    }
}
