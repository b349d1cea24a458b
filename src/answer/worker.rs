//! The answer worker (a member of a consumer group on `rag.queries`), the answer publisher, and
//! `ask`, the command-line client that puts one question on the bus and waits for its answer.
//!
//! Per message, in partition order: read and validate the query (unreadable → dead-letter topic),
//! answer it (transient failures retried while the offset is held), publish the sealed answer,
//! then commit the offset. Logs carry ids, statuses and counts, never questions or answers.

use std::cell::RefCell;
use std::time::Duration;

use async_trait::async_trait;
use futures::future::{FutureExt, LocalBoxFuture};
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::message::{Message, OwnedMessage};
use rdkafka::producer::{FutureProducer, FutureRecord};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use super::contract::{Answer, AnswerStatus, Mode, Query, QueryOptions, Requester};
use super::pipeline::{AnswerEngine, AnswerError};
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

    /// Publishes one answer, keyed by its query id, and waits for the broker.
    pub async fn publish(&self, answer: Guarded<Answer>) -> Result<(), BusError> {
        let (answer, report) = answer.into_parts();
        let answer = answer.with_guard_report(&report);
        let payload = serde_json::to_vec(&answer).expect("answers serialize");
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

/// Runs an answer worker until shutdown, the idle or message limit, or a fatal error.
pub async fn run(
    engine: &AnswerEngine,
    bus: &BusConfig,
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
        publisher,
        dlq,
        ..
    } = handler;
    let (engine, publisher, dlq) = (*engine, *publisher, *dlq);
    let dlq_topic = engine.config().query_dlq_topic.as_str();
    let max_backoff_ms = engine.config().answer_retry_max_backoff_ms;
    let partition = message.partition();
    let offset = message.offset();
    let Some(payload) = message.payload() else {
        return Ok(true);
    };
    let query = match read_query(payload) {
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
            return Ok(true);
        }
    };
    let policy = RetryPolicy {
        retry_max_attempts: engine.config().answer_retry_max_attempts,
        retry_max_backoff_ms: max_backoff_ms,
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
    publisher.publish(sealed).await?;
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

/// `fhir-rag ask`: who asks and what.
#[derive(Clone, Debug, clap::Args)]
pub struct AskConfig {
    /// The question.
    pub question: String,
    /// Requester id.
    #[arg(long = "as", env = "FHIR_RAG_ASK_AS", default_value = "cli")]
    pub requester: String,
    /// Requester role.
    #[arg(long, env = "FHIR_RAG_ASK_ROLE", default_value = "researcher")]
    pub role: String,
    /// FHIR Patient ids the requester may see (comma-separated; default: none listed, so the
    /// role decides).
    #[arg(long, env = "FHIR_RAG_ASK_PATIENTS", value_delimiter = ',')]
    pub patients: Option<Vec<String>>,
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
    #[arg(long, env = "FHIR_RAG_ASK_TIMEOUT_SECS", default_value_t = 120)]
    pub timeout_secs: u64,
    /// Topic for questions.
    #[arg(long, env = "FHIR_RAG_QUERY_TOPIC", default_value = "rag.queries")]
    pub query_topic: String,
    /// Topic of answers.
    #[arg(long, env = "FHIR_RAG_ANSWER_TOPIC", default_value = "rag.answers")]
    pub answer_topic: String,
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

/// A fresh query id: a hash of the time, the process and a counter.
pub fn new_query_id() -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = Sha256::new();
    hasher.update(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos()
            .to_le_bytes(),
    );
    hasher.update(std::process::id().to_le_bytes());
    hasher.update(
        COUNTER
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .to_le_bytes(),
    );
    format!("q-{}", hex::encode(&hasher.finalize()[..12]))
}

/// Errors of `ask`.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// Kafka failed.
    #[error(transparent)]
    Bus(#[from] BusError),
    /// No answer in time.
    #[error("no answer to {query_id} within {secs} s (is an answer worker running?)")]
    Timeout {
        /// The query.
        query_id: String,
        /// The wait.
        secs: u64,
    },
}

/// Publishes the question and waits for its answer.
pub async fn ask(config: &AskConfig, bus: &BusConfig) -> Result<Answer, AskError> {
    let query = Query {
        query_id: new_query_id(),
        requester: Requester {
            id: config.requester.clone(),
            role: config.role.clone(),
            patients: config.patients.clone(),
        },
        question: config.question.clone(),
        options: QueryOptions {
            mode: match config.mode {
                AskMode::Synthetic => Mode::Synthetic,
                AskMode::Incremental => Mode::Incremental,
                AskMode::Dp => Mode::Dp,
            },
            k: config.k,
            epsilon: config.epsilon,
        },
    };
    let consumer: StreamConsumer = bus
        .consumer(&format!("fhir-rag-ask-{}", query.query_id))
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    consumer
        .subscribe(&[&config.answer_topic])
        .map_err(|e| BusError::Client(e.to_string()))?;
    let producer: FutureProducer = bus
        .producer()
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    let payload = serde_json::to_vec(&query).expect("queries serialize");
    producer
        .send(
            FutureRecord::to(&config.query_topic)
                .key(query.query_id.as_bytes())
                .payload(&payload),
            Duration::from_secs(30),
        )
        .await
        .map_err(|(e, _)| BusError::Delivery {
            topic: config.query_topic.clone(),
            reason: e.to_string(),
        })?;
    let deadline = tokio::time::sleep(Duration::from_secs(config.timeout_secs));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut deadline => {
                return Err(AskError::Timeout { query_id: query.query_id, secs: config.timeout_secs });
            }
            received = consumer.recv() => {
                let Ok(message) = received else { continue };
                if message.key() != Some(query.query_id.as_bytes()) {
                    continue;
                }
                if let Some(Ok(answer)) = message.payload().map(serde_json::from_slice::<Answer>) {
                    return Ok(answer);
                }
            }
        }
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

    #[test]
    fn query_ids_are_unique() {
        assert_ne!(new_query_id(), new_query_id());
    }
}
