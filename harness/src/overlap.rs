//! `fhir-rag-harness bench overlap`: the cost of the overlap control against a requester's
//! history. One requester's remembered cohorts are looked up through their part digests
//! (migration 0021); the same cohorts remembered as before it (no parts) are compared in full,
//! one set difference each, which is what the control did before. Both are the service's own
//! [`overlap`] on the same database, asked the same fresh cohorts, alternating.

use std::path::PathBuf;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use serde::Serialize;

use fhir_rag::answer::cohort::{overlap, part_digests, AskedCohort};
use fhir_rag::store::{self, Store, StoreConfig};

/// `fhir-rag-harness bench overlap`
#[derive(Debug, Clone, clap::Args)]
pub struct OverlapBenchConfig {
    /// Database server (a fresh database is created on it for the run).
    #[command(flatten)]
    pub store: StoreConfig,
    /// Cohorts remembered for the requester, one run per size.
    #[arg(long, value_delimiter = ',', default_values_t = [10usize, 100, 1_000, 5_000])]
    pub history: Vec<usize>,
    /// Patients of each cohort (all within k of each other: none is left out by its size).
    #[arg(long, default_value_t = 500)]
    pub cohort: usize,
    /// k, the fewest patients an answer may describe.
    #[arg(long, default_value_t = 5)]
    pub k: usize,
    /// Fresh cohorts asked at each size, of each kind of history.
    #[arg(long, default_value_t = 15)]
    pub asks: usize,
    /// Where to write the figures.
    #[arg(long, default_value = "docs/results/bench-overlap.json")]
    pub output: PathBuf,
    /// Keep the benchmark's database afterwards.
    #[arg(long)]
    pub keep_database: bool,
}

/// The figures at one history size.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapSize {
    /// Cohorts remembered.
    pub history: usize,
    /// Median and slowest ms of one control, looked up by part digests.
    pub indexed_p50_ms: f64,
    pub indexed_max_ms: f64,
    /// Median and slowest ms of one control, every remembered cohort compared in full.
    pub full_p50_ms: f64,
    pub full_max_ms: f64,
    /// full_p50_ms / indexed_p50_ms.
    pub ratio: f64,
}

/// The figures of the overlap benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapBenchResult {
    /// When it ran (UTC).
    pub date: String,
    /// Cores the machine has.
    pub cores: usize,
    /// Patients per cohort.
    pub cohort: usize,
    /// k.
    pub k: usize,
    /// Controls timed per size and kind.
    pub asks: usize,
    /// One entry per history size.
    pub sizes: Vec<OverlapSize>,
}

fn median_and_max(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms.last().copied().unwrap_or_default())
}

/// A random cohort of `size` patients out of 100,000.
fn cohort(rng: &mut rand_chacha::ChaCha8Rng, size: usize) -> Vec<i64> {
    let mut keys = std::collections::BTreeSet::new();
    while keys.len() < size {
        keys.insert(rng.random_range(1..100_000i64));
    }
    keys.into_iter().collect()
}

/// Remembers `count` random cohorts for `requester`, with their part digests or (`parted`
/// false) as rows from before migration 0021.
async fn remember(
    pool: &sqlx::PgPool,
    requester: &str,
    count: usize,
    config: &OverlapBenchConfig,
    parted: bool,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> anyhow::Result<()> {
    for i in 0..count {
        let patients = cohort(rng, config.cohort + i % config.k);
        // Any distinct digest: the control compares it only for equality.
        let digest = format!("{requester} {i}").into_bytes();
        let mut tx = pool.begin().await?;
        sqlx::query(
            "INSERT INTO cohort_history (requester_id, condition, size, patients, digest, parts)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(requester)
        .bind(format!("condition {i}"))
        .bind(patients.len() as i32)
        .bind(&patients)
        .bind(&digest)
        .bind(parted.then_some(config.k as i16))
        .execute(&mut *tx)
        .await?;
        if parted {
            sqlx::query(
                "INSERT INTO cohort_history_parts (requester_id, digest, part_digest)
                 SELECT $1, $2, unnest($3::bytea[])",
            )
            .bind(requester)
            .bind(&digest)
            .bind(part_digests(b'p', &patients, config.k))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
    }
    Ok(())
}

/// Runs the benchmark in two fresh databases (one per kind of history, so that the planner of
/// each sees only its own rows, as a deployment would after the migration) and writes its
/// figures.
pub async fn overlap_bench(config: &OverlapBenchConfig) -> anyhow::Result<OverlapBenchResult> {
    let run_id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let databases = [
        format!("fhir_rag_bench_overlap_{run_id}"),
        format!("fhir_rag_bench_overlap_full_{run_id}"),
    ];
    let mut urls = Vec::new();
    for database in &databases {
        urls.push(store::create_database(&config.store.database_url, database).await?);
    }
    let result = run(config, &urls[0], &urls[1]).await;
    if !config.keep_database {
        for database in &databases {
            store::drop_database(&config.store.database_url, database).await?;
        }
    }
    let result = result?;
    crate::bench::write_figures(&config.output, &result)?;
    Ok(result)
}

async fn connect(url: &str) -> anyhow::Result<Store> {
    let store = Store::connect(&StoreConfig {
        database_url: url.to_string(),
        database_connections: 2,
    })
    .await?;
    store.migrate().await?;
    Ok(store)
}

async fn run(
    config: &OverlapBenchConfig,
    indexed_url: &str,
    full_url: &str,
) -> anyhow::Result<OverlapBenchResult> {
    anyhow::ensure!(config.k >= 2 && config.asks > 0, "k of 2 or more, and asks");
    let (indexed_store, full_store) = (connect(indexed_url).await?, connect(full_url).await?);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(28);
    let mut sizes = Vec::new();
    for &history in &config.history {
        let requester = format!("requester-{history}");
        remember(
            indexed_store.pool(),
            &requester,
            history,
            config,
            true,
            &mut rng,
        )
        .await?;
        remember(
            full_store.pool(),
            &requester,
            history,
            config,
            false,
            &mut rng,
        )
        .await?;
        for store in [&indexed_store, &full_store] {
            sqlx::query("ANALYZE cohort_history, cohort_history_parts")
                .execute(store.pool())
                .await?;
        }
        let (mut indexed_ms, mut full_ms) = (Vec::new(), Vec::new());
        for ask in 0..config.asks {
            let patients = cohort(&mut rng, config.cohort);
            // Alternating which goes first, so that neither always meets a warm cache.
            let order = if ask % 2 == 0 {
                [(&indexed_store, true), (&full_store, false)]
            } else {
                [(&full_store, false), (&indexed_store, true)]
            };
            for (store, is_indexed) in order {
                let asked = AskedCohort {
                    requester: requester.clone(),
                    list: None,
                    condition: "asked",
                    patients: &patients,
                };
                let started = Instant::now();
                let refused = overlap(store.pool(), &asked, config.k, 30).await?;
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                anyhow::ensure!(!refused, "a random cohort was refused");
                if is_indexed {
                    indexed_ms.push(ms);
                } else {
                    full_ms.push(ms);
                }
            }
        }
        let (indexed_p50_ms, indexed_max_ms) = median_and_max(indexed_ms);
        let (full_p50_ms, full_max_ms) = median_and_max(full_ms);
        let size = OverlapSize {
            history,
            indexed_p50_ms,
            indexed_max_ms,
            full_p50_ms,
            full_max_ms,
            ratio: full_p50_ms / indexed_p50_ms.max(1e-9),
        };
        eprintln!("[bench overlap] {size:?}");
        sizes.push(size);
    }
    Ok(OverlapBenchResult {
        date: chrono::Utc::now().to_rfc3339(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cohort: config.cohort,
        k: config.k,
        asks: config.asks,
        sizes,
    })
}
