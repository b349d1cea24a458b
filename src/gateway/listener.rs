//! The gateway's HTTP listener, bounded: a client has [`Limits::header_timeout`] to send a
//! request's head and [`Limits::body_timeout`] to send its body, and at most
//! [`Limits::max_connections`] connections are open at once (more are closed as they arrive). A
//! client that opens connections and never finishes a request (slowloris) holds nothing for long.
//! One client (an IPv4 address, or an IPv6 /64, which one host can hold whole) may hold at most
//! [`Limits::max_per_client`] of them, so that it cannot take every slot from the others.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

/// How long and how many.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time to send a request's head (its line and headers).
    pub header_timeout: Duration,
    /// Time to send a request's body, once its head is in (one deadline for the whole body).
    pub body_timeout: Duration,
    /// The longest a connection may stay open, whatever it does.
    pub max_lifetime: Duration,
    /// Connections one client may hold at once (0: no limit; behind a proxy that does not
    /// pass the client's own address, every client is the proxy).
    pub max_per_client: usize,
}

/// The connections each client holds: entries leave at zero, so the map is bounded by the open
/// connections.
#[derive(Default)]
struct PerClient(Mutex<HashMap<IpAddr, usize>>);

/// One client's hold on a connection; given back on drop.
struct ClientSlot {
    clients: Arc<PerClient>,
    client: IpAddr,
}

impl PerClient {
    /// A slot for `client`'s connection, or None when it holds `max` already (0: no limit).
    fn take(self: &Arc<Self>, client: IpAddr, max: usize) -> Option<ClientSlot> {
        let client = client_of(client);
        let mut held = self.0.lock().expect("not poisoned");
        let n = held.entry(client).or_default();
        if max > 0 && *n >= max {
            if *n == 0 {
                held.remove(&client);
            }
            return None;
        }
        *n += 1;
        Some(ClientSlot {
            clients: self.clone(),
            client,
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut held = self.clients.0.lock().expect("not poisoned");
        if let Some(n) = held.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// Who a peer address counts as: an IPv4 address (also when mapped into IPv6) or the /64 of an
/// IPv6 address (one host is commonly given a whole /64 and may use any address of it).
fn client_of(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

/// Serves `app` on `listener` until `shutdown` turns true, then lets the open requests finish
/// (10 s at most).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let body_timeout = limits.body_timeout;
    let app = app.layer(axum::middleware::from_fn(
        move |request: Request, next: Next| bounded_body(request, next, body_timeout),
    ));
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let clients = Arc::new(PerClient::default());
    let graceful = GracefulShutdown::new();
    let stopped = async move {
        let _ = shutdown.wait_for(|stop| *stop).await;
    };
    tokio::pin!(stopped);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors and the like: the listener itself is fine.
                Err(e) => {
                    tracing::warn!(error = %e, "gateway accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stopped => break,
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            crate::metrics::count(
                "fhir_rag_gateway_connections_refused_total",
                "Connections to the gateway closed at once because too many were open.",
                &[],
                1.0,
            );
            drop(stream);
            continue;
        };
        let Some(client_slot) = clients.take(peer.ip(), limits.max_per_client) else {
            crate::metrics::count(
                "fhir_rag_gateway_connections_refused_total",
                "Connections to the gateway closed at once because too many were open.",
                &[("reason", "per_client")],
                1.0,
            );
            drop(stream);
            continue;
        };
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        let lifetime = limits.max_lifetime;
        tokio::spawn(async move {
            let _permit = (permit, client_slot);
            // A connection that outlives its lifetime (a client that never reads a response)
            // is dropped, and its slot with it.
            let _ = tokio::time::timeout(lifetime, connection).await;
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(10), graceful.shutdown()).await;
    Ok(())
}

/// Reads a request's whole body within `timeout` from the end of its head (one deadline, not
/// one per chunk: a client that trickles a byte at a time gets 408), at most 16 KiB (413).
async fn bounded_body(request: Request, next: Next, timeout: Duration) -> Response {
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, MAX_BODY_BYTES)).await {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => StatusCode::PAYLOAD_TOO_LARGE.into_response(),
        Err(_) => StatusCode::REQUEST_TIMEOUT.into_response(),
    }
}

/// The largest request body the gateway reads (a question is at most 2000 characters).
pub const MAX_BODY_BYTES: usize = 16 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::{get, post};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn start(limits: Limits) -> (std::net::SocketAddr, watch::Sender<bool>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/echo", post(|body: String| async move { body }));
        let (stop, shutdown) = watch::channel(false);
        tokio::spawn(serve(listener, app, limits, shutdown));
        (addr, stop)
    }

    async fn answer_of(stream: &mut tokio::net::TcpStream) -> String {
        let mut answer = Vec::new();
        let _ =
            tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
        String::from_utf8_lossy(&answer).into_owned()
    }

    #[tokio::test]
    async fn slow_clients_are_dropped_and_connections_are_capped() {
        let limits = Limits {
            max_connections: 4,
            header_timeout: Duration::from_millis(500),
            body_timeout: Duration::from_millis(500),
            max_lifetime: Duration::from_secs(60),
            max_per_client: 0,
        };
        let (addr, stop) = start(limits).await;
        let quick = Duration::from_secs(4);
        // A head never finished: closed after the header timeout, unanswered.
        let started = std::time::Instant::now();
        let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        let answer = answer_of(&mut slow).await;
        assert!(!answer.contains("ok"), "{answer}");
        assert!(started.elapsed() < quick, "{:?}", started.elapsed());
        // A body trickled a byte every 200 ms (each within the timeout, the whole not): 408.
        let started = std::time::Instant::now();
        let mut trickle = tokio::net::TcpStream::connect(addr).await.unwrap();
        trickle
            .write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        for _ in 0..20 {
            if trickle.write_all(b"a").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            let mut buffer = [0u8; 512];
            if let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(1), trickle.read(&mut buffer)).await
            {
                answer.extend_from_slice(&buffer[..n]);
                if n == 0 || !answer.is_empty() {
                    break;
                }
            }
        }
        let answer = String::from_utf8_lossy(&answer).into_owned() + &answer_of(&mut trickle).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(started.elapsed() < quick, "{:?}", started.elapsed());
        // A full request, then the connection left idle: closed after the header timeout.
        let started = std::time::Instant::now();
        let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
        idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let answer = answer_of(&mut idle).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(started.elapsed() < quick, "{:?}", started.elapsed());
        // Four open connections fill every slot: a fifth is closed without an answer.
        let mut open = Vec::new();
        for _ in 0..4 {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\n").await.unwrap();
            open.push(s);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut fifth = tokio::net::TcpStream::connect(addr).await.unwrap();
        let _ = fifth
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await;
        let answer = answer_of(&mut fifth).await;
        assert!(answer.is_empty(), "{answer}");
        // The slow ones time out by themselves (nothing closes them here), and a client is
        // served again.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mut ok = tokio::net::TcpStream::connect(addr).await.unwrap();
        ok.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let answer = answer_of(&mut ok).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        drop(open);
        let _ = stop.send(true);
    }

    #[tokio::test]
    async fn one_client_cannot_hold_every_connection() {
        let limits = Limits {
            max_connections: 16,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_lifetime: Duration::from_secs(60),
            max_per_client: 2,
        };
        let (addr, stop) = start(limits).await;
        // Two unfinished requests from 127.0.0.1 hold its share; a third is closed unanswered.
        let mut open = Vec::new();
        for _ in 0..2 {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\n").await.unwrap();
            open.push(s);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        let mut third = tokio::net::TcpStream::connect(addr).await.unwrap();
        let _ = third.write_all(request).await;
        assert!(answer_of(&mut third).await.is_empty());
        // Another client (127.0.0.2 is this host too) is served meanwhile.
        let other = tokio::net::TcpSocket::new_v4().unwrap();
        other.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        let mut other = other.connect(addr).await.unwrap();
        other.write_all(request).await.unwrap();
        let answer = answer_of(&mut other).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        // Once the first client lets one go, its next connection is served.
        drop(open.pop());
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut again = tokio::net::TcpStream::connect(addr).await.unwrap();
        again.write_all(request).await.unwrap();
        let answer = answer_of(&mut again).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        drop(open);
        let _ = stop.send(true);
    }

    #[test]
    fn an_ipv6_client_is_its_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_of(a), client_of(b));
        assert_ne!(client_of(a), client_of(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_of(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }
}
