//! An OpenAI-compatible chat-completions endpoint that replays a recorded response
//! (`tests/fixtures/openai-chat-completion.json`, the shape llama.cpp's server, vLLM and Ollama
//! return) with the reply text a test chooses, and keeps every request body it received. No
//! OpenAI-compatible server can be installed from the package registries here without building
//! llama.cpp, so the HTTP backend is tested against this.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub struct RecordedServer {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl RecordedServer {
    /// Starts on a free loopback port; every reply carries `content`.
    pub async fn start(content: String) -> RecordedServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                crate::support::repo().join("tests/fixtures/openai-chat-completion.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let seen = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let mut reply = recorded.clone();
                reply["choices"][0]["message"]["content"] = content.clone().into();
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut buffer = Vec::new();
                    let mut chunk = [0u8; 8192];
                    // Headers, then Content-Length bytes of body.
                    let (header_end, length) = loop {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        buffer.extend_from_slice(&chunk[..n]);
                        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buffer[..end]).to_lowercase();
                            let length = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(0);
                            assert!(head.starts_with("post /v1/chat/completions "), "{head}");
                            break (end + 4, length);
                        }
                    };
                    while buffer.len() < header_end + length {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        buffer.extend_from_slice(&chunk[..n]);
                    }
                    let body = String::from_utf8_lossy(&buffer[header_end..]).to_string();
                    let request: serde_json::Value = serde_json::from_str(&body).unwrap();
                    assert_eq!(request["model"], "recorded");
                    assert!(request["messages"].as_array().is_some_and(|m| m.len() == 2));
                    seen.lock().unwrap().push(body);
                    let payload = reply.to_string();
                    let response = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{payload}",
                        payload.len()
                    );
                    let _ = socket.write_all(response.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        RecordedServer { port, requests }
    }

    /// The base URL to give `--llm`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Bodies of the requests received so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}
