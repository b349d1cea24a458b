//! HL7's invalid-resource test cases and hostile inputs, sent between valid bundles: each one
//! ends in the dead-letter topic or parses cleanly, the worker neither crashes nor stalls, and
//! every valid bundle around them is stored.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use fhir_rag::ingest::parse::{parse_message, ParseLimits};
use sqlx::Row;

use crate::support::*;

const WORKER_MAX_BUNDLE_BYTES: usize = 4_000_000;

fn invalid_cases() -> Vec<(String, Vec<u8>)> {
    let root = shared_data().join("fhir-r4/invalid-fhir-test-cases/cases");
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(&root).unwrap().display().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Deterministic bytes that are not JSON.
fn garbage(len: usize) -> Vec<u8> {
    let mut state = 0x2545F4914F6CDD1Du64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn hostile_inputs() -> Vec<(String, Vec<u8>, Option<&'static str>)> {
    let depth = 100_000;
    vec![
        ("not JSON".into(), b"this is not JSON".to_vec(), Some("not_json")),
        ("1 MB of garbage".into(), garbage(1_000_000), Some("not_json")),
        ("5 MB of garbage (over the limit)".into(), garbage(5_000_000), Some("too_large")),
        (
            "deeply nested JSON".into(),
            format!("{}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes(),
            Some("not_json"),
        ),
        (
            "deeply nested inside a bundle".into(),
            format!(
                r#"{{"resourceType":"Bundle","entry":[{{"resource":{{"resourceType":"Observation","x":{}1{}}}}}]}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
            .into_bytes(),
            Some("not_json"),
        ),
        ("wrong resourceType".into(), br#"{"resourceType":"Foo","id":"x"}"#.to_vec(), Some("invalid_resource")),
        ("no resourceType".into(), br#"{"id":"x"}"#.to_vec(), Some("not_fhir")),
        ("a JSON array".into(), b"[1,2,3]".to_vec(), Some("not_fhir")),
        ("empty bundle".into(), br#"{"resourceType":"Bundle","type":"collection"}"#.to_vec(), None),
        (
            "entry is not an array".into(),
            br#"{"resourceType":"Bundle","entry":"oops"}"#.to_vec(),
            Some("not_fhir"),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_input_is_dead_lettered_and_the_stream_carries_on() {
    let run = TestRun::new("hostile").await;
    let valid: Vec<Vec<u8>> = patient_files_by_size()
        .iter()
        .take(3)
        .map(|f| read_bz2(f))
        .collect();
    let cases = invalid_cases();
    assert!(
        cases.len() >= 140,
        "expected HL7's invalid cases, found {}",
        cases.len()
    );
    let hostile = hostile_inputs();

    // valid, half the cases, valid, the other half, the hostile inputs, valid
    let mut messages: Vec<(String, Vec<u8>, Option<&'static str>)> = Vec::new();
    messages.push(("valid bundle 1".into(), valid[0].clone(), None));
    let half = cases.len() / 2;
    for (name, bytes) in &cases[..half] {
        messages.push((name.clone(), bytes.clone(), None));
    }
    messages.push(("valid bundle 2".into(), valid[1].clone(), None));
    for (name, bytes) in &cases[half..] {
        messages.push((name.clone(), bytes.clone(), None));
    }
    messages.extend(hostile);
    messages.push(("valid bundle 3".into(), valid[2].clone(), None));

    let payloads: Vec<(Option<&str>, &[u8])> = messages
        .iter()
        .map(|(_, b, _)| (None, b.as_slice()))
        .collect();
    let offsets = run.publish(&payloads).await;

    let max_bytes = WORKER_MAX_BUNDLE_BYTES.to_string();
    let mut worker = run.spawn_worker(
        "hostile",
        &[
            "--max-bundle-bytes",
            &max_bytes,
            "--entry-parse-timeout-ms",
            "5000",
            // Some HL7 cases make the typed parser spin for ever: this test is about the stream
            // going on past each of them (the cap has its own test below).
            "--max-stuck-parsers",
            "64",
        ],
    );
    run.wait_committed(messages.len() as i64, Duration::from_secs(900), &mut worker)
        .await;
    assert!(
        worker.child.try_wait().unwrap().is_none(),
        "the worker must still run"
    );
    // Idle past a watchdog tick: its committed offsets are compared with the log's end, and
    // nothing was lost here, so nothing may be reported lost (the broker's watermarks agree).
    tokio::time::sleep(Duration::from_secs(6)).await;
    let log = std::fs::read_to_string(&worker.log).unwrap();
    assert!(
        !log.contains("ahead of the log"),
        "a loss reported where none happened:\n{log}"
    );

    // What the pure parser says about each message decides whether it must be dead-lettered.
    let limits = ParseLimits {
        max_bytes: WORKER_MAX_BUNDLE_BYTES,
        ..ParseLimits::default()
    };
    let mut must_dead_letter = BTreeMap::new();
    for ((name, bytes, _), offset) in messages.iter().zip(&offsets) {
        let rejected = match parse_message(bytes, limits) {
            Err(_) => true,
            Ok(parsed) => !parsed.rejected.is_empty(),
        };
        if rejected {
            must_dead_letter.insert(*offset, name.clone());
        }
    }
    let letters = run.dead_letters(must_dead_letter.len(), Duration::from_secs(120));
    let by_offset: BTreeMap<i64, &DeadLetterSeen> = letters
        .iter()
        .filter_map(|l| Some((l.source_offset()?, l)))
        .collect();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for letter in &letters {
        *kinds.entry(letter.kind()).or_default() += 1;
    }
    eprintln!(
        "{} messages, {} dead letters by kind: {kinds:?}",
        messages.len(),
        letters.len()
    );
    assert_eq!(
        letters.len(),
        must_dead_letter.len(),
        "dead letters: {:?}",
        by_offset.keys().collect::<Vec<_>>()
    );
    for ((name, bytes, kind), offset) in messages.iter().zip(&offsets) {
        match (must_dead_letter.contains_key(offset), by_offset.get(offset)) {
            (true, Some(letter)) => {
                if let Some(kind) = kind {
                    assert_eq!(letter.kind(), *kind, "{name}");
                }
                assert!(!letter.headers["fhir-rag-reason"].is_empty(), "{name}");
                // The original message is kept whole, unless it was over the size limit.
                assert_eq!(
                    letter.payload, *bytes,
                    "{name}: the dead letter must carry the original"
                );
            }
            (false, None) => assert!(
                kind.is_none(),
                "{name} should have been dead-lettered as {kind:?}"
            ),
            (true, None) => panic!("{name} (offset {offset}) was not dead-lettered"),
            (false, Some(letter)) => panic!(
                "{name} was dead-lettered ({}) but parses cleanly",
                letter.kind()
            ),
        }
    }
    // The case that makes fhirbolt 0.4 panic was caught, not fatal.
    let empty_array = messages
        .iter()
        .zip(&offsets)
        .find(|((n, _, _), _)| n == "empty-array.json")
        .unwrap()
        .1;
    assert!(by_offset[empty_array].headers["fhir-rag-reason"].contains("panicked"));

    // Every valid bundle (and every valid resource among the cases) is stored.
    let store = run.store().await;
    let oracle = expected_documents(
        &messages
            .iter()
            .map(|(_, b, _)| b.clone())
            .collect::<Vec<_>>(),
    );
    let rows = sqlx::query(
        "SELECT p.fhir_id, d.day, d.content_hash FROM documents d JOIN patients p USING (patient_key)",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert_eq!(rows.len(), oracle.len());
    for row in rows {
        let key = (
            row.get::<String, _>("fhir_id"),
            row.get::<Option<chrono::NaiveDate>, _>("day"),
        );
        assert_eq!(
            row.get::<Vec<u8>, _>("content_hash"),
            oracle[&key].content_hash(),
            "{key:?}"
        );
    }
    for bundle in &valid {
        let key = fhir_rag::backfill::bundle_key(bundle).unwrap();
        let documents: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM documents d JOIN patients p USING (patient_key) WHERE p.fhir_id = $1",
        )
        .bind(&key)
        .fetch_one(store.pool())
        .await
        .unwrap();
        assert!(documents > 1, "valid bundle {key} was not stored");
    }
    let (status, _, log) = worker.terminate();
    assert!(status.success(), "{log}");
    store.pool().close().await;
    run.cleanup().await;
}

/// A worker whose parser threads are stuck on hostile entries exits non-zero for its supervisor
/// to restart it (the only way to stop them), after committing the message that left the last
/// one behind and before taking the next.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_with_too_many_stuck_parsers_exits_for_its_supervisor() {
    let run = TestRun::new("stuck").await;
    // A DSTU2 `fhir_comments` array: fhirbolt 0.4 never returns on it.
    let spinning = std::fs::read(
        shared_data().join("fhir-r4/invalid-fhir-test-cases/cases/json-comments.json"),
    )
    .unwrap();
    let valid = std::fs::read(patient_files_by_size()[0].clone()).unwrap();
    let valid = if valid.starts_with(b"BZh") {
        read_bz2(&patient_files_by_size()[0])
    } else {
        valid
    };
    run.publish(&[(None, &spinning), (None, &valid)]).await;
    let mut worker = run.spawn_worker(
        "stuck",
        &[
            "--embedder",
            "hashed",
            "--entry-parse-timeout-ms",
            "300",
            "--max-stuck-parsers",
            "1",
            "--in-flight",
            "1",
        ],
    );
    let status = worker.wait_exit(Duration::from_secs(120)).await;
    assert!(!status.success(), "exits non-zero");
    let log = worker.log_text();
    assert!(log.contains("parser threads are stuck"), "{log}");
    assert_eq!(
        run.committed_total(),
        1,
        "the hostile message is committed (its entry dead-lettered), the next one is left for the restart"
    );
    run.cleanup().await;
}

/// A message the consumer cannot decode (here: zstd-compressed by another client to a few
/// kilobytes, 300 MB once decompressed, past the consumers' receive limit) never blocks its
/// partition: it is dead-lettered by position, with an empty value, and the messages behind it
/// are stored. A bundle of 40 MB compressed the same way is read and stored.
#[tokio::test(flavor = "multi_thread")]
async fn a_message_the_client_cannot_decode_is_dead_lettered_by_position() {
    use rdkafka::producer::{FutureProducer, FutureRecord};
    let run = TestRun::new("undecodable").await;
    // Another producer, with a larger message limit than fhir-rag's own.
    let mut bus = run.services.bus();
    bus.max_message_bytes = 400 * 1024 * 1024;
    let producer: FutureProducer = bus.producer().create().unwrap();
    let narrative = "a".repeat(40 * 1024 * 1024);
    let big = serde_json::to_vec(&serde_json::json!({
        "resourceType": "Bundle", "type": "collection", "entry": [{"resource": {
            "resourceType": "Patient", "id": "big-narrative", "gender": "female",
            "birthDate": "1970-01-01",
            "text": {"status": "generated",
                     "div": format!("<div xmlns=\"http://www.w3.org/1999/xhtml\">{narrative}</div>")}}}]
    }))
    .unwrap();
    drop(narrative);
    let undecodable = vec![b' '; 300 * 1024 * 1024];
    let files = patient_files_by_size();
    let (after, after_1, beside) = (
        read_bz2(&files[0]),
        read_bz2(&files[1]),
        read_bz2(&files[2]),
    );
    // Partition 0: the big bundle, the undecodable message, a bundle. Partition 1: a second
    // undecodable message (two poisoned partitions at once), a bundle. Partition 2: traffic.
    let mut positions = Vec::new();
    for (partition, payload) in [
        (0, &big),
        (0, &undecodable),
        (0, &after),
        (1, &undecodable),
        (1, &after_1),
        (2, &beside),
    ] {
        let delivery = producer
            .send(
                FutureRecord::<(), _>::to(&run.bundle_topic)
                    .partition(partition)
                    .payload(payload.as_slice()),
                Duration::from_secs(120),
            )
            .await
            .map_err(|(e, _)| e)
            .expect("the topic takes it: compressed, it is small");
        positions.push((delivery.partition, delivery.offset));
    }
    drop((undecodable, big, producer));
    let mut worker = run.spawn_worker("undecodable", &["--embedder", "hashed"]);
    run.wait_committed(6, Duration::from_secs(600), &mut worker)
        .await;
    let letters = run.dead_letters(2, Duration::from_secs(60));
    let mut skipped: Vec<(Option<i32>, Option<i64>)> = letters
        .iter()
        .filter(|l| l.kind() == "undecodable")
        .inspect(|l| assert!(l.payload.is_empty(), "{l:?}"))
        .map(|l| (l.source_partition(), l.source_offset()))
        .collect();
    skipped.sort();
    let expected: Vec<(Option<i32>, Option<i64>)> = [positions[1], positions[3]]
        .iter()
        .map(|&(p, o)| (Some(p), Some(o)))
        .collect();
    assert_eq!(skipped, expected, "{letters:?}");
    let store = run.store().await;
    let (big_stored, others): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE fhir_id LIKE '%big-narrative'),
                count(*) FILTER (WHERE fhir_id NOT LIKE '%big-narrative')
         FROM patients p WHERE EXISTS (SELECT 1 FROM facts f WHERE f.patient_key = p.patient_key)",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(big_stored, 1, "the 40 MB bundle is stored");
    assert_eq!(
        others, 3,
        "the bundles behind the undecodable messages and beside them are stored"
    );
    let log = worker.log_text();
    assert!(log.contains("dead-lettered by position"), "{log}");
    worker.terminate();
    store.pool().close().await;
    run.cleanup().await;
}
