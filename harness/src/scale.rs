//! `fhir-rag-harness bench scale`: the cost curve from a thousand patients up, on a population grown
//! from the archive ([`fhir_rag::generate`]). One store grows size by size: each step ingests the
//! patients it adds through the ingest path's own functions (parse, flatten, store with the
//! embedder; the broker is left out, its cost is `bench ingest`'s), then measures the store's
//! bytes and the answer engine's latency per question kind. Figures only, never asserted.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use fhir_rag::answer::contract::{Mode, Query, QueryOptions, Requester};
use fhir_rag::answer::engine::{AnswerConfig, AnswerEngine};
use fhir_rag::config::ModelConfig;
use fhir_rag::embed::batcher::EmbeddingService;
use fhir_rag::generate::Population;
use fhir_rag::ingest::flatten::{flatten_parsed, FreeText};
use fhir_rag::ingest::parse::{parse_message, ParseLimits};
use fhir_rag::store::{Store, StoreConfig};

/// Settings of `fhir-rag-harness bench scale`.
#[derive(Clone, Debug, clap::Args)]
pub struct ScaleBenchConfig {
    /// Database server (a fresh database is created on it for the run).
    #[command(flatten)]
    pub store: StoreConfig,
    /// Embedding model (`--embedder hashed` for sizes the real model cannot reach on a CPU).
    #[command(flatten)]
    pub model: ModelConfig,
    /// The archive the population is grown from.
    #[arg(long, default_value = fhir_rag::backfill::ARCHIVE)]
    pub data: PathBuf,
    /// Patients at each measured size, ascending.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    pub sizes: Vec<u64>,
    /// Seed of the population.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Questions of each kind at each size.
    #[arg(long, default_value_t = 30)]
    pub questions: usize,
    /// Where to write the figures (rewritten after each size).
    #[arg(long, default_value = "docs/results/bench-scale.json")]
    pub output: PathBuf,
    /// Keep the benchmark's database afterwards.
    #[arg(long)]
    pub keep_database: bool,
    /// Go on in a database an earlier run kept (`--keep-database`, same `--seed`): its patients
    /// count as ingested, a size equal to what it holds is measured again without ingest (its
    /// ingest figures carried from `--ingest-from`), the sizes `--output` holds that this run
    /// does not measure are kept (each with its own date), and the database is kept.
    #[arg(long, value_name = "DATABASE")]
    pub resume: Option<String>,
    /// Where a resumed run finds the ingest figures of a size it measures again (default:
    /// `--output`).
    #[arg(long, requires = "resume")]
    pub ingest_from: Option<PathBuf>,
}

/// Latency of one question kind.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Latency {
    /// Questions asked.
    pub questions: usize,
    /// Median, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// Answers by status.
    pub by_status: std::collections::BTreeMap<String, usize>,
    /// Each question's slowest answer, ms, slowest first (where the time goes).
    #[serde(default)]
    pub slowest: Vec<(String, f64)>,
}

/// Figures at one size.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SizeFigures {
    /// When the answers and the store were measured (UTC).
    #[serde(default)]
    pub measured: Option<String>,
    /// Patients in the store.
    pub patients: i64,
    /// Documents, embeddings (chunks) and facts in the store.
    pub documents: i64,
    /// Chunks with a vector.
    pub embeddings: i64,
    /// Flattened resources.
    pub facts: i64,
    /// Patients added at this step, one pipeline at a time: patients per second.
    pub ingest_patients_per_s_one: Option<f64>,
    /// The same with two pipelines side by side (two workers' worth of work).
    pub ingest_patients_per_s_two: Option<f64>,
    /// Seconds to add this step's patients.
    pub ingest_s: Option<f64>,
    /// When the ingest figures were taken (a resumed run carries them from the run that ingested).
    #[serde(default)]
    pub ingest_measured: Option<String>,
    /// Database bytes (tables, indexes, vectors) per patient.
    pub store_bytes_per_patient: f64,
    /// Database bytes, all.
    pub store_bytes: i64,
    /// Bytes by table (with its indexes and TOAST).
    pub table_bytes: std::collections::BTreeMap<String, i64>,
    /// Care-team questions (a clinician about one listed patient).
    pub care_team: Latency,
    /// Cohort counts and medians (a researcher).
    pub cohort: Latency,
    /// DP aggregates (a researcher, mode `dp`).
    pub dp: Latency,
    /// Peak resident memory of the process, MiB.
    pub peak_rss_mb: f64,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct ScaleBenchResult {
    /// When it ran (UTC).
    pub date: String,
    /// Cores the machine has.
    pub cores: usize,
    /// Embedding model.
    pub embedding_model: String,
    /// Seed of the population.
    pub seed: u64,
    /// Template patients it was grown from.
    pub templates: usize,
    /// How ingest was driven.
    pub ingest_path: &'static str,
    /// One entry per size reached.
    pub sizes: Vec<SizeFigures>,
}

/// Runs the benchmark, writing the figures after each size.
pub async fn scale(config: &ScaleBenchConfig) -> anyhow::Result<ScaleBenchResult> {
    if let Some(database) = &config.resume {
        let url = fhir_rag::store::with_database(&config.store.database_url, database);
        return run(config, &url).await;
    }
    let run_id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let database = format!("fhir_rag_bench_{run_id}");
    let url = fhir_rag::store::create_database(&config.store.database_url, &database).await?;
    let result = run(config, &url).await;
    if !config.keep_database {
        fhir_rag::store::drop_database(&config.store.database_url, &database).await?;
    }
    result
}

async fn run(config: &ScaleBenchConfig, url: &str) -> anyhow::Result<ScaleBenchResult> {
    let store = Store::connect(&StoreConfig {
        database_url: url.to_string(),
        database_connections: config.store.database_connections.max(4),
    })
    .await?;
    store.migrate().await?;
    let embedder = config.model.start()?;
    store.ensure_embedding_model(embedder.info()).await?;
    let population = Population::from_archive(&config.data, config.seed)?;
    let mut have = 0u64;
    if config.resume.is_some() {
        have = store.counts().await?.patients.try_into()?;
    } else {
        for bundle in population.shared() {
            ingest_one(&store, &embedder, bundle.clone()).await?;
        }
    }
    let earlier = earlier_sizes(config.ingest_from.as_ref().unwrap_or(&config.output));
    let mut result = ScaleBenchResult {
        date: chrono::Utc::now().to_rfc3339(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        embedding_model: embedder.info().name.clone(),
        seed: config.seed,
        templates: population.templates(),
        ingest_path:
            "in process: generate, parse_message, flatten_parsed, Store::apply (no broker)",
        sizes: Vec::new(),
    };
    for &size in &config.sizes {
        if size == have && config.resume.is_some() {
            let mut figures = measure(config, &store, &embedder, None, size).await?;
            if let Some(carried) = earlier.iter().find(|e| e.patients == figures.patients) {
                figures.ingest_patients_per_s_one = carried.ingest_patients_per_s_one;
                figures.ingest_patients_per_s_two = carried.ingest_patients_per_s_two;
                figures.ingest_s = carried.ingest_s;
                figures.ingest_measured = carried.ingest_measured.clone();
            }
            report(&figures);
            result.sizes.push(figures);
            write(config, &result)?;
            continue;
        }
        anyhow::ensure!(
            size > have,
            "--sizes must ascend past the patients already stored"
        );
        let half = have + (size - have) / 2;
        let one_n = half - have;
        let started = Instant::now();
        ingest_range(&store, &embedder, &population, have..half, 1).await?;
        let one_s = started.elapsed().as_secs_f64();
        let started = Instant::now();
        ingest_range(&store, &embedder, &population, half..size, 2).await?;
        let two_s = started.elapsed().as_secs_f64();
        have = size;
        sqlx::query("ANALYZE").execute(store.pool()).await?;
        let figures = measure(
            config,
            &store,
            &embedder,
            Some(((one_n, one_s), (size - half, two_s))),
            size,
        )
        .await?;
        report(&figures);
        result.sizes.push(figures);
        write(config, &result)?;
    }
    Ok(result)
}

/// Writes the figures; a resumed run keeps the sizes `--output` holds that it did not measure.
fn write(config: &ScaleBenchConfig, result: &ScaleBenchResult) -> anyhow::Result<()> {
    let mut written = result.clone();
    if config.resume.is_some() {
        for size in earlier_sizes(&config.output) {
            if !written.sizes.iter().any(|s| s.patients == size.patients) {
                written.sizes.push(size);
            }
        }
        written.sizes.sort_by_key(|s| s.patients);
    }
    crate::bench::write_figures(&config.output, &written)
}

fn report(figures: &SizeFigures) {
    println!(
        "{} patients: ingest {:.1} / {:.1} patients/s (one / two pipelines), {:.0} KB per patient, care team p95 {:.0} ms, cohort p95 {:.0} ms, dp p95 {:.0} ms",
        figures.patients,
        figures.ingest_patients_per_s_one.unwrap_or(f64::NAN),
        figures.ingest_patients_per_s_two.unwrap_or(f64::NAN),
        figures.store_bytes_per_patient / 1024.0,
        figures.care_team.p95_ms,
        figures.cohort.p95_ms,
        figures.dp.p95_ms
    );
}

/// The sizes of an earlier run's figures (none when the file is missing or unreadable); each
/// without its own dates takes the run's.
fn earlier_sizes(path: &std::path::Path) -> Vec<SizeFigures> {
    #[derive(Deserialize)]
    struct Earlier {
        date: String,
        sizes: Vec<SizeFigures>,
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let Ok(earlier) = serde_json::from_str::<Earlier>(&text) else {
        return Vec::new();
    };
    earlier
        .sizes
        .into_iter()
        .map(|mut size| {
            size.measured.get_or_insert_with(|| earlier.date.clone());
            if size.ingest_patients_per_s_one.is_some() {
                size.ingest_measured
                    .get_or_insert_with(|| earlier.date.clone());
            }
            size
        })
        .collect()
}

/// Patients and seconds of a step's ingest: by one pipeline, then by two.
type IngestTimes = ((u64, f64), (u64, f64));

/// One bundle through the ingest path's functions.
async fn ingest_one(
    store: &Store,
    embedder: &EmbeddingService,
    bytes: Vec<u8>,
) -> anyhow::Result<()> {
    let flattened = tokio::task::spawn_blocking(move || {
        parse_message(&bytes, ParseLimits::default())
            .map(|parsed| flatten_parsed(&parsed, FreeText::Drop))
    })
    .await??;
    store.apply(&flattened, embedder).await?;
    Ok(())
}

/// Patients `range`, by `pipelines` pipelines side by side (patient k to pipeline k mod n).
async fn ingest_range(
    store: &Store,
    embedder: &EmbeddingService,
    population: &Population,
    range: std::ops::Range<u64>,
    pipelines: u64,
) -> anyhow::Result<()> {
    let lanes = (0..pipelines).map(|lane| {
        let range = range.clone();
        async move {
            for k in range.filter(|k| k % pipelines == lane) {
                let bytes = serde_json::to_vec(&population.patient(k))?;
                ingest_one(store, embedder, bytes).await?;
            }
            anyhow::Ok(())
        }
    });
    futures::future::try_join_all(lanes).await?;
    Ok(())
}

async fn measure(
    config: &ScaleBenchConfig,
    store: &Store,
    embedder: &EmbeddingService,
    ingest: Option<IngestTimes>,
    size: u64,
) -> anyhow::Result<SizeFigures> {
    let counts = store.counts().await?;
    let store_bytes: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
        .fetch_one(store.pool())
        .await?;
    let tables: Vec<(String, i64)> = sqlx::query_as(
        "SELECT n.nspname || '.' || c.relname, pg_total_relation_size(c.oid)
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relkind = 'r' AND n.nspname IN ('public', 'vault')
         ORDER BY 2 DESC LIMIT 12",
    )
    .fetch_all(store.pool())
    .await?;
    let engine = engine(store, embedder).await?;
    // Query ids (and so requester ids) new to the store, also when a run resumes one: a
    // repeated DP query id is a replay, refused by the ledger.
    let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S");
    let patients: Vec<String> =
        sqlx::query_scalar("SELECT fhir_id FROM patients ORDER BY md5(fhir_id) LIMIT $1")
            .bind(config.questions as i64)
            .fetch_all(store.pool())
            .await?;
    let care_questions = [
        "What medications is the patient taking?",
        "What is the patient's latest body weight?",
        "Which conditions does the patient have?",
    ];
    let mut care = Vec::new();
    for (i, patient) in patients.iter().enumerate() {
        let question = care_questions[i % care_questions.len()];
        care.push(query(
            format!("scale-care-{stamp}-{size}-{i}"),
            "clinician",
            Some(vec![patient.clone()]),
            question,
            Mode::Synthetic,
        ));
    }
    let cohort_questions = [
        "How many patients have hypertension?",
        "What is the median age of patients with diabetes?",
        "How many patients have asthma?",
        "What is the median age of patients with hypertension?",
        "How many women have prediabetes?",
        "How many patients have had COVID-19?",
        "What is the median body weight of patients with diabetes?",
        "What are the most common medications of patients with hypertension?",
        "How many patients have both diabetes and hypertension?",
        "How many patients received an influenza vaccine in 2019?",
        "What is the median systolic blood pressure of patients with hypertension?",
        "How many patients have an allergy?",
    ];
    let cohort: Vec<Query> = (0..config.questions)
        .map(|i| {
            query(
                format!("scale-cohort-{stamp}-{size}-{i}"),
                "researcher",
                None,
                cohort_questions[i % cohort_questions.len()],
                Mode::Synthetic,
            )
        })
        .collect();
    let dp: Vec<Query> = (0..config.questions)
        .map(|i| {
            query(
                format!("scale-dp-{stamp}-{size}-{i}"),
                "researcher",
                None,
                cohort_questions[i % cohort_questions.len()],
                Mode::Dp,
            )
        })
        .collect();
    let patients_now = counts.patients.max(1) as f64;
    let ingest_rate = |pick: fn(&IngestTimes) -> (u64, f64)| {
        ingest
            .as_ref()
            .map(pick)
            .map(|(n, s)| n as f64 / s.max(1e-9))
    };
    Ok(SizeFigures {
        measured: Some(chrono::Utc::now().to_rfc3339()),
        patients: counts.patients,
        documents: counts.documents,
        embeddings: counts.embeddings,
        facts: counts.facts,
        ingest_patients_per_s_one: ingest_rate(|i| i.0),
        ingest_patients_per_s_two: ingest_rate(|i| i.1),
        ingest_s: ingest.map(|((_, one_s), (_, two_s))| one_s + two_s),
        ingest_measured: ingest.map(|_| chrono::Utc::now().to_rfc3339()),
        store_bytes_per_patient: store_bytes as f64 / patients_now,
        store_bytes,
        table_bytes: tables.into_iter().collect(),
        care_team: timed(&engine, &care).await,
        cohort: timed(&engine, &cohort).await,
        dp: timed(&engine, &dp).await,
        peak_rss_mb: fhir_rag::telemetry::peak_rss_mb().unwrap_or(0.0),
    })
}

/// The answer engine as a worker runs it with its default settings (rules backend), without
/// rate limits and without recording (each question is measured alone).
async fn engine(store: &Store, embedder: &EmbeddingService) -> anyhow::Result<AnswerEngine> {
    #[derive(clap::Parser)]
    struct Defaults {
        #[command(flatten)]
        answer: AnswerConfig,
    }
    let mut answer = <Defaults as clap::Parser>::try_parse_from(["fhir-rag"])?.answer;
    answer.queries_per_minute = u32::MAX / 2;
    answer.query_burst = u32::MAX / 2;
    answer.llm_calls_per_minute = u32::MAX / 2;
    let llm = fhir_rag::llm::LlmConfig {
        url: "rules://".into(),
        llm_model: "default".into(),
        llm_api_key: None,
        llm_timeout_ms: 120_000,
        llm_max_tokens: 96,
        llm_temperature: 0.0,
        llm_dequantize: true,
    };
    let backend = llm.open()?;
    Ok(
        AnswerEngine::new(store.clone(), embedder.clone(), backend, answer, &llm)
            .await?
            .dry_run(),
    )
}

fn query(
    id: String,
    role: &str,
    patients: Option<Vec<String>>,
    question: &str,
    mode: Mode,
) -> Query {
    Query {
        // Each its own requester: DP budgets and the overlap control are per requester.
        requester: Requester {
            id: format!("bench-{id}"),
            role: role.into(),
            patients,
        },
        query_id: id,
        question: question.into(),
        options: QueryOptions {
            mode,
            ..QueryOptions::default()
        },
    }
}

async fn timed(engine: &AnswerEngine, queries: &[Query]) -> Latency {
    let mut ms = Vec::new();
    let mut by_status = std::collections::BTreeMap::new();
    let mut slowest: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    for q in queries {
        let started = Instant::now();
        let status = match engine.answer(q).await {
            Ok(sealed) => format!("{:?}", sealed.into_parts().0.status).to_lowercase(),
            Err(e) => format!("error: {e}"),
        };
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        ms.push(elapsed);
        *by_status.entry(status).or_insert(0) += 1;
        let worst = slowest.entry(q.question.clone()).or_default();
        *worst = worst.max(elapsed);
    }
    let mut slowest: Vec<(String, f64)> = slowest.into_iter().collect();
    slowest.sort_by(|a, b| b.1.total_cmp(&a.1));
    ms.sort_by(f64::total_cmp);
    let pick = |p: f64| {
        if ms.is_empty() {
            0.0
        } else {
            ms[((ms.len() - 1) as f64 * p).round() as usize]
        }
    };
    Latency {
        questions: ms.len(),
        p50_ms: pick(0.5),
        p95_ms: pick(0.95),
        by_status,
        slowest,
    }
}
