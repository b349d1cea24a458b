//! The `fhir-rag-harness` binary: the evaluations and benchmarks. They run the service's roles
//! as its users do (Kafka topics, PostgreSQL, the answer engine) and write their figures under
//! `docs/results/`. None of this is in the service binary.

use clap::{Parser, Subcommand};
use fhir_rag::telemetry::{self, LogFormat};
use fhir_rag_harness::{bench, eval, overlap, scale};

/// mimalloc, as in the service: the embedder's benchmarks measure what the service does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// fhir-rag's evaluations and benchmarks (the service itself is `fhir-rag`).
#[derive(Debug, Parser)]
#[command(name = "fhir-rag-harness", version)]
struct Cli {
    /// Log format on stderr (level from RUST_LOG, default info).
    #[arg(
        long,
        env = "FHIR_RAG_LOG_FORMAT",
        value_enum,
        default_value = "text",
        global = true
    )]
    log_format: LogFormat,
    /// What to run.
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate retrieval, privacy and utility on the store (the thesis's tables).
    Eval {
        /// Which evaluation.
        #[command(subcommand)]
        which: eval::run::EvalCommand,
    },
    /// Benchmarks: print figures and write them under docs/results/.
    Bench {
        /// Which benchmark.
        #[command(subcommand)]
        which: BenchCommand,
    },
}

/// `fhir-rag-harness bench …`
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Backfill a Synthea archive through Kafka and ingest it into a fresh database, end to end.
    Ingest(bench::IngestBenchConfig),
    /// Load a few patients, then send usefulness questions and attack prompts through the answer
    /// worker with each backend; report latency percentiles and model calls per answer.
    Answer(bench::AnswerBenchConfig),
    /// The privacy guard over a vault of a million synthetic values: time per answer, memory.
    Guard(bench::GuardBenchConfig),
    /// The embedder against sentence-transformers on the same chunk texts of an archive,
    /// alternating rounds, the same threads: tokens per second and the vectors' agreement.
    Embed(bench::EmbedBenchConfig),
    /// A population grown from the archive, size by size (1k, 10k, 100k patients): ingest
    /// throughput, store bytes per patient, answer latency per question kind.
    Scale(scale::ScaleBenchConfig),
    /// The overlap control against a requester's history (10 to 5,000 remembered cohorts):
    /// looked up by part digests against every cohort compared in full.
    Overlap(overlap::OverlapBenchConfig),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    telemetry::init_logging(cli.log_format);
    telemetry::install_panic_hook();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(cli.command))
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Eval { which } => eval::run::run(which).await?,
        Command::Bench { which } => {
            let output = match which {
                BenchCommand::Ingest(config) => {
                    let result = bench::ingest(&config).await?;
                    println!("{}", serde_json::to_string_pretty(&result)?);
                    config.output
                }
                BenchCommand::Guard(config) => {
                    let result = bench::guard(&config).await?;
                    println!("{}", serde_json::to_string_pretty(&result)?);
                    config.output
                }
                BenchCommand::Embed(config) => {
                    let result = bench::embed(&config).await?;
                    println!("{}", serde_json::to_string_pretty(&result)?);
                    config.output
                }
                BenchCommand::Answer(config) => {
                    let result = bench::answer(&config).await?;
                    println!("{}", serde_json::to_string_pretty(&result)?);
                    config.output
                }
                BenchCommand::Overlap(config) => {
                    let result = overlap::overlap_bench(&config).await?;
                    println!("{}", serde_json::to_string_pretty(&result)?);
                    config.output
                }
                BenchCommand::Scale(config) => {
                    scale::scale(&config).await?;
                    config.output
                }
            };
            println!("written to {}", output.display());
        }
    }
    Ok(())
}
