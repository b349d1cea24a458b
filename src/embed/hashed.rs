//! A deterministic embedder: a bag of hashed, lower-cased words. Texts that share words get close
//! vectors, so retrieval logic can be tested without a model. Unit tests use it, and so does
//! `--embedder hashed`, for privacy tests over the whole archive (retrieval quality is not what
//! they measure) and for trying the pipeline where no model files are at hand.

use sha2::{Digest, Sha256};

use super::{EmbedError, Embedder, ModelInfo, Pooling, TokenCounter};

/// Hashed bag-of-words vectors of a fixed dimension, unit length.
pub struct HashedEmbedder {
    info: ModelInfo,
}

impl HashedEmbedder {
    /// An embedder producing `dimension`-long vectors.
    pub fn new(dimension: usize) -> Self {
        HashedEmbedder {
            info: ModelInfo {
                name: format!("hashed-bag-of-words-{dimension}"),
                dimension,
                max_tokens: 256,
                pooling: Pooling::Mean,
                normalize: true,
            },
        }
    }

    /// The vector of one text.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.info.dimension];
        for word in words(text) {
            let digest = Sha256::digest(word.to_lowercase().as_bytes());
            let index =
                u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")) as usize % v.len();
            v[index] += 1.0;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

impl Embedder for HashedEmbedder {
    fn info(&self) -> &ModelInfo {
        &self.info
    }

    fn token_counter(&self) -> TokenCounter {
        TokenCounter::new(|text| words(text).count())
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}
