//! The consume loop's watchdog against the real broker: a worker whose topic is gone (as after a
//! memory broker's crash) owns no partition; it says so, turns unready and exits non-zero after
//! its stall timeout, while a worker on the real topic goes on consuming.

use std::time::{Duration, Instant};

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_without_a_partition_turns_unready_and_exits() {
    let run = TestRun::new("watchdog").await;
    let mut owner = run.spawn_worker("owner", &["--embedder", "hashed"]);
    // Let the first worker join and take the topic's only partition.
    let started = Instant::now();
    while !owner.log_text().contains("partitions assigned") {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first worker never got its partition:\n{}",
            owner.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let metrics_addr = free_local_addr();
    let missing = format!("{}.gone", run.bundle_topic);
    let mut spare = run.spawn_worker(
        "spare",
        &[
            "--bundle-topic",
            &missing,
            "--group-id",
            &format!("{}-spare", run.group),
            "--embedder",
            "hashed",
            "--stall-timeout-secs",
            "9",
            "--max-message-secs",
            "5",
            "--metrics-addr",
            &metrics_addr,
        ],
    );
    // Unready after a third of the timeout, gone after the timeout.
    let started = Instant::now();
    let mut saw_unready = false;
    let status = loop {
        if let Some(status) = spare.child.try_wait().unwrap() {
            break status;
        }
        if let Ok(mut stream) = std::net::TcpStream::connect(&metrics_addr) {
            use std::io::{Read, Write};
            write!(stream, "GET /readyz HTTP/1.1\r\n\r\n").unwrap();
            let mut response = String::new();
            let _ = stream.read_to_string(&mut response);
            if response.starts_with("HTTP/1.1 503") && response.contains("owns no partition") {
                saw_unready = true;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the spare worker never stopped:\n{}",
            spare.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let log = spare.log_text();
    assert!(!status.success(), "a stalled worker must exit non-zero");
    assert!(log.contains("owns no partition"), "{log}");
    assert!(saw_unready, "/readyz never said why the worker was unready");

    // The owner is unaffected and consumes.
    let bundle = std::fs::read(repo().join("sample/stu3/older-synthea-bundle.json")).unwrap();
    run.publish(&[(Some("p"), bundle.as_slice())]).await;
    run.wait_committed(1, Duration::from_secs(120), &mut owner)
        .await;
    let (status, _, log) = owner.terminate();
    assert!(status.success(), "{log}");
    run.cleanup().await;
}

/// `serve` runs both workers: when one dies (here the ingest worker, stalled on a topic that is
/// gone), the other is stopped and the process exits non-zero, so that a supervisor restarts it.
#[tokio::test(flavor = "multi_thread")]
async fn serve_exits_non_zero_when_a_worker_dies() {
    let run = TestRun::new("serve_dies").await;
    let missing = format!("{}.gone", run.bundle_topic);
    let mut serve = run.spawn_role(
        "serve",
        "serve",
        &[
            "--bundle-topic",
            &missing,
            "--stall-timeout-secs",
            "6",
            "--max-message-secs",
            "4",
            "--embedder",
            "hashed",
            "--llm",
            "rules://",
        ],
    );
    let status = serve.wait_exit(Duration::from_secs(90)).await;
    let log = serve.log_text();
    assert!(!status.success(), "serve must exit non-zero\n{log}");
    assert!(log.contains("stopping the answer worker"), "{log}");
    assert!(log.contains("answer worker stopped"), "{log}");
    run.cleanup().await;
}
