//! The one consume loop of both workers: subscribe, receive, hand each message to a
//! [`Handler`], commit its offset synchronously after the handler is done with it, and watch the
//! consumer.
//!
//! **Pipelining**: the loop receives up to `in_flight` messages ahead and starts their
//! `prepare` step (the ingest worker parses and flattens there, on the blocking pool) while
//! earlier messages are handled; up to `concurrent` messages of *different* partitions are
//! handled side by side. One partition's messages are handled and committed strictly in order,
//! so a correction never overtakes the resource it corrects (Kafka keys by patient).
//!
//! **Rebalances** are logged and counted by a consumer context (the partitions a worker owns are
//! its `fhir_rag_assigned_partitions` gauge). **`max.poll.interval.ms`** is set from the longest a
//! message may take (`--max-message-secs`), so that a worker busy with a large bundle keeps its
//! partitions, and one that hangs for longer loses them. **The watchdog** ticks while the loop
//! waits for messages: a worker that has owned no partition, or that has made no progress while
//! its partitions have messages waiting (lag read from the broker's watermarks), says so in the
//! log, turns `/readyz` to 503, and after `--stall-timeout-secs` (kept above the longest message,
//! which a rebalance may wait for) stops with an error, so that the
//! process exits non-zero and its supervisor restarts it with a fresh consumer. A worker whose
//! every fetch fails (a message the client cannot decode, a broker gone) is stuck the same way,
//! whatever the lag says. A partition not fetched yet has its lag from the group's committed
//! offset (else the log's start), so a fresh worker stuck before its first message is not taken
//! for an idle one. Some brokers report wrong watermarks (tansu's "latest" offset): watermarks
//! that cannot be read, or are impossible, count as no lag, so the watchdog can miss a stall
//! there but never invents one.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::future::LocalBoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, StreamConsumer,
};
use rdkafka::message::{Message, OwnedMessage};
use rdkafka::{ClientContext, Offset, TopicPartitionList};
use tokio::sync::watch;
use tokio::time::Instant;

use super::{sleep_or_forever, BusConfig, BusError};

/// What a worker does with one message, in two steps: `prepare` (work that needs nothing from
/// the messages before it, such as parsing, started as soon as the message arrives) and
/// `handle` (the rest, in partition order).
#[async_trait(?Send)]
pub trait Handler {
    /// Errors that stop the worker.
    type Error: From<BusError>;
    /// What `prepare` yields.
    type Prepared: 'static;
    /// Starts the work on `message` that may run ahead of earlier messages (off the runtime);
    /// the future resolves when it is done.
    fn prepare(&self, message: &OwnedMessage) -> LocalBoxFuture<'static, Self::Prepared>;
    /// Handles one message; `Ok(false)` when shutdown interrupted it (do not commit). Messages
    /// of one partition are handled one at a time, in order; messages of different partitions
    /// may be handled side by side (up to [`LoopSettings::concurrent`]).
    async fn handle(
        &self,
        message: &OwnedMessage,
        prepared: Self::Prepared,
        shutdown: watch::Receiver<bool>,
    ) -> Result<bool, Self::Error>;
    /// Where a message this worker cannot even fetch or decode goes (the client fails on it
    /// before the handler sees it): a producer and the dead-letter topic. The loop finds the
    /// message's position, dead-letters it there (value empty, the position in the headers) and
    /// moves past it, so that one such message never blocks its partition. None: the worker stays
    /// on it and the watchdog stops it.
    fn dead_letters(&self) -> Option<(&rdkafka::producer::FutureProducer, &str)> {
        None
    }
    /// Called after each commit: an error stops the worker there (the messages after the
    /// committed one stay for the next owner). For a worker that can no longer go on safely.
    fn after_commit(&self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// What a consume loop did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Consumed {
    /// Messages handled and committed.
    pub handled: u64,
    /// Seconds spent committing offsets.
    pub commit_s: f64,
}

/// How a consume loop runs.
#[derive(Clone, Debug)]
pub struct LoopSettings {
    /// `ingest` or `answer` (logs, metrics, readiness).
    pub worker: &'static str,
    /// Consumer group.
    pub group: String,
    /// Topic.
    pub topic: String,
    /// Stop after this long without a message.
    pub stop_after_idle: Option<Duration>,
    /// Stop after this many messages.
    pub stop_after_messages: Option<u64>,
    /// The longest one message may take (sets `max.poll.interval.ms`).
    pub max_message: Duration,
    /// How long the watchdog tolerates no assignment, or no progress with messages waiting,
    /// before it stops the worker.
    pub stall_timeout: Duration,
    /// Messages received and not yet committed, at most (1: one message at a time).
    pub in_flight: usize,
    /// Payload bytes of those messages, at most (a message is always let in when none is).
    pub in_flight_bytes: usize,
    /// Messages handled side by side, at most (never two of one partition).
    pub concurrent: usize,
}

/// Settings of the consume loop shared by the workers' command lines.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct WatchdogConfig {
    /// Stop the worker (exit non-zero) after this many seconds without a partition, or without
    /// progress while its partitions have messages waiting; it turns unready after a third of it.
    /// Kept above --max-message-secs: during a rebalance a worker may wait that long for a busy
    /// member to finish its message before partitions are handed out.
    #[arg(long, env = "FHIR_RAG_STALL_TIMEOUT_SECS", default_value_t = 1200)]
    pub stall_timeout_secs: u64,
    /// The longest one message may take, in seconds: a worker that does not come back for the
    /// next message within it leaves its consumer group (`max.poll.interval.ms`).
    #[arg(long, env = "FHIR_RAG_MAX_MESSAGE_SECS", default_value_t = 900)]
    pub max_message_secs: u64,
}

impl LoopSettings {
    /// Settings for `worker` on `topic` in `group`, with the bus's watchdog settings.
    pub fn new(worker: &'static str, group: &str, topic: &str, bus: &BusConfig) -> Self {
        let w = bus.watchdog;
        let stall_secs = if w.stall_timeout_secs <= w.max_message_secs {
            let raised = w.max_message_secs + w.max_message_secs / 2 + 1;
            tracing::warn!(
                stall_timeout_secs = w.stall_timeout_secs,
                max_message_secs = w.max_message_secs,
                raised,
                "the stall timeout must exceed the longest message (a rebalance may wait that long); raised"
            );
            raised
        } else {
            w.stall_timeout_secs
        };
        LoopSettings {
            worker,
            group: group.to_string(),
            topic: topic.to_string(),
            stop_after_idle: None,
            stop_after_messages: None,
            max_message: Duration::from_secs(bus.watchdog.max_message_secs),
            stall_timeout: Duration::from_secs(stall_secs.max(3)),
            in_flight: 1,
            in_flight_bytes: usize::MAX,
            concurrent: 1,
        }
    }
}

/// The loop stopped because the consumer stopped making progress.
#[derive(Debug, thiserror::Error)]
#[error("{worker} worker stalled: {reason}")]
pub struct Stalled {
    /// Which worker.
    pub worker: &'static str,
    /// What the watchdog saw.
    pub reason: String,
}

/// Logs rebalances and keeps the number of partitions owned.
struct Context {
    worker: &'static str,
    assigned: Arc<AtomicUsize>,
}

impl ClientContext for Context {}

impl ConsumerContext for Context {
    fn pre_rebalance(&self, _: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Revoke(list) = rebalance {
            tracing::info!(
                worker = self.worker,
                partitions = list.count(),
                "partitions revoked"
            );
            self.assigned.store(0, Ordering::Relaxed);
        }
    }

    fn post_rebalance(&self, _: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        match rebalance {
            Rebalance::Assign(list) => {
                tracing::info!(
                    worker = self.worker,
                    partitions = list.count(),
                    "partitions assigned"
                );
                self.assigned.store(list.count(), Ordering::Relaxed);
            }
            Rebalance::Revoke(_) => {}
            Rebalance::Error(e) => {
                tracing::warn!(worker = self.worker, error = %e, "rebalance failed")
            }
        }
        crate::metrics::gauge(
            "fhir_rag_assigned_partitions",
            "Partitions the worker owns.",
            &[("worker", self.worker)],
            self.assigned.load(Ordering::Relaxed) as f64,
        );
    }
}

/// A message received and not yet handled.
struct Waiting<P> {
    /// Arrival order (messages start in it, partition order permitting).
    seq: u64,
    message: OwnedMessage,
    prepared: LocalBoxFuture<'static, P>,
}

/// Runs the loop until shutdown, a stop condition, a fatal handler error or a stall.
///
/// Up to [`LoopSettings::in_flight`] messages are received ahead and prepared while earlier
/// ones are handled; up to [`LoopSettings::concurrent`] are handled at once, never two of one
/// partition, so each partition's messages are handled, and their offsets committed
/// (synchronously, each after its message), in order. On shutdown or a stop condition the
/// messages being handled finish; those only received are left uncommitted for the next owner.
pub async fn consume<H: Handler>(
    bus: &BusConfig,
    settings: &LoopSettings,
    handler: &H,
    mut shutdown: watch::Receiver<bool>,
) -> Result<Consumed, H::Error> {
    let assigned = Arc::new(AtomicUsize::new(0));
    let mut config = bus.consumer(&settings.group);
    config.set(
        "max.poll.interval.ms",
        settings
            .max_message
            .as_millis()
            .clamp(10_000, 86_400_000)
            .to_string(),
    );
    let consumer: StreamConsumer<Context> = config
        .create_with_context(Context {
            worker: settings.worker,
            assigned: assigned.clone(),
        })
        .map_err(|e| BusError::Client(e.to_string()))?;
    consumer
        .subscribe(&[&settings.topic])
        .map_err(|e| BusError::Client(e.to_string()))?;
    let _running = crate::metrics::Running::start(settings.worker);
    let mut watchdog = Watchdog::new(settings);
    // Partitions whose committed offset was found ahead of the log, and that offset.
    let mut lost_reported: LostReported = HashMap::new();
    let mut tick = tokio::time::interval(Duration::from_secs(5).min(settings.stall_timeout / 3));
    let mut consumed = Consumed::default();
    let mut received = 0u64;
    let mut last_activity = Instant::now();
    // Received and not yet started, by partition, in offset order.
    let mut waiting: BTreeMap<i32, VecDeque<Waiting<H::Prepared>>> = BTreeMap::new();
    // Partitions with a message being handled.
    let mut busy: BTreeSet<i32> = BTreeSet::new();
    let mut running = FuturesUnordered::new();
    let (mut in_flight, mut in_flight_bytes) = (0usize, 0usize);
    // Client errors about one message (its fetch or decoding) since the last message arrived.
    // (Counted across messages of other partitions: errors further apart than
    // UNDECODABLE_QUIET start the count again; after a search that found nothing, the next
    // waits UNDECODABLE_BACKOFF.)
    let mut undecodable_errors = 0u32;
    let mut last_undecodable: Option<Instant> = None;
    let mut no_search_before: Option<Instant> = None;
    let mut undecodable_error: Option<rdkafka::error::KafkaError> = None;
    let mut stopping = *shutdown.borrow();
    loop {
        // Start the oldest waiting message of each idle partition, up to the limit.
        while !stopping && running.len() < settings.concurrent.max(1) {
            let next = waiting
                .iter()
                .filter(|(partition, _)| !busy.contains(partition))
                .filter_map(|(partition, queue)| queue.front().map(|w| (w.seq, *partition)))
                .min();
            let Some((_, partition)) = next else { break };
            let Some(Waiting {
                message, prepared, ..
            }) = waiting.get_mut(&partition).and_then(VecDeque::pop_front)
            else {
                break;
            };
            busy.insert(partition);
            let shutdown = shutdown.clone();
            running.push(
                async move {
                    let prepared = prepared.await;
                    let outcome = handler.handle(&message, prepared, shutdown).await;
                    (message, outcome)
                }
                .boxed_local(),
            );
        }
        let enough = settings.stop_after_messages.is_some_and(|n| received >= n);
        if running.is_empty() && (stopping || (enough && in_flight == 0)) {
            break;
        }
        // Three errors of one message the client cannot decode (librdkafka repeats it about
        // twice a second, whatever other partitions deliver): no new message is taken until
        // those in hand are done, then it is looked for, dead-lettered and skipped.
        if undecodable_errors >= 3 && in_flight == 0 && !stopping {
            undecodable_errors = 0;
            if let Some(error) = undecodable_error.take() {
                if skip_undecodable(&consumer, bus, settings, handler, &error).await? {
                    watchdog.progress();
                } else {
                    no_search_before = Some(Instant::now() + UNDECODABLE_BACKOFF);
                }
            }
        }
        let room = !stopping
            && undecodable_errors < 3
            && !enough
            && (in_flight == 0
                || (in_flight < settings.in_flight.max(1)
                    && in_flight_bytes < settings.in_flight_bytes));
        let idle_wait = settings
            .stop_after_idle
            .filter(|_| in_flight == 0)
            .map(|d| (last_activity + d).saturating_duration_since(Instant::now()));
        tokio::select! {
            _ = shutdown.changed(), if !stopping => stopping = true,
            Some((message, outcome)) = running.next(), if !running.is_empty() => {
                busy.remove(&message.partition());
                in_flight -= 1;
                in_flight_bytes -= payload_len(&message);
                if !outcome? {
                    // Shutdown arrived while retrying: leave the offset for the next owner.
                    stopping = true;
                    continue;
                }
                let started = std::time::Instant::now();
                let mut offset = TopicPartitionList::new();
                let committed = offset
                    .add_partition_offset(
                        message.topic(),
                        message.partition(),
                        Offset::Offset(message.offset() + 1),
                    )
                    .and_then(|()| consumer.commit(&offset, CommitMode::Sync));
                consumed.commit_s += started.elapsed().as_secs_f64();
                if let Err(e) = committed {
                    // After a rebalance the partition may be someone else's; they replay it,
                    // and replays are idempotent.
                    tracing::warn!(worker = settings.worker, error = %e,
                        partition = message.partition(), offset = message.offset(),
                        "offset commit failed");
                }
                consumed.handled += 1;
                last_activity = Instant::now();
                watchdog.progress();
                handler.after_commit()?;
            }
            message = consumer.recv(), if room => match message {
                Ok(message) => {
                    let message = message.detach();
                    let prepared = handler.prepare(&message);
                    in_flight += 1;
                    in_flight_bytes += payload_len(&message);
                    waiting.entry(message.partition()).or_default().push_back(Waiting {
                        seq: received,
                        message,
                        prepared,
                    });
                    received += 1;
                    watchdog.fetched();
                }
                // librdkafka retries by itself; the watchdog notices if it never recovers. A
                // message the client cannot decode fails here for ever: once nothing else is in
                // hand, it is found, dead-lettered by position and skipped.
                Err(e) => {
                    tracing::warn!(worker = settings.worker, error = %e, "kafka consumer error");
                    watchdog.client_error(Instant::now());
                    if undecodable(&e) {
                        let now = Instant::now();
                        if last_undecodable.is_some_and(|t| now - t > UNDECODABLE_QUIET) {
                            undecodable_errors = 0;
                        }
                        last_undecodable = Some(now);
                        if no_search_before.is_none_or(|t| now >= t) {
                            undecodable_errors += 1;
                            undecodable_error = Some(e);
                        }
                    }
                }
            },
            _ = sleep_or_forever(idle_wait) => {
                tracing::info!(worker = settings.worker, "no message for the idle limit; stopping");
                stopping = true;
            }
            _ = tick.tick() => {
                // Between messages only: one message may take up to --max-message-secs.
                if in_flight == 0 {
                    let owned = assigned.load(Ordering::Relaxed);
                    let lag = if owned > 0 {
                        lag(&consumer, settings.worker, &mut lost_reported)
                    } else {
                        0
                    };
                    watchdog.check(owned, lag).map_err(|e| BusError::Client(e.to_string()))?;
                }
            }
        }
    }
    Ok(consumed)
}

/// Undecodable-message errors further apart than this are not one message failing again.
const UNDECODABLE_QUIET: Duration = Duration::from_secs(15);
/// After a search for an undecodable message that found nothing, the next waits this long.
const UNDECODABLE_BACKOFF: Duration = Duration::from_secs(60);

/// Whether a consumer error is about one message the client cannot fetch or decode (rather
/// than the connection or the broker).
fn undecodable(error: &rdkafka::error::KafkaError) -> bool {
    use rdkafka::error::{KafkaError, RDKafkaErrorCode as Code};
    matches!(
        error,
        KafkaError::MessageConsumption(
            Code::BadCompression
                | Code::BadMessage
                | Code::InvalidMessage
                | Code::MessageSizeTooLarge
                | Code::InvalidMessageSize
        )
    )
}

/// Finds the messages the consumer fails on (each owned partition is read at its next offset by
/// a probe client with the same settings; those that fail the same way are they), dead-letters
/// each by position with an empty value, commits past it and seeks past it. True when one was
/// skipped; false when none could be told (then nothing is skipped).
async fn skip_undecodable<H: Handler>(
    consumer: &StreamConsumer<Context>,
    bus: &BusConfig,
    settings: &LoopSettings,
    handler: &H,
    error: &rdkafka::error::KafkaError,
) -> Result<bool, H::Error> {
    let Some((producer, dlq_topic)) = handler.dead_letters() else {
        return Ok(false);
    };
    if tokio::runtime::Handle::current().runtime_flavor()
        != tokio::runtime::RuntimeFlavor::MultiThread
    {
        return Ok(false);
    }
    // The whole search stays well inside max.poll.interval.ms, or the consumer would leave
    // its group while it searches.
    let budget =
        (settings.max_message.max(Duration::from_secs(10)) / 2).min(Duration::from_secs(120));
    let (culprits, probed) =
        tokio::task::block_in_place(|| find_undecodable(consumer, bus, &settings.group, budget));
    if culprits.is_empty() {
        tracing::warn!(
            worker = settings.worker,
            probed,
            "a message cannot be decoded, but its position could not be told: nothing skipped"
        );
        return Ok(false);
    }
    let mut skipped = false;
    for (topic, partition, offset) in &culprits {
        let position = (topic.as_str(), *partition, *offset);
        skipped |= skip_at(consumer, settings, (producer, dlq_topic), error, position).await?;
    }
    Ok(skipped)
}

/// Dead-letters the message at one position (empty value, the position in the headers),
/// commits past it and seeks past it. False when it could not move past it.
async fn skip_at(
    consumer: &StreamConsumer<Context>,
    settings: &LoopSettings,
    (producer, dlq_topic): (&rdkafka::producer::FutureProducer, &str),
    error: &rdkafka::error::KafkaError,
    (topic, partition, offset): (&str, i32, i64),
) -> Result<bool, BusError> {
    let letter = super::DeadLetter {
        error_kind: "undecodable",
        disposition: "rejected",
        reason: format!(
            "the consumer cannot fetch or decode the message at this position ({error}); \
             nothing of it was read: send it again from its source (check its compressed and \
             decompressed size against the topic's max.message.bytes and the consumers' \
             receive.message.max.bytes)"
        ),
        source: Some((topic, partition, offset)),
    };
    super::publish_dead_letter(producer, dlq_topic, None, b"", &letter).await?;
    let mut next = TopicPartitionList::new();
    let moved = next
        .add_partition_offset(topic, partition, Offset::Offset(offset + 1))
        .map_err(|e| e.to_string())
        .and_then(|()| {
            consumer
                .commit(&next, CommitMode::Sync)
                .map_err(|e| e.to_string())
        })
        .and_then(|()| {
            consumer
                .seek(
                    topic,
                    partition,
                    Offset::Offset(offset + 1),
                    Duration::from_secs(10),
                )
                .map_err(|e| e.to_string())
        });
    drop(next);
    if let Err(e) = moved {
        // After a rebalance the partition may be another worker's: it finds the message itself
        // (a second dead letter of the same position at worst). Not a reason to stop.
        tracing::warn!(worker = settings.worker, %topic, partition, offset, error = %e,
            "dead-lettered, but could not move past it");
        return Ok(false);
    }
    tracing::error!(worker = settings.worker, %topic, partition, offset,
        "a message the client cannot decode was dead-lettered by position and skipped");
    Ok(true)
}

/// The owned partitions whose next message the client cannot read, (topic, partition, offset),
/// and how many partitions were probed (those with a message at their next offset), within
/// `budget` (the partitions left are searched next time).
fn find_undecodable(
    consumer: &StreamConsumer<Context>,
    bus: &BusConfig,
    group: &str,
    budget: Duration,
) -> (Vec<(String, i32, i64)>, usize) {
    let Ok(assignment) = consumer.assignment() else {
        return (Vec::new(), 0);
    };
    let positions = consumer.position().ok();
    let committed = consumer.committed(Duration::from_secs(5)).ok();
    let offset_in = |list: &Option<TopicPartitionList>, topic: &str, partition: i32| {
        list.as_ref()
            .and_then(|l| l.find_partition(topic, partition))
            .and_then(|p| match p.offset() {
                Offset::Offset(o) => Some(o),
                _ => None,
            })
    };
    let (mut culprits, mut probed) = (Vec::new(), 0);
    let deadline = std::time::Instant::now() + budget;
    for element in assignment.elements() {
        if std::time::Instant::now() >= deadline {
            break;
        }
        let (topic, partition) = (element.topic().to_string(), element.partition());
        let Ok((low, high)) = consumer.fetch_watermarks(&topic, partition, Duration::from_secs(5))
        else {
            continue;
        };
        let next = offset_in(&positions, &topic, partition)
            .or_else(|| offset_in(&committed, &topic, partition));
        // The consumer's next message: where it stands, or the log's start when that is before
        // the log (`auto.offset.reset=earliest`). Clamped here, so that the probe reads that
        // very message and never one its own reset would pick.
        let Some(next) = clamp_to_log(next, low, high) else {
            continue;
        };
        probed += 1;
        if probe_fails(bus, group, &topic, partition, next) {
            culprits.push((topic, partition, next));
        }
    }
    drop(positions);
    drop(committed);
    drop(assignment);
    (culprits, probed)
}

/// The offset a consumer standing at `next` (None: no position yet) reads from a log holding
/// `low..high`: a position outside the log (before its start: retention; past its end: a broker
/// that lost data) is reset to the start (`auto.offset.reset=earliest`). None when nothing is
/// there to read.
fn clamp_to_log(next: Option<i64>, low: i64, high: i64) -> Option<i64> {
    let next = next.filter(|&n| (low..=high).contains(&n)).unwrap_or(low);
    (next < high).then_some(next)
}

/// Reads one message at `offset` with a throwaway client of the same settings: whether it fails
/// as the consumer does. It is assigned the partition (it joins no group and commits nothing);
/// its group id is the worker's, the one the deployment's ACLs already grant.
fn probe_fails(bus: &BusConfig, group: &str, topic: &str, partition: i32, offset: i64) -> bool {
    let mut config = bus.consumer(group);
    config
        .set("enable.auto.commit", "false")
        // A partition with nothing at `offset` says so at once.
        .set("enable.partition.eof", "true");
    let Ok(probe) = config.create::<BaseConsumer>() else {
        return false;
    };
    let mut list = TopicPartitionList::new();
    if list
        .add_partition_offset(topic, partition, Offset::Offset(offset))
        .is_err()
        || probe.assign(&list).is_err()
    {
        return false;
    }
    drop(list);
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let mut failures = 0;
    while std::time::Instant::now() < deadline {
        match probe.poll(Duration::from_millis(500)) {
            Some(Ok(_)) | Some(Err(rdkafka::error::KafkaError::PartitionEOF(_))) => return false,
            Some(Err(e)) if undecodable(&e) => {
                failures += 1;
                if failures >= 2 {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

fn payload_len(message: &OwnedMessage) -> usize {
    message.payload().map_or(0, <[u8]>::len)
}

/// Messages waiting on the partitions the consumer owns (0 where the broker cannot tell). A
/// partition the consumer has not fetched from yet has no position: it is read from the
/// group's committed offset, else from the log's start (`auto.offset.reset=earliest`), so that
/// a fresh worker stuck before its first message is not taken for an idle one.
fn lag(
    consumer: &StreamConsumer<Context>,
    worker: &'static str,
    lost_reported: &mut LostReported,
) -> u64 {
    let Ok(assignment) = consumer.assignment() else {
        return 0;
    };
    let Ok(positions) = consumer.position() else {
        return 0;
    };
    // A short, blocking metadata request: moved off the async workers where the runtime
    // allows it (a current-thread runtime, as in tests, skips the lag).
    if tokio::runtime::Handle::current().runtime_flavor()
        != tokio::runtime::RuntimeFlavor::MultiThread
    {
        return 0;
    }
    let offset_of = |list: &TopicPartitionList, topic: &str, partition: i32| {
        list.find_partition(topic, partition)
            .and_then(|p| match p.offset() {
                Offset::Offset(o) => Some(o),
                _ => None,
            })
    };
    // The group's committed offsets, also to find those a broker's lost data left ahead of it.
    let committed = tokio::task::block_in_place(|| consumer.committed(Duration::from_secs(2)).ok());
    let mut total = 0u64;
    for element in assignment.elements() {
        let (topic, partition) = (element.topic(), element.partition());
        let watermarks = tokio::task::block_in_place(|| {
            consumer.fetch_watermarks(topic, partition, Duration::from_secs(2))
        });
        // Watermarks a broker got wrong are no evidence of waiting messages.
        let Ok((low, high)) = watermarks
            .map_err(drop)
            .and_then(|(low, high)| (low >= 0 && high >= low).then_some((low, high)).ok_or(()))
        else {
            continue;
        };
        let committed_offset = committed
            .as_ref()
            .and_then(|list| offset_of(list, topic, partition));
        if let Some(committed_offset) = committed_offset {
            report_lost(
                lost_reported,
                worker,
                topic,
                partition,
                committed_offset,
                high,
            );
        }
        let position = offset_of(&positions, topic, partition).or(committed_offset);
        total += (high - position.unwrap_or(low)).max(0) as u64;
    }
    crate::metrics::gauge(
        "fhir_rag_consumer_lag",
        "Messages waiting on the worker's partitions (as the broker reports them).",
        &[("worker", worker)],
        total as f64,
    );
    total
}

/// Per (topic, partition), the committed offset already reported ahead of the log.
type LostReported = HashMap<(String, i32), i64>;

/// Messages a broker lost: a committed offset ahead of the log's end means the messages
/// between the log's end and that offset were acknowledged by the broker and are gone (a
/// broker restarted without its data). Said once per partition and offset, as an error, and
/// counted in `fhir_rag_messages_lost_by_broker_total`.
fn report_lost(
    reported: &mut LostReported,
    worker: &'static str,
    topic: &str,
    partition: i32,
    committed: i64,
    high: i64,
) -> Option<u64> {
    let lost = u64::try_from(committed - high).ok().filter(|&n| n > 0)?;
    if reported.insert((topic.to_string(), partition), committed) == Some(committed) {
        return None;
    }
    tracing::error!(
        worker,
        topic,
        partition,
        committed,
        log_end = high,
        lost,
        "the group's committed offset is ahead of the log: the broker lost messages it had accepted"
    );
    crate::metrics::count(
        "fhir_rag_messages_lost_by_broker_total",
        "Messages between a log's end and the group's committed offset ahead of it (a broker lost data).",
        &[("worker", worker)],
        lost as f64,
    );
    Some(lost)
}

/// Decides from the assignment and the lag whether the loop is stuck.
struct Watchdog {
    worker: &'static str,
    stall_timeout: Duration,
    /// Since when the worker owns no partition, or has messages waiting without progress.
    stuck_since: Option<(Instant, &'static str)>,
    /// Since when every fetch has failed (no message received, none handled), and the last
    /// failure: a streak ends with a message, or after `QUIET_AFTER_ERRORS` without an error
    /// (an idle worker that met one transient error at start is not failing).
    failing_since: Option<Instant>,
    last_error: Option<Instant>,
    unready: bool,
}

/// The problem of a worker whose every fetch fails.
const FAILING: &str = "fails on every fetch (Kafka client errors)";

/// Without a client error for this long, a streak of them is over.
const QUIET_AFTER_ERRORS: Duration = Duration::from_secs(15);

impl Watchdog {
    fn new(settings: &LoopSettings) -> Self {
        Watchdog {
            worker: settings.worker,
            stall_timeout: settings.stall_timeout,
            stuck_since: None,
            failing_since: None,
            last_error: None,
            unready: false,
        }
    }

    /// A fetch failed: the client's own retries have not helped yet.
    fn client_error(&mut self, now: Instant) {
        self.failing_since.get_or_insert(now);
        self.last_error = Some(now);
    }

    /// A message arrived: the client works, whatever the handling of it will do.
    fn fetched(&mut self) {
        self.failing_since = None;
    }

    fn progress(&mut self) {
        self.failing_since = None;
        self.stuck_since = None;
        if self.unready {
            self.unready = false;
            crate::metrics::worker_problem(self.worker, None);
        }
    }

    /// Checks the state at one tick (between messages).
    fn check(&mut self, assigned: usize, lag: u64) -> Result<(), Stalled> {
        self.check_at(Instant::now(), assigned, lag)
    }

    fn check_at(&mut self, now: Instant, assigned: usize, lag: u64) -> Result<(), Stalled> {
        if self
            .last_error
            .is_some_and(|last| now.saturating_duration_since(last) >= QUIET_AFTER_ERRORS)
        {
            self.failing_since = None;
        }
        let problem = if assigned == 0 {
            Some("owns no partition of its topic")
        } else if self.failing_since.is_some() {
            // Whatever the lag says (it may be unreadable too): a loop of client errors
            // consumes nothing.
            Some(FAILING)
        } else if lag > 0 {
            Some("has messages waiting but consumes none")
        } else {
            None
        };
        let Some(problem) = problem else {
            self.progress();
            return Ok(());
        };
        let (mut since, _) = *self.stuck_since.get_or_insert((now, problem));
        if problem == FAILING {
            // A streak counts from its first error, not from the first tick that saw it.
            since = since.min(self.failing_since.unwrap_or(since));
        }
        let stuck = now.saturating_duration_since(since);
        if stuck >= self.stall_timeout / 3 && !self.unready {
            self.unready = true;
            tracing::warn!(
                worker = self.worker,
                problem,
                stuck_secs = stuck.as_secs(),
                "the worker is not making progress; unready"
            );
            crate::metrics::worker_problem(self.worker, Some(problem));
        }
        if stuck >= self.stall_timeout {
            return Err(Stalled {
                worker: self.worker,
                reason: format!("{problem} for {} s", stuck.as_secs()),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dog(stall_secs: u64) -> Watchdog {
        Watchdog::new(&LoopSettings {
            worker: "test-dog",
            group: "g".into(),
            topic: "t".into(),
            stop_after_idle: None,
            stop_after_messages: None,
            max_message: Duration::from_secs(60),
            stall_timeout: Duration::from_secs(stall_secs),
            in_flight: 1,
            in_flight_bytes: usize::MAX,
            concurrent: 1,
        })
    }

    #[test]
    fn the_probe_reads_the_message_the_consumer_would_read() {
        // Before the log's start (retention removed it): the consumer resets to the start.
        assert_eq!(clamp_to_log(Some(3), 10, 20), Some(10));
        // No position yet: the start.
        assert_eq!(clamp_to_log(None, 10, 20), Some(10));
        assert_eq!(clamp_to_log(Some(15), 10, 20), Some(15));
        // At the end: nothing to read, nothing to blame.
        assert_eq!(clamp_to_log(Some(20), 10, 20), None);
        // Past the end (the broker lost data): the consumer resets to the start.
        assert_eq!(clamp_to_log(Some(25), 10, 20), Some(10));
        assert_eq!(clamp_to_log(None, 0, 0), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_worker_without_partitions_turns_unready_then_stops() {
        let mut d = dog(90);
        let t0 = Instant::now();
        assert!(d.check_at(t0, 0, 0).is_ok());
        assert!(d.check_at(t0 + Duration::from_secs(29), 0, 0).is_ok());
        assert!(!d.unready);
        assert!(d.check_at(t0 + Duration::from_secs(30), 0, 0).is_ok());
        assert!(d.unready);
        let err = d.check_at(t0 + Duration::from_secs(90), 0, 0).unwrap_err();
        assert!(err.reason.contains("no partition"), "{err}");
    }

    #[test]
    fn committed_offsets_ahead_of_the_log_are_reported_once() {
        let mut reported = LostReported::new();
        assert_eq!(report_lost(&mut reported, "w", "t", 0, 10, 10), None);
        assert_eq!(report_lost(&mut reported, "w", "t", 0, 5, 10), None);
        assert_eq!(report_lost(&mut reported, "w", "t", 0, 130, 1), Some(129));
        assert_eq!(
            report_lost(&mut reported, "w", "t", 0, 130, 1),
            None,
            "once"
        );
        assert_eq!(report_lost(&mut reported, "w", "t", 1, 60, 0), Some(60));
        // The broker lost data again after the worker went on.
        assert_eq!(report_lost(&mut reported, "w", "t", 0, 140, 0), Some(140));
    }

    #[tokio::test(start_paused = true)]
    async fn a_worker_looping_on_client_errors_is_never_ready() {
        let mut d = dog(90);
        let t0 = Instant::now();
        // Partitions owned, no lag readable (0): idle, unless every fetch fails.
        for s in 0..90 {
            let now = t0 + Duration::from_secs(s);
            d.client_error(now);
            assert!(d.check_at(now, 3, 0).is_ok(), "{s}");
            assert_eq!(
                d.unready,
                s >= 30,
                "unready after a third of the stall timeout ({s})"
            );
        }
        d.client_error(t0 + Duration::from_secs(90));
        let err = d.check_at(t0 + Duration::from_secs(90), 3, 0).unwrap_err();
        assert!(err.reason.contains("fails on every fetch"), "{err}");
        // The streak counts from its first error, even when no tick saw it.
        let mut d = dog(90);
        for s in 0..40 {
            d.client_error(t0 + Duration::from_secs(s));
        }
        assert!(d.check_at(t0 + Duration::from_secs(40), 3, 0).is_ok());
        assert!(d.unready);
        // A message that arrives ends the streak: idle again, and ready.
        d.fetched();
        assert!(d.check_at(t0 + Duration::from_secs(41), 3, 0).is_ok());
        assert!(!d.unready);
        // One error at start, then quiet: an idle worker, never unready.
        let mut idle = dog(90);
        idle.client_error(t0);
        for s in 1..200 {
            assert!(idle.check_at(t0 + Duration::from_secs(s), 3, 0).is_ok());
            assert!(!idle.unready, "{s}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn waiting_messages_without_progress_stall_and_progress_resets() {
        let mut d = dog(90);
        let t0 = Instant::now();
        assert!(d.check_at(t0, 3, 5).is_ok());
        assert!(d.check_at(t0 + Duration::from_secs(60), 3, 5).is_ok());
        assert!(d.unready);
        d.progress();
        assert!(!d.unready);
        // A fresh clock after progress.
        assert!(d.check_at(t0 + Duration::from_secs(100), 3, 5).is_ok());
        assert!(d.check_at(t0 + Duration::from_secs(189), 3, 5).is_ok());
        assert!(d.check_at(t0 + Duration::from_secs(190), 3, 5).is_err());
        // Owning partitions with nothing waiting is idle, not stuck.
        let mut idle = dog(90);
        for s in 0..1000 {
            assert!(idle.check_at(t0 + Duration::from_secs(s), 3, 0).is_ok());
        }
        assert!(!idle.unready);
    }
}
