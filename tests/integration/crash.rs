//! A worker killed with SIGKILL mid-stream and restarted: nothing lost, nothing duplicated.

use std::time::Duration;

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_stream_resumes_without_loss_or_duplicates() {
    let run = TestRun::new("crash").await;
    let files: Vec<_> = patient_files_by_size().into_iter().take(6).collect();
    let bundles: Vec<Vec<u8>> = files.iter().map(|f| read_bz2(f)).collect();
    let keys: Vec<String> = bundles
        .iter()
        .map(|b| fhir_rag::backfill::bundle_key(b).unwrap())
        .collect();
    let messages: Vec<(Option<&str>, &[u8])> = keys
        .iter()
        .zip(&bundles)
        .map(|(k, b)| (Some(k.as_str()), b.as_slice()))
        .collect();
    run.publish(&messages).await;

    // Kill the worker as soon as it has committed at least one bundle but not all.
    let mut worker = run.spawn_worker("killed", &[]);
    let started = std::time::Instant::now();
    let committed_before_kill = loop {
        let committed = run.committed_total();
        if committed >= 1 {
            break committed;
        }
        assert!(
            worker.child.try_wait().unwrap().is_none(),
            "worker died: {}",
            worker.log_tail()
        );
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no progress: {}",
            worker.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = worker.kill_hard();
    assert!(
        committed_before_kill < bundles.len() as i64,
        "the worker finished before it could be killed; use larger bundles"
    );

    // While the restarted worker runs, its database connections are cut again and again
    // (as a failover or a network blip would): transient failures, retried while the offset
    // is held.
    // Three outages, then the database stays up (a worker cannot finish a bundle while its
    // connections are cut faster than it embeds; it must keep retrying, not give up).
    let mut worker = run.spawn_worker("restarted", &["--retry-max-backoff-ms", "2000"]);
    let (stop_cutting, mut stopped) = tokio::sync::watch::channel(false);
    let cutter = {
        let url = run.services.database_url.clone();
        let database = run.database.clone();
        tokio::spawn(async move {
            let pool = sqlx::PgPool::connect(&url).await.unwrap();
            let mut cuts = 0i64;
            let mut outages = 0;
            while outages < 3 {
                tokio::select! {
                    _ = stopped.changed() => break,
                    _ = tokio::time::sleep(Duration::from_millis(2500)) => {}
                }
                let n: i64 = sqlx::query_scalar(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                     WHERE datname = $1 AND pid <> pg_backend_pid()",
                )
                .bind(&database)
                .fetch_one(&pool)
                .await
                .unwrap();
                cuts += n;
                if n > 0 {
                    outages += 1;
                }
            }
            pool.close().await;
            cuts
        })
    };
    run.wait_committed(bundles.len() as i64, Duration::from_secs(900), &mut worker)
        .await;
    let _ = stop_cutting.send(true);
    let cuts = cutter.await.unwrap();
    let (status, report, log) = worker.terminate();
    assert!(status.success(), "{log}");
    assert!(cuts > 0, "no connection was cut; the test proves nothing");
    eprintln!("connections cut: {cuts}; worker report: {report}");

    // Exactly the documents the bundles yield, each once, each embedded.
    let store = run.store().await;
    let oracle = expected_documents(&bundles);
    assert_documents_match(&store, &oracle).await;
    let counts = store.counts().await.unwrap();
    assert_eq!(counts.patients, bundles.len() as i64);
    store.pool().close().await;
    run.cleanup().await;
}
