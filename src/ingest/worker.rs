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

use std::cell::RefCell;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::future::{FutureExt, LocalBoxFuture};
use rdkafka::message::{Headers, Message, OwnedMessage};
use rdkafka::producer::FutureProducer;
use serde::Serialize;
use tokio::sync::watch;

use super::flatten::{flatten_parsed, tombstone, Flattened, FreeText};
use super::parse::{parse_message, ParseError, ParseLimits, ParsedBundle};
use crate::bus::consume::{consume, Handler, LoopSettings};
use crate::bus::retry::{Retried, RetryPolicy};
use crate::bus::{publish_dead_letter, BusConfig, BusError, DeadLetter};
use crate::embed::batcher::EmbeddingService;
use crate::store::{ApplyOutcome, Store, StoreError};

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
    /// Abandoned parser threads still running (each spins on a core on a hostile entry) at
    /// which the worker exits non-zero, so that its supervisor restarts it: the only way to stop
    /// them.
    #[arg(long, env = "FHIR_RAG_MAX_STUCK_PARSERS", default_value_t = 4)]
    pub max_stuck_parsers: u64,
    /// Retries of transient failures.
    #[command(flatten)]
    pub retry: RetryPolicy,
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
    /// Messages received ahead and parsed while earlier ones are stored (1: one at a time).
    #[arg(long, env = "FHIR_RAG_INGEST_IN_FLIGHT", default_value_t = 8)]
    pub in_flight: usize,
    /// Payload bytes of those messages, at most.
    #[arg(long, env = "FHIR_RAG_INGEST_IN_FLIGHT_BYTES", default_value_t = 256 * 1024 * 1024)]
    pub in_flight_bytes: usize,
    /// Messages of different partitions stored side by side (their embeddings share batches;
    /// one partition's messages are always stored in order).
    #[arg(long, env = "FHIR_RAG_INGEST_CONCURRENT", default_value_t = 2)]
    pub concurrent: usize,
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
    /// Too many parser threads are stuck on hostile entries.
    #[error("{0} parser threads are stuck on hostile entries (limit --max-stuck-parsers): exiting so that the supervisor restarts the worker")]
    StuckParsers(u64),
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
    /// Messages with nothing to store (empty bundles, unflattened types, tombstones of
    /// unknown patients).
    pub nothing_to_store: u64,
    /// Tombstones (a key without a value) applied: the patient the key names is erased.
    pub tombstones: u64,
    /// Entries the database refused one by one (their message is `partial` in the DLQ).
    pub entries_refused: u64,
    /// Retries of transient failures.
    pub retries: u64,
    /// Resources parsed.
    pub resources: u64,
    /// Valid resources of types this store does not flatten (Claim, Encounter, Provenance…),
    /// counted by type: read, not stored.
    pub not_flattened: std::collections::BTreeMap<String, u64>,
    /// Resources whose subject is not a patient, or is missing: not stored.
    pub without_patient: u64,
    /// Sum of the store outcomes.
    pub store: ApplyOutcome,
    /// Where the time went, summed over messages (stages of messages handled side by side
    /// overlap, so the sum can exceed the wall time).
    pub stages: Stages,
}

/// Seconds per stage of the ingest.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Stages {
    /// Reading the JSON and the typed FHIR parse (on the blocking pool, ahead of storing).
    pub parse_s: f64,
    /// Flattening resources into facts (on the blocking pool, ahead of storing).
    pub flatten_s: f64,
    /// Waiting for the embedder, inside the store transactions.
    pub embed_s: f64,
    /// The store transactions without the embedding wait (facts, documents, chunks, vault).
    pub write_s: f64,
    /// Committing offsets.
    pub commit_s: f64,
}

impl IngestReport {
    /// Adds what handling another message did.
    fn absorb(&mut self, o: IngestReport) {
        self.messages += o.messages;
        self.stored += o.stored;
        self.partial += o.partial;
        self.dead_lettered += o.dead_lettered;
        self.nothing_to_store += o.nothing_to_store;
        self.tombstones += o.tombstones;
        self.entries_refused += o.entries_refused;
        self.retries += o.retries;
        self.resources += o.resources;
        for (resource_type, n) in o.not_flattened {
            *self.not_flattened.entry(resource_type).or_default() += n;
        }
        self.without_patient += o.without_patient;
        self.store += o.store;
        self.stages.parse_s += o.stages.parse_s;
        self.stages.flatten_s += o.stages.flatten_s;
        self.stages.embed_s += o.stages.embed_s;
        self.stages.write_s += o.stages.write_s;
        self.stages.commit_s += o.stages.commit_s;
    }
}

/// Runs the worker until `shutdown` turns true, the idle or message limit is reached, or a fatal
/// error occurs.
pub async fn run(
    config: &IngestConfig,
    bus: &BusConfig,
    store: &Store,
    embedder: &EmbeddingService,
    shutdown: watch::Receiver<bool>,
) -> Result<IngestReport, IngestError> {
    let producer: FutureProducer = bus
        .producer()
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    tracing::info!(topic = %config.bundle_topic, group = %config.group_id, "ingest worker started");
    let handler = IngestHandler {
        ingest: Ingest {
            config,
            producer: &producer,
            store,
            embedder,
        },
        report: RefCell::new(IngestReport::default()),
    };
    let mut settings = LoopSettings::new("ingest", &config.group_id, &config.bundle_topic, bus);
    settings.stop_after_idle = config.stop_after_idle_secs.map(Duration::from_secs);
    settings.stop_after_messages = config.stop_after_messages;
    settings.in_flight = config.in_flight.max(1);
    settings.in_flight_bytes = config.in_flight_bytes;
    settings.concurrent = config.concurrent.max(1);
    let consumed = consume(bus, &settings, &handler, shutdown).await?;
    let mut report = handler.report.into_inner();
    report.messages = consumed.handled;
    report.stages.commit_s = consumed.commit_s;
    tracing::info!(
        messages = report.messages,
        stored = report.stored,
        partial = report.partial,
        dead_lettered = report.dead_lettered,
        "ingest worker stopped"
    );
    Ok(report)
}

/// Counts what handling one message did (the difference of the report before and after).
fn record_metrics(before: &IngestReport, after: &IngestReport) {
    let outcomes = [
        ("stored", after.stored - before.stored),
        ("partial", after.partial - before.partial),
        ("dead_lettered", after.dead_lettered - before.dead_lettered),
        (
            "nothing_to_store",
            after.nothing_to_store - before.nothing_to_store,
        ),
        ("tombstone", after.tombstones - before.tombstones),
    ];
    for (outcome, n) in outcomes {
        if n > 0 {
            crate::metrics::count(
                "fhir_rag_messages_total",
                "Messages handled, by worker and outcome.",
                &[("worker", "ingest"), ("outcome", outcome)],
                n as f64,
            );
        }
    }
    let (b, a) = (&before.store, &after.store);
    for (name, help, n) in [
        (
            "fhir_rag_documents_written_total",
            "Documents (re)written and re-embedded.",
            a.documents_written - b.documents_written,
        ),
        (
            "fhir_rag_facts_retracted_total",
            "Facts removed by deletions, tombstones and entered-in-error statuses.",
            a.facts_retracted - b.facts_retracted,
        ),
        (
            "fhir_rag_entries_refused_total",
            "Entries the database refused one by one.",
            after.entries_refused - before.entries_refused,
        ),
    ] {
        crate::metrics::count(name, help, &[], n as f64);
    }
}

/// The ingest worker's part of the consume loop.
struct IngestHandler<'a> {
    ingest: Ingest<'a>,
    report: RefCell<IngestReport>,
}

/// A message parsed and flattened ahead of storing, with the time each step took.
struct Parsed {
    result: Result<(ParsedBundle, Flattened), ParseError>,
    parse_s: f64,
    flatten_s: f64,
}

#[async_trait(?Send)]
impl Handler for IngestHandler<'_> {
    type Error = IngestError;
    /// `None` for a tombstone (nothing to parse).
    type Prepared = Option<Parsed>;

    fn prepare(&self, message: &OwnedMessage) -> LocalBoxFuture<'static, Option<Parsed>> {
        let Some(payload) = message.payload() else {
            return futures::future::ready(None).boxed_local();
        };
        let limits = self.ingest.config.limits();
        let free_text = self.ingest.config.free_text;
        let bytes = payload.to_vec();
        // Started now, on the blocking pool: it runs while earlier messages are stored.
        let task = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            let parsed = parse_message(&bytes, limits);
            let parse_s = started.elapsed().as_secs_f64();
            let started = Instant::now();
            let result = parsed.map(|parsed| {
                let flattened = flatten_parsed(&parsed, free_text);
                (parsed, flattened)
            });
            Parsed {
                result,
                parse_s,
                flatten_s: started.elapsed().as_secs_f64(),
            }
        });
        async move {
            Some(task.await.unwrap_or_else(|_| Parsed {
                result: Err(ParseError::NotFhir("the parser task failed".into())),
                parse_s: 0.0,
                flatten_s: 0.0,
            }))
        }
        .boxed_local()
    }

    async fn handle(
        &self,
        message: &OwnedMessage,
        prepared: Option<Parsed>,
        mut shutdown: watch::Receiver<bool>,
    ) -> Result<bool, IngestError> {
        let mut report = IngestReport::default();
        let handled = match prepared {
            Some(parsed) => handle(&self.ingest, message, parsed, &mut report, &mut shutdown).await,
            None => handle_tombstone(&self.ingest, message, &mut report, &mut shutdown).await,
        }?;
        record_metrics(&IngestReport::default(), &report);
        self.report.borrow_mut().absorb(report);
        let stuck = super::parse::stuck_parser_threads();
        crate::metrics::gauge(
            "fhir_rag_parser_threads_stuck",
            "Abandoned parser threads still running (the worker exits at --max-stuck-parsers).",
            &[],
            stuck as f64,
        );
        crate::metrics::gauge(
            "fhir_rag_parser_threads_abandoned",
            "Parser threads abandoned past their time limit since the worker started.",
            &[],
            super::parse::abandoned_parser_threads() as f64,
        );
        Ok(handled)
    }

    fn dead_letters(&self) -> Option<(&FutureProducer, &str)> {
        Some((self.ingest.producer, self.ingest.config.dlq_topic.as_str()))
    }

    /// The message that left a parser thread behind was handled (its entry dead-lettered) and
    /// committed; past the cap the worker stops before the next one, which stays for its
    /// restart.
    fn after_commit(&self) -> Result<(), IngestError> {
        let stuck = super::parse::stuck_parser_threads();
        if stuck >= self.ingest.config.max_stuck_parsers.max(1) {
            return Err(IngestError::StuckParsers(stuck));
        }
        Ok(())
    }
}

/// What handling a message needs.
struct Ingest<'a> {
    config: &'a IngestConfig,
    producer: &'a FutureProducer,
    store: &'a Store,
    embedder: &'a EmbeddingService,
}

/// Handles one message. Returns false when shutdown interrupted a retry (do not commit).
async fn handle(
    ingest: &Ingest<'_>,
    message: &OwnedMessage,
    prepared: Parsed,
    report: &mut IngestReport,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<bool, IngestError> {
    let Ingest {
        config, producer, ..
    } = *ingest;
    let partition = message.partition();
    let offset = message.offset();
    let source = Some((message.topic(), partition, offset));
    // A message with a payload (tombstones are handled by `handle_tombstone`).
    let payload = message.payload().unwrap_or_default();
    let started = Instant::now();
    report.stages.parse_s += prepared.parse_s;
    report.stages.flatten_s += prepared.flatten_s;
    let parsed = prepared.result;
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
    for (resource_type, n) in &parsed.skipped {
        *report
            .not_flattened
            .entry(resource_type.clone())
            .or_default() += *n as u64;
    }
    report.without_patient += flattened.without_patient as u64;

    // Store under the retry policy; when the database refuses the message, store what it
    // accepts entry by entry.
    let Some(stored) = store_with_policy(ingest, &flattened, report, shutdown).await? else {
        return Ok(false);
    };
    report.store += stored.outcome;
    report.entries_refused += stored.refused.len() as u64;
    let mut reasons = Vec::new();
    if !parsed.rejected.is_empty() {
        reasons.push(rejected_reason(&parsed));
    }
    if !stored.refused.is_empty() {
        reasons.push(refused_reason(&stored.refused));
    }
    if let Some(e) = &stored.gave_up {
        reasons.push(format!(
            "a transient failure outlasted {} attempts: {e}",
            config.retry.retry_max_attempts
        ));
    }
    if reasons.is_empty() {
        if flattened.facts.is_empty()
            && flattened.patients.is_empty()
            && flattened.parties.is_empty()
            && flattened.retractions.is_empty()
        {
            report.nothing_to_store += 1;
        } else {
            report.stored += 1;
        }
    } else {
        let kept_something = stored.kept > 0;
        let error_kind = if stored.gave_up.is_some() {
            "transient_exhausted"
        } else if stored.refused.is_empty() {
            "entries_rejected"
        } else {
            "database"
        };
        tracing::warn!(
            partition,
            offset,
            rejected_entries = parsed.rejected.len(),
            refused_entries = stored.refused.len(),
            error_kind,
            "some entries rejected; the rest is stored, the message goes to the dead-letter topic"
        );
        let letter = DeadLetter {
            error_kind,
            disposition: if kept_something {
                "partial"
            } else {
                "rejected"
            },
            reason: reasons.join(" "),
            source,
        };
        publish_dead_letter(producer, &config.dlq_topic, message.key(), payload, &letter).await?;
        if kept_something {
            report.partial += 1;
        } else {
            report.dead_lettered += 1;
        }
    }
    tracing::info!(
        partition,
        offset,
        resources = parsed.entries.len(),
        retracted = stored.outcome.facts_retracted,
        documents_written = stored.outcome.documents_written,
        documents_unchanged = stored.outcome.documents_unchanged,
        chunks = stored.outcome.chunks_embedded,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "bundle stored"
    );
    Ok(true)
}

/// The header naming a tombstone's source system.
pub const SOURCE_HEADER: &str = "fhir-source";

/// A key without a value: the patient the key names is erased from the store (facts,
/// documents, chunks; the vault stays for the guard).
async fn handle_tombstone(
    ingest: &Ingest<'_>,
    message: &OwnedMessage,
    report: &mut IngestReport,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<bool, IngestError> {
    let (partition, offset) = (message.partition(), message.offset());
    let key = message.key().and_then(|k| std::str::from_utf8(k).ok());
    // The source system of the patient to erase: the `fhir-source` header (a tombstone has no
    // body to declare it); none means the default source.
    let source = message
        .headers()
        .and_then(|headers| {
            headers
                .iter()
                .find(|h| h.key == SOURCE_HEADER)
                .and_then(|h| h.value)
                .and_then(|v| std::str::from_utf8(v).ok())
                .map(str::to_string)
        })
        .unwrap_or_default();
    let Some(flattened) = key.and_then(|k| tombstone(k, &source)) else {
        tracing::warn!(
            partition,
            offset,
            "tombstone without a usable key; nothing to erase"
        );
        report.nothing_to_store += 1;
        return Ok(true);
    };
    let Some(stored) = store_with_policy(ingest, &flattened, report, shutdown).await? else {
        return Ok(false);
    };
    report.store += stored.outcome;
    if stored.outcome.facts_retracted > 0 {
        report.tombstones += 1;
    } else {
        report.nothing_to_store += 1;
    }
    tracing::info!(
        partition,
        offset,
        facts_retracted = stored.outcome.facts_retracted,
        documents_removed = stored.outcome.documents_removed,
        "tombstone applied"
    );
    Ok(true)
}

/// What storing one message came to.
struct Stored {
    outcome: ApplyOutcome,
    /// Pieces stored.
    kept: usize,
    /// Pieces the database refused, with its reason.
    refused: Vec<(String, String)>,
    /// The transient failure that outlasted the retries, if one did (the rest of the message
    /// was not attempted).
    gave_up: Option<String>,
}

/// Stores `flattened` under the retry policy. When the database refuses it (a permanent error),
/// the message is cut in halves, and halves in halves, until the refused pieces are single
/// entries: everything else is stored. `None` when shutdown interrupted a retry.
async fn store_with_policy(
    ingest: &Ingest<'_>,
    flattened: &Flattened,
    report: &mut IngestReport,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<Option<Stored>, IngestError> {
    let Ingest {
        config,
        store,
        embedder,
        ..
    } = *ingest;
    let mut stored = Stored {
        outcome: ApplyOutcome::default(),
        kept: 0,
        refused: Vec::new(),
        gave_up: None,
    };
    let mut pending = vec![flattened.clone()];
    // Time inside the store's transactions (failed attempts included), not the backoffs.
    let in_store = std::cell::Cell::new(Duration::ZERO);
    while let Some(part) = pending.pop() {
        let attempt = config
            .retry
            .run(
                shutdown,
                &mut report.retries,
                StoreError::disposition,
                || async {
                    let started = Instant::now();
                    let applied = store.apply(&part, embedder).await;
                    in_store.set(in_store.get() + started.elapsed());
                    applied
                },
            )
            .await;
        let spent = in_store.take().as_secs_f64();
        match &attempt {
            Retried::Done(outcome) => {
                let embed_s = outcome.embed_us as f64 / 1e6;
                report.stages.embed_s += embed_s;
                report.stages.write_s += (spent - embed_s).max(0.0);
            }
            _ => report.stages.write_s += spent,
        }
        match attempt {
            Retried::Done(outcome) => {
                stored.outcome += outcome;
                stored.kept += part.pieces();
            }
            Retried::Interrupted => return Ok(None),
            Retried::Fatal(e) => return Err(e.into()),
            Retried::GaveUp(e) => {
                // A passing condition that did not pass: not this data's fault, so the message
                // is not cut up; it goes to the dead-letter topic whole, for a replay.
                stored.gave_up = Some(e.to_string());
                return Ok(Some(stored));
            }
            Retried::Refused(e) => match part.split() {
                Some((left, right)) => {
                    pending.push(right);
                    pending.push(left);
                }
                None => {
                    tracing::warn!(error_kind = "database", "the store refused one entry");
                    stored.refused.push((part.describe(), e.to_string()));
                }
            },
        }
    }
    Ok(Some(stored))
}

fn refused_reason(refused: &[(String, String)]) -> String {
    let mut reason = format!("{} entries refused by the database:", refused.len());
    for (what, why) in refused.iter().take(20) {
        reason.push_str(&format!(" {what}: {why};"));
    }
    if refused.len() > 20 {
        reason.push_str(" …");
    }
    reason
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
