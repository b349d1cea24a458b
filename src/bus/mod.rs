//! Kafka: client settings shared by every role, the topic contracts of `topics/`, and the
//! dead-letter publisher.

pub mod consume;
pub mod retry;
pub mod topics;

use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};

/// A `--kafka-option`: `key=value` with a non-empty key, or an error that says so (an option
/// silently dropped would leave a client without the security setting it was meant to have).
fn kafka_option(text: &str) -> Result<String, String> {
    let text = text.trim();
    match text.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() => Ok(text.to_string()),
        _ => Err(format!(
            "a Kafka option is key=value (e.g. security.protocol=ssl); got {:?}",
            text.split('=').next().unwrap_or("")
        )),
    }
}

/// The largest response (and decompressed message set) a consumer takes: 256 MiB.
pub const RECEIVE_MAX_BYTES: usize = 256 * 1024 * 1024;

/// Where the bus is and how clients behave on it.
#[derive(Clone, clap::Args)]
pub struct BusConfig {
    /// Kafka bootstrap servers, comma-separated.
    #[arg(
        long = "brokers",
        env = "FHIR_RAG_KAFKA_BROKERS",
        default_value = "127.0.0.1:19092"
    )]
    pub brokers: String,
    /// Largest message the clients send or accept, in bytes. Synthea bundles reach 11 MB
    /// uncompressed; keep this at or below the topics' `max_message_bytes` (topics/*.json).
    #[arg(long, env = "FHIR_RAG_MAX_MESSAGE_BYTES", default_value_t = 32 * 1024 * 1024)]
    pub max_message_bytes: usize,
    /// Consumer group session timeout in milliseconds (a dead worker's partitions move after it).
    #[arg(long, env = "FHIR_RAG_SESSION_TIMEOUT_MS", default_value_t = 10_000)]
    pub session_timeout_ms: u32,
    /// Extra librdkafka settings, `key=value`, repeatable (e.g. `security.protocol=ssl`); they
    /// override the defaults the roles set (`linger.ms`, `fetch.wait.max.ms`, …). A value may
    /// hold commas (`ssl.cipher.suites`); in the environment variable, settings are separated
    /// by `;`. Values may be secrets (`sasl.password`): never shown in `--help`.
    #[arg(
        long = "kafka-option",
        env = "FHIR_RAG_KAFKA_OPTIONS",
        value_delimiter = ';',
        hide_env_values = true,
        value_parser = kafka_option
    )]
    pub kafka_options: Vec<String>,
    /// The consume loop's watchdog and poll interval.
    #[command(flatten)]
    pub watchdog: consume::WatchdogConfig,
}

/// Whether a librdkafka setting's value is a secret (a password, a private key, a JAAS line
/// or an OAuth client secret): never printed.
fn secret_setting(key: &str) -> bool {
    let key = key.trim().to_ascii_lowercase();
    [
        "password",
        "secret",
        "jaas",
        ".pem",
        "token",
        "key.location",
    ]
    .iter()
    .any(|s| key.contains(s))
}

impl std::fmt::Debug for BusConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let options: Vec<String> = self
            .kafka_options
            .iter()
            .map(|o| match o.split_once('=') {
                Some((key, _)) if secret_setting(key) => format!("{}=[redacted]", key.trim()),
                _ => o.clone(),
            })
            .collect();
        f.debug_struct("BusConfig")
            .field("brokers", &self.brokers)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("session_timeout_ms", &self.session_timeout_ms)
            .field("kafka_options", &options)
            .field("watchdog", &self.watchdog)
            .finish()
    }
}

impl BusConfig {
    fn base(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config.set("bootstrap.servers", &self.brokers);
        config
    }

    /// The user's `--kafka-option`s, set last so that they override the defaults here.
    fn with_options(&self, mut config: ClientConfig) -> ClientConfig {
        for option in &self.kafka_options {
            if let Some((key, value)) = option.split_once('=') {
                config.set(key.trim(), value.trim());
            }
        }
        config
    }

    /// Producer settings: idempotent, all replicas acknowledge, zstd, large messages allowed.
    pub fn producer(&self) -> ClientConfig {
        let mut config = self.base();
        config
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("compression.type", "zstd")
            .set("linger.ms", "20")
            .set("message.max.bytes", self.max_message_bytes.to_string())
            .set("message.timeout.ms", "120000");
        self.with_options(config)
    }

    /// Consumer settings: manual commits only, start at the earliest offset of a new group,
    /// fetch sizes large enough for the biggest bundle.
    pub fn consumer(&self, group_id: &str) -> ClientConfig {
        let fetch = self.max_message_bytes.max(1024 * 1024);
        let mut config = self.base();
        config
            .set("group.id", group_id)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set("session.timeout.ms", self.session_timeout_ms.to_string())
            .set(
                "heartbeat.interval.ms",
                (self.session_timeout_ms / 6).max(100).to_string(),
            )
            .set("max.partition.fetch.bytes", fetch.to_string())
            .set("fetch.max.bytes", (fetch * 2).to_string())
            // Also the most a compressed message set may decompress to: librdkafka grows its
            // buffer by thirds up to this when the frame does not say its size, so a bundle the
            // ingest worker accepts (--max-bundle-bytes, 64 MiB) needs about three times that. A
            // small compressed message that decompresses past it cannot be read at all (it is
            // dead-lettered by position).
            .set(
                "receive.message.max.bytes",
                (fetch * 2 + 1024 * 1024).max(RECEIVE_MAX_BYTES).to_string(),
            )
            // Bound what librdkafka prefetches: backpressure must reach the broker, not memory.
            .set("queued.max.messages.kbytes", (fetch * 2 / 1024).to_string())
            // A broker that holds a fetch until its wait runs out (tansu does) would add up to
            // librdkafka's 500 ms to every question's round trip.
            .set("fetch.wait.max.ms", "100");
        self.with_options(config)
    }
}

/// Sleeps for `wait`, or forever when there is none: the idle timer of a consumer loop.
pub async fn sleep_or_forever(wait: Option<Duration>) {
    match wait {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// Header names on dead letters.
pub mod dead_letter_headers {
    /// Human-readable reason: the kind of error and where, never a value from the message.
    pub const REASON: &str = "fhir-rag-reason";
    /// Machine-readable reason: too_large, not_json, not_fhir, invalid_resource,
    /// entries_rejected, database.
    pub const ERROR_KIND: &str = "fhir-rag-error-kind";
    /// `rejected` (nothing of the message was stored) or `partial` (the valid entries were).
    pub const DISPOSITION: &str = "fhir-rag-disposition";
    /// Where the message came from.
    pub const SOURCE_TOPIC: &str = "fhir-rag-source-topic";
    /// Partition it came from.
    pub const SOURCE_PARTITION: &str = "fhir-rag-source-partition";
    /// Offset it had.
    pub const SOURCE_OFFSET: &str = "fhir-rag-source-offset";
}

/// What a dead letter says about its message.
#[derive(Debug, Clone)]
pub struct DeadLetter<'a> {
    /// Machine-readable kind (see [`dead_letter_headers::ERROR_KIND`]).
    pub error_kind: &'a str,
    /// `rejected` or `partial`.
    pub disposition: &'a str,
    /// The reason, for a person.
    pub reason: String,
    /// Source topic, partition and offset, when it came from Kafka.
    pub source: Option<(&'a str, i32, i64)>,
}

/// Errors talking to Kafka.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// The client could not be created (bad settings).
    #[error("kafka client: {0}")]
    Client(String),
    /// A message could not be delivered.
    #[error("delivery to {topic} failed: {reason}")]
    Delivery {
        /// Target topic.
        topic: String,
        /// librdkafka's reason.
        reason: String,
    },
    /// Topic administration failed.
    #[error("topic {topic}: {reason}")]
    Admin {
        /// The topic.
        topic: String,
        /// What went wrong.
        reason: String,
    },
    /// A contract file in `topics/` is unreadable or wrong.
    #[error("topic contract {file}: {reason}")]
    Contract {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

/// A reason without any value from the message: quoted and back-quoted text (where parsers put
/// the values and field names they choke on), days in any spelling and long digit runs are
/// replaced by `…`. What is left says what kind of error and where (entry index, resource
/// type), which is all an operator needs to find the message by its source offset.
pub fn without_values(reason: &str) -> String {
    use std::sync::LazyLock;
    static QUOTED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#""(?:[^"\\]|\\.)*"|`[^`]*`|'[^']*'|\d{5,}"#).expect("valid regex")
    });
    let reason = crate::text::dates::replace(reason, |_| "…".to_string());
    let reason = QUOTED.replace_all(&reason, "…");
    crate::text::strip_control_sequences(&reason)
        .chars()
        .filter(|c| !c.is_control())
        .take(2000)
        .collect()
}

/// Publishes a dead letter and waits until the broker has it. The reason header is cleaned of
/// values first ([`without_values`]): the letter carries kinds and positions, never data.
pub async fn publish_dead_letter(
    producer: &FutureProducer,
    topic: &str,
    key: Option<&[u8]>,
    value: &[u8],
    letter: &DeadLetter<'_>,
) -> Result<(), BusError> {
    use dead_letter_headers::*;
    crate::metrics::count(
        "fhir_rag_dead_letters_total",
        "Messages sent to a dead-letter topic, by error kind and disposition.",
        &[
            ("kind", letter.error_kind),
            ("disposition", letter.disposition),
        ],
        1.0,
    );
    let partition_text;
    let offset_text;
    let reason = without_values(&letter.reason);
    let mut headers = OwnedHeaders::new()
        .insert(Header {
            key: REASON,
            value: Some(reason.as_bytes()),
        })
        .insert(Header {
            key: ERROR_KIND,
            value: Some(letter.error_kind.as_bytes()),
        })
        .insert(Header {
            key: DISPOSITION,
            value: Some(letter.disposition.as_bytes()),
        });
    if let Some((source_topic, partition, offset)) = letter.source {
        partition_text = partition.to_string();
        offset_text = offset.to_string();
        headers = headers
            .insert(Header {
                key: SOURCE_TOPIC,
                value: Some(source_topic.as_bytes()),
            })
            .insert(Header {
                key: SOURCE_PARTITION,
                value: Some(partition_text.as_bytes()),
            })
            .insert(Header {
                key: SOURCE_OFFSET,
                value: Some(offset_text.as_bytes()),
            });
    }
    let mut record = FutureRecord::to(topic).payload(value).headers(headers);
    if let Some(key) = key {
        record = record.key(key);
    }
    producer
        .send(record, Duration::from_secs(60))
        .await
        .map(|_| ())
        .map_err(|(e, _)| BusError::Delivery {
            topic: topic.to_string(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_and_scram_clients_can_be_made_and_their_secrets_are_not_printed() {
        use rdkafka::producer::BaseProducer;
        // librdkafka is built with OpenSSL: TLS with client certificates and SASL/SCRAM are
        // accepted when the client is made (without the `ssl` feature both fail right here).
        let bus = |options: &[&str]| BusConfig {
            brokers: "127.0.0.1:1".into(),
            max_message_bytes: 1 << 20,
            session_timeout_ms: 6000,
            kafka_options: options.iter().map(|o| o.to_string()).collect(),
            watchdog: consume::WatchdogConfig {
                stall_timeout_secs: 60,
                max_message_secs: 60,
            },
        };
        let scram = bus(&[
            "security.protocol=sasl_ssl",
            "sasl.mechanisms=SCRAM-SHA-512",
            "sasl.username=ingest",
            "sasl.password=hunter2-not-for-logs",
            "ssl.endpoint.identification.algorithm=https",
        ]);
        scram.producer().create::<BaseProducer>().unwrap();
        let printed = format!("{scram:?}");
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(printed.contains("sasl.password=[redacted]"), "{printed}");
        assert!(printed.contains("sasl.username=ingest"), "{printed}");
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-ca.pem");
        let mtls = bus(&[
            "security.protocol=ssl",
            &format!("ssl.ca.location={}", missing.display()),
        ]);
        // The CA file is read when the client is made: a wrong path is an error at start, not a
        // silent fall-back to plaintext.
        assert!(mtls.producer().create::<BaseProducer>().is_err());
    }

    #[test]
    fn dead_letter_reasons_carry_no_values() {
        let reason =
            "1 of 3 entries rejected: entry 2 (Patient): invalid type: string \"1983-02-17\", \
                      expected a boolean at line 1 column 88; unknown field `Clair921`; \
                      born 17th of February 1983; MRN 1234567890";
        let clean = without_values(reason);
        for gone in ["1983", "Clair921", "1234567890", "February"] {
            assert!(!clean.contains(gone), "{gone} in {clean}");
        }
        assert!(clean.contains("entry 2 (Patient): invalid type"), "{clean}");
    }

    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        bus: BusConfig,
    }

    #[test]
    fn kafka_options_keep_their_commas_refuse_a_missing_value_and_override_defaults() {
        use clap::Parser;
        let args = Args::try_parse_from([
            "test",
            "--kafka-option",
            "ssl.cipher.suites=ECDHE-RSA-AES256-GCM-SHA384,ECDHE-RSA-AES128-GCM-SHA256",
            "--kafka-option",
            "fetch.wait.max.ms=20",
        ])
        .unwrap();
        let consumer = args.bus.consumer("g");
        assert_eq!(
            consumer.get("ssl.cipher.suites"),
            Some("ECDHE-RSA-AES256-GCM-SHA384,ECDHE-RSA-AES128-GCM-SHA256")
        );
        assert_eq!(consumer.get("fetch.wait.max.ms"), Some("20"));
        assert_eq!(args.bus.producer().get("linger.ms"), Some("20"));
        let error = Args::try_parse_from(["test", "--kafka-option", "security.protocol"])
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("key=value"), "{error}");
        assert!(Args::try_parse_from(["test", "--kafka-option", "=ssl"]).is_err());
        // Never the values in --help (they may be passwords).
        let command = <Args as clap::CommandFactory>::command();
        let option = command
            .get_arguments()
            .find(|a| a.get_id() == "kafka_options")
            .unwrap();
        assert!(option.is_hide_env_values_set());
    }
}
