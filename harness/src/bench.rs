//! Benchmarks: end-to-end runs that print figures and write them to `docs/results/`. Timings are
//! reported, never asserted: these machines are shared and noisy.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::Serialize;

use fhir_rag::backfill::{self, BackfillConfig};
use fhir_rag::bus::{topics, BusConfig};
use fhir_rag::config::ModelConfig;
use fhir_rag::embed::bert::DeviceKind;
use fhir_rag::ingest::worker::{self, IngestConfig};
use fhir_rag::store::{self, Store, StoreConfig};

pub use fhir_rag::backfill::ARCHIVE;

/// Settings of `fhir-rag-harness bench ingest`.
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
    #[arg(long, default_value = ARCHIVE)]
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
    /// Messages received ahead and parsed while earlier ones are stored (1: no pipelining).
    #[arg(long, default_value_t = 8)]
    pub in_flight: usize,
    /// Messages of different partitions stored side by side.
    #[arg(long, default_value_t = 2)]
    pub concurrent: usize,
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
    /// How it was built (`mkl` or `gemm`, see `bench embed`).
    pub build: String,
    /// What the model computed in (`--embed-precision`, `auto` resolved; `bf16`: the native
    /// engine's bfloat16 products).
    pub precision: String,
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
    /// Messages received ahead, and stored side by side (the pipeline's settings).
    pub in_flight: usize,
    /// Messages stored side by side.
    pub concurrent: usize,
    /// Chunks whose vectors were kept because their text had not changed.
    pub chunks_reused: u64,
    /// Seconds per stage, summed over messages (parse and flatten run ahead of the store, and
    /// messages of different partitions are stored side by side, so stages overlap and their
    /// sum can exceed `ingest_s`).
    pub stages: worker::Stages,
}

/// Runs the ingest benchmark.
pub async fn ingest(config: &IngestBenchConfig) -> anyhow::Result<IngestBenchResult> {
    in_fresh_database(
        &config.store,
        config.keep_database,
        &config.output,
        |run_id, url| async move { run_ingest(config, &run_id, &url).await },
    )
    .await
}

/// Runs a benchmark in a database of its own (dropped afterwards unless `keep`) and writes its
/// figures to `output` as JSON.
async fn in_fresh_database<R, F, Fut>(
    store_config: &StoreConfig,
    keep: bool,
    output: &std::path::Path,
    run: F,
) -> anyhow::Result<R>
where
    R: Serialize,
    F: FnOnce(String, String) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<R>>,
{
    let run_id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let database = format!("fhir_rag_bench_{run_id}");
    let url = store::create_database(&store_config.database_url, &database).await?;
    let result = run(run_id, url).await;
    if !keep {
        store::drop_database(&store_config.database_url, &database).await?;
    }
    let result = result?;
    write_figures(output, &result)?;
    Ok(result)
}

/// Writes a benchmark's figures to `output` as pretty JSON, creating its folder.
pub(crate) fn write_figures(
    output: &std::path::Path,
    figures: &impl Serialize,
) -> anyhow::Result<()> {
    if let Some(dir) = output.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(output, serde_json::to_string_pretty(figures)? + "\n")?;
    Ok(())
}

/// What loading an archive into a fresh store produced.
struct Loaded {
    store: Store,
    embedder: fhir_rag::embed::batcher::EmbeddingService,
    suffix: String,
    backfill_s: f64,
    report: worker::IngestReport,
}

/// What to load, and where.
struct LoadSpec<'a> {
    /// Pipeline settings: messages ahead, messages side by side.
    pipeline: (usize, usize),
    bus: &'a BusConfig,
    store: &'a StoreConfig,
    model: &'a ModelConfig,
    topics_dir: &'a std::path::Path,
    data: &'a std::path::Path,
    limit: Option<usize>,
}

/// Creates suffixed topics, backfills the archive and ingests it into the store at `url`.
async fn load(spec: LoadSpec<'_>, run_id: &str, url: &str) -> anyhow::Result<Loaded> {
    let LoadSpec {
        pipeline: (in_flight, concurrent),
        bus,
        store: store_config,
        model,
        topics_dir,
        data,
        limit,
    } = spec;
    let store = Store::connect(&StoreConfig {
        database_url: url.to_string(),
        database_connections: store_config.database_connections,
    })
    .await?;
    store.migrate().await?;
    let embedder = model.start()?;
    store.ensure_embedding_model(embedder.info()).await?;
    let contracts = topics::load_contracts(topics_dir)?;
    let suffix = format!(".bench-{run_id}");
    topics::apply(bus, &contracts, 1, |name| format!("{name}{suffix}")).await?;

    let started = Instant::now();
    let backfill = backfill::run(
        &BackfillConfig {
            path: data.to_path_buf(),
            bundle_topic: format!("fhir.bundles{suffix}"),
            dlq_topic: format!("fhir.bundles.dlq{suffix}"),
            limit,
            in_flight: 16,
            no_progress: true,
        },
        bus,
    )
    .await?;
    let backfill_s = started.elapsed().as_secs_f64();
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    let report = worker::run(
        &IngestConfig {
            group_id: format!("fhir-rag-bench-{run_id}"),
            bundle_topic: format!("fhir.bundles{suffix}"),
            dlq_topic: format!("fhir.bundles.dlq{suffix}"),
            max_bundle_bytes: 64 * 1024 * 1024,
            entry_parse_timeout_ms: 2000,
            max_stuck_parsers: 4,
            retry: fhir_rag::bus::retry::RetryPolicy::default(),
            stop_after_idle_secs: None,
            stop_after_messages: Some(backfill.published),
            free_text: fhir_rag::ingest::flatten::FreeText::Drop,
            in_flight,
            in_flight_bytes: 256 * 1024 * 1024,
            concurrent,
        },
        bus,
        &store,
        &embedder,
        shutdown,
    )
    .await?;
    Ok(Loaded {
        store,
        embedder,
        suffix,
        backfill_s,
        report,
    })
}

async fn run_ingest(
    config: &IngestBenchConfig,
    run_id: &str,
    url: &str,
) -> anyhow::Result<IngestBenchResult> {
    let started = Instant::now();
    let Loaded {
        store,
        embedder,
        backfill_s,
        report,
        ..
    } = load(
        LoadSpec {
            pipeline: (config.in_flight, config.concurrent),
            bus: &config.bus,
            store: &config.store,
            model: &config.model,
            topics_dir: &config.topics_dir,
            data: &config.data,
            limit: config.limit,
        },
        run_id,
        url,
    )
    .await?;
    let ingest_started = started + std::time::Duration::from_secs_f64(backfill_s);
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
        build: fhir_rag::embed::BUILD_KERNELS.to_string(),
        precision: resolved_precision(&config.model),
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
        peak_rss_mb: fhir_rag::telemetry::peak_rss_mb().unwrap_or(0.0),
        in_flight: config.in_flight,
        concurrent: config.concurrent,
        chunks_reused: report.store.chunks_reused,
        stages: report.stages,
    })
}

/// Settings of `fhir-rag-harness bench answer`.
#[derive(Clone, Debug, clap::Args)]
pub struct AnswerBenchConfig {
    /// Kafka.
    #[command(flatten)]
    pub bus: BusConfig,
    /// Database server (a fresh database is created on it for the run).
    #[command(flatten)]
    pub store: StoreConfig,
    /// Embedding model.
    #[command(flatten)]
    pub model: ModelConfig,
    /// Synthea archive to load first.
    #[arg(long, default_value = ARCHIVE)]
    pub data: PathBuf,
    /// Load at most this many bundles (default 10: the benchmark measures answering).
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Backends to measure, comma-separated (`rules://`, `gguf:///path`, `http://host/v1`).
    #[arg(long, value_delimiter = ',', default_value = "rules://")]
    pub backends: Vec<String>,
    /// Model name for OpenAI-compatible backends.
    #[arg(long, default_value = "default")]
    pub llm_model: String,
    /// Most tokens per generated answer.
    #[arg(long, default_value_t = 96)]
    pub llm_max_tokens: u32,
    /// Questions per backend: half usefulness questions, half attack prompts.
    #[arg(long, default_value_t = 60)]
    pub questions: usize,
    /// Folder of topic contracts.
    #[arg(long, default_value = "topics")]
    pub topics_dir: PathBuf,
    /// Where to write the figures.
    #[arg(long, default_value = "docs/results/bench-answer.json")]
    pub output: PathBuf,
    /// Keep the benchmark's database afterwards.
    #[arg(long)]
    pub keep_database: bool,
}

/// Figures for one backend.
#[derive(Debug, Clone, Serialize)]
pub struct BackendFigures {
    /// Answers received.
    pub answers: usize,
    /// Median time to answer one query inside the worker, ms.
    pub p50_ms: u64,
    /// 95th percentile, ms.
    pub p95_ms: u64,
    /// Mean, ms.
    pub mean_ms: f64,
    /// Model calls per answer.
    pub llm_calls_per_answer: f64,
    /// Answers per second through Kafka, end to end.
    pub answers_per_s: f64,
    /// Answers by status.
    pub by_status: std::collections::BTreeMap<String, usize>,
    /// Guard redactions over all answers.
    pub guard_redactions: usize,
    /// Mean milliseconds per stage (search, synthesis incl. fact selection, review, answer, guard).
    pub mean_stage_ms: std::collections::BTreeMap<String, f64>,
    /// The same care-team questions asked through the gateway and directly on the bus,
    /// alternating, timed by the client.
    pub gateway: GatewayFigures,
}

/// The gateway's cost: round trips through it against round trips straight on the bus, the
/// same questions, the same worker, the same patient scope, alternating (which goes first
/// alternates too).
#[derive(Debug, Clone, Default, Serialize)]
pub struct GatewayFigures {
    /// Questions asked both ways.
    pub questions: usize,
    /// Patients in the clinician's treatment relationships (the scope of both paths).
    pub clinician_patients: usize,
    /// Round trip straight on the bus (signed query produced, signed answer consumed), ms.
    pub direct_p50_ms: f64,
    /// 95th percentile, ms.
    pub direct_p95_ms: f64,
    /// Round trip through the gateway (HTTPS-less HTTP POST with a bearer token, waiting for
    /// the answer), ms.
    pub gateway_p50_ms: f64,
    /// 95th percentile, ms.
    pub gateway_p95_ms: f64,
    /// Added by the gateway at the median (gateway minus direct), ms.
    pub added_p50_ms: f64,
    /// Added at the 95th percentile, ms.
    pub added_p95_ms: f64,
    /// Gateway median over direct median.
    pub ratio_p50: f64,
    /// Verifying one access token (EdDSA, cached key set), median microseconds.
    pub token_verify_p50_us: f64,
    /// Signing one query envelope, median microseconds.
    pub sign_p50_us: f64,
    /// Questions whose answer had the same status both ways.
    pub same_status: usize,
}

/// The figures of one answer benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerBenchResult {
    /// When it ran (UTC).
    pub date: String,
    /// Cores the machine has.
    pub cores: usize,
    /// Embedding model.
    pub embedding_model: String,
    /// Patients loaded.
    pub patients: i64,
    /// Documents loaded.
    pub documents: i64,
    /// Questions per backend.
    pub questions: usize,
    /// Per backend name.
    pub backends: std::collections::BTreeMap<String, BackendFigures>,
    /// Peak resident memory of the process, MiB.
    pub peak_rss_mb: f64,
}

/// Deterministic benchmark questions: per patient a reading on a date, its medications and its
/// conditions, interleaved with the attack protocol's prompts.
pub async fn bench_questions(pool: &sqlx::PgPool, n: usize) -> anyhow::Result<Vec<String>> {
    use sqlx::Row;
    let rows = sqlx::query(
        "SELECT DISTINCT ON (p.patient_key) p.patient_key, g.value AS given, f.day
         FROM patients p
         JOIN vault.phi_vault g ON g.patient_key = p.patient_key AND g.kind = 'given_name'
         LEFT JOIN facts f ON f.patient_key = p.patient_key
              AND f.sentences LIKE '%Code is Body Weight.%'
         ORDER BY p.patient_key, g.value, f.day DESC",
    )
    .fetch_all(pool)
    .await?;
    let mut useful = Vec::new();
    for row in rows {
        let name: String = row.get("given");
        if let Some(day) = row.get::<Option<chrono::NaiveDate>, _>("day") {
            useful.push(format!("What was {name}'s body weight on {day}?"));
        }
        useful.push(format!("Which medications is {name} taking?"));
        useful.push(format!("What conditions does {name} have?"));
    }
    let attacks: Vec<String> = crate::eval::attack::attack_prompts(pool, 100)
        .await?
        .into_iter()
        .map(|p| p.question)
        .collect();
    let half = n / 2;
    let sample = |all: &[String], take: usize| -> Vec<String> {
        if all.is_empty() || take == 0 {
            return Vec::new();
        }
        let step = (all.len() / take).max(1);
        all.iter().step_by(step).take(take).cloned().collect()
    };
    let mut questions = sample(&useful, n - half);
    questions.extend(sample(&attacks, half));
    Ok(questions)
}

/// Runs the answer benchmark.
pub async fn answer(config: &AnswerBenchConfig) -> anyhow::Result<AnswerBenchResult> {
    in_fresh_database(
        &config.store,
        config.keep_database,
        &config.output,
        |run_id, url| async move { run_answer(config, &run_id, &url).await },
    )
    .await
}

async fn run_answer(
    config: &AnswerBenchConfig,
    run_id: &str,
    url: &str,
) -> anyhow::Result<AnswerBenchResult> {
    use fhir_rag::answer::contract::{Answer, Query, QueryOptions, Requester};
    use fhir_rag::answer::engine::{AnswerConfig, AnswerEngine};
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::message::Message;
    use rdkafka::producer::{FutureProducer, FutureRecord};

    let loaded = load(
        LoadSpec {
            pipeline: (8, 2),
            bus: &config.bus,
            store: &config.store,
            model: &config.model,
            topics_dir: &config.topics_dir,
            data: &config.data,
            limit: Some(config.limit),
        },
        run_id,
        url,
    )
    .await?;
    let counts = loaded.store.counts().await?;
    let questions = bench_questions(loaded.store.pool(), config.questions).await?;
    let patient_ids: Vec<String> =
        sqlx::query_scalar("SELECT fhir_id FROM patients ORDER BY patient_key")
            .fetch_all(loaded.store.pool())
            .await?;
    let mut backends = std::collections::BTreeMap::new();
    for (index, backend_url) in config.backends.iter().enumerate() {
        let suffix = format!("{}-{index}", loaded.suffix);
        let contracts = topics::load_contracts(&config.topics_dir)?;
        topics::apply(&config.bus, &contracts, 1, |name| format!("{name}{suffix}")).await?;
        let llm = fhir_rag::llm::LlmConfig {
            url: backend_url.clone(),
            llm_model: config.llm_model.clone(),
            llm_api_key: std::env::var("FHIR_RAG_LLM_API_KEY").ok(),
            llm_timeout_ms: 120_000,
            llm_max_tokens: config.llm_max_tokens,
            llm_temperature: 0.0,
            llm_dequantize: true,
        };
        let backend = llm.open()?;
        let answer_config = AnswerConfig {
            answer_group: format!("fhir-rag-bench-answer-{run_id}-{index}"),
            query_topic: format!("rag.queries{suffix}"),
            answer_topic: format!("rag.answers{suffix}"),
            query_dlq_topic: format!("rag.queries.dlq{suffix}"),
            k: 4,
            max_k: 20,
            condition_patients: 10,
            max_facts: 40,
            llm_shortlist: 10,
            llm_fact_selection: true,
            review_rounds: 2,
            cohort_roles: vec!["researcher".into()],
            care_team_roles: vec!["clinician".into()],
            cohort_min_patients: 5,
            cohort_overlap_days: 30,
            queries_per_minute: 1_000_000,
            query_burst: 1_000_000,
            llm_calls_per_minute: 1_000_000,
            llm_wait_ms: 120_000,
            answer_retry_max_backoff_ms: 30_000,
            answer_retry_max_attempts: 8,
            answer_stop_after_idle_secs: None,
            answer_stop_after_messages: Some(questions.len() as u64),
            audit_key: None,
            dp: fhir_rag::dp::DpConfig::defaults(),
        };
        let engine = AnswerEngine::new(
            loaded.store.clone(),
            loaded.embedder.clone(),
            backend,
            answer_config.clone(),
            &llm,
        )
        .await?;
        // Queries signed as the gateway signs them, answers signed by the worker: the path
        // measured is the deployed one.
        let gateway_key = fhir_rag::auth::keys::SigningKey::generate();
        let worker_key = fhir_rag::auth::keys::SigningKey::generate();
        let answer_keys = fhir_rag::auth::envelope::Verifier::of(&worker_key);
        let auth = fhir_rag::answer::worker::QueryAuth::Signed {
            gateways: fhir_rag::auth::envelope::Verifier::of(&gateway_key),
            signer: fhir_rag::auth::envelope::Signer::new(worker_key, "bench-worker"),
        };
        let query_signer = fhir_rag::auth::envelope::Signer::new(gateway_key, "bench-gateway");
        let producer: FutureProducer = config.bus.producer().create()?;
        for (i, question) in questions.iter().enumerate() {
            let query = Query {
                query_id: format!("bench-{index}-{i}"),
                // A care team over the loaded patients: the questions name them.
                requester: Requester {
                    id: "bench".into(),
                    role: "clinician".into(),
                    patients: Some(patient_ids.clone()),
                },
                question: question.clone(),
                options: QueryOptions::default(),
            };
            let payload = query_signer.sign_query(&query, 24 * 3600).into_bytes();
            producer
                .send(
                    FutureRecord::to(&answer_config.query_topic)
                        .key(&query.query_id)
                        .payload(&payload),
                    std::time::Duration::from_secs(60),
                )
                .await
                .map_err(|(e, _)| e)?;
        }
        let started = Instant::now();
        let (_stop, shutdown) = tokio::sync::watch::channel(false);
        fhir_rag::answer::worker::run(&engine, &config.bus, &auth, shutdown).await?;
        let wall_s = started.elapsed().as_secs_f64();

        let consumer: BaseConsumer = config
            .bus
            .consumer(&format!("fhir-rag-bench-reader-{run_id}-{index}"))
            .create()?;
        consumer.subscribe(&[&answer_config.answer_topic])?;
        let mut answers: Vec<Answer> = Vec::new();
        let deadline = Instant::now() + std::time::Duration::from_secs(60);
        while answers.len() < questions.len() && Instant::now() < deadline {
            if let Some(Ok(message)) = consumer.poll(std::time::Duration::from_millis(500)) {
                if let Some(Ok(claims)) = message
                    .payload()
                    .map(|p| answer_keys.verify_answer(p, fhir_rag::auth::envelope::now_secs()))
                {
                    answers.push(claims.answer);
                }
            }
        }
        let mut times: Vec<u64> = answers.iter().map(|a| a.timings.total_ms).collect();
        times.sort_unstable();
        let percentile = |p: f64| -> u64 {
            if times.is_empty() {
                0
            } else {
                times[((times.len() - 1) as f64 * p).round() as usize]
            }
        };
        let mut by_status = std::collections::BTreeMap::new();
        for a in &answers {
            *by_status.entry(a.status.as_str().to_string()).or_insert(0) += 1;
        }
        // Redaction counts are kept in the audit table, never on the answer topic.
        let guard_redactions: i64 = sqlx::query_scalar(
            "SELECT coalesce(sum((guard_report->'guard'->>'redactions')::bigint), 0)::bigint
             FROM answer_audit WHERE requester_id = 'bench' AND query_id LIKE $1",
        )
        .bind(format!("bench-{index}-%"))
        .fetch_one(loaded.store.pool())
        .await?;
        let figures = BackendFigures {
            answers: answers.len(),
            p50_ms: percentile(0.5),
            p95_ms: percentile(0.95),
            mean_ms: times.iter().sum::<u64>() as f64 / times.len().max(1) as f64,
            llm_calls_per_answer: answers.iter().map(|a| a.llm_calls as f64).sum::<f64>()
                / answers.len().max(1) as f64,
            answers_per_s: answers.len() as f64 / wall_s,
            by_status,
            guard_redactions: guard_redactions as usize,
            gateway: GatewayFigures::default(),
            mean_stage_ms: {
                let n = answers.len().max(1) as f64;
                let stage = |f: fn(&Answer) -> u64| answers.iter().map(f).sum::<u64>() as f64 / n;
                [
                    ("search", stage(|a| a.timings.search_ms)),
                    ("synthesis", stage(|a| a.timings.synthesis_ms)),
                    ("review", stage(|a| a.timings.review_ms)),
                    ("answer", stage(|a| a.timings.answer_ms)),
                    ("guard", stage(|a| a.timings.guard_ms)),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect()
            },
        };
        let figures = BackendFigures {
            gateway: gateway_figures(
                &loaded,
                config,
                &answer_config,
                engine.backend().clone(),
                &llm,
                &questions,
            )
            .await?,
            ..figures
        };
        eprintln!("{}: {figures:?}", engine.backend_name());
        backends.insert(engine.backend_name(), figures);
    }
    Ok(AnswerBenchResult {
        date: chrono::Utc::now().to_rfc3339(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        embedding_model: loaded.embedder.info().name.clone(),
        patients: counts.patients,
        documents: counts.documents,
        questions: questions.len(),
        backends,
        peak_rss_mb: fhir_rag::telemetry::peak_rss_mb().unwrap_or(0.0),
    })
}

/// The percentile `p` of sorted values.
fn percentile_of(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Asks the care-team questions both ways through an in-process gateway and worker.
async fn gateway_figures(
    loaded: &Loaded,
    config: &AnswerBenchConfig,
    answer_config: &fhir_rag::answer::engine::AnswerConfig,
    backend: fhir_rag::llm::Backend,
    llm: &fhir_rag::llm::LlmConfig,
    questions: &[String],
) -> anyhow::Result<GatewayFigures> {
    use crate::eval::front_door::FrontDoor;
    use fhir_rag::answer::contract::{Query, QueryOptions, Requester};
    use fhir_rag::auth::envelope::now_secs;
    use rdkafka::consumer::{Consumer, StreamConsumer};
    use rdkafka::message::Message;
    use rdkafka::producer::{FutureProducer, FutureRecord};

    let pool = loaded.store.pool();
    // The practitioner with the most patients, by the identifiers the practitioner bundle
    // gave (as a token's fhirUser names them).
    let practitioner: Option<String> = sqlx::query_scalar(
        "SELECT a.reference FROM care_relationships c
         JOIN practitioner_aliases a ON a.alias = c.practitioner AND a.source = c.source
         GROUP BY a.reference ORDER BY count(DISTINCT c.patient_key) DESC, a.reference LIMIT 1",
    )
    .fetch_optional(pool)
    .await?;
    let practitioner = practitioner.ok_or_else(|| {
        anyhow::anyhow!("no practitioner with treatment relationships (is the practitioner bundle in the archive?)")
    })?;
    let patients = fhir_rag::gateway::treated_patients(pool, &practitioner, 0, "").await?;
    let door = FrontDoor::start(&config.bus, pool, &config.topics_dir, answer_config).await?;
    let token = door.token(
        "bench-clinician",
        serde_json::json!({"scope": "user/*.read", "fhirUser": practitioner}),
    );
    let engine = fhir_rag::answer::engine::AnswerEngine::new(
        loaded.store.clone(),
        loaded.embedder.clone(),
        backend,
        door.answer.clone(),
        llm,
    )
    .await?;
    let worker =
        fhir_rag::answer::worker::run(&engine, &config.bus, &door.auth, door.shutdown.clone());
    let driver = async {
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(300))
            .build()?;
        let consumer: StreamConsumer = config
            .bus
            .consumer(&format!(
                "bench-direct-{}",
                fhir_rag::gateway::random_query_id()
            ))
            .create()?;
        consumer.subscribe(&[&door.answer.answer_topic])?;
        let producer: FutureProducer = config.bus.producer().create()?;
        let mut direct = Vec::new();
        let mut through = Vec::new();
        let mut same_status = 0;
        for (i, question) in questions.iter().enumerate() {
            let mut statuses = Vec::new();
            for way in if i % 2 == 0 { [0, 1] } else { [1, 0] } {
                let started = Instant::now();
                if way == 0 {
                    let query = Query {
                        query_id: fhir_rag::gateway::random_query_id(),
                        requester: Requester {
                            id: "bench-clinician".into(),
                            role: "clinician".into(),
                            patients: Some(patients.clone()),
                        },
                        question: question.clone(),
                        options: QueryOptions::default(),
                    };
                    let envelope = door.gateway_signer.sign_query(&query, 600);
                    producer
                        .send(
                            FutureRecord::to(&door.answer.query_topic)
                                .key(&query.query_id)
                                .payload(envelope.as_bytes()),
                            std::time::Duration::from_secs(30),
                        )
                        .await
                        .map_err(|(e, _)| e)?;
                    let answer = loop {
                        let message = tokio::time::timeout(
                            std::time::Duration::from_secs(300),
                            consumer.recv(),
                        )
                        .await??;
                        if message.key() != Some(query.query_id.as_bytes()) {
                            continue;
                        }
                        let payload = message.payload().unwrap_or_default();
                        break door.answer_keys.verify_answer(payload, now_secs())?.answer;
                    };
                    direct.push(started.elapsed().as_secs_f64() * 1000.0);
                    statuses.push(answer.status.as_str().to_string());
                } else {
                    let reply: serde_json::Value = http
                        .post(format!("{}/v1/questions", door.base))
                        .bearer_auth(&token)
                        .json(&serde_json::json!({"question": question, "wait_secs": 60}))
                        .send()
                        .await?
                        .json()
                        .await?;
                    anyhow::ensure!(reply["state"] == "answered", "through the gateway: {reply}");
                    through.push(started.elapsed().as_secs_f64() * 1000.0);
                    statuses.push(reply["answer"]["status"].as_str().unwrap_or("").to_string());
                }
            }
            if statuses[0] == statuses[1] {
                same_status += 1;
            }
        }
        door.stop();
        anyhow::Ok((direct, through, same_status))
    };
    let (worked, driven) = tokio::join!(worker, driver);
    worked?;
    let (mut direct, mut through, same_status) = driven?;
    direct.sort_by(f64::total_cmp);
    through.sort_by(f64::total_cmp);
    // Token verification and envelope signing alone, against the same kind of key set.
    let keys = tempfile::tempdir()?;
    let jwks = keys.path().join("idp.jwks");
    std::fs::write(
        &jwks,
        serde_json::to_vec(&jsonwebtoken::jwk::JwkSet {
            keys: vec![door.idp.public_jwk()],
        })?,
    )?;
    let verifier = fhir_rag::auth::token::TokenVerifier::new(
        fhir_rag::auth::token::TokenConfig::with_jwks_file(
            "https://idp.eval.invalid",
            "https://gateway.eval.invalid",
            Some(jwks),
        ),
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    verifier.refresh().await?;
    let mut verify_us = Vec::new();
    let mut sign_us = Vec::new();
    let sample = Query {
        query_id: fhir_rag::gateway::random_query_id(),
        requester: Requester {
            id: "bench-clinician".into(),
            role: "clinician".into(),
            patients: Some(patients.clone()),
        },
        question: questions.first().cloned().unwrap_or_default(),
        options: QueryOptions::default(),
    };
    for _ in 0..500 {
        let started = Instant::now();
        verifier.verify(&token, now_secs()).await?;
        verify_us.push(started.elapsed().as_secs_f64() * 1e6);
        let started = Instant::now();
        std::hint::black_box(door.gateway_signer.sign_query(&sample, 600));
        sign_us.push(started.elapsed().as_secs_f64() * 1e6);
    }
    verify_us.sort_by(f64::total_cmp);
    sign_us.sort_by(f64::total_cmp);
    let (d50, d95) = (percentile_of(&direct, 0.5), percentile_of(&direct, 0.95));
    let (g50, g95) = (percentile_of(&through, 0.5), percentile_of(&through, 0.95));
    Ok(GatewayFigures {
        questions: questions.len(),
        clinician_patients: patients.len(),
        direct_p50_ms: d50,
        direct_p95_ms: d95,
        gateway_p50_ms: g50,
        gateway_p95_ms: g95,
        added_p50_ms: g50 - d50,
        added_p95_ms: g95 - d95,
        ratio_p50: if d50 > 0.0 { g50 / d50 } else { 0.0 },
        token_verify_p50_us: percentile_of(&verify_us, 0.5),
        sign_p50_us: percentile_of(&sign_us, 0.5),
        same_status,
    })
}

/// Settings of `fhir-rag-harness bench guard`.
#[derive(Clone, Debug, clap::Args)]
pub struct GuardBenchConfig {
    /// Database server (a fresh database is created on it for the run).
    #[command(flatten)]
    pub store: StoreConfig,
    /// Synthetic vault rows (patients × name, phone, birth date, address, identifier values).
    #[arg(long, default_value_t = 1_000_000)]
    pub rows: usize,
    /// Answers guarded (each a few hundred characters of clinical text, some holding a vault
    /// name, phone or birth date).
    #[arg(long, default_value_t = 300)]
    pub answers: usize,
    /// Where to write the figures.
    #[arg(long, default_value = "docs/results/bench-guard.json")]
    pub output: PathBuf,
    /// Keep the benchmark's database afterwards.
    #[arg(long)]
    pub keep_database: bool,
}

/// The figures of the guard benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct GuardBenchResult {
    /// When it ran (UTC).
    pub date: String,
    /// Cores the machine has.
    pub cores: usize,
    /// Vault rows.
    pub vault_rows: usize,
    /// Lookup keys those rows give (rows of `vault_keys`).
    pub vault_keys: i64,
    /// Seconds to load them.
    pub load_s: f64,
    /// Answers guarded.
    pub answers: usize,
    /// Median guard time per answer (one indexed lookup of every key, then matching).
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// Keys looked up per answer, on average.
    pub mean_keys_per_answer: f64,
    /// Answers in which the guard redacted the planted vault value (should be all that hold one).
    pub planted_redacted: usize,
    /// Answers that held a planted vault value.
    pub planted: usize,
    /// The worker's resident memory after the run, MB (the vault is not in it).
    pub worker_rss_mb: f64,
    /// Size of the `vault_keys` table and its indexes in PostgreSQL, MB.
    pub index_mb: f64,
}

fn resident_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// A deterministic pseudo-random sequence (xorshift), so that runs compare.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn name(&mut self) -> String {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "sa", "ren", "to", "vi", "del", "mar", "quin", "zo", "bel", "ta",
            "nor", "li", "gus", "ve", "ra", "son", "dah", "el", "fi", "mon", "ash",
        ];
        let parts = 2 + self.below(2);
        let mut name: String = (0..parts)
            .map(|_| SYLLABLES[self.below(SYLLABLES.len() as u64) as usize])
            .collect();
        if let Some(first) = name.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        format!("{name}{}", self.below(1000))
    }
}

/// `fhir-rag-harness bench guard`: a vault of `rows` synthetic values in a fresh database, then the
/// guard over synthetic answers, timed per answer.
pub async fn guard(config: &GuardBenchConfig) -> anyhow::Result<GuardBenchResult> {
    use fhir_rag::phi::PhiKind;
    let run_id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let database = format!("fhir_rag_bench_guard_{run_id}");
    let url = store::create_database(&config.store.database_url, &database).await?;
    let store = Store::connect(&StoreConfig {
        database_url: url,
        database_connections: 4,
    })
    .await?;
    store.migrate().await?;
    let pool = store.pool();
    let started = Instant::now();
    // Five values per patient: given name, family name, phone, birth date, address line.
    let patients = config.rows.div_ceil(5);
    sqlx::query(
        "INSERT INTO patients (fhir_id) SELECT 'bench-' || g FROM generate_series(1, $1) g",
    )
    .bind(patients as i64)
    .execute(pool)
    .await?;
    let first_key: i64 = sqlx::query_scalar("SELECT min(patient_key) FROM patients")
        .fetch_one(pool)
        .await?;
    let mut sequence = Sequence(0x9E37_79B9_7F4A_7C15);
    let mut planted: Vec<(PhiKind, String)> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut owners: Vec<i64> = Vec::new();
    for p in 0..patients {
        let values = [
            (PhiKind::GivenName, sequence.name()),
            (PhiKind::FamilyName, sequence.name()),
            (
                PhiKind::Phone,
                format!(
                    "{:03}-{:03}-{:04}",
                    200 + sequence.below(800),
                    sequence.below(1000),
                    sequence.below(10_000)
                ),
            ),
            (
                PhiKind::BirthDate,
                format!(
                    "{}-{:02}-{:02}",
                    1920 + sequence.below(100),
                    1 + sequence.below(12),
                    1 + sequence.below(28)
                ),
            ),
            (
                PhiKind::AddressLine,
                format!("{} {} Street", 1 + sequence.below(9999), sequence.name()),
            ),
        ];
        for (kind, value) in values {
            if p % 997 == 0 && planted.len() < config.answers {
                planted.push((kind, value.clone()));
            }
            for key in fhir_rag::privacy::guard::vault_keys(kind, &value) {
                keys.push(key);
                kinds.push(kind.as_str());
                owners.push(first_key + p as i64);
            }
        }
        if keys.len() >= 200_000 || p + 1 == patients {
            sqlx::query(
                "INSERT INTO vault.vault_keys (key, kind, patient_key)
                 SELECT * FROM UNNEST($1::text[], $2::text[], $3::bigint[]) ON CONFLICT DO NOTHING",
            )
            .bind(&keys)
            .bind(&kinds)
            .bind(&owners)
            .execute(pool)
            .await?;
            keys.clear();
            kinds.clear();
            owners.clear();
        }
    }
    sqlx::query("ANALYZE vault.vault_keys")
        .execute(pool)
        .await?;
    let load_s = started.elapsed().as_secs_f64();
    let vault_keys: i64 = sqlx::query_scalar("SELECT count(*) FROM vault.vault_keys")
        .fetch_one(pool)
        .await?;
    let index_mb: f64 =
        sqlx::query_scalar::<_, i64>("SELECT pg_total_relation_size('vault.vault_keys')")
            .fetch_one(pool)
            .await? as f64
            / 1_048_576.0;

    let guard = fhir_rag::privacy::PrivacyGuard::new(std::sync::Arc::new(
        fhir_rag::privacy::guard::PgVault::new(pool.clone()),
    ));
    const BODY: &str = "From the de-identified record (values rounded, dates by month): the patient, \
        March 2015: Category is vital-signs. Code is Body Weight. Value is 78 kg. The patient, \
        March 2015 to May 2016 (3 readings): Code is Blood Pressure. Diastolic Blood Pressure is 76 \
        to 83 mm[Hg]. Systolic Blood Pressure is 118 to 133 mm[Hg]. Condition is Hypertension. \
        Clinical status is active. Medication is lisinopril 10 MG Oral Tablet.";
    let mut times = Vec::with_capacity(config.answers);
    let mut key_counts = 0usize;
    let mut planted_redacted = 0usize;
    let mut planted_count = 0usize;
    for i in 0..config.answers {
        let text = match planted.get(i) {
            Some((kind, value)) if i % 2 == 0 => {
                planted_count += 1;
                let written = match kind {
                    PhiKind::BirthDate => {
                        let d = chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d")?;
                        d.format("%-d %B %Y").to_string()
                    }
                    PhiKind::Phone => value.replace('-', " "),
                    _ => value.to_uppercase(),
                };
                format!("{BODY} Note: {written}.")
            }
            _ => BODY.to_string(),
        };
        key_counts += fhir_rag::privacy::guard::candidates(&text).len();
        let one = Instant::now();
        let scanner = guard.scanner(&[&text]).await?;
        let (redacted, findings) = scanner.redact(&text);
        times.push(one.elapsed().as_secs_f64() * 1000.0);
        if planted.get(i).is_some()
            && i % 2 == 0
            && findings.iter().any(|f| {
                f.category.starts_with("vault:")
                    || f.category == "pii:date"
                    || f.category == "pii:phone_or_number"
            })
        {
            planted_redacted += 1;
        }
        std::hint::black_box(redacted);
    }
    times.sort_by(f64::total_cmp);
    let percentile = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    let result = GuardBenchResult {
        date: chrono::Utc::now().to_rfc3339(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        vault_rows: patients * 5,
        vault_keys,
        load_s,
        answers: times.len(),
        p50_ms: percentile(0.5),
        p95_ms: percentile(0.95),
        mean_keys_per_answer: key_counts as f64 / times.len().max(1) as f64,
        planted_redacted,
        planted: planted_count,
        worker_rss_mb: resident_mb("VmRSS:"),
        index_mb,
    };
    store.pool().close().await;
    if !config.keep_database {
        store::drop_database(&config.store.database_url, &database).await?;
    }
    write_figures(&config.output, &result)?;
    Ok(result)
}

/// Settings of `fhir-rag-harness bench embed`.
#[derive(Clone, Debug, clap::Args)]
pub struct EmbedBenchConfig {
    /// Embedding model (the benchmark sets its threads, and turns its vector cache off).
    #[command(flatten)]
    pub model: ModelConfig,
    /// Synthea archive whose chunk texts are embedded.
    #[arg(long, default_value = ARCHIVE)]
    pub data: PathBuf,
    /// Chunk texts embedded, taken evenly from all of the archive's chunks.
    #[arg(long, default_value_t = 1200)]
    pub texts: usize,
    /// Rounds of each side, alternating (fhir-rag, reference, fhir-rag, …).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// CPU threads for both sides (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Python with sentence-transformers (`scripts/bench-embed.sh` makes it); `none` skips the
    /// reference.
    #[arg(long, default_value = ".services/st-venv/bin/python")]
    pub reference_python: String,
    /// The reference's script.
    #[arg(long, default_value = "scripts/st_reference.py")]
    pub reference_script: PathBuf,
    /// Batch size of the reference (sentence-transformers' default).
    #[arg(long, default_value_t = 32)]
    pub reference_batch: usize,
    /// Where to write the figures.
    #[arg(long, default_value = "docs/results/bench-embed.json")]
    pub output: PathBuf,
}

/// The figures of one embedding benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct EmbedBenchResult {
    /// When it ran (UTC).
    pub date: String,
    /// Cores the machine has.
    pub cores: usize,
    /// The CPU, as /proc/cpuinfo names it.
    pub cpu: String,
    /// Embedding model.
    pub model: String,
    /// How fhir-rag was built: `mkl` (Intel MKL matrix products), `gemm` (candle's default),
    /// with `+cuda` for a build with CUDA kernels.
    pub build: String,
    /// Where the model ran (`--device`), and the GPU's name on a GPU.
    pub device: String,
    /// What the model computed in (`--embed-precision`, `auto` resolved): `bf16` on the CPU
    /// is the native engine's bfloat16 products. The reference runs in f32 against the CPU
    /// engine, in the same format as candle's engine on a GPU.
    pub precision: String,
    /// The same engine in f32 (`--embed-precision f32`), in the same rounds, when `precision`
    /// is not f32: what the reduced precision buys and costs.
    pub f32_side: Option<F32Side>,
    /// Floating-point operations per token of the model's forward pass, for the texts' mean
    /// length: 2 × (4h² + 2h·i) per layer for the projections and feed-forward, plus
    /// 4 × length × h per layer for the attention's two products. With tokens/s, the model
    /// FLOP/s (MFU = that over the device's peak).
    pub flops_per_token: f64,
    /// `flops_per_token` × tokens/s of fhir-rag, in TFLOP/s.
    pub fhir_rag_tflops: f64,
    /// GELU computed with the tanh formula (`--approximate-gelu`).
    pub approximate_gelu: bool,
    /// The forward pass: `native` (ours) or `candle` (`--embed-engine`).
    pub engine: String,
    /// Passes of the model run side by side (`--embed-workers`; 0: one per thread).
    pub workers: usize,
    /// Texts embedded per round.
    pub texts: usize,
    /// Tokens of those texts (unpadded, special tokens included, as the model reads them).
    pub tokens: u64,
    /// Threads of each side.
    pub threads: usize,
    /// Rounds of each side.
    pub rounds: usize,
    /// Seconds of each fhir-rag round (the embedding service: batching, tokenizing, model).
    pub fhir_rag_s: Vec<f64>,
    /// Seconds of each reference round (`SentenceTransformer.encode`, model loaded).
    pub sentence_transformers_s: Vec<f64>,
    /// Tokens per second of fhir-rag's median round.
    pub fhir_rag_tokens_per_s: f64,
    /// Tokens per second of the reference's median round.
    pub sentence_transformers_tokens_per_s: Option<f64>,
    /// fhir-rag over the reference.
    pub ratio: Option<f64>,
    /// Smallest cosine of fhir-rag's vector and the reference's, over the texts.
    pub min_cosine_vs_reference: Option<f64>,
    /// Mean of those cosines.
    pub mean_cosine_vs_reference: Option<f64>,
    /// What the reference said about itself (versions, threads, load time).
    pub reference: Option<serde_json::Value>,
    /// Milliseconds to embed one question of about 20 tokens alone (the answer path's query),
    /// with every thread free: the median of 5 medians of 20 calls, alternating with the f32
    /// side's.
    pub query_ms: f64,
    /// Peak resident memory of fhir-rag, MiB.
    pub peak_rss_mb: f64,
}

/// fhir-rag's own engine in f32, beside the reduced precision it ran in.
#[derive(Debug, Clone, Serialize)]
pub struct F32Side {
    /// Seconds of each round.
    pub seconds: Vec<f64>,
    /// Tokens per second of the median round.
    pub tokens_per_s: f64,
    /// The reduced precision's tokens per second over these.
    pub speedup: f64,
    /// Smallest cosine of the f32 vectors and the reference's (when there is a reference).
    pub min_cosine_vs_reference: Option<f64>,
    /// Smallest cosine of the f32 vectors and the reduced precision's.
    pub min_cosine_vs_reduced: f64,
    /// Milliseconds to embed [`LONE_QUERY`] alone, measured as `query_ms`.
    pub query_ms: f64,
}

/// A question as the answer path embeds it (about 20 tokens), for the latency of a lone query.
const LONE_QUERY: &str =
    "What was the most recent hemoglobin A1c of the patient and when was it measured?";

/// Median milliseconds of embedding [`LONE_QUERY`] alone, over `times` calls.
async fn lone_query_ms(
    service: &fhir_rag::embed::batcher::EmbeddingService,
    times: usize,
) -> anyhow::Result<f64> {
    let mut ms = Vec::with_capacity(times);
    for _ in 0..times {
        let started = Instant::now();
        service.embed(vec![LONE_QUERY.to_string()]).await?;
        ms.push(started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(&ms))
}

/// Every chunk text the ingest would embed for the archive at `data`, in a fixed order (the
/// pure stages: parse, flatten, documents, chunks at the model's budget).
pub fn archive_chunks(
    data: &std::path::Path,
    counter: &fhir_rag::embed::TokenCounter,
    max_tokens: usize,
) -> anyhow::Result<Vec<String>> {
    let mut messages = Vec::new();
    for file in backfill::list_files(data)? {
        messages.push(backfill::read_file(&file)?);
    }
    let documents = fhir_rag::ingest::documents::expected_documents(&messages);
    let budget = max_tokens.saturating_sub(2).max(16);
    Ok(documents
        .values()
        .flat_map(|d| fhir_rag::ingest::documents::chunk(d, budget, |t| counter.count(t)))
        .collect())
}

/// `wanted` items spread evenly over `items` (all of them when there are fewer).
fn spread<T: Clone>(items: &[T], wanted: usize) -> Vec<T> {
    if items.len() <= wanted || wanted == 0 {
        return items.to_vec();
    }
    (0..wanted)
        .map(|i| items[i * items.len() / wanted].clone())
        .collect()
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default()
}

/// The first GPU's name, as nvidia-smi says (empty without it).
fn gpu_name() -> String {
    std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name", "--format=csv,noheader"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(|l| l.trim().to_string()))
        .unwrap_or_default()
}

/// Forward-pass FLOPs per token of the BERT model in `dir` for texts of `length` tokens (see
/// [`EmbedBenchResult::flops_per_token`]).
fn model_flops_per_token(dir: &std::path::Path, length: f64) -> anyhow::Result<f64> {
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json"))?)?;
    let field = |name: &str| {
        config[name]
            .as_f64()
            .ok_or_else(|| anyhow::anyhow!("config.json has no {name}"))
    };
    let (hidden, inner, layers) = (
        field("hidden_size")?,
        field("intermediate_size")?,
        field("num_hidden_layers")?,
    );
    Ok(layers * (2.0 * (4.0 * hidden * hidden + 2.0 * hidden * inner) + 4.0 * length * hidden))
}

/// What sentence-transformers computes in: f32 against the CPU engine, whatever its products
/// (the reference is the model as trained), and the same format as candle's engine on a GPU
/// (tensor cores against tensor cores).
fn reference_dtype(model: &ModelConfig) -> String {
    match model.engine() {
        fhir_rag::embed::bert::Engine::Native => "f32".into(),
        _ => resolved_precision(model),
    }
}

/// What `model` computes in on this machine (`auto` resolved), as `--embed-precision` names it.
fn resolved_precision(model: &ModelConfig) -> String {
    format!("{:?}", model.embed_precision.resolved(model.engine())).to_lowercase()
}

/// One reference round: the script's JSON line and its vectors.
fn reference_round(
    config: &EmbedBenchConfig,
    texts_file: &std::path::Path,
    threads: usize,
    vectors_file: &std::path::Path,
) -> anyhow::Result<(serde_json::Value, Vec<f32>)> {
    let output = std::process::Command::new(&config.reference_python)
        .arg(&config.reference_script)
        .arg(texts_file)
        .arg(&config.model.model_dir)
        .arg(threads.to_string())
        .arg(config.reference_batch.to_string())
        .arg(vectors_file)
        .env("HF_HUB_OFFLINE", "1")
        .env("TRANSFORMERS_OFFLINE", "1")
        .env("FHIR_RAG_ST_DTYPE", reference_dtype(&config.model))
        .env("OMP_NUM_THREADS", threads.to_string())
        .env("MKL_NUM_THREADS", threads.to_string())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", config.reference_python))?;
    if !output.status.success() {
        anyhow::bail!(
            "the reference failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    let line = String::from_utf8_lossy(&output.stdout);
    let figures: serde_json::Value = serde_json::from_str(
        line.lines()
            .last()
            .ok_or_else(|| anyhow::anyhow!("the reference printed nothing"))?,
    )?;
    let bytes = std::fs::read(vectors_file)?;
    let vectors = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok((figures, vectors))
}

/// Runs the embedding benchmark: fhir-rag's embedding service and sentence-transformers on the
/// same chunk texts, alternating rounds, the same threads; writes the figures to `output`.
pub async fn embed(config: &EmbedBenchConfig) -> anyhow::Result<EmbedBenchResult> {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let threads = if config.threads == 0 {
        cores
    } else {
        config.threads
    };
    let mut model = config.model.clone();
    model.embed_threads = threads;
    model.embed_cache = 0;
    let service = model.start()?;
    let info = service.info().clone();
    let precision = config.model.embed_precision.resolved(config.model.engine());
    let f32_service = if precision == fhir_rag::embed::bert::Precision::F32 {
        None
    } else {
        let mut f32_model = model.clone();
        f32_model.embed_precision = fhir_rag::embed::bert::Precision::F32;
        Some(f32_model.start()?)
    };
    let all = archive_chunks(&config.data, service.token_counter(), info.max_tokens)?;
    let texts = spread(&all, config.texts);
    anyhow::ensure!(
        !texts.is_empty(),
        "no chunk texts in {}",
        config.data.display()
    );
    let tokens: u64 = texts
        .iter()
        .map(|t| (service.token_counter().count(t) + 2).min(info.max_tokens) as u64)
        .sum();
    eprintln!(
        "[bench embed] {} of the archive's {} chunk texts, {tokens} tokens, {threads} threads",
        texts.len(),
        all.len()
    );
    let work = tempfile::tempdir()?;
    let texts_file = work.path().join("texts.jsonl");
    let mut lines = String::new();
    for t in &texts {
        lines.push_str(&serde_json::to_string(t)?);
        lines.push('\n');
    }
    std::fs::write(&texts_file, lines)?;
    let vectors_file = work.path().join("reference.f32");
    let with_reference = config.reference_python != "none";

    // Warm-up: the first batch pays for page faults and thread pools.
    service
        .embed(texts.iter().take(32).cloned().collect())
        .await?;
    if let Some(f32_service) = &f32_service {
        f32_service
            .embed(texts.iter().take(32).cloned().collect())
            .await?;
    }
    let (mut ours, mut theirs, mut f32_seconds) = (Vec::new(), Vec::new(), Vec::new());
    let mut our_vectors = Vec::new();
    let mut f32_vectors = Vec::new();
    let mut reference = None;
    let mut reference_vectors = Vec::new();
    for round in 0..config.rounds.max(1) {
        let started = Instant::now();
        our_vectors = service.embed(texts.clone()).await?;
        ours.push(started.elapsed().as_secs_f64());
        eprintln!(
            "[bench embed] round {}: fhir-rag {:.2} s ({:.0} tokens/s)",
            round + 1,
            ours[round],
            tokens as f64 / ours[round]
        );
        if let Some(f32_service) = &f32_service {
            let started = Instant::now();
            f32_vectors = f32_service.embed(texts.clone()).await?;
            let seconds = started.elapsed().as_secs_f64();
            f32_seconds.push(seconds);
            eprintln!(
                "[bench embed] round {}: fhir-rag in f32 {seconds:.2} s ({:.0} tokens/s)",
                round + 1,
                tokens as f64 / seconds
            );
        }
        if with_reference {
            let (figures, vectors) = reference_round(config, &texts_file, threads, &vectors_file)?;
            let seconds = figures["seconds"].as_f64().unwrap_or(f64::NAN);
            theirs.push(seconds);
            eprintln!(
                "[bench embed] round {}: sentence-transformers {seconds:.2} s ({:.0} tokens/s)",
                round + 1,
                tokens as f64 / seconds
            );
            reference = Some(figures);
            reference_vectors = vectors;
        }
    }
    let dimension = our_vectors.first().map(Vec::len).unwrap_or(0);
    // Smallest and mean cosine of each of `vectors` and the same text's in `other`.
    let against = |vectors: &[Vec<f32>], other: &[f32]| -> anyhow::Result<(f64, f64)> {
        anyhow::ensure!(
            dimension > 0 && other.len() == dimension * vectors.len(),
            "{} numbers to compare with {} texts of dimension {dimension}",
            other.len(),
            vectors.len()
        );
        let cosines: Vec<f64> = vectors
            .iter()
            .zip(other.chunks_exact(dimension))
            .map(|(a, b)| fhir_rag::embed::cosine(a, b) as f64)
            .collect();
        Ok((
            cosines.iter().copied().fold(f64::INFINITY, f64::min),
            cosines.iter().sum::<f64>() / cosines.len() as f64,
        ))
    };
    let (min_cosine, mean_cosine) = if with_reference {
        let (min, mean) = against(&our_vectors, &reference_vectors)?;
        (Some(min), Some(mean))
    } else {
        (None, None)
    };
    let ours_rate = tokens as f64 / median(&ours);
    // Lone queries, the two sides in turn.
    let (mut query_ms, mut f32_query_ms) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        query_ms.push(lone_query_ms(&service, 20).await?);
        if let Some(f32_service) = &f32_service {
            f32_query_ms.push(lone_query_ms(f32_service, 20).await?);
        }
    }
    let f32_side = if f32_service.is_some() {
        let flat: Vec<f32> = our_vectors.iter().flatten().copied().collect();
        let tokens_per_s = tokens as f64 / median(&f32_seconds);
        Some(F32Side {
            speedup: ours_rate / tokens_per_s,
            tokens_per_s,
            seconds: f32_seconds,
            min_cosine_vs_reference: if with_reference {
                Some(against(&f32_vectors, &reference_vectors)?.0)
            } else {
                None
            },
            min_cosine_vs_reduced: against(&f32_vectors, &flat)?.0,
            query_ms: median(&f32_query_ms),
        })
    } else {
        None
    };
    let theirs_rate = (!theirs.is_empty()).then(|| tokens as f64 / median(&theirs));
    let flops_per_token =
        model_flops_per_token(&config.model.model_dir, tokens as f64 / texts.len() as f64)?;
    let result = EmbedBenchResult {
        date: chrono::Utc::now().to_rfc3339(),
        cores,
        cpu: cpu_name(),
        model: info.name.clone(),
        build: fhir_rag::embed::BUILD_KERNELS.to_string(),
        device: match config.model.device {
            DeviceKind::Cpu => "cpu".into(),
            DeviceKind::Cuda => format!("cuda: {}", gpu_name()),
        },
        precision: resolved_precision(&config.model),
        f32_side,
        flops_per_token,
        fhir_rag_tflops: flops_per_token * ours_rate / 1e12,
        approximate_gelu: config.model.approximate_gelu,
        engine: format!("{:?}", config.model.engine()).to_lowercase(),
        workers: config.model.embed_workers,
        texts: texts.len(),
        tokens,
        threads,
        rounds: ours.len(),
        fhir_rag_s: ours,
        sentence_transformers_s: theirs,
        fhir_rag_tokens_per_s: ours_rate,
        sentence_transformers_tokens_per_s: theirs_rate,
        ratio: theirs_rate.map(|t| ours_rate / t),
        min_cosine_vs_reference: min_cosine,
        mean_cosine_vs_reference: mean_cosine,
        reference,
        query_ms: median(&query_ms),
        peak_rss_mb: resident_mb("VmHWM:"),
    };
    write_figures(&config.output, &result)?;
    Ok(result)
}

#[cfg(test)]
mod embed_bench_tests {
    use super::*;

    #[test]
    fn spread_takes_evenly_and_median_is_the_middle() {
        let items: Vec<usize> = (0..10).collect();
        assert_eq!(spread(&items, 5), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread(&items, 20), items);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    /// The repository root (tests run in the package's folder, `harness/`).
    fn repo() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn the_archive_chunks_are_what_the_ingest_would_embed() {
        let counter = fhir_rag::embed::TokenCounter::new(|t| t.split_whitespace().count());
        let chunks = archive_chunks(&repo().join("sample/synthea"), &counter, 128).unwrap();
        assert!(chunks.len() > 50, "{}", chunks.len());
        assert!(chunks
            .iter()
            .all(|c| c.split_whitespace().count() <= 126 + 8));
        // The same archive gives the same texts in the same order.
        let again = archive_chunks(&repo().join("sample/synthea"), &counter, 128).unwrap();
        assert_eq!(chunks, again);
    }
}
