//! The ingest worker: a member of a Kafka consumer group on the bundle topic.
//!
//! For each message, in partition order: parse (off the runtime, bounded), flatten, then one
//! store transaction that embeds the changed documents; only after it commits is the offset
//! committed (synchronously). A message that can never succeed goes to the dead-letter topic with
//! its reason, then its offset is committed. A transient failure (database down) is retried with
//! backoff while the offset is held. A shutdown request lets the message in hand finish (or, in
//! a retry loop, leaves it uncommitted for the next owner) and then stops.
//!
//! Logs carry topic, partition, offset, counts and error kinds, never payloads or parser messages
//! (those may quote PHI; they go to the dead-letter headers).

use std::time::Duration;

use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::{BorrowedMessage, Message};
use rdkafka::producer::FutureProducer;
use serde::Serialize;
use tokio::sync::watch;
use tokio::time::Instant;

use super::flatten::{flatten_with, Flattened, FreeText};
use super::parse::{parse_message, ParseError, ParseLimits, ParsedBundle};
use crate::bus::{publish_dead_letter, sleep_or_forever, BusConfig, BusError, DeadLetter};
use crate::embed::batcher::EmbeddingService;
use crate::store::{ApplyOutcome, Disposition, Store, StoreError};

/// Settings of the ingest worker.
#[derive(Clone, Debug, clap::Args)]
pub struct IngestConfig {
    /// Consumer group; run as many workers in it as the topic has partitions.
    #[arg(long, env = "FHIR_RAG_INGEST_GROUP", default_value = "fhir-rag-ingest")]
    pub group_id: String,
    /// Topic carrying FHIR bundles.
    #[arg(long, env = "FHIR_RAG_BUNDLE_TOPIC", default_value = "fhir.bundles")]
    pub bundle_topic: String,
    /// Dead-letter topic for bundles that can never be stored.
    #[arg(long, env = "FHIR_RAG_DLQ_TOPIC", default_value = "fhir.bundles.dlq")]
    pub dlq_topic: String,
    /// Largest bundle accepted, in bytes (uncompressed); larger ones are dead-lettered.
    #[arg(long, env = "FHIR_RAG_MAX_BUNDLE_BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_bundle_bytes: usize,
    /// Time limit for the typed parse of one entry, in milliseconds.
    #[arg(long, env = "FHIR_RAG_ENTRY_PARSE_TIMEOUT_MS", default_value_t = 2000)]
    pub entry_parse_timeout_ms: u64,
    /// Longest pause between retries of a transient failure, in milliseconds.
    #[arg(long, env = "FHIR_RAG_RETRY_MAX_BACKOFF_MS", default_value_t = 30_000)]
    pub retry_max_backoff_ms: u64,
    /// Stop after this many seconds without a message (for batch backfills; default: never).
    #[arg(long, env = "FHIR_RAG_STOP_AFTER_IDLE_SECS")]
    pub stop_after_idle_secs: Option<u64>,
    /// Stop after this many messages (benchmarks, demos; default: never).
    #[arg(long, env = "FHIR_RAG_STOP_AFTER_MESSAGES")]
    pub stop_after_messages: Option<u64>,
    /// What becomes of record free text (notes, value strings, conclusions, dosage texts):
    /// `drop` keeps only structured, coded fields; `deidentify` keeps free text after removing
    /// names, identifiers, contact details and days.
    #[arg(long, env = "FHIR_RAG_FREE_TEXT", value_enum, default_value = "drop")]
    pub free_text: FreeText,
}

impl IngestConfig {
    fn limits(&self) -> ParseLimits {
        ParseLimits {
            max_bytes: self.max_bundle_bytes,
            entry_timeout: Duration::from_millis(self.entry_parse_timeout_ms),
        }
    }
}

/// Errors that stop the worker.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// Kafka failed in a way the worker cannot ride out.
    #[error(transparent)]
    Bus(#[from] BusError),
    /// The store or the model failed fatally.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a worker did, reported when it stops.
#[derive(Debug, Default, Clone, Serialize)]
pub struct IngestReport {
    /// Messages handled and committed.
    pub messages: u64,
    /// Messages stored whole.
    pub stored: u64,
    /// Messages stored in part (some entries rejected; the message also went to the DLQ).
    pub partial: u64,
    /// Messages rejected whole (DLQ).
    pub dead_lettered: u64,
    /// Messages with nothing to store (empty bundles, unflattened types, tombstones).
    pub nothing_to_store: u64,
    /// Retries of transient failures.
    pub retries: u64,
    /// Resources parsed.
    pub resources: u64,
    /// Sum of the store outcomes.
    pub store: ApplyOutcomeTotals,
}

/// [`ApplyOutcome`] summed over messages.
#[derive(Debug, Default, Clone, Serialize)]
pub struct ApplyOutcomeTotals {
    /// Facts inserted or changed.
    pub facts_written: u64,
    /// Documents (re)embedded.
    pub documents_written: u64,
    /// Documents unchanged.
    pub documents_unchanged: u64,
    /// Chunks embedded.
    pub chunks_embedded: u64,
    /// Tokens embedded.
    pub tokens_embedded: u64,
}

impl ApplyOutcomeTotals {
    fn add(&mut self, o: &ApplyOutcome) {
        self.facts_written += o.facts_written;
        self.documents_written += o.documents_written;
        self.documents_unchanged += o.documents_unchanged;
        self.chunks_embedded += o.chunks_embedded;
        self.tokens_embedded += o.tokens_embedded;
    }
}

/// Runs the worker until `shutdown` turns true, the idle or message limit is reached, or a fatal
/// error occurs.
pub async fn run(
    config: &IngestConfig,
    bus: &BusConfig,
    store: &Store,
    embedder: &EmbeddingService,
    mut shutdown: watch::Receiver<bool>,
) -> Result<IngestReport, IngestError> {
    let consumer: StreamConsumer = bus
        .consumer(&config.group_id)
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    let producer: FutureProducer = bus
        .producer()
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    consumer
        .subscribe(&[&config.bundle_topic])
        .map_err(|e| BusError::Client(e.to_string()))?;
    tracing::info!(topic = %config.bundle_topic, group = %config.group_id, "ingest worker started");

    let mut report = IngestReport::default();
    let idle = config.stop_after_idle_secs.map(Duration::from_secs);
    let mut last_activity = Instant::now();
    loop {
        if *shutdown.borrow() {
            break;
        }
        if config
            .stop_after_messages
            .is_some_and(|n| report.messages >= n)
        {
            break;
        }
        let wait = idle.map(|d| (last_activity + d).saturating_duration_since(Instant::now()));
        let received = tokio::select! {
            _ = shutdown.changed() => break,
            received = consumer.recv() => Some(received),
            _ = sleep_or_forever(wait) => None,
        };
        let Some(received) = received else {
            tracing::info!("no message for the idle limit; stopping");
            break;
        };
        let message = match received {
            Ok(message) => message,
            Err(e) => {
                // librdkafka retries by itself; report and go on.
                tracing::warn!(error = %e, "kafka consumer error");
                continue;
            }
        };
        let handled = handle(
            config,
            &producer,
            store,
            embedder,
            &message,
            &mut report,
            &mut shutdown,
        )
        .await?;
        if !handled {
            // Shutdown arrived while retrying: leave the offset for the next owner.
            break;
        }
        if let Err(e) = consumer.commit_message(&message, CommitMode::Sync) {
            // After a rebalance the partition may be someone else's; they will replay it, and
            // replays are idempotent.
            tracing::warn!(error = %e, partition = message.partition(), offset = message.offset(), "offset commit failed");
        }
        report.messages += 1;
        last_activity = Instant::now();
    }
    tracing::info!(
        messages = report.messages,
        stored = report.stored,
        partial = report.partial,
        dead_lettered = report.dead_lettered,
        "ingest worker stopped"
    );
    Ok(report)
}

/// Handles one message. Returns false when shutdown interrupted a retry (do not commit).
async fn handle(
    config: &IngestConfig,
    producer: &FutureProducer,
    store: &Store,
    embedder: &EmbeddingService,
    message: &BorrowedMessage<'_>,
    report: &mut IngestReport,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<bool, IngestError> {
    let partition = message.partition();
    let offset = message.offset();
    let source = Some((message.topic(), partition, offset));
    let Some(payload) = message.payload() else {
        tracing::debug!(partition, offset, "tombstone skipped");
        report.nothing_to_store += 1;
        return Ok(true);
    };
    let started = std::time::Instant::now();
    let limits = config.limits();
    let bytes = payload.to_vec();
    let free_text = config.free_text;
    let parsed: Result<(ParsedBundle, Flattened), ParseError> =
        tokio::task::spawn_blocking(move || {
            let parsed = parse_message(&bytes, limits)?;
            let flattened = flatten_with(&parsed.entries, &parsed.displays, free_text);
            Ok((parsed, flattened))
        })
        .await
        .unwrap_or_else(|_| Err(ParseError::NotFhir("the parser task failed".into())));

    let (parsed, flattened) = match parsed {
        Ok(ok) => ok,
        Err(e) => {
            let kind = match &e {
                ParseError::TooLarge { .. } => "too_large",
                ParseError::NotJson(_) => "not_json",
                ParseError::NotFhir(_) => "not_fhir",
                ParseError::InvalidResource { .. } => "invalid_resource",
            };
            tracing::warn!(
                partition,
                offset,
                error_kind = kind,
                "message rejected; sent to the dead-letter topic"
            );
            let letter = DeadLetter {
                error_kind: kind,
                disposition: "rejected",
                reason: e.to_string(),
                source,
            };
            publish_dead_letter(producer, &config.dlq_topic, message.key(), payload, &letter)
                .await?;
            report.dead_lettered += 1;
            return Ok(true);
        }
    };
    report.resources += parsed.entries.len() as u64;

    // Store, retrying transient failures while the offset is held.
    let mut backoff = Duration::from_millis(200);
    let outcome = loop {
        match store.apply(&flattened, embedder).await {
            Ok(outcome) => break Ok(outcome),
            Err(e) => match e.disposition() {
                Disposition::Transient => {
                    report.retries += 1;
                    tracing::warn!(partition, offset, error = %e, retry_in_ms = backoff.as_millis() as u64,
                        "transient store failure; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = shutdown.changed() => return Ok(false),
                    }
                    backoff = (backoff * 2).min(Duration::from_millis(config.retry_max_backoff_ms));
                }
                Disposition::Permanent => break Err(e),
                Disposition::Fatal => return Err(e.into()),
            },
        }
    };
    match outcome {
        Ok(outcome) => {
            report.store.add(&outcome);
            if !parsed.rejected.is_empty() {
                let reason = rejected_reason(&parsed);
                tracing::warn!(partition, offset, rejected_entries = parsed.rejected.len(),
                    "some entries rejected; the rest is stored, the message goes to the dead-letter topic");
                let letter = DeadLetter {
                    error_kind: "entries_rejected",
                    disposition: if parsed.entries.is_empty() {
                        "rejected"
                    } else {
                        "partial"
                    },
                    reason,
                    source,
                };
                publish_dead_letter(producer, &config.dlq_topic, message.key(), payload, &letter)
                    .await?;
                if parsed.entries.is_empty() {
                    report.dead_lettered += 1;
                } else {
                    report.partial += 1;
                }
            } else if flattened.facts.is_empty()
                && flattened.patients.is_empty()
                && flattened.parties.is_empty()
            {
                report.nothing_to_store += 1;
            } else {
                report.stored += 1;
            }
            tracing::info!(
                partition,
                offset,
                resources = parsed.entries.len(),
                documents_written = outcome.documents_written,
                documents_unchanged = outcome.documents_unchanged,
                chunks = outcome.chunks_embedded,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "bundle stored"
            );
        }
        Err(e) => {
            tracing::warn!(
                partition,
                offset,
                error_kind = "database",
                "the store refused the data; sent to the dead-letter topic"
            );
            let letter = DeadLetter {
                error_kind: "database",
                disposition: "rejected",
                reason: e.to_string(),
                source,
            };
            publish_dead_letter(producer, &config.dlq_topic, message.key(), payload, &letter)
                .await?;
            report.dead_lettered += 1;
        }
    }
    Ok(true)
}

fn rejected_reason(parsed: &ParsedBundle) -> String {
    let mut reason = format!(
        "{} of {} entries rejected:",
        parsed.rejected.len(),
        parsed.total_entries
    );
    for r in parsed.rejected.iter().take(20) {
        reason.push_str(&format!(
            " entry {} ({}): {};",
            r.index, r.resource_type, r.reason
        ));
    }
    if parsed.rejected.len() > 20 {
        reason.push_str(" …");
    }
    reason
}
