//! Embeddings: the [`Embedder`] trait at the seam between model and pipeline, the BERT-family
//! model run with candle ([`bert`]), a deterministic embedder for unit tests ([`hashed`]), and the
//! batching queue that feeds the model on its own thread ([`batcher`]).

pub mod batcher;

/// The kernels this build runs the model's products with: "mkl" or "gemm", with "+cuda" when it
/// can run on an NVIDIA GPU (the cargo features it was built with).
pub const BUILD_KERNELS: &str = if cfg!(feature = "cuda") {
    if cfg!(feature = "mkl") {
        "mkl+cuda"
    } else {
        "gemm+cuda"
    }
} else if cfg!(feature = "mkl") {
    "mkl"
} else {
    "gemm"
};
pub mod bert;
mod bf16;
mod candle_bert;
pub mod hashed;
mod native;

use std::fmt;
use std::path::Path;

use serde::Serialize;

/// How token vectors become one sentence vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// The first ([CLS]) token's vector (bge-base-en-v1.5).
    Cls,
    /// The mean of the non-padding tokens' vectors (all-MiniLM-L6-v2).
    Mean,
}

/// What the pipeline needs to know about a model; read from the model's own files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelInfo {
    /// A name for logs and for the store's record of which model filled it.
    pub name: String,
    /// Length of the vectors.
    pub dimension: usize,
    /// Longest input in tokens, special tokens included; longer inputs are truncated.
    pub max_tokens: usize,
    /// Pooling strategy.
    pub pooling: Pooling,
    /// Whether vectors are scaled to unit length.
    pub normalize: bool,
}

/// Errors of the embedding layer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    /// The model directory lacks a file or holds one that does not parse.
    #[error("model files in {dir}: {reason}")]
    ModelFiles {
        /// The directory.
        dir: String,
        /// What is wrong.
        reason: String,
    },
    /// Tokenization failed.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The model failed while running.
    #[error("model: {0}")]
    Model(String),
    /// The model thread is gone (it panicked or the service shut down).
    #[error("the embedding service has stopped")]
    Stopped,
}

impl EmbedError {
    /// Whether the device ran out of memory (CUDA, Metal, or the allocator): worth a smaller
    /// batch or a later retry, not a verdict on the data.
    pub fn is_out_of_memory(&self) -> bool {
        match self {
            EmbedError::Model(message) => {
                let message = message.to_ascii_lowercase();
                message.contains("out of memory") || message.contains("out_of_memory")
            }
            _ => false,
        }
    }
}

/// A model that turns texts into vectors. Runs on a dedicated thread: `embed` may block.
pub trait Embedder: Send + 'static {
    /// The model's shape.
    fn info(&self) -> &ModelInfo;
    /// A cloneable token counter (tokens without special tokens), usable from any thread.
    fn token_counter(&self) -> TokenCounter;
    /// Embeds a batch. One vector per text, each `info().dimension` long.
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Counts tokens the way the model's tokenizer does (special tokens excluded).
#[derive(Clone)]
pub struct TokenCounter(std::sync::Arc<dyn Fn(&str) -> usize + Send + Sync>);

impl TokenCounter {
    /// Wraps a counting function.
    pub fn new(count: impl Fn(&str) -> usize + Send + Sync + 'static) -> Self {
        TokenCounter(std::sync::Arc::new(count))
    }

    /// Number of tokens in `text`.
    pub fn count(&self, text: &str) -> usize {
        (self.0)(text)
    }

    /// Numbers of tokens of many texts, on every core: a GPU embeds faster than one thread
    /// counts (on an H100 the model waited for its caller's counting, docs/results/gpu).
    pub fn count_all(&self, texts: &[String]) -> Vec<usize> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let share = texts.len().div_ceil(threads).max(64);
        if texts.len() <= share {
            return texts.iter().map(|t| self.count(t)).collect();
        }
        std::thread::scope(|scope| {
            let parts: Vec<_> = texts
                .chunks(share)
                .map(|part| {
                    scope.spawn(move || part.iter().map(|t| self.count(t)).collect::<Vec<usize>>())
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|part| part.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Vec<usize>>()
        })
    }
}

impl fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenCounter")
    }
}

/// Cosine similarity of two vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// Reads dimension, pooling, normalization and maximum length from a model directory laid out
/// as sentence-transformers writes it (config.json, modules.json, 1_Pooling/config.json,
/// sentence_bert_config.json). `pooling_override` wins over the files; without it and without a
/// pooling config, loading fails with a message that says what to pass.
pub fn read_model_info(
    dir: &Path,
    pooling_override: Option<Pooling>,
) -> Result<ModelInfo, EmbedError> {
    let fail = |reason: String| EmbedError::ModelFiles {
        dir: dir.display().to_string(),
        reason,
    };
    let read_json = |name: &str| -> Result<Option<serde_json::Value>, EmbedError> {
        let path = dir.join(name);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| fail(format!("{name}: {e}")))?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| fail(format!("{name}: {e}")))
    };
    let config = read_json("config.json")?.ok_or_else(|| fail("config.json is missing".into()))?;
    let hidden = config["hidden_size"]
        .as_u64()
        .ok_or_else(|| fail("config.json has no hidden_size".into()))? as usize;
    let positions = config["max_position_embeddings"].as_u64().unwrap_or(512) as usize;

    let modules = read_json("modules.json")?;
    let module_path = |kind: &str| -> Option<String> {
        modules.as_ref()?.as_array()?.iter().find_map(|m| {
            let t = m["type"].as_str()?;
            t.ends_with(kind)
                .then(|| m["path"].as_str().unwrap_or("").to_string())
        })
    };
    let normalize = module_path("Normalize").is_some();
    let pooling_file = module_path("Pooling").map(|p| format!("{p}/config.json"));
    let pooling_config = match &pooling_file {
        Some(file) => read_json(file)?,
        None => read_json("1_Pooling/config.json")?,
    };
    let pooling = match (pooling_override, pooling_config) {
        (Some(p), _) => p,
        (None, Some(c)) if c["pooling_mode_cls_token"].as_bool() == Some(true) => Pooling::Cls,
        (None, Some(c)) if c["pooling_mode_mean_tokens"].as_bool() == Some(true) => Pooling::Mean,
        (None, Some(_)) => {
            return Err(fail(
                "the pooling config asks for neither CLS nor mean pooling; pass --pooling".into(),
            ))
        }
        (None, None) => {
            return Err(fail(
                "no pooling config (1_Pooling/config.json); pass --pooling cls|mean".into(),
            ))
        }
    };
    let max_seq = read_json("sentence_bert_config.json")?
        .and_then(|c| c["max_seq_length"].as_u64())
        .map(|m| m as usize)
        .unwrap_or(positions)
        .min(positions);
    // The directory names the model better than config.json's `_name_or_path`, which is often
    // the base checkpoint it was fine-tuned from; packaged layouts end in a generic "model".
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let name = [
        canonical.file_name(),
        canonical.parent().and_then(Path::file_name),
    ]
    .into_iter()
    .flatten()
    .map(|n| n.to_string_lossy().to_string())
    .find(|n| n != "model")
    .unwrap_or_else(|| dir.display().to_string());
    Ok(ModelInfo {
        name,
        dimension: hidden,
        max_tokens: max_seq,
        pooling,
        normalize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_on_every_core_come_back_in_the_texts_order() {
        let counter = TokenCounter::new(|t| t.split_whitespace().count());
        let texts: Vec<String> = (0..1000).map(|i| "w ".repeat(i % 37)).collect();
        let expected: Vec<usize> = (0..1000).map(|i| i % 37).collect();
        assert_eq!(counter.count_all(&texts), expected);
        assert_eq!(counter.count_all(&texts[..3]), vec![0, 1, 2]);
        assert!(counter.count_all(&[]).is_empty());
    }

    #[test]
    fn reads_pooling_and_dimension_from_sentence_transformers_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.json"),
            r#"{"hidden_size": 768, "max_position_embeddings": 512}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("modules.json"),
            r#"[{"path": "", "type": "sentence_transformers.models.Transformer"},
                {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]"#,
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("1_Pooling")).unwrap();
        std::fs::write(
            dir.path().join("1_Pooling/config.json"),
            r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
        )
        .unwrap();
        let info = read_model_info(dir.path(), None).unwrap();
        assert_eq!(
            (
                info.dimension,
                info.pooling,
                info.normalize,
                info.max_tokens
            ),
            (768, Pooling::Cls, true, 512)
        );
        assert_eq!(
            read_model_info(dir.path(), Some(Pooling::Mean))
                .unwrap()
                .pooling,
            Pooling::Mean
        );

        std::fs::remove_file(dir.path().join("1_Pooling/config.json")).unwrap();
        std::fs::remove_file(dir.path().join("modules.json")).unwrap();
        let err = read_model_info(dir.path(), None).unwrap_err().to_string();
        assert!(err.contains("--pooling"), "{err}");
    }

    #[test]
    fn cosine_of_parallel_and_orthogonal_vectors() {
        assert!((cosine(&[1.0, 2.0], &[2.0, 4.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 3.0]).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }
}
