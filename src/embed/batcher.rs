//! The embedding service: a batching task in front of a model on its own OS thread.
//!
//! Callers send texts through a bounded channel and await a oneshot reply per text. The batching
//! task closes a batch when adding the next text would exceed the token budget or the item
//! limit, or when the first text of the batch has waited `max_wait` (so a trickle still flows).
//! It hands batches to the model thread over a capacity-1 channel: a new batch forms only while
//! the model is busy with the previous one, and when both are full, callers wait: backpressure
//! reaches the Kafka consumer instead of memory. Texts whose caller went away are skipped.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::{EmbedError, Embedder, ModelInfo, TokenCounter};

/// Limits that shape batches.
#[derive(Clone, Copy, Debug)]
pub struct BatchLimits {
    /// Most tokens (special tokens included) in one batch.
    pub max_batch_tokens: usize,
    /// Most texts in one batch.
    pub max_batch_items: usize,
    /// Longest time the first text of a batch waits for company.
    pub max_wait: Duration,
    /// Capacity of the channel in front of the batcher, in texts.
    pub queue_capacity: usize,
    /// Vectors kept for texts embedded recently (0: no cache).
    pub cache_capacity: usize,
}

impl Default for BatchLimits {
    fn default() -> Self {
        BatchLimits {
            max_batch_tokens: 8192,
            max_batch_items: 64,
            max_wait: Duration::from_millis(20),
            queue_capacity: 1024,
            cache_capacity: 16_384,
        }
    }
}

/// Running totals, read by benchmarks and logs.
#[derive(Debug, Default)]
pub struct EmbedStats {
    /// Batches run.
    pub batches: AtomicU64,
    /// Texts embedded.
    pub items: AtomicU64,
    /// Tokens embedded (special tokens included, padding excluded).
    pub tokens: AtomicU64,
    /// Time the model spent, in microseconds.
    pub busy_micros: AtomicU64,
    /// Texts served from the cache of recent vectors.
    pub cache_hits: AtomicU64,
}

struct Item {
    text: String,
    tokens: usize,
    reply: oneshot::Sender<Result<Vec<f32>, EmbedError>>,
}

/// A cheap, cloneable handle on the embedding service.
#[derive(Clone)]
pub struct EmbeddingService {
    sender: mpsc::Sender<Item>,
    info: ModelInfo,
    counter: TokenCounter,
    stats: Arc<EmbedStats>,
    cache: Arc<Mutex<VectorCache>>,
}

/// Recent vectors by the sha256 of their text, so that a store transaction retried after a
/// transient failure, or a document rebuilt around one new fact, does not re-embed what the
/// model just did. Bounded; the oldest entries leave first.
struct VectorCache {
    capacity: usize,
    vectors: HashMap<[u8; 32], Vec<f32>>,
    order: VecDeque<[u8; 32]>,
}

impl VectorCache {
    fn get(&self, key: &[u8; 32]) -> Option<Vec<f32>> {
        self.vectors.get(key).cloned()
    }

    fn insert(&mut self, key: [u8; 32], vector: Vec<f32>) {
        if self.capacity == 0 || self.vectors.contains_key(&key) {
            return;
        }
        while self.order.len() >= self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.vectors.remove(&oldest);
            }
        }
        self.order.push_back(key);
        self.vectors.insert(key, vector);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl EmbeddingService {
    /// Starts the model thread and the batching task (needs a tokio runtime).
    pub fn start(embedder: Box<dyn Embedder>, limits: BatchLimits) -> Self {
        let info = embedder.info().clone();
        let counter = embedder.token_counter();
        let stats = Arc::new(EmbedStats::default());
        let (sender, items) = mpsc::channel(limits.queue_capacity.max(1));
        let (batch_sender, batches) = mpsc::channel(1);
        // Idle from the start: the model thread has nothing to do until the first batch.
        let idle = Arc::new(Idle {
            flag: AtomicBool::new(true),
            notify: tokio::sync::Notify::new(),
        });
        tokio::spawn(form_batches(items, batch_sender, limits, Arc::clone(&idle)));
        let thread_stats = Arc::clone(&stats);
        std::thread::Builder::new()
            .name("embed-model".into())
            .spawn(move || run_model(embedder, batches, thread_stats, idle))
            .expect("spawn the embedding model thread");
        EmbeddingService {
            sender,
            info,
            counter,
            stats,
            cache: Arc::new(Mutex::new(VectorCache {
                capacity: limits.cache_capacity,
                vectors: HashMap::new(),
                order: VecDeque::new(),
            })),
        }
    }

    /// The model's shape.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The model's token counter (special tokens excluded).
    pub fn token_counter(&self) -> &TokenCounter {
        &self.counter
    }

    /// Running totals.
    pub fn stats(&self) -> &EmbedStats {
        &self.stats
    }

    /// Embeds texts; the vectors come back in the order of the texts.
    pub async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let keys: Vec<[u8; 32]> = texts
            .iter()
            .map(|t| Sha256::digest(t.as_bytes()).into())
            .collect();
        let mut vectors: Vec<Option<Vec<f32>>> = {
            let cache = lock(&self.cache);
            keys.iter().map(|k| cache.get(k)).collect()
        };
        // Only texts the cache lacks go to the model, and only they are counted.
        let mut missing = Vec::new();
        for (index, text) in texts.into_iter().enumerate() {
            if vectors[index].is_some() {
                self.stats.cache_hits.fetch_add(1, Ordering::Relaxed);
            } else {
                missing.push((index, text));
            }
        }
        let (indexes, texts): (Vec<usize>, Vec<String>) = missing.into_iter().unzip();
        // Counted off the runtime's threads when there are many: it takes milliseconds.
        let (texts, counts) = if texts.len() > 64 {
            let counter = self.counter.clone();
            tokio::task::spawn_blocking(move || {
                let counts = counter.count_all(&texts);
                (texts, counts)
            })
            .await
            .map_err(|_| EmbedError::Stopped)?
        } else {
            let counts = texts.iter().map(|t| self.counter.count(t)).collect();
            (texts, counts)
        };
        let mut replies = Vec::new();
        for ((index, text), count) in indexes.into_iter().zip(texts).zip(counts) {
            let tokens = (count + 2).min(self.info.max_tokens);
            let (reply, receiver) = oneshot::channel();
            self.sender
                .send(Item {
                    text,
                    tokens,
                    reply,
                })
                .await
                .map_err(|_| EmbedError::Stopped)?;
            replies.push((index, receiver));
        }
        for (index, receiver) in replies {
            let vector = receiver.await.map_err(|_| EmbedError::Stopped)??;
            lock(&self.cache).insert(keys[index], vector.clone());
            vectors[index] = Some(vector);
        }
        Ok(vectors
            .into_iter()
            .map(|v| v.expect("every text has a vector"))
            .collect())
    }
}

/// Whether the model thread waits for a batch, and a wake-up for the batcher when it starts to.
struct Idle {
    flag: AtomicBool,
    notify: tokio::sync::Notify,
}

/// Cuts the queue into batches. A batch leaves when it is full, when its first text has waited
/// `max_wait`, or at once when the queue is empty and the model idle: a lone query does not
/// wait for company that is not coming, while under load texts gather while the model works.
async fn form_batches(
    mut items: mpsc::Receiver<Item>,
    batches: mpsc::Sender<Vec<Item>>,
    limits: BatchLimits,
    idle: Arc<Idle>,
) {
    let mut carried: Option<Item> = None;
    loop {
        let first = match carried.take() {
            Some(item) => item,
            None => match items.recv().await {
                Some(item) => item,
                None => return,
            },
        };
        if first.reply.is_closed() {
            continue;
        }
        let deadline = Instant::now() + limits.max_wait;
        let mut tokens = first.tokens;
        let mut batch = vec![first];
        while batch.len() < limits.max_batch_items {
            // Registered before the flag is read, so that the model going idle in between
            // still wakes this wait; `notify_waiters` leaves no permit behind to end a later
            // wait early.
            let model_idle = idle.notify.notified();
            tokio::pin!(model_idle);
            model_idle.as_mut().enable();
            let next = match items.try_recv() {
                Ok(next) => next,
                Err(mpsc::error::TryRecvError::Disconnected) => break,
                // The model is free: what is queued now leaves with this batch, nothing more.
                Err(mpsc::error::TryRecvError::Empty) if idle.flag.load(Ordering::Acquire) => break,
                Err(mpsc::error::TryRecvError::Empty) => tokio::select! {
                    // Biased: a text already queued joins the batch even when the model went
                    // idle at the same moment.
                    biased;
                    next = items.recv() => match next {
                        Some(next) => next,
                        None => break,
                    },
                    // Back to the top, which drains the queue before the batch leaves.
                    _ = model_idle => continue,
                    _ = tokio::time::sleep_until(deadline) => break,
                },
            };
            if next.reply.is_closed() {
                continue;
            }
            if tokens + next.tokens > limits.max_batch_tokens {
                carried = Some(next);
                break;
            }
            tokens += next.tokens;
            batch.push(next);
        }
        // Busy from now on: the model has a batch waiting, even before it takes it.
        idle.flag.store(false, Ordering::Release);
        if batches.send(batch).await.is_err() {
            return;
        }
    }
}

fn run_model(
    mut embedder: Box<dyn Embedder>,
    mut batches: mpsc::Receiver<Vec<Item>>,
    stats: Arc<EmbedStats>,
    idle: Arc<Idle>,
) {
    loop {
        if batches.is_empty() {
            idle.flag.store(true, Ordering::Release);
            idle.notify.notify_waiters();
        }
        let Some(batch) = batches.blocking_recv() else {
            return;
        };
        idle.flag.store(false, Ordering::Release);
        let batch: Vec<Item> = batch.into_iter().filter(|i| !i.reply.is_closed()).collect();
        if batch.is_empty() {
            continue;
        }
        let started = std::time::Instant::now();
        let texts: Vec<&str> = batch.iter().map(|i| i.text.as_str()).collect();
        let result = embed_splitting(embedder.as_mut(), &texts);
        let busy = started.elapsed();
        stats
            .busy_micros
            .fetch_add(busy.as_micros() as u64, Ordering::Relaxed);
        let tokens: usize = batch.iter().map(|i| i.tokens).sum();
        crate::metrics::count(
            "fhir_rag_embed_busy_seconds_total",
            "Time the embedding model spent on batches (tokens per second: rate of tokens over this).",
            &[],
            busy.as_secs_f64(),
        );
        crate::metrics::count(
            "fhir_rag_embed_tokens_total",
            "Tokens embedded.",
            &[],
            tokens as f64,
        );
        crate::metrics::count(
            "fhir_rag_embed_texts_total",
            "Texts embedded (over batches: the mean batch size).",
            &[],
            batch.len() as f64,
        );
        crate::metrics::count(
            "fhir_rag_embed_batches_total",
            "Embedding batches.",
            &[],
            1.0,
        );
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats.items.fetch_add(batch.len() as u64, Ordering::Relaxed);
        stats.tokens.fetch_add(
            batch.iter().map(|i| i.tokens as u64).sum(),
            Ordering::Relaxed,
        );
        match result {
            Ok(vectors) => {
                for (item, vector) in batch.into_iter().zip(vectors) {
                    let _ = item.reply.send(Ok(vector));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "embedding batch failed");
                for item in batch {
                    let _ = item.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

/// Embeds `texts`; when the device runs out of memory, embeds each half on its own (down to one
/// text), so that a batch too large for the GPU costs time, not the message.
fn embed_splitting(
    embedder: &mut dyn Embedder,
    texts: &[&str],
) -> Result<Vec<Vec<f32>>, EmbedError> {
    match embedder.embed(texts) {
        Err(e) if e.is_out_of_memory() && texts.len() > 1 => {
            tracing::warn!(
                batch = texts.len(),
                "the device ran out of memory; embedding the batch in halves"
            );
            let (left, right) = texts.split_at(texts.len() / 2);
            let mut vectors = embed_splitting(embedder, left)?;
            vectors.extend(embed_splitting(embedder, right)?);
            Ok(vectors)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::hashed::HashedEmbedder;

    /// Fails with an out-of-memory error on batches larger than `limit`.
    struct SmallDevice {
        inner: HashedEmbedder,
        limit: usize,
        calls: Vec<usize>,
    }

    impl Embedder for SmallDevice {
        fn info(&self) -> &ModelInfo {
            self.inner.info()
        }
        fn token_counter(&self) -> TokenCounter {
            self.inner.token_counter()
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls.push(texts.len());
            if texts.len() > self.limit {
                return Err(EmbedError::Model(
                    "DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")".into(),
                ));
            }
            self.inner.embed(texts)
        }
    }

    #[test]
    fn an_out_of_memory_batch_is_split_until_it_fits() {
        let mut device = SmallDevice {
            inner: HashedEmbedder::new(32),
            limit: 3,
            calls: Vec::new(),
        };
        let texts: Vec<String> = (0..10).map(|i| format!("text {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embed_splitting(&mut device, &refs).unwrap();
        let mut reference = HashedEmbedder::new(32);
        assert_eq!(vectors, reference.embed(&refs).unwrap());
        assert!(device.calls.iter().skip(1).all(|&n| n <= 5));
        // A single text that does not fit stays an error (for the caller's retry policy).
        device.limit = 0;
        let err = embed_splitting(&mut device, &refs[..1]).unwrap_err();
        assert!(err.is_out_of_memory());
    }

    /// Records the size of every batch it runs.
    struct Recording {
        inner: HashedEmbedder,
        sizes: Arc<std::sync::Mutex<Vec<usize>>>,
    }

    impl Embedder for Recording {
        fn info(&self) -> &ModelInfo {
            self.inner.info()
        }
        fn token_counter(&self) -> TokenCounter {
            self.inner.token_counter()
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.sizes.lock().unwrap().push(texts.len());
            self.inner.embed(texts)
        }
    }

    #[tokio::test]
    async fn batches_by_token_budget_and_keeps_order() {
        let sizes = Arc::new(std::sync::Mutex::new(Vec::new()));
        let service = EmbeddingService::start(
            Box::new(Recording {
                inner: HashedEmbedder::new(16),
                sizes: Arc::clone(&sizes),
            }),
            BatchLimits {
                // each text is 3 words + 2 special tokens = 5 tokens: 4 fit in 20
                max_batch_tokens: 20,
                max_batch_items: 100,
                max_wait: Duration::from_millis(200),
                queue_capacity: 64,
                cache_capacity: 0,
            },
        );
        let texts: Vec<String> = (0..10).map(|i| format!("text number {i}")).collect();
        let vectors = service.embed(texts.clone()).await.unwrap();
        let reference = HashedEmbedder::new(16);
        for (text, vector) in texts.iter().zip(&vectors) {
            assert_eq!(vector, &reference.vector(text));
        }
        let sizes = sizes.lock().unwrap().clone();
        assert_eq!(sizes.iter().sum::<usize>(), 10);
        assert!(sizes.iter().all(|&s| s <= 4), "{sizes:?}");
        assert_eq!(service.stats().items.load(Ordering::Relaxed), 10);
    }

    #[tokio::test]
    async fn repeated_texts_come_from_the_cache() {
        let sizes = Arc::new(std::sync::Mutex::new(Vec::new()));
        let service = EmbeddingService::start(
            Box::new(Recording {
                inner: HashedEmbedder::new(16),
                sizes: Arc::clone(&sizes),
            }),
            BatchLimits {
                cache_capacity: 2,
                ..Default::default()
            },
        );
        let first = service
            .embed(vec!["a b".into(), "c d".into()])
            .await
            .unwrap();
        let again = service
            .embed(vec!["c d".into(), "a b".into()])
            .await
            .unwrap();
        assert_eq!(again, vec![first[1].clone(), first[0].clone()]);
        assert_eq!(
            sizes.lock().unwrap().iter().sum::<usize>(),
            2,
            "the model saw each text once"
        );
        assert_eq!(service.stats().cache_hits.load(Ordering::Relaxed), 2);
        // A third text evicts the oldest: capacity is a bound, not a hint.
        service.embed(vec!["e f".into()]).await.unwrap();
        service.embed(vec!["a b".into()]).await.unwrap();
        assert_eq!(sizes.lock().unwrap().iter().sum::<usize>(), 4);
    }

    /// Deterministic: the model holds its first batch until the test opens a gate, and the five
    /// later texts are in the queue before it does (no real sleeps decide the outcome).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn texts_gather_while_the_model_is_busy_and_leave_when_it_is_free() {
        struct Gated {
            inner: Recording,
            started: tokio::sync::mpsc::UnboundedSender<()>,
            gate: std::sync::mpsc::Receiver<()>,
        }
        impl Embedder for Gated {
            fn info(&self) -> &ModelInfo {
                self.inner.info()
            }
            fn token_counter(&self) -> TokenCounter {
                self.inner.token_counter()
            }
            fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
                let _ = self.started.send(());
                let _ = self.gate.recv();
                self.inner.embed(texts)
            }
        }
        let sizes = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (started_tx, mut started) = tokio::sync::mpsc::unbounded_channel();
        let (open, gate) = std::sync::mpsc::channel();
        let service = Arc::new(EmbeddingService::start(
            Box::new(Gated {
                inner: Recording {
                    inner: HashedEmbedder::new(16),
                    sizes: Arc::clone(&sizes),
                },
                started: started_tx,
                gate,
            }),
            BatchLimits {
                // Far longer than the test: a batch that left on its timer would hang it.
                max_wait: Duration::from_secs(3600),
                cache_capacity: 0,
                ..Default::default()
            },
        ));
        let first = tokio::spawn({
            let service = Arc::clone(&service);
            async move { service.embed(vec!["first".into()]).await }
        });
        // The model holds "first".
        started.recv().await.unwrap();
        // Each call queues its text on its first poll, then waits for the reply.
        let mut rest = Box::pin(futures::future::join_all(
            (0..5).map(|i| service.embed(vec![format!("text {i}")])),
        ));
        assert!(futures::poll!(rest.as_mut()).is_pending());
        // The model is free: the five leave as one batch at once, not after max_wait.
        for _ in 0..2 {
            open.send(()).unwrap();
        }
        // Bounded: a batch cut in two would wait for a third opening of the gate forever.
        let finished = tokio::time::timeout(Duration::from_secs(60), async {
            first.await.unwrap().unwrap();
            for vector in rest.await {
                vector.unwrap();
            }
        })
        .await;
        // Lets a model call stuck at the gate return, so the runtime can shut down.
        for _ in 0..8 {
            let _ = open.send(());
        }
        assert!(finished.is_ok(), "batches: {:?}", sizes.lock().unwrap());
        assert_eq!(sizes.lock().unwrap().clone(), vec![1, 5]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_lone_text_does_not_wait_for_company_when_the_model_is_idle() {
        let service = EmbeddingService::start(
            Box::new(HashedEmbedder::new(8)),
            BatchLimits {
                max_wait: Duration::from_secs(3600),
                ..Default::default()
            },
        );
        // The clock is paused: waiting for max_wait would auto-advance it by an hour.
        let started = Instant::now();
        let vectors = service.embed(vec!["alone".into()]).await.unwrap();
        assert_eq!(vectors.len(), 1);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }
}
