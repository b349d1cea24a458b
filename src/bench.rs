//! Benchmarks: end-to-end runs that print figures and write them to `docs/results/`. Timings are
//! reported, never asserted: these machines are shared and noisy.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::Serialize;

use crate::backfill::{self, BackfillConfig};
use crate::bus::{topics, BusConfig};
use crate::config::ModelConfig;
use crate::ingest::worker::{self, IngestConfig};
use crate::store::{self, Store, StoreConfig};

/// Settings of `fhir-rag bench ingest`.
#[derive(Clone, Debug, clap::Args)]
pub struct IngestBenchConfig {
    /// Kafka.
    #[command(flatten)]
    pub bus: BusConfig,
    /// Database server (a fresh database is created on it for the run).
    #[command(flatten)]
    pub store: StoreConfig,
    /// Embedding model.
    #[command(flatten)]
    pub model: ModelConfig,
    /// Synthea archive to ingest.
    #[arg(
        long,
        default_value = "../shared/data/synthea/blaze-synthea-2.7.0-120p"
    )]
    pub data: PathBuf,
    /// Publish at most this many bundles (default: all).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Folder of topic contracts.
    #[arg(long, default_value = "topics")]
    pub topics_dir: PathBuf,
    /// Where to write the figures.
    #[arg(long, default_value = "docs/results/bench-ingest.json")]
    pub output: PathBuf,
    /// Keep the benchmark's database afterwards.
    #[arg(long)]
    pub keep_database: bool,
}

/// The figures of one ingest benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct IngestBenchResult {
    /// When it ran (UTC).
    pub date: String,
    /// Cores the machine has.
    pub cores: usize,
    /// Embedding model and device.
    pub model: String,
    /// Device.
    pub device: String,
    /// Bundles published and ingested.
    pub bundles: u64,
    /// Patients in the store afterwards.
    pub patients: i64,
    /// Documents in the store afterwards.
    pub documents: i64,
    /// Embeddings (chunks) in the store afterwards.
    pub embeddings: i64,
    /// Facts (flattened resources).
    pub facts: i64,
    /// Tokens embedded.
    pub tokens: u64,
    /// Embedding batches run.
    pub batches: u64,
    /// Mean texts per batch.
    pub mean_batch_items: f64,
    /// Seconds to publish the archive.
    pub backfill_s: f64,
    /// Seconds to consume and store it.
    pub ingest_s: f64,
    /// Seconds the model was busy.
    pub model_busy_s: f64,
    /// End to end.
    pub total_s: f64,
    /// Bundles per second, end to end.
    pub bundles_per_s: f64,
    /// Documents per second, end to end.
    pub documents_per_s: f64,
    /// Tokens embedded per second, end to end.
    pub tokens_per_s: f64,
    /// Peak resident memory of the process, MiB.
    pub peak_rss_mb: f64,
}

/// Runs the ingest benchmark.
pub async fn ingest(config: &IngestBenchConfig) -> anyhow::Result<IngestBenchResult> {
    let run_id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let database = format!("fhir_rag_bench_{run_id}");
    let url = store::create_database(&config.store.database_url, &database).await?;
    let result = run_ingest(config, &run_id, &url).await;
    if !config.keep_database {
        store::drop_database(&config.store.database_url, &database).await?;
    }
    let result = result?;
    if let Some(dir) = config.output.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(
        &config.output,
        serde_json::to_string_pretty(&result)? + "\n",
    )?;
    Ok(result)
}

async fn run_ingest(
    config: &IngestBenchConfig,
    run_id: &str,
    url: &str,
) -> anyhow::Result<IngestBenchResult> {
    let store = Store::connect(&StoreConfig {
        database_url: url.to_string(),
        database_connections: config.store.database_connections,
    })
    .await?;
    store.migrate().await?;
    let embedder = config.model.start()?;
    store.ensure_embedding_model(embedder.info()).await?;
    let contracts = topics::load_contracts(&config.topics_dir)?;
    let suffix = format!(".bench-{run_id}");
    topics::apply(&config.bus, &contracts, 1, |name| format!("{name}{suffix}")).await?;

    let started = Instant::now();
    let backfill = backfill::run(
        &BackfillConfig {
            path: config.data.clone(),
            bundle_topic: format!("fhir.bundles{suffix}"),
            dlq_topic: format!("fhir.bundles.dlq{suffix}"),
            limit: config.limit,
            in_flight: 16,
            no_progress: true,
        },
        &config.bus,
    )
    .await?;
    let backfill_s = started.elapsed().as_secs_f64();
    let ingest_started = Instant::now();
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    let report = worker::run(
        &IngestConfig {
            group_id: format!("fhir-rag-bench-{run_id}"),
            bundle_topic: format!("fhir.bundles{suffix}"),
            dlq_topic: format!("fhir.bundles.dlq{suffix}"),
            max_bundle_bytes: 64 * 1024 * 1024,
            entry_parse_timeout_ms: 2000,
            retry_max_backoff_ms: 30_000,
            stop_after_idle_secs: None,
            stop_after_messages: Some(backfill.published),
        },
        &config.bus,
        &store,
        &embedder,
        shutdown,
    )
    .await?;
    let ingest_s = ingest_started.elapsed().as_secs_f64();
    let total_s = started.elapsed().as_secs_f64();
    let counts = store.counts().await?;
    let stats = embedder.stats();
    let batches = stats.batches.load(Ordering::Relaxed);
    let items = stats.items.load(Ordering::Relaxed);
    let tokens = report.store.tokens_embedded;
    Ok(IngestBenchResult {
        date: chrono::Utc::now().to_rfc3339(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        model: embedder.info().name.clone(),
        device: format!("{:?}", config.model.device).to_lowercase(),
        bundles: report.messages,
        patients: counts.patients,
        documents: counts.documents,
        embeddings: counts.embeddings,
        facts: counts.facts,
        tokens,
        batches,
        mean_batch_items: if batches > 0 {
            items as f64 / batches as f64
        } else {
            0.0
        },
        backfill_s,
        ingest_s,
        model_busy_s: stats.busy_micros.load(Ordering::Relaxed) as f64 / 1e6,
        total_s,
        bundles_per_s: report.messages as f64 / total_s,
        documents_per_s: counts.documents as f64 / total_s,
        tokens_per_s: tokens as f64 / total_s,
        peak_rss_mb: crate::telemetry::peak_rss_mb().unwrap_or(0.0),
    })
}
