//! The one consume loop of both workers: subscribe, receive, hand each message to a
//! [`Handler`], commit its offset synchronously after the handler is done with it, and watch the
//! consumer.
//!
//! **Rebalances** are logged and counted by a consumer context (the partitions a worker owns are
//! its `fhir_rag_assigned_partitions` gauge). **`max.poll.interval.ms`** is set from the longest a
//! message may take (`--max-message-secs`), so that a worker busy with a large bundle keeps its
//! partitions, and one that hangs for longer loses them. **The watchdog** ticks while the loop
//! waits for messages: a worker that has owned no partition, or that has made no progress while
//! its partitions have messages waiting (lag read from the broker's watermarks), says so in the
//! log, turns `/readyz` to 503, and after `--stall-timeout-secs` (kept above the longest message,
//! which a rebalance may wait for) stops with an error, so that the
//! process exits non-zero and its supervisor restarts it with a fresh consumer. Some brokers
//! report wrong watermarks (tansu's "latest" offset): a lag it cannot read is taken as none, so
//! the watchdog can miss a stall there but never invents one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, StreamConsumer,
};
use rdkafka::message::{BorrowedMessage, Message};
use rdkafka::{ClientContext, Offset};
use tokio::sync::watch;
use tokio::time::Instant;

use super::{sleep_or_forever, BusConfig, BusError};

/// What a worker does with one message.
#[async_trait(?Send)]
pub trait Handler {
    /// Errors that stop the worker.
    type Error: From<BusError>;
    /// Handles one message; `Ok(false)` when shutdown interrupted it (do not commit).
    async fn handle(
        &mut self,
        message: &BorrowedMessage<'_>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<bool, Self::Error>;
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

/// Runs the loop until shutdown, a stop condition, a fatal handler error or a stall; returns
/// the number of messages handled and committed.
pub async fn consume<H: Handler>(
    bus: &BusConfig,
    settings: &LoopSettings,
    handler: &mut H,
    mut shutdown: watch::Receiver<bool>,
) -> Result<u64, H::Error> {
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
    let mut tick = tokio::time::interval(Duration::from_secs(5).min(settings.stall_timeout / 3));
    let mut handled = 0u64;
    let mut last_activity = Instant::now();
    loop {
        if *shutdown.borrow() || settings.stop_after_messages.is_some_and(|n| handled >= n) {
            break;
        }
        let wait = settings
            .stop_after_idle
            .map(|d| (last_activity + d).saturating_duration_since(Instant::now()));
        let received = tokio::select! {
            _ = shutdown.changed() => break,
            received = consumer.recv() => received,
            _ = sleep_or_forever(wait) => {
                tracing::info!(worker = settings.worker, "no message for the idle limit; stopping");
                break;
            }
            _ = tick.tick() => {
                let owned = assigned.load(Ordering::Relaxed);
                let lag = if owned > 0 { lag(&consumer, settings.worker) } else { 0 };
                watchdog.check(owned, lag).map_err(|e| BusError::Client(e.to_string()))?;
                continue;
            }
        };
        let message = match received {
            Ok(message) => message,
            Err(e) => {
                // librdkafka retries by itself; the watchdog notices if it never recovers.
                tracing::warn!(worker = settings.worker, error = %e, "kafka consumer error");
                continue;
            }
        };
        if !handler.handle(&message, &mut shutdown).await? {
            // Shutdown arrived while retrying: leave the offset for the next owner.
            break;
        }
        if let Err(e) = consumer.commit_message(&message, CommitMode::Sync) {
            // After a rebalance the partition may be someone else's; they replay it, and
            // replays are idempotent.
            tracing::warn!(worker = settings.worker, error = %e, partition = message.partition(),
                offset = message.offset(), "offset commit failed");
        }
        handled += 1;
        last_activity = Instant::now();
        watchdog.progress();
    }
    Ok(handled)
}

/// Messages waiting on the partitions the consumer owns (0 where the broker cannot tell).
fn lag(consumer: &StreamConsumer<Context>, worker: &'static str) -> u64 {
    let Ok(assignment) = consumer.assignment() else {
        return 0;
    };
    let Ok(positions) = consumer.position() else {
        return 0;
    };
    let mut total = 0u64;
    for element in assignment.elements() {
        let (topic, partition) = (element.topic(), element.partition());
        let position = positions
            .find_partition(topic, partition)
            .and_then(|p| match p.offset() {
                Offset::Offset(o) => Some(o),
                _ => None,
            });
        // A short, blocking metadata request: moved off the async workers where the runtime
        // allows it (a current-thread runtime, as in tests, skips the lag).
        let flavor = tokio::runtime::Handle::current().runtime_flavor();
        if flavor != tokio::runtime::RuntimeFlavor::MultiThread {
            return 0;
        }
        let watermarks = tokio::task::block_in_place(|| {
            consumer.fetch_watermarks(topic, partition, Duration::from_secs(2))
        });
        if let (Some(position), Ok((_, high))) = (position, watermarks) {
            total += (high - position).max(0) as u64;
        }
    }
    crate::metrics::gauge(
        "fhir_rag_consumer_lag",
        "Messages waiting on the worker's partitions (as the broker reports them).",
        &[("worker", worker)],
        total as f64,
    );
    total
}

/// Decides from the assignment and the lag whether the loop is stuck.
struct Watchdog {
    worker: &'static str,
    stall_timeout: Duration,
    /// Since when the worker owns no partition, or has messages waiting without progress.
    stuck_since: Option<(Instant, &'static str)>,
    unready: bool,
}

impl Watchdog {
    fn new(settings: &LoopSettings) -> Self {
        Watchdog {
            worker: settings.worker,
            stall_timeout: settings.stall_timeout,
            stuck_since: None,
            unready: false,
        }
    }

    fn progress(&mut self) {
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
        let problem = if assigned == 0 {
            Some("owns no partition of its topic")
        } else if lag > 0 {
            Some("has messages waiting but consumes none")
        } else {
            None
        };
        let Some(problem) = problem else {
            self.progress();
            return Ok(());
        };
        let (since, _) = *self.stuck_since.get_or_insert((now, problem));
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
        })
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
