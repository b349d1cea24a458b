//! A BERT-family sentence-embedding model (all-MiniLM-L6-v2, bge-base-en-v1.5, …) run with
//! candle, loaded from a local directory: model.safetensors, config.json, tokenizer.json, and the
//! sentence-transformers files that say how to pool.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::{read_model_info, EmbedError, Embedder, ModelInfo, Pooling, TokenCounter};

/// Where the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceKind {
    /// The CPU (default; works everywhere).
    Cpu,
    /// The first NVIDIA GPU; needs a build with `--features cuda`.
    Cuda,
}

/// A loaded model with its tokenizer.
pub struct BertEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    info: ModelInfo,
    pad_id: u32,
    pad_type_id: u32,
}

/// Most rows in one pass of the model. Texts are sorted by length first, so the rows of one
/// pass are padded to about their own length (sentence-transformers does the same, in passes
/// of 32).
const ROWS_PER_PASS: usize = 32;

impl BertEmbedder {
    /// Loads the model from `dir`. `pooling` overrides what the files say.
    pub fn load(
        dir: &Path,
        pooling: Option<Pooling>,
        device: DeviceKind,
    ) -> Result<Self, EmbedError> {
        let info = read_model_info(dir, pooling)?;
        let fail = |reason: String| EmbedError::ModelFiles {
            dir: dir.display().to_string(),
            reason,
        };
        let device = match device {
            DeviceKind::Cpu => Device::Cpu,
            DeviceKind::Cuda => {
                Device::new_cuda(0).map_err(|e| fail(format!("cannot use the GPU: {e}")))?
            }
        };
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| fail(format!("config.json: {e}")))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| fail(format!("config.json: {e}")))?;
        let weights = dir.join("model.safetensors");
        if !weights.exists() {
            return Err(fail("model.safetensors is missing".into()));
        }
        // SAFETY: the file is memory-mapped read-only; it must not change while the process
        // runs, which holds for a model directory.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &device) }
            .map_err(|e| fail(format!("model.safetensors: {e}")))?;
        let model =
            BertModel::load(vb, &config).map_err(|e| fail(format!("model.safetensors: {e}")))?;

        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| fail(format!("tokenizer.json: {e}")))?;
        // Packaged tokenizers often fix padding and truncation (all-MiniLM-L6-v2's at 128):
        // no padding here (rows are padded per pass, see `embed`), truncation at what the
        // model was trained for.
        let pad = tokenizer.get_padding().map(|p| (p.pad_id, p.pad_type_id));
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: info.max_tokens,
                ..Default::default()
            }))
            .map_err(|e| fail(format!("tokenizer.json: {e}")))?;
        let (pad_id, pad_type_id) = pad.unwrap_or_else(|| {
            (
                tokenizer
                    .token_to_id("[PAD]")
                    .or_else(|| tokenizer.token_to_id("<pad>"))
                    .unwrap_or(0),
                0,
            )
        });
        Ok(BertEmbedder {
            model,
            tokenizer,
            device,
            info,
            pad_id,
            pad_type_id,
        })
    }

    /// One pass of the model over rows already tokenized, padded to the longest of them.
    fn forward(&self, rows: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let count = rows.len();
        let width = rows.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(count * width);
        let mut types = Vec::with_capacity(count * width);
        let mut mask = Vec::with_capacity(count * width);
        for e in rows {
            let pad = width - e.get_ids().len();
            ids.extend_from_slice(e.get_ids());
            ids.extend(std::iter::repeat_n(self.pad_id, pad));
            types.extend_from_slice(e.get_type_ids());
            types.extend(std::iter::repeat_n(self.pad_type_id, pad));
            mask.extend_from_slice(e.get_attention_mask());
            mask.extend(std::iter::repeat_n(0u32, pad));
        }
        let (rows, width) = (count, width);
        let model = |e: candle_core::Error| EmbedError::Model(e.to_string());
        let ids = Tensor::from_vec(ids, (rows, width), &self.device).map_err(model)?;
        let types = Tensor::from_vec(types, (rows, width), &self.device).map_err(model)?;
        let mask = Tensor::from_vec(mask, (rows, width), &self.device).map_err(model)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(model)?;
        let pooled = match self.info.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1).and_then(|t| t.squeeze(1)),
            Pooling::Mean => (|| {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
                summed.broadcast_div(&counts)
            })(),
        }
        .map_err(model)?;
        let pooled = if self.info.normalize {
            pooled
                .sqr()
                .and_then(|s| s.sum_keepdim(1))
                .and_then(|s| s.sqrt())
                .and_then(|n| n.clamp(1e-12, f64::MAX))
                .and_then(|n| pooled.broadcast_div(&n))
                .map_err(model)?
        } else {
            pooled
        };
        pooled.to_vec2::<f32>().map_err(model)
    }
}

impl Embedder for BertEmbedder {
    fn info(&self) -> &ModelInfo {
        &self.info
    }

    fn token_counter(&self) -> TokenCounter {
        let mut tokenizer = self.tokenizer.clone();
        tokenizer.with_padding(None);
        let _ = tokenizer.with_truncation(None);
        TokenCounter::new(move |text| {
            tokenizer
                .encode(text, false)
                .map(|e| e.len())
                .unwrap_or(text.len() / 3 + 1)
        })
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        // Shortest first; each pass takes the next rows of about the same length.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); encodings.len()];
        for pass in order.chunks(ROWS_PER_PASS) {
            let rows: Vec<&Encoding> = pass.iter().map(|&i| &encodings[i]).collect();
            for (&i, vector) in pass.iter().zip(self.forward(&rows)?) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }
}
