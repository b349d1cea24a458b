//! Topic contracts: one JSON file per topic in `topics/` (name, partitions, retention, key,
//! maximum message size, the value's JSON Schema and an example). `fhir-rag topics apply`
//! creates missing topics from them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::types::RDKafkaErrorCode;
use serde::{Deserialize, Serialize};

use super::{BusConfig, BusError};

/// One topic's contract, as written in `topics/<name>.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopicContract {
    /// Topic name.
    pub name: String,
    /// What flows on it, for people.
    pub description: String,
    /// Number of partitions (the unit of parallelism of a consumer group).
    pub partitions: i32,
    /// How long messages are kept, in milliseconds (-1: forever).
    pub retention_ms: i64,
    /// Largest message the topic accepts, in bytes (after compression).
    pub max_message_bytes: usize,
    /// What the key is.
    pub key: String,
    /// Headers that messages carry, name → meaning.
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    /// Encoding of the value (`json`; `jws`, a signed envelope around a JSON claim; or `bytes`
    /// for dead letters that keep the original).
    pub value_format: String,
    /// For `jws`: the envelope, for people (signer, header, claims).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_envelope: Option<String>,
    /// JSON Schema of the value (`json`) or of the envelope's payload claim (`jws`).
    pub value_schema: serde_json::Value,
    /// An example value.
    pub example: serde_json::Value,
}

/// Reads every `*.json` contract in `dir`, sorted by topic name.
pub fn load_contracts(dir: &Path) -> Result<Vec<TopicContract>, BusError> {
    let fail = |file: &Path, reason: String| BusError::Contract {
        file: file.display().to_string(),
        reason,
    };
    let entries = std::fs::read_dir(dir).map_err(|e| fail(dir, e.to_string()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut contracts = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| fail(&file, e.to_string()))?;
        let contract: TopicContract =
            serde_json::from_str(&text).map_err(|e| fail(&file, e.to_string()))?;
        if contract.partitions < 1 {
            return Err(fail(&file, "partitions must be at least 1".into()));
        }
        contracts.push(contract);
    }
    contracts.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(contracts)
}

/// What `apply` did to one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// The topic was created.
    Created,
    /// It existed already (left as it is).
    Existed,
}

/// Creates the topics of `contracts` that do not exist yet. `rename` maps a contract's name to
/// the topic actually created (tests use it to get fresh topics per run).
pub async fn apply(
    bus: &BusConfig,
    contracts: &[TopicContract],
    replication_factor: i32,
    rename: impl Fn(&str) -> String,
) -> Result<Vec<(String, Applied)>, BusError> {
    let admin: AdminClient<DefaultClientContext> = bus
        .producer()
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    let names: Vec<String> = contracts.iter().map(|c| rename(&c.name)).collect();
    let retention: Vec<String> = contracts
        .iter()
        .map(|c| c.retention_ms.to_string())
        .collect();
    let sizes: Vec<String> = contracts
        .iter()
        .map(|c| c.max_message_bytes.to_string())
        .collect();
    let new_topics: Vec<NewTopic> = contracts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            NewTopic::new(
                &names[i],
                c.partitions,
                TopicReplication::Fixed(replication_factor),
            )
            .set("retention.ms", &retention[i])
            .set("max.message.bytes", &sizes[i])
        })
        .collect();
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    let results = admin
        .create_topics(new_topics.iter(), &options)
        .await
        .map_err(|e| BusError::Admin {
            topic: names.join(","),
            reason: e.to_string(),
        })?;
    let mut out = Vec::new();
    for result in results {
        match result {
            Ok(topic) => out.push((topic, Applied::Created)),
            Err((topic, RDKafkaErrorCode::TopicAlreadyExists)) => {
                out.push((topic, Applied::Existed))
            }
            Err((topic, code)) => {
                return Err(BusError::Admin {
                    topic,
                    reason: code.to_string(),
                })
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages are validated against the contracts' JSON Schemas: the examples, and real
    /// bundles as the backfill publishes them.
    #[test]
    fn examples_and_real_bundles_match_the_value_schemas() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("topics");
        let contracts = load_contracts(&dir).unwrap();
        for contract in contracts.iter().filter(|c| c.value_format != "bytes") {
            let validator =
                jsonschema::validator_for(&contract.value_schema).expect("a valid JSON Schema");
            let errors: Vec<String> = validator
                .iter_errors(&contract.example)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", contract.name);
        }
        let bundles = contracts.iter().find(|c| c.name == "fhir.bundles").unwrap();
        let validator = jsonschema::validator_for(&bundles.value_schema).unwrap();
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/synthea");
        let mut checked = 0;
        for entry in std::fs::read_dir(sample).unwrap() {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut bzip2::read::MultiBzDecoder::new(
                    std::fs::File::open(entry.unwrap().path()).unwrap(),
                ),
                &mut bytes,
            )
            .unwrap();
            let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            assert!(validator.is_valid(&value));
            checked += 1;
        }
        assert_eq!(checked, 10);
        assert!(!validator.is_valid(&serde_json::json!({"resourceType": 7})));
        assert!(!validator
            .is_valid(&serde_json::json!({"resourceType": "Bundle", "entry": [{"resource": {}}]})));
    }

    #[test]
    fn dead_letters_are_kept_no_longer_than_their_source() {
        // A dead letter is the original message (PHI): it must not outlive the source topic.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("topics");
        let contracts = load_contracts(&dir).unwrap();
        let mut checked = 0;
        for dlq in contracts.iter().filter(|c| c.name.ends_with(".dlq")) {
            let source = contracts
                .iter()
                .find(|c| c.name == dlq.name.trim_end_matches(".dlq"))
                .unwrap();
            assert!(dlq.retention_ms > 0, "{}: kept for ever", dlq.name);
            assert!(
                dlq.retention_ms <= source.retention_ms,
                "{} keeps {} ms, its source {} ms",
                dlq.name,
                dlq.retention_ms,
                source.retention_ms
            );
            checked += 1;
        }
        assert_eq!(checked, 2);
    }

    #[test]
    fn the_repository_contracts_load_and_their_examples_have_the_required_fields() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("topics");
        let contracts = load_contracts(&dir).unwrap();
        let names: Vec<&str> = contracts.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"fhir.bundles"), "{names:?}");
        assert!(names.contains(&"fhir.bundles.dlq"), "{names:?}");
        for contract in &contracts {
            if contract.value_format == "bytes" {
                continue;
            }
            assert_eq!(
                contract.value_format == "jws",
                contract.value_envelope.is_some(),
                "{}: a signed topic says how it is signed",
                contract.name
            );
            let required = contract.value_schema["required"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for field in required {
                let field = field.as_str().unwrap();
                assert!(
                    contract.example.get(field).is_some(),
                    "{}: example lacks required field {field}",
                    contract.name
                );
            }
        }
    }
}
