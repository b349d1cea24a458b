//! Corrections through the real broker into the real database: DELETE entries, entered-in-error
//! re-sends, a corrected patient reference, tombstones, one patient id from two source systems,
//! older (STU3) shapes, and an entry the database refuses (the rest of its bundle is kept and
//! the message goes to the dead-letter topic as `partial`).

use std::time::Duration;

use sqlx::Row;

use crate::support::*;

fn bundle(source: Option<&str>, entries: &[serde_json::Value]) -> Vec<u8> {
    let mut b =
        serde_json::json!({"resourceType": "Bundle", "type": "transaction", "entry": entries});
    if let Some(source) = source {
        b["meta"] = serde_json::json!({ "source": source });
    }
    serde_json::to_vec(&b).unwrap()
}

fn patient(id: &str, family: &str) -> serde_json::Value {
    serde_json::json!({"fullUrl": format!("urn:uuid:{id}"), "resource": {
        "resourceType": "Patient", "id": id, "gender": "female", "birthDate": "1970-01-01",
        "name": [{"family": family, "given": ["Testa"]}]}})
}

fn observation(id: &str, patient: &str, day: &str, status: &str, value: f64) -> serde_json::Value {
    serde_json::json!({"resource": {
        "resourceType": "Observation", "id": id, "status": status,
        "code": {"coding": [{"system": "http://loinc.org", "code": "29463-7", "display": "Body Weight"}]},
        "subject": {"reference": format!("Patient/{patient}")},
        "effectiveDateTime": format!("{day}T10:00:00Z"),
        "valueQuantity": {"value": value, "unit": "kg"}}})
}

fn condition(id: &str, patient: &str, display: &str) -> serde_json::Value {
    serde_json::json!({"resource": {
        "resourceType": "Condition", "id": id,
        "clinicalStatus": {"coding": [{"code": "active"}]},
        "code": {"coding": [{"system": "http://snomed.info/sct", "display": display}]},
        "subject": {"reference": format!("Patient/{patient}")},
        "onsetDateTime": "2015-05-05"}})
}

fn delete(url: &str) -> serde_json::Value {
    serde_json::json!({"request": {"method": "DELETE", "url": url}})
}

/// Every document text of a patient (by source and id), summary first.
async fn documents(pool: &sqlx::PgPool, source: &str, id: &str) -> Vec<String> {
    sqlx::query(
        "SELECT d.text FROM documents d JOIN patients p USING (patient_key)
         WHERE p.source = $1 AND p.fhir_id = $2 ORDER BY d.day NULLS FIRST",
    )
    .bind(source)
    .bind(id)
    .fetch_all(pool)
    .await
    .unwrap()
    .into_iter()
    .map(|r| r.get("text"))
    .collect()
}

async fn chunk_texts(pool: &sqlx::PgPool) -> String {
    let rows = sqlx::query("SELECT text FROM chunks ORDER BY text")
        .fetch_all(pool)
        .await
        .unwrap();
    rows.iter()
        .map(|r| r.get::<String, _>("text"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The whole response to `GET path` (status line, headers, body).
fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("the metrics endpoint listens");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// Rows of `patient_words` (kept per changed patient at ingest) that differ from the words of
/// the chunks now stored, recomputed over the whole store: 0 when the incremental upkeep
/// followed every retraction, move and tombstone.
async fn stale_patient_words(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "WITH now AS (
             SELECT DISTINCT w AS word, d.patient_key
             FROM documents d JOIN chunks c USING (document_id)
             CROSS JOIN LATERAL unnest(tsvector_to_array(c.text_search)) AS w)
         SELECT count(*) FROM (
             (SELECT word, patient_key FROM patient_words EXCEPT SELECT * FROM now)
             UNION ALL
             (SELECT * FROM now EXCEPT SELECT word, patient_key FROM patient_words)) x",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn send(run: &TestRun, messages: Vec<(Option<&str>, Vec<u8>)>) -> i64 {
    let refs: Vec<(Option<&str>, &[u8])> =
        messages.iter().map(|(k, v)| (*k, v.as_slice())).collect();
    run.publish(&refs).await;
    messages.len() as i64
}

#[tokio::test(flavor = "multi_thread")]
async fn corrections_retract_move_and_rebuild_documents() {
    let run = TestRun::new("corrections").await;
    let store = run.store().await;
    let metrics_addr = free_local_addr();
    let mut worker = run.spawn_worker(
        "corrections",
        &["--embedder", "hashed", "--metrics-addr", &metrics_addr],
    );
    let pool = store.pool().clone();
    let mut sent = 0i64;

    // 1. Two patients with weights, conditions.
    sent += send(
        &run,
        vec![(
            Some("pa"),
            bundle(
                None,
                &[
                    patient("pa", "Alpha"),
                    patient("pb", "Beta"),
                    observation("w1", "pa", "2020-01-10", "final", 61.5),
                    observation("w2", "pa", "2020-02-10", "final", 62.5),
                    observation("w3", "pa", "2020-03-10", "final", 63.5),
                    condition("c1", "pa", "Asthma"),
                    condition("c2", "pa", "Hypertension"),
                    condition("c3", "pb", "Migraine"),
                ],
            ),
        )],
    )
    .await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    let before = documents(&pool, "", "pa").await;
    assert_eq!(before.len(), 4, "summary and three days: {before:?}");
    assert!(before[0].contains("Asthma") && before[0].contains("Hypertension"));

    // 2. DELETE Condition/c1; Observation w1 re-sent as entered-in-error; w2 re-sent under pb.
    sent += send(
        &run,
        vec![(
            Some("pa"),
            bundle(
                None,
                &[
                    delete("Condition/c1"),
                    observation("w1", "pa", "2020-01-10", "entered-in-error", 61.5),
                    observation("w2", "pb", "2020-02-10", "final", 62.5),
                ],
            ),
        )],
    )
    .await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    let after = documents(&pool, "", "pa").await;
    assert!(
        !after[0].contains("Asthma"),
        "deleted condition still there: {}",
        after[0]
    );
    assert!(after[0].contains("Hypertension"));
    assert_eq!(
        after.len(),
        2,
        "only the summary and 2020-03-10 are left: {after:?}"
    );
    assert!(after[1].contains("63.5"));
    let pb = documents(&pool, "", "pb").await;
    assert!(
        pb.iter().any(|d| d.contains("62.5")),
        "w2 moved to pb: {pb:?}"
    );
    let chunks = chunk_texts(&pool).await;
    assert!(
        !chunks.contains("61.5"),
        "a retracted reading is still embedded"
    );
    assert!(!chunks.contains("Asthma"));
    assert_eq!(
        chunks.matches("62.5").count(),
        1,
        "the moved reading is embedded once"
    );

    // 3. The same patient id from another source system is another person.
    sent += send(
        &run,
        vec![(
            Some("pa"),
            bundle(
                Some("https://ehr-b.example.org/fhir#batch-7"),
                &[patient("pa", "Gamma"), condition("c1", "pa", "Gout")],
            ),
        )],
    )
    .await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    let other = documents(&pool, "https://ehr-b.example.org/fhir", "pa").await;
    assert!(other[0].contains("Gout"));
    let ours = documents(&pool, "", "pa").await;
    assert!(!ours[0].contains("Gout") && ours[0].contains("Hypertension"));
    let patients: i64 = sqlx::query_scalar("SELECT count(*) FROM patients WHERE fhir_id = 'pa'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(patients, 2);
    // A requester's patient list reaches only the source it names (unqualified: the default).
    use fhir_rag::answer::search::patient_keys;
    let default = patient_keys(&pool, &["pa".to_string()]).await.unwrap();
    let other = patient_keys(&pool, &["https://ehr-b.example.org/fhir|pa".to_string()])
        .await
        .unwrap();
    assert_eq!((default.len(), other.len()), (1, 1));
    assert_ne!(default, other);

    assert_eq!(stale_patient_words(&pool).await, 0);
    let known = |words: &[&str]| {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let pool = pool.clone();
        async move {
            fhir_rag::answer::search::known_words(&pool, &words, 1, None)
                .await
                .unwrap()
        }
    };
    assert!(known(&["migraine"]).await.contains("migraine"));

    // 4. A tombstone for pb erases pb's facts and documents; pa is untouched.
    run.publish_tombstone("pb").await;
    sent += 1;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    assert_eq!(stale_patient_words(&pool).await, 0);
    // The word only pb's records used is no longer known to any patient's records.
    let now = known(&["migraine", "hypertension"]).await;
    assert!(
        !now.contains("migraine") && now.contains("hypertension"),
        "{now:?}"
    );
    assert!(documents(&pool, "", "pb").await.is_empty());
    assert_eq!(documents(&pool, "", "pa").await.len(), 2);
    // The vault keeps pb's name, so that the guard still recognises it.
    let vault: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM vault.phi_vault v JOIN patients p USING (patient_key) WHERE p.fhir_id = 'pb'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(vault > 0);
    let reasons: Vec<(String, String, i32)> = sqlx::query_as(
        "SELECT resource_type, reason, facts_removed FROM retractions ORDER BY retracted_at, resource_type",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(
        reasons.contains(&("Condition".into(), "deleted".into(), 1)),
        "{reasons:?}"
    );
    assert!(reasons.contains(&("Observation".into(), "entered_in_error".into(), 1)));
    assert!(
        reasons.contains(&("Patient".into(), "tombstone".into(), 3)),
        "{reasons:?}"
    );

    // 5. An older export: the immunization dated by `date` is stored on its day.
    let stu3 = std::fs::read(repo().join("sample/stu3/older-synthea-bundle.json")).unwrap();
    sent += send(&run, vec![(None, stu3)]).await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    let older = documents(
        &pool,
        "https://ehr-a.example.org/fhir",
        "5a1c0d8e-0000-4000-8000-000000000001",
    )
    .await;
    assert!(
        older
            .iter()
            .any(|d| d.contains("2014-10-21") && d.contains("Influenza")),
        "{older:?}"
    );
    assert!(older[0].contains("Clinical status is active"));

    // 6. One entry the database refuses (a constraint this test adds): the rest of the bundle
    //    is stored, the message is dead-lettered as partial, the stream goes on.
    sqlx::query(
        "ALTER TABLE facts ADD CONSTRAINT test_refuses_one CHECK (resource_id <> 'refuse-me')",
    )
    .execute(&pool)
    .await
    .unwrap();
    sent += send(
        &run,
        vec![
            (
                Some("pc"),
                bundle(
                    None,
                    &[
                        patient("pc", "Delta"),
                        condition("refuse-me", "pc", "Eczema"),
                        condition("c9", "pc", "Sinusitis"),
                        observation("w9", "pc", "2021-06-01", "final", 70.5),
                    ],
                ),
            ),
            (
                Some("pd"),
                bundle(
                    None,
                    &[patient("pd", "Epsilon"), condition("c10", "pd", "Otitis")],
                ),
            ),
        ],
    )
    .await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    let pc = documents(&pool, "", "pc").await;
    assert!(
        pc[0].contains("Sinusitis") && !pc[0].contains("Eczema"),
        "{pc:?}"
    );
    assert!(pc.iter().any(|d| d.contains("70.5")));
    assert!(documents(&pool, "", "pd").await[0].contains("Otitis"));
    let letters = run.dead_letters(1, Duration::from_secs(60));
    assert_eq!(letters.len(), 1);
    assert_eq!(letters[0].kind(), "database");
    assert_eq!(letters[0].headers["fhir-rag-disposition"], "partial");
    let reason = &letters[0].headers["fhir-rag-reason"];
    assert!(
        reason.contains("1 entries refused") && reason.contains("a Condition"),
        "{reason}"
    );
    assert!(
        !reason.contains("pc"),
        "no ids in dead-letter reasons: {reason}"
    );

    // What an operator sees: outcomes, dead letters by kind, readiness; no names in labels.
    let metrics = http_get(&metrics_addr, "/metrics");
    for line in [
        "fhir_rag_messages_total{worker=\"ingest\",outcome=\"tombstone\"} 1",
        "fhir_rag_messages_total{worker=\"ingest\",outcome=\"partial\"} 1",
        "fhir_rag_dead_letters_total{kind=\"database\",disposition=\"partial\"} 1",
        "fhir_rag_entries_refused_total 1",
        "fhir_rag_worker_running{worker=\"ingest\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} not in:\n{metrics}");
    }
    for name in ["Alpha", "Beta", "Gamma", "Delta", "Testa"] {
        assert!(!metrics.contains(name));
    }
    assert!(http_get(&metrics_addr, "/readyz").starts_with("HTTP/1.1 200"));
    assert!(http_get(&metrics_addr, "/healthz").starts_with("HTTP/1.1 200"));

    let (status, report, log) = worker.terminate();
    assert!(status.success(), "{log}");
    let report = first_json(&report);
    assert_eq!(report["tombstones"], 1);
    assert_eq!(report["partial"], 1);
    assert_eq!(report["entries_refused"], 1);
    // c1, w1, and pb's patient fact, c3 and the moved w2.
    assert_eq!(report["store"]["facts_retracted"], 2 + 3);
    run.cleanup().await;
}

/// A stream of corrections published at once: the worker receives messages ahead and stores
/// messages of different partitions side by side, yet every patient's messages land in order
/// (the last version of each reading wins), every offset is committed, and a summary that gains
/// a fact keeps the vectors of its unchanged chunks.
#[tokio::test(flavor = "multi_thread")]
async fn a_pipelined_worker_keeps_each_patients_order_and_reuses_unchanged_chunks() {
    let run = TestRun::new("pipelined").await;
    let store = run.store().await;
    let mut worker = run.spawn_worker(
        "pipelined",
        &[
            "--embedder",
            "hashed",
            "--in-flight",
            "16",
            "--concurrent",
            "3",
        ],
    );
    let pool = store.pool().clone();
    let patients: Vec<String> = (0..8).map(|i| format!("pp{i}")).collect();
    // Round after round, each patient's weight reading is corrected (same resource, same day):
    // the value of the last round must win for every patient.
    let mut messages: Vec<(Option<&str>, Vec<u8>)> = Vec::new();
    for round in 1..=6 {
        for (i, p) in patients.iter().enumerate() {
            let mut entries = vec![observation(
                &format!("{p}-w"),
                p,
                "2021-03-04",
                "final",
                f64::from(round) * 10.0 + i as f64 + 0.5,
            )];
            if round == 1 {
                entries.push(patient(p, "Order"));
                entries.push(condition(&format!("{p}-c"), p, "Asthma"));
                entries.push(serde_json::json!({"resource": {
                    "resourceType": "MedicationRequest", "id": format!("{p}-m"),
                    "status": "active", "intent": "order",
                    "medicationCodeableConcept": {"coding": [{"display": "Salbutamol 100 MCG"}]},
                    "subject": {"reference": format!("Patient/{p}")},
                    "authoredOn": "2015-05-05"}}));
            }
            messages.push((Some(p.as_str()), bundle(None, &entries)));
        }
    }
    let mut sent = send(&run, messages).await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    for (i, p) in patients.iter().enumerate() {
        let docs = documents(&pool, "", p).await;
        let day = docs
            .iter()
            .find(|d| d.starts_with("Record of 2021-03-04"))
            .unwrap_or_else(|| panic!("no day document for {p}: {docs:?}"));
        let last = format!("{}.5 kg", 60 + i);
        assert!(day.contains(&last), "{p}: {day} lacks {last}");
        assert!(!day.contains(&format!("{}.5 kg", 50 + i)), "{p}: {day}");
    }
    let medication_vector = |pool: sqlx::PgPool| async move {
        sqlx::query_scalar::<_, String>(
            "SELECT c.embedding::text FROM chunks c JOIN documents d USING (document_id)
             JOIN patients p USING (patient_key)
             WHERE p.fhir_id = 'pp0' AND d.day IS NULL AND c.text LIKE '%Salbutamol%'",
        )
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    let before = medication_vector(pool.clone()).await;

    // A new condition for pp0: its summary is rewritten; only the conditions' chunk changes.
    sent += send(
        &run,
        vec![(
            Some("pp0"),
            bundle(None, &[condition("pp0-c2", "pp0", "Hay fever")]),
        )],
    )
    .await;
    run.wait_committed(sent, Duration::from_secs(300), &mut worker)
        .await;
    let summary = &documents(&pool, "", "pp0").await[0];
    assert!(summary.contains("Hay fever") && summary.contains("Salbutamol"));
    assert_eq!(medication_vector(pool.clone()).await, before);

    let (status, report, log) = worker.terminate();
    assert!(status.success(), "{log}");
    let report = first_json(&report);
    assert_eq!(report["messages"], sent);
    // The summary's patient and medication chunks were kept: only its conditions' was new.
    assert!(
        report["store"]["chunks_reused"].as_u64().unwrap() >= 2,
        "{report}"
    );
    let stages = &report["stages"];
    for stage in ["parse_s", "flatten_s", "embed_s", "write_s", "commit_s"] {
        assert!(stages[stage].as_f64().unwrap() > 0.0, "{stage}: {stages}");
    }
    run.cleanup().await;
}
