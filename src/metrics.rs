//! Prometheus metrics and health endpoints (`--metrics-addr`).
//!
//! One process-wide registry of counters, gauges and histograms, rendered in the Prometheus text
//! format on `GET /metrics`. Label values come from closed sets in the code (outcomes, error
//! kinds, statuses, worker names), never from messages: no PHI can reach a label. `GET /healthz`
//! answers 200 while the process runs; `GET /readyz` answers 200 only while every started worker
//! is running and the database was reachable at its last use, 503 otherwise (with the reason).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Mutex, OnceLock};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct Registry {
    /// Series name with labels → value (counters and gauges).
    values: BTreeMap<String, (Kind, f64)>,
    histograms: BTreeMap<String, Histogram>,
    help: BTreeMap<&'static str, &'static str>,
    /// Workers started and still running.
    workers: BTreeMap<&'static str, bool>,
    /// What keeps a running worker from making progress, by worker.
    problems: BTreeMap<&'static str, &'static str>,
    database_reachable: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
}

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            Mutex::new(Registry {
                database_reachable: true,
                ..Registry::default()
            })
        })
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

fn series(name: &str, labels: &[(&str, &str)]) -> String {
    if labels.is_empty() {
        return name.to_string();
    }
    let labels: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", v.replace(['"', '\\', '\n'], "_")))
        .collect();
    format!("{name}{{{}}}", labels.join(","))
}

/// Adds `by` to a counter.
pub fn count(name: &'static str, help: &'static str, labels: &[(&str, &str)], by: f64) {
    let mut r = registry();
    r.help.insert(name, help);
    r.values
        .entry(series(name, labels))
        .or_insert((Kind::Counter, 0.0))
        .1 += by;
}

/// Sets a gauge.
pub fn gauge(name: &'static str, help: &'static str, labels: &[(&str, &str)], value: f64) {
    let mut r = registry();
    r.help.insert(name, help);
    r.values.insert(series(name, labels), (Kind::Gauge, value));
}

/// Records one observation of a histogram (seconds).
pub fn observe(name: &'static str, help: &'static str, labels: &[(&str, &str)], value: f64) {
    let mut r = registry();
    r.help.insert(name, help);
    let h = r.histograms.entry(series(name, labels)).or_default();
    for (i, bound) in BUCKETS.iter().enumerate() {
        if value <= *bound {
            h.counts[i] += 1;
        }
    }
    h.count += 1;
    h.sum += value;
}

/// A worker starts (`true`) or stops (`false`); a stopped worker makes the process unready.
pub fn worker_running(worker: &'static str, running: bool) {
    registry().workers.insert(worker, running);
    gauge(
        "fhir_rag_worker_running",
        "1 while the worker runs",
        &[("worker", worker)],
        if running { 1.0 } else { 0.0 },
    );
}

/// Marks a worker running for as long as it lives (also when its task ends by an error).
pub struct Running(&'static str);

impl Running {
    /// The worker `name` starts.
    pub fn start(name: &'static str) -> Running {
        worker_running(name, true);
        Running(name)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        worker_running(self.0, false);
    }
}

/// What keeps a running worker from progress (`None`: nothing); any problem makes the process
/// unready.
pub fn worker_problem(worker: &'static str, problem: Option<&'static str>) {
    let mut r = registry();
    match problem {
        Some(p) => r.problems.insert(worker, p),
        None => r.problems.remove(worker),
    };
}

/// Whether the database answered at its last use.
pub fn database_reachable(reachable: bool) {
    registry().database_reachable = reachable;
}

/// Why the process is not ready, or `None` when it is.
pub fn unready_reason() -> Option<String> {
    let r = registry();
    if r.workers.is_empty() {
        return Some("no worker started".into());
    }
    if let Some((worker, _)) = r.workers.iter().find(|(_, running)| !**running) {
        return Some(format!("the {worker} worker is not running"));
    }
    // Problems of running workers only (a stopped worker is reported as such above).
    if let Some((worker, problem)) = r
        .problems
        .iter()
        .find(|(worker, _)| r.workers.contains_key(*worker))
    {
        return Some(format!("the {worker} worker {problem}"));
    }
    if !r.database_reachable {
        return Some("the database is unreachable".into());
    }
    None
}

/// The registry in the Prometheus text format.
pub fn render() -> String {
    let r = registry();
    let mut out = String::new();
    let base = |s: &str| s.split('{').next().unwrap_or(s).to_string();
    let mut last = String::new();
    for (series, (kind, value)) in &r.values {
        let name = base(series);
        if name != last {
            let help = r.help.get(name.as_str()).copied().unwrap_or("");
            let kind = if *kind == Kind::Counter {
                "counter"
            } else {
                "gauge"
            };
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            last = name;
        }
        let _ = writeln!(out, "{series} {value}");
    }
    for (series, h) in &r.histograms {
        let name = base(series);
        if name != last {
            let help = r.help.get(name.as_str()).copied().unwrap_or("");
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
            last = name.clone();
        }
        let labels = series
            .strip_prefix(&name)
            .unwrap_or("")
            .trim_start_matches('{')
            .trim_end_matches('}');
        let with = |extra: String| {
            if labels.is_empty() {
                format!("{{{extra}}}")
            } else {
                format!("{{{labels},{extra}}}")
            }
        };
        for (bound, n) in BUCKETS.iter().zip(h.counts) {
            let _ = writeln!(out, "{name}_bucket{} {n}", with(format!("le=\"{bound}\"")));
        }
        let _ = writeln!(
            out,
            "{name}_bucket{} {}",
            with("le=\"+Inf\"".into()),
            h.count
        );
        let plain = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{plain} {}", h.sum);
        let _ = writeln!(out, "{name}_count{plain} {}", h.count);
    }
    out
}

/// Connections served at once; more are closed at once (a scraper and a probe or two is what
/// this endpoint is for).
pub const MAX_CONNECTIONS: usize = 32;
/// How long a client may take to send its request, and to take the response.
pub const IO_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves `/metrics`, `/healthz` and `/readyz` on `addr` until the process ends. Each connection
/// has [`IO_TIMEOUT`] to send its request head and to read the answer, and at most
/// [`MAX_CONNECTIONS`] are open at once: a client that never ends its request holds nothing for
/// long. The endpoint has no authentication: keep it on loopback or a monitoring network.
pub async fn serve(addr: SocketAddr) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    if addr.ip().is_loopback() {
        tracing::info!(%addr, "metrics and health endpoints listening");
    } else {
        tracing::warn!(%addr, "metrics and health endpoints listening beyond loopback, without authentication: restrict who reaches this port");
    }
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let (mut socket, _) = listener.accept().await?;
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            count(
                "fhir_rag_metrics_connections_refused_total",
                "Connections to the metrics endpoint closed because too many were open.",
                &[],
                1.0,
            );
            drop(socket);
            continue;
        };
        tokio::spawn(async move {
            let _permit = permit;
            let mut buffer = vec![0u8; 4096];
            let mut read = 0;
            let head = tokio::time::timeout(IO_TIMEOUT, async {
                while read < buffer.len() {
                    match socket.read(&mut buffer[read..]).await {
                        Ok(0) | Err(_) => return false,
                        Ok(n) => read += n,
                    }
                    if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                        return true;
                    }
                }
                false
            })
            .await;
            if !matches!(head, Ok(true)) {
                return;
            }
            let request = String::from_utf8_lossy(&buffer[..read]);
            let (status, body) = respond(request.lines().next().unwrap_or(""));
            let response = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = tokio::time::timeout(IO_TIMEOUT, socket.write_all(response.as_bytes())).await;
        });
    }
}

/// Status line and body for a request line.
fn respond(request_line: &str) -> (&'static str, String) {
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" {
        return ("405 Method Not Allowed", "GET only\n".into());
    }
    match path.split('?').next().unwrap_or("") {
        "/metrics" => ("200 OK", render()),
        "/healthz" => ("200 OK", "ok\n".into()),
        "/readyz" => match unready_reason() {
            None => ("200 OK", "ready\n".into()),
            Some(reason) => ("503 Service Unavailable", format!("{reason}\n")),
        },
        _ => ("404 Not Found", "not found\n".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_that_never_ends_its_request_is_dropped_and_connections_are_capped() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        tokio::spawn(serve(addr));
        let connect = || async {
            for _ in 0..50 {
                if let Ok(s) = tokio::net::TcpStream::connect(addr).await {
                    return s;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            panic!("the endpoint did not start")
        };
        // Slow clients fill every slot…
        let mut slow = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            let mut s = connect().await;
            s.write_all(b"GET /metrics HTTP/1.1\r\n").await.unwrap();
            slow.push(s);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        // …so one more is closed without an answer…
        let mut extra = connect().await;
        let _ = extra.write_all(b"GET /healthz HTTP/1.1\r\n\r\n").await;
        let mut answer = Vec::new();
        let _ = extra.read_to_end(&mut answer).await;
        assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
        // …until the slow ones time out, and then a client is served again.
        let mut first = slow.remove(0);
        let mut rest = Vec::new();
        let started = std::time::Instant::now();
        let n = first.read_to_end(&mut rest).await.unwrap_or(0);
        assert_eq!(n, 0, "a request never ended gets no answer");
        assert!(started.elapsed() <= IO_TIMEOUT + std::time::Duration::from_secs(10));
        drop(slow);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let mut ok = connect().await;
        ok.write_all(b"GET /healthz HTTP/1.1\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        ok.read_to_end(&mut answer).await.unwrap();
        assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
    }

    #[test]
    fn counters_histograms_and_readiness_render() {
        count(
            "test_messages_total",
            "Messages.",
            &[("outcome", "stored")],
            2.0,
        );
        count(
            "test_messages_total",
            "Messages.",
            &[("outcome", "stored")],
            1.0,
        );
        count(
            "test_messages_total",
            "Messages.",
            &[("outcome", "partial")],
            1.0,
        );
        observe(
            "test_latency_seconds",
            "Latency.",
            &[("status", "answered")],
            0.02,
        );
        observe(
            "test_latency_seconds",
            "Latency.",
            &[("status", "answered")],
            3.0,
        );
        let text = render();
        assert!(text.contains("# TYPE test_messages_total counter"));
        assert!(text.contains("test_messages_total{outcome=\"stored\"} 3"));
        assert!(text.contains("test_messages_total{outcome=\"partial\"} 1"));
        assert!(text.contains("test_latency_seconds_bucket{status=\"answered\",le=\"0.025\"} 1"));
        assert!(text.contains("test_latency_seconds_bucket{status=\"answered\",le=\"+Inf\"} 2"));
        assert!(text.contains("test_latency_seconds_count{status=\"answered\"} 2"));
        assert_eq!(respond("GET /healthz HTTP/1.1").0, "200 OK");
        assert_eq!(
            respond("POST /metrics HTTP/1.1").0,
            "405 Method Not Allowed"
        );
        worker_running("test-worker", true);
        database_reachable(true);
        assert_eq!(respond("GET /readyz HTTP/1.1").0, "200 OK");
        database_reachable(false);
        assert!(respond("GET /readyz HTTP/1.1").1.contains("database"));
        database_reachable(true);
        worker_running("test-worker", false);
        assert_eq!(respond("GET /readyz HTTP/1.1").0, "503 Service Unavailable");
        worker_running("test-worker", true);
    }
}
