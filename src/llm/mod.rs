//! Language models behind one trait, chosen by the URL of `--llm`:
//!
//! - `rules://`: no model at all; the agents use their deterministic rules and templates.
//! - `http://host:port/v1` or `https://…`: any OpenAI-compatible chat-completions server
//!   (Ollama, vLLM, llama.cpp's server) ([`openai`]).
//! - `gguf:///path/to/model.gguf`: a quantized Llama-family (SmolLM2) or Qwen2 model run with
//!   candle on a dedicated thread ([`gguf`]).
//!
//! The agents never trust what a model returns: it picks facts by number and phrases queries and
//! answers, and deterministic code enforces every privacy property after it.

pub mod gguf;
pub mod openai;

use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;

/// Who says a chat message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions.
    System,
    /// The request.
    User,
    /// The model.
    Assistant,
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChatMessage {
    /// Speaker.
    pub role: Role,
    /// Text.
    pub content: String,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage {
            role: Role::System,
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage {
            role: Role::User,
            content: content.into(),
        }
    }
}

/// A chat-completion request.
#[derive(Clone, Debug)]
pub struct ChatRequest {
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Most tokens to generate.
    pub max_tokens: u32,
    /// Sampling temperature; 0 is greedy (deterministic).
    pub temperature: f32,
}

/// What the model returned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// Generated text.
    pub text: String,
    /// Tokens in the prompt.
    pub prompt_tokens: u32,
    /// Tokens generated.
    pub completion_tokens: u32,
}

/// Errors of the model layer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LlmError {
    /// The `--llm` URL is not one of the supported forms.
    #[error(
        "unsupported --llm {0:?}: use rules://, http(s)://host:port/v1 or gguf:///path/model.gguf"
    )]
    Spec(String),
    /// A model server off this machine reached without TLS.
    #[error("--llm {0:?} sends records and the API key in the clear: use https:// for a model server that is not on loopback")]
    Plaintext(String),
    /// Model files missing or unreadable.
    #[error("model file {path}: {reason}")]
    ModelFile {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The prompt does not fit the model's context.
    #[error("prompt of {tokens} tokens does not fit a context of {context} tokens")]
    PromptTooLong {
        /// Prompt length.
        tokens: usize,
        /// Context length.
        context: usize,
    },
    /// The server could not be reached or timed out (worth retrying).
    #[error("model server unreachable: {0}")]
    Unreachable(String),
    /// The server answered with an error status.
    #[error("model server returned {status}: {body}")]
    Status {
        /// HTTP status.
        status: u16,
        /// Start of the body.
        body: String,
    },
    /// The answer could not be read.
    #[error("unreadable model response: {0}")]
    Response(String),
    /// The model failed while running.
    #[error("model: {0}")]
    Model(String),
    /// The model thread is gone.
    #[error("the model thread has stopped")]
    Stopped,
    /// The backend cannot do what was asked.
    #[error("unsupported by this model backend: {0}")]
    Unsupported(String),
}

/// A chat model. Implementations: [`openai::OpenAiChat`], [`gguf::GgufChat`].
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// A name for answers, the audit table and benchmark reports (never a secret).
    fn name(&self) -> String;
    /// Runs one completion.
    async fn complete(&self, request: ChatRequest) -> Result<Completion, LlmError>;

    /// Whether [`ChatModel::vote`] works with this model.
    fn supports_votes(&self) -> bool {
        false
    }

    /// Private generation by votes (DP-RAG): one continuation per voter context, every token
    /// chosen by a [`TokenChooser`](crate::dp::TokenChooser) from all voters' logits. Only a
    /// local model can give per-voter logits; a server answers [`LlmError::Unsupported`].
    async fn vote(&self, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
        let _ = request;
        Err(LlmError::Unsupported(
            "generation by votes needs a local GGUF model (--llm gguf://…)".into(),
        ))
    }

    /// Every voter's own answer (keyword-space aggregation, [`crate::dp::keywords`]): the same
    /// prompts as [`ChatModel::vote`], each continued greedily on its own; one output per
    /// context, in order (the request's choosers are not used). Local models only.
    async fn each(&self, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
        let _ = request;
        Err(LlmError::Unsupported(
            "per-voter answers need a local GGUF model (--llm gguf://…)".into(),
        ))
    }
}

/// A generation by votes: the same question with one context per voter.
pub struct VoteRequest {
    /// Instructions, the same for every voter.
    pub system: String,
    /// The question, the same for every voter (it comes first, so its tokens are computed once).
    pub question: String,
    /// One context per voter (one patient's documents).
    pub contexts: Vec<String>,
    /// Most tokens of one context (longer ones are cut).
    pub max_context_tokens: usize,
    /// Public text the answer starts with (the same for every voter, derived from the question
    /// only), e.g. "Medication:"; the outputs hold what follows it.
    pub lead: String,
    /// Tokens generated at most.
    pub max_tokens: usize,
    /// One chooser per continuation wanted (the answer uses one; the evaluation compares
    /// several on the same voters).
    pub choosers: Vec<Box<dyn crate::dp::TokenChooser>>,
}

/// One continuation of a generation by votes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VoteOutput {
    /// Generated text.
    pub text: String,
    /// Tokens generated.
    pub tokens: u32,
    /// Forward passes of the model for this continuation (the shared prompt passes included).
    pub passes: u32,
    /// Seconds this continuation took alone (the shared prompt passes included).
    pub seconds: f64,
}

/// The backend the agents use.
#[derive(Clone)]
pub enum Backend {
    /// Deterministic rules and templates, no model.
    Rules,
    /// A chat model.
    Model(Arc<dyn ChatModel>),
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl Backend {
    /// Name for reports: `rules`, `openai:<model>`, `gguf:<file>`.
    pub fn name(&self) -> String {
        match self {
            Backend::Rules => "rules".into(),
            Backend::Model(model) => model.name(),
        }
    }
}

/// Settings of the model backend.
#[derive(Clone, clap::Args)]
pub struct LlmConfig {
    /// Model backend: `rules://` (no model), `http://host:port/v1` (OpenAI-compatible server:
    /// Ollama, vLLM, llama.cpp), or `gguf:///path/model.gguf` (local, run with candle).
    #[arg(long = "llm", env = "FHIR_RAG_LLM", default_value = "rules://")]
    pub url: String,
    /// Model name sent to an OpenAI-compatible server.
    #[arg(long, env = "FHIR_RAG_LLM_MODEL", default_value = "default")]
    pub llm_model: String,
    /// Bearer token for the OpenAI-compatible server.
    #[arg(long, env = "FHIR_RAG_LLM_API_KEY", hide_env_values = true)]
    pub llm_api_key: Option<String>,
    /// Time limit of one call to a model server, in milliseconds.
    #[arg(long, env = "FHIR_RAG_LLM_TIMEOUT_MS", default_value_t = 60_000)]
    pub llm_timeout_ms: u64,
    /// Most tokens the model generates for one answer.
    #[arg(long, env = "FHIR_RAG_LLM_MAX_TOKENS", default_value_t = 96)]
    pub llm_max_tokens: u32,
    /// Sampling temperature (0: greedy and reproducible).
    #[arg(long, env = "FHIR_RAG_LLM_TEMPERATURE", default_value_t = 0.0)]
    pub llm_temperature: f32,
    /// Local GGUF models: expand the quantized weights to f32 when loading, so that matrix
    /// products take the dense (gemm/MKL) kernels. For a small model this doubles the speed of
    /// reading prompts, which is what DP answers spend their time on (one prompt per voter);
    /// memory grows to about 4 bytes per parameter (SmolLM2-135M: 0.5 GiB). Turn off for
    /// models larger than the memory allows.
    #[arg(long, env = "FHIR_RAG_LLM_DEQUANTIZE", default_value_t = true, action = clap::ArgAction::Set)]
    pub llm_dequantize: bool,
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("url", &self.url)
            .field("llm_model", &self.llm_model)
            .field(
                "llm_api_key",
                &self.llm_api_key.as_ref().map(|_| "[redacted]"),
            )
            .field("llm_timeout_ms", &self.llm_timeout_ms)
            .finish()
    }
}

/// Whether an `http://` URL names this machine (a loopback address or `localhost`): the only
/// place a model server may be reached without TLS.
fn loopback_url(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl LlmConfig {
    /// Opens the configured backend (loads a GGUF model, builds the HTTP client).
    pub fn open(&self) -> Result<Backend, LlmError> {
        let url = self.url.trim();
        if url == "rules://" || url == "rules" {
            return Ok(Backend::Rules);
        }
        if let Some(path) = url.strip_prefix("gguf://") {
            let model = gguf::GgufChat::load(std::path::Path::new(path), self.llm_dequantize)?;
            return Ok(Backend::Model(Arc::new(model)));
        }
        if url.starts_with("http://") || url.starts_with("https://") {
            if url.starts_with("http://") && !loopback_url(url) {
                return Err(LlmError::Plaintext(url.to_string()));
            }
            let model = openai::OpenAiChat::new(
                url,
                &self.llm_model,
                self.llm_api_key.clone(),
                std::time::Duration::from_millis(self.llm_timeout_ms),
            )?;
            return Ok(Backend::Model(Arc::new(model)));
        }
        Err(LlmError::Spec(url.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_server_off_loopback_needs_tls() {
        let config = |url: &str| LlmConfig {
            url: url.into(),
            llm_model: "m".into(),
            llm_api_key: Some("key".into()),
            llm_timeout_ms: 1000,
            llm_max_tokens: 8,
            llm_temperature: 0.0,
            llm_dequantize: false,
        };
        for url in [
            "http://10.0.0.5:8000/v1",
            "http://llm.hospital.example/v1",
            "http://127.0.0.1.evil.example/v1",
        ] {
            assert!(
                matches!(config(url).open(), Err(LlmError::Plaintext(_))),
                "{url}"
            );
        }
        for url in [
            "http://127.0.0.1:8000/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "https://llm.hospital.example/v1",
        ] {
            assert!(config(url).open().is_ok(), "{url}");
        }
    }
}
