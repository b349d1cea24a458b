//! candle's BERT encoder behind our own embeddings and attention mask, in f32, f16 or bf16: the
//! engine for a GPU.
//!
//! candle's `BertModel` builds its additive mask as `(1 - mask) × f32::MIN` in the model's
//! dtype. In f16 and bf16, `f32::MIN` rounds to -∞, and an attended position's `0 × -∞` is NaN:
//! every vector of a padded pass came out NaN. Here the mask is `0` or `-10 000` (finite in
//! every dtype, and `exp` of it is 0 in all of them), and the encoder layers are candle's.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{embedding, layer_norm, Embedding, LayerNorm, VarBuilder};
use candle_transformers::models::bert::{BertEncoder, Config};

/// Added to the attention scores of padding: far below any real score, finite in f16.
const MASKED: f32 = -10_000.0;

pub(super) struct CandleBert {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
    encoder: BertEncoder,
    dtype: DType,
}

impl CandleBert {
    /// Loads from a builder whose dtype is the one the model will compute in.
    pub(super) fn load(vb: &VarBuilder, config: &Config) -> candle_core::Result<Self> {
        super::native::under_any_root(vb, config, |vb| {
            let embeddings = vb.pp("embeddings");
            let hidden = config.hidden_size;
            Ok(CandleBert {
                word: embedding(config.vocab_size, hidden, embeddings.pp("word_embeddings"))?,
                position: embedding(
                    config.max_position_embeddings,
                    hidden,
                    embeddings.pp("position_embeddings"),
                )?,
                token_type: embedding(
                    config.type_vocab_size,
                    hidden,
                    embeddings.pp("token_type_embeddings"),
                )?,
                norm: layer_norm(hidden, config.layer_norm_eps, embeddings.pp("LayerNorm"))?,
                encoder: BertEncoder::load(vb.pp("encoder"), config)?,
                dtype: vb.dtype(),
            })
        })
    }

    /// The last hidden states, in f32, of rows padded to one width: `ids` and `types` are
    /// (rows, width) u32, `mask` (rows, width) with 1 for a token and 0 for padding.
    pub(super) fn forward(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: &[u32],
        device: &Device,
    ) -> candle_core::Result<Tensor> {
        let (rows, width) = ids.dims2()?;
        let positions = Tensor::arange(0u32, width as u32, device)?;
        let embedded = self
            .word
            .forward(ids)?
            .add(&self.token_type.forward(types)?)?
            .broadcast_add(&self.position.forward(&positions)?)?;
        let embedded = self.norm.forward(&embedded)?;
        let additive: Vec<f32> = mask
            .iter()
            .map(|&m| if m == 0 { MASKED } else { 0.0 })
            .collect();
        let additive =
            Tensor::from_vec(additive, (rows, 1, 1, width), device)?.to_dtype(self.dtype)?;
        self.encoder
            .forward(&embedded, &additive)?
            .to_dtype(DType::F32)
    }
}
