//! The Synthea archive through the real broker into the real database: exact counts, idempotent
//! replay, committed offsets, and no PHI in the worker's logs.

use std::time::Duration;

use sqlx::Row;

use crate::support::*;

/// Exact figures for the default subset (the 10 smallest patient bundles) and for the whole
/// archive (120 patients; `FHIR_RAG_FULL_TEST=1`). Counted by this pipeline and cross-checked
/// against the in-memory oracle below; a change to flattening or chunking changes them on purpose.
struct Expected {
    patients: i64,
    documents: i64,
    embeddings: i64,
}

const SUBSET_PATIENTS: usize = 10;
// Chunks: summaries are cut at each kind of fact (2026-11-23: 175 → 196 on the subset);
// encounters became facts (2026-11-25: 196 → 208).
const SUBSET: Expected = Expected {
    patients: 10,
    documents: 103,
    embeddings: 208,
};
// From `bench ingest` on the 120 patients with the section cut and medication reasons
// (2026-11-23, docs/results/bench-ingest.json); 10,036 → 10,226 chunks with encounters as facts
// (2026-11-25, the 120-patient load of scripts/eval-natural.sh).
const FULL: Expected = Expected {
    patients: 120,
    documents: 5102,
    embeddings: 10226,
};

#[tokio::test(flavor = "multi_thread")]
async fn synthea_archive_is_ingested_exactly_once_and_replays_change_nothing() {
    let run = TestRun::new("ingest").await;
    let (source, expected, bundles) = if full_run() {
        (synthea_dir(), FULL, 122i64)
    } else {
        // A folder of links to the subset, so that `fhir-rag backfill` reads it as a user would.
        let dir = run.subset_dir(SUBSET_PATIENTS);
        (dir, SUBSET, SUBSET_PATIENTS as i64)
    };

    // Backfill through the CLI, as a data team would.
    let summary = run.backfill(&source);
    assert_eq!(summary["published"], bundles);

    let mut worker = run.spawn_worker("first", &[]);
    let timeout = Duration::from_secs(if full_run() { 4 * 3600 } else { 1200 });
    run.wait_committed(bundles, timeout, &mut worker).await;
    let (status, report, log) = worker.terminate();
    assert!(status.success(), "worker exit: {status}\n{log}");
    let report = first_json(&report);
    assert_eq!(report["messages"], bundles);
    assert_eq!(report["dead_lettered"], 0);
    assert_eq!(report["partial"], 0);

    let store = run.store().await;
    let counts = store.counts().await.unwrap();
    assert_eq!(counts.patients, expected.patients, "{counts:?}");
    assert_eq!(counts.patients_with_demographics, expected.patients);
    assert_eq!(counts.summary_documents, expected.patients);
    assert_eq!(counts.documents, expected.documents, "{counts:?}");
    assert_eq!(counts.embeddings, expected.embeddings, "{counts:?}");

    // The oracle: the pure stages, run in memory on the same files, give the same documents.
    let files: Vec<_> = if full_run() {
        patient_files_by_size()
    } else {
        patient_files_by_size()
            .into_iter()
            .take(SUBSET_PATIENTS)
            .collect()
    };
    let oracle = expected_documents(&files.iter().map(|f| read_bz2(f)).collect::<Vec<_>>());
    assert_eq!(oracle.len() as i64, counts.documents);
    let texts = assert_documents_match(&store, &oracle).await;
    // Vectors have the model's dimension and unit length.
    let norms = sqlx::query(
        "SELECT vector_dims(embedding) AS dims, vector_norm(embedding)::float8 AS norm FROM chunks",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    for row in norms {
        assert_eq!(row.get::<i32, _>("dims"), 384);
        assert!((row.get::<f64, _>("norm") - 1.0).abs() < 1e-3);
    }

    // No PHI in the logs: every distinctive vault string is absent from the worker's log.
    let vault: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT value FROM vault.phi_vault
         WHERE kind IN ('full_name', 'given_name', 'family_name', 'maiden_name', 'phone', 'ssn', 'mrn',
                        'drivers_license', 'passport', 'address_line', 'address', 'birth_date')
           AND length(value) >= 5",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert!(
        vault.len() as i64 >= 5 * expected.patients,
        "vault too small: {}",
        vault.len()
    );
    for value in &vault {
        assert!(
            !log.contains(value.as_str()),
            "a PHI value reached the worker log"
        );
    }
    // …nor in any document text.
    let names: Vec<&String> = vault
        .iter()
        .filter(|v| v.chars().any(|c| c.is_ascii_digit()) && v.chars().any(char::is_alphabetic))
        .collect();
    for text in &texts {
        for name in &names {
            assert!(
                !text.contains(name.as_str()),
                "an identifier reached a document's text"
            );
        }
    }

    // Replay: the same bundles again change nothing and re-embed nothing.
    let fingerprint = store.fingerprint().await.unwrap();
    let updated: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT max(updated_at) FROM documents")
            .fetch_one(store.pool())
            .await
            .unwrap();
    let again = run
        .command(&["backfill", source.to_str().unwrap(), "--no-progress"])
        .output()
        .unwrap();
    assert!(again.status.success());
    let mut worker = run.spawn_worker("replay", &[]);
    run.wait_committed(2 * bundles, timeout, &mut worker).await;
    let (status, report, log) = worker.terminate();
    assert!(status.success(), "{log}");
    let report = first_json(&report);
    assert_eq!(report["messages"], bundles);
    assert_eq!(report["store"]["documents_written"], 0);
    assert_eq!(report["store"]["chunks_embedded"], 0);
    assert_eq!(report["store"]["facts_written"], 0);
    assert_eq!(store.counts().await.unwrap(), counts);
    assert_eq!(store.fingerprint().await.unwrap(), fingerprint);
    let updated_after: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT max(updated_at) FROM documents")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(updated, updated_after);
    store.pool().close().await;
    run.cleanup().await;
}
