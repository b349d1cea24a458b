//! The BERT encoder's forward pass written for the CPU, on plain `f32` buffers.
//!
//! candle's general tensor code spends the time between matrix products on copies (head
//! transposes, contiguous layouts, broadcast masks) and on single-threaded element-wise passes,
//! and pads every row of a pass to the longest. Here the rows of a pass are laid end to end
//! (no padding, so no attention mask), the three projections of a layer are one product, each
//! bias is the product's starting value, the residual sum feeds the layer norm in the same
//! loop, and the element-wise kernels (GELU, softmax, layer norm) are vectorized with the CPU's
//! widest instructions (AVX-512 or AVX2, chosen at run time). The matrix products (linear
//! layers and attention) run in bfloat16 with f32 sums where the CPU has AVX512-BF16 and
//! [`Products::Bf16`] is asked for ([`super::bf16`]); the rest of the pass (embeddings, layer
//! norms, softmax, GELU, residual sums) stays in f32. f32 products go to MKL in the `mkl` build
//! and to the `gemm` crate otherwise.
//!
//! The weights are read through the same `VarBuilder` as candle's model, so both accept the
//! same checkpoints; `tests` checks the two against each other.

use candle_core::DType;
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{Config, HiddenAct};

use super::bf16;

/// What the encoder's matrix products (linear layers and attention) compute in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Products {
    /// f32 throughout.
    F32,
    /// Operands rounded to bfloat16, sums in f32 (needs AVX512-BF16, see
    /// [`super::bf16::supported`]).
    Bf16,
}

/// A BERT encoder ready to run on the CPU.
pub(super) struct NativeBert {
    products: Products,
    hidden: usize,
    heads: usize,
    eps: f32,
    act: Activation,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    max_positions: usize,
    embed_norm: Norm,
    layers: Vec<Layer>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Activation {
    GeluErf,
    GeluTanh,
    Relu,
}

/// `y = x · Wᵀ + b` with `W` stored as PyTorch does, `[out × in]`.
struct Linear {
    /// Empty once packed for bfloat16 products.
    weight: Vec<f32>,
    packed: Option<bf16::Packed>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

struct Layer {
    /// Query, key and value projections stacked: one product per layer.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    output_norm: Norm,
}

/// One text of a pass: its token ids and token-type ids (the same length).
pub(super) struct Row<'a> {
    pub ids: &'a [u32],
    pub types: &'a [u32],
}

fn values(vb: &VarBuilder, shape: &[usize], name: &str) -> candle_core::Result<Vec<f32>> {
    vb.get(shape, name)?
        .to_dtype(DType::F32)?
        .flatten_all()?
        .to_vec1::<f32>()
}

/// A layer norm's weights, under either of the names checkpoints use for them.
fn norm(vb: &VarBuilder, size: usize) -> candle_core::Result<Norm> {
    let gamma = if vb.contains_tensor("gamma") {
        "gamma"
    } else {
        "weight"
    };
    let beta = if vb.contains_tensor("beta") {
        "beta"
    } else {
        "bias"
    };
    Ok(Norm {
        gamma: values(vb, &[size], gamma)?,
        beta: values(vb, &[size], beta)?,
    })
}

fn linear(vb: &VarBuilder, inputs: usize, outputs: usize) -> candle_core::Result<Linear> {
    Ok(Linear {
        weight: values(vb, &[outputs, inputs], "weight")?,
        packed: None,
        bias: values(vb, &[outputs], "bias")?,
        inputs,
        outputs,
    })
}

fn stacked(parts: [Linear; 3]) -> Linear {
    let inputs = parts[0].inputs;
    let mut weight = Vec::new();
    let mut bias = Vec::new();
    let mut outputs = 0;
    for part in parts {
        weight.extend(part.weight);
        bias.extend(part.bias);
        outputs += part.outputs;
    }
    Linear {
        weight,
        packed: None,
        bias,
        inputs,
        outputs,
    }
}

/// Loads with `load` from the first root that holds the checkpoint's names: the top, `bert.`, or
/// the config's `model_type`, as candle's loader accepts. The first root's error otherwise.
pub(super) fn under_any_root<T>(
    vb: &VarBuilder,
    config: &Config,
    load: impl Fn(&VarBuilder) -> candle_core::Result<T>,
) -> candle_core::Result<T> {
    let mut roots = vec![vb.clone(), vb.pp("bert")];
    if let Some(model_type) = &config.model_type {
        roots.push(vb.pp(model_type));
    }
    let mut first_error = None;
    for root in roots {
        match load(&root) {
            Ok(model) => return Ok(model),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.expect("at least one root was tried"))
}

impl NativeBert {
    /// Reads the encoder's weights (see [`under_any_root`]) and packs them for `products`.
    /// Fails if bfloat16 products are asked of a CPU without AVX512-BF16.
    pub(super) fn load(
        vb: &VarBuilder,
        config: &Config,
        products: Products,
    ) -> candle_core::Result<Self> {
        if products == Products::Bf16 && !bf16::supported() {
            candle_core::bail!("bfloat16 products need a CPU with AVX512-BF16; this one has none");
        }
        let mut model = under_any_root(vb, config, |root| Self::load_from(root, config))?;
        if products == Products::Bf16 {
            for layer in &mut model.layers {
                for linear in [
                    &mut layer.qkv,
                    &mut layer.attention_out,
                    &mut layer.up,
                    &mut layer.down,
                ] {
                    linear.packed = Some(bf16::Packed::new(
                        &linear.weight,
                        linear.outputs,
                        linear.inputs,
                    ));
                    linear.weight = Vec::new();
                }
            }
            model.products = Products::Bf16;
        }
        Ok(model)
    }

    /// What the encoder's matrix products compute in.
    pub(super) fn products(&self) -> Products {
        self.products
    }

    fn load_from(vb: &VarBuilder, config: &Config) -> candle_core::Result<Self> {
        let hidden = config.hidden_size;
        let heads = config.num_attention_heads;
        if heads == 0 || !hidden.is_multiple_of(heads) {
            candle_core::bail!("hidden size {hidden} is not a multiple of {heads} heads");
        }
        let act = match config.hidden_act {
            HiddenAct::Gelu => Activation::GeluErf,
            HiddenAct::GeluApproximate => Activation::GeluTanh,
            HiddenAct::Relu => Activation::Relu,
        };
        let embeddings = vb.pp("embeddings");
        let word = values(
            &embeddings.pp("word_embeddings"),
            &[config.vocab_size, hidden],
            "weight",
        )?;
        let position = values(
            &embeddings.pp("position_embeddings"),
            &[config.max_position_embeddings, hidden],
            "weight",
        )?;
        let token_type = values(
            &embeddings.pp("token_type_embeddings"),
            &[config.type_vocab_size, hidden],
            "weight",
        )?;
        let embed_norm = norm(&embeddings.pp("LayerNorm"), hidden)?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for index in 0..config.num_hidden_layers {
            let layer = vb.pp("encoder").pp("layer").pp(index);
            let attention = layer.pp("attention");
            let own = attention.pp("self");
            let mut query = linear(&own.pp("query"), hidden, hidden)?;
            // Attention's 1/√d applied once to the queries' weights, not to every score.
            let scale = 1.0 / ((hidden / heads) as f32).sqrt();
            query.weight.iter_mut().for_each(|w| *w *= scale);
            query.bias.iter_mut().for_each(|b| *b *= scale);
            layers.push(Layer {
                qkv: stacked([
                    query,
                    linear(&own.pp("key"), hidden, hidden)?,
                    linear(&own.pp("value"), hidden, hidden)?,
                ]),
                attention_out: linear(&attention.pp("output").pp("dense"), hidden, hidden)?,
                attention_norm: norm(&attention.pp("output").pp("LayerNorm"), hidden)?,
                up: linear(
                    &layer.pp("intermediate").pp("dense"),
                    hidden,
                    config.intermediate_size,
                )?,
                down: linear(
                    &layer.pp("output").pp("dense"),
                    config.intermediate_size,
                    hidden,
                )?,
                output_norm: norm(&layer.pp("output").pp("LayerNorm"), hidden)?,
            });
        }
        Ok(NativeBert {
            products: Products::F32,
            hidden,
            heads,
            eps: config.layer_norm_eps as f32,
            act,
            word,
            position,
            token_type,
            max_positions: config.max_position_embeddings,
            embed_norm,
            layers,
        })
    }

    /// The width of the hidden states.
    pub(super) fn hidden_size(&self) -> usize {
        self.hidden
    }

    /// Runs the encoder over `rows` and returns the last hidden states of all their tokens, row
    /// after row (`[Σ lengths × hidden]`). `threads` is what the matrix products may use in
    /// the default build (the `mkl` build takes MKL's own setting).
    pub(super) fn forward(&self, rows: &[Row<'_>], threads: usize) -> Result<Vec<f32>, String> {
        let h = self.hidden;
        let lengths: Vec<usize> = rows.iter().map(|r| r.ids.len()).collect();
        let tokens: usize = lengths.iter().sum();
        let mut x = vec![0f32; tokens * h];
        let mut at = 0;
        for row in rows {
            if row.ids.len() != row.types.len() {
                return Err(format!(
                    "a text has {} token ids but {} token types",
                    row.ids.len(),
                    row.types.len()
                ));
            }
            if row.ids.len() > self.max_positions {
                return Err(format!(
                    "a text of {} tokens is longer than the model's {} positions",
                    row.ids.len(),
                    self.max_positions
                ));
            }
            for (position, (&id, &kind)) in row.ids.iter().zip(row.types).enumerate() {
                let word = self
                    .word
                    .get(id as usize * h..(id as usize + 1) * h)
                    .ok_or_else(|| format!("token id {id} is outside the vocabulary"))?;
                let kind = self
                    .token_type
                    .get(kind as usize * h..(kind as usize + 1) * h)
                    .ok_or_else(|| format!("token type {kind} is outside the model's"))?;
                let place = &self.position[position * h..(position + 1) * h];
                let out = &mut x[at * h..(at + 1) * h];
                for (((o, w), p), k) in out.iter_mut().zip(word).zip(place).zip(kind) {
                    *o = w + p + k;
                }
                at += 1;
            }
        }
        kernels::layer_norm(&mut x, None, h, &self.embed_norm, self.eps);

        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch {
                qkv,
                context,
                projected,
                scores,
                per_head,
                inner,
                attention,
            } = &mut *scratch;
            let longest = lengths.iter().copied().max().unwrap_or(0);
            let intermediate = self.layers.first().map_or(0, |l| l.up.outputs);
            for (buffer, size) in [
                (&mut *qkv, tokens * 3 * h),
                (&mut *context, tokens * h),
                (&mut *projected, tokens * h),
                (&mut *scores, self.heads * longest * longest),
                (&mut *per_head, tokens.min(longest) * h),
                (&mut *inner, tokens * intermediate),
            ] {
                if buffer.len() < size {
                    buffer.resize(size, 0.0);
                }
            }
            for layer in &self.layers {
                layer.qkv.apply(&x, tokens, qkv, threads);
                if self.products == Products::Bf16 {
                    let (keys, values) = attention.get_or_insert_with(|| {
                        (
                            bf16::Packed::empty(bf16::Panel::Narrow),
                            bf16::Packed::empty(bf16::Panel::Narrow),
                        )
                    });
                    self.attend_bf16(qkv, &lengths, scores, (keys, values), context);
                } else {
                    self.attend(qkv, &lengths, (scores, per_head), context);
                }
                layer
                    .attention_out
                    .apply(context, tokens, projected, threads);
                kernels::layer_norm(&mut x, Some(projected), h, &layer.attention_norm, self.eps);
                layer.up.apply(&x, tokens, inner, threads);
                let inner = &mut inner[..tokens * intermediate];
                match self.act {
                    Activation::GeluErf => kernels::gelu_erf(inner),
                    Activation::GeluTanh => kernels::gelu_tanh(inner),
                    Activation::Relu => inner.iter_mut().for_each(|v| *v = v.max(0.0)),
                }
                layer.down.apply(inner, tokens, projected, threads);
                kernels::layer_norm(&mut x, Some(projected), h, &layer.output_norm, self.eps);
            }
            // A rare long pass must not keep its buffers for the life of the thread.
            if scratch.floats() > SCRATCH_KEPT {
                *scratch = Scratch::default();
            }
        });
        Ok(x)
    }

    /// Scaled dot-product attention of every head, each row attending to its own tokens only
    /// (the queries were scaled by 1/√d at load).
    fn attend(
        &self,
        qkv: &[f32],
        lengths: &[usize],
        (scores, per_head): (&mut [f32], &mut [f32]),
        context: &mut [f32],
    ) {
        let h = self.hidden;
        let d = h / self.heads;
        let mut start = 0;
        for &len in lengths {
            if len == 0 {
                // A text the tokenizer made nothing of: no tokens, nothing to attend to.
                continue;
            }
            let at = start * 3 * h;
            let scores = &mut scores[..self.heads * len * len];
            // Each head: scores = q · kᵀ, each row's softmax, context = scores · v.
            let heads = gemm::Heads {
                count: self.heads,
                a_stride: d,
                b_stride: d,
                c_stride: len * len,
            };
            gemm::products(
                heads,
                (len, len, d),
                (&qkv[at..], 3 * h),
                (&qkv[at + h..], 3 * h, true),
                (scores, len),
            );
            // Exponentials only: each row of the context is divided by its sum afterwards
            // (len × d divisions instead of len × len).
            let sums: Vec<f32> = scores
                .chunks_exact_mut(len)
                .map(kernels::exp_shifted)
                .collect();
            // Each head's context into a block of its own (MKL's strided batches may not
            // write interleaved), then into place in the row, divided by the row's sum.
            let blocks = &mut per_head[..self.heads * len * d];
            let heads = gemm::Heads {
                count: self.heads,
                a_stride: len * len,
                b_stride: d,
                c_stride: len * d,
            };
            gemm::products(
                heads,
                (len, d, len),
                (scores, len),
                (&qkv[at + 2 * h..], 3 * h, false),
                (blocks, d),
            );
            for (token, row) in context[start * h..(start + len) * h]
                .chunks_exact_mut(h)
                .enumerate()
            {
                for (head, values) in row.chunks_exact_mut(d).enumerate() {
                    let inverse = 1.0 / sums[head * len + token];
                    let block = &blocks[(head * len + token) * d..(head * len + token + 1) * d];
                    for (v, b) in values.iter_mut().zip(block) {
                        *v = b * inverse;
                    }
                }
            }
            start += len;
        }
    }
}

impl NativeBert {
    /// [`NativeBert::attend`] with its two products in bfloat16 (sums in f32; the softmax in
    /// f32): each head's keys and values are packed as a product's right operand, the scores
    /// overwrite their buffer, and the contexts go straight into place, then are divided by
    /// their softmax sums.
    fn attend_bf16(
        &self,
        qkv: &[f32],
        lengths: &[usize],
        scores: &mut [f32],
        (keys, values): (&mut bf16::Packed, &mut bf16::Packed),
        context: &mut [f32],
    ) {
        let h = self.hidden;
        let d = h / self.heads;
        let stride = 3 * h;
        let mut start = 0;
        let mut sums = Vec::new();
        for &len in lengths {
            if len == 0 {
                continue;
            }
            let at = start * stride;
            let scores = &mut scores[..len * len];
            for head in 0..self.heads {
                let column = head * d;
                // scores = q · kᵀ: the keys as `[len × d]`, one row per key.
                keys.pack_rows(&qkv[at + h + column..], len, d, stride);
                let queries = bf16::Rows {
                    values: &qkv[at + column..],
                    rows: len,
                    stride,
                };
                let into = bf16::Target {
                    values: scores,
                    stride: len,
                    accumulate: false,
                    bias: None,
                };
                bf16::product_into(queries, keys, into, 1);
                sums.clear();
                sums.extend(scores.chunks_exact_mut(len).map(kernels::exp_shifted));
                // context = e^scores · v: the values transposed, `[d × len]`.
                values.pack_columns(&qkv[at + 2 * h + column..], d, len, stride);
                let weights = bf16::Rows {
                    values: scores,
                    rows: len,
                    stride: len,
                };
                let place = &mut context[start * h + column..];
                let into = bf16::Target {
                    values: place,
                    stride: h,
                    accumulate: false,
                    bias: None,
                };
                bf16::product_into(weights, values, into, 1);
                for (t, sum) in sums.iter().enumerate() {
                    let inverse = 1.0 / sum;
                    let row = &mut context[(start + t) * h + column..(start + t) * h + column + d];
                    row.iter_mut().for_each(|v| *v *= inverse);
                }
            }
            start += len;
        }
    }
}

/// Working buffers of a pass, kept per thread from one pass to the next (a fresh buffer of
/// this size comes zeroed from the kernel every time: 5 % of the time).
#[derive(Default)]
struct Scratch {
    qkv: Vec<f32>,
    context: Vec<f32>,
    projected: Vec<f32>,
    scores: Vec<f32>,
    per_head: Vec<f32>,
    inner: Vec<f32>,
    /// One head's keys and values packed for bfloat16 products (`Products::Bf16`).
    attention: Option<(bf16::Packed, bf16::Packed)>,
}

impl Scratch {
    fn floats(&self) -> usize {
        self.qkv.len()
            + self.context.len()
            + self.projected.len()
            + self.scores.len()
            + self.per_head.len()
            + self.inner.len()
    }
}

/// Most floats of scratch a thread keeps after a pass (64 MiB).
const SCRATCH_KEPT: usize = 16 << 20;

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

impl Linear {
    /// `out[rows × outputs] = x[rows × inputs] · Wᵀ + b`.
    fn apply(&self, x: &[f32], rows: usize, out: &mut [f32], threads: usize) {
        let out = &mut out[..rows * self.outputs];
        if let Some(packed) = &self.packed {
            bf16::product(x, rows, packed, &self.bias, out, threads);
            return;
        }
        for row in out.chunks_exact_mut(self.outputs) {
            row.copy_from_slice(&self.bias);
        }
        gemm::product(
            rows,
            self.outputs,
            self.inputs,
            x,
            self.inputs,
            &self.weight,
            self.inputs,
            true,
            out,
            self.outputs,
            1.0,
            threads,
        );
    }
}

/// Mean of each row's hidden states (`hidden` holds the rows end to end).
pub(super) fn mean_pool(hidden: &[f32], lengths: &[usize], width: usize) -> Vec<Vec<f32>> {
    let mut start = 0;
    lengths
        .iter()
        .map(|&len| {
            let mut sum = vec![0f32; width];
            for token in hidden[start * width..(start + len) * width].chunks_exact(width) {
                for (s, v) in sum.iter_mut().zip(token) {
                    *s += v;
                }
            }
            start += len;
            let n = len.max(1) as f32;
            sum.iter_mut().for_each(|s| *s /= n);
            sum
        })
        .collect()
}

/// The first ([CLS]) token's hidden state of each row.
pub(super) fn cls_pool(hidden: &[f32], lengths: &[usize], width: usize) -> Vec<Vec<f32>> {
    let mut start = 0;
    lengths
        .iter()
        .map(|&len| {
            let first = if len == 0 {
                vec![0.0; width]
            } else {
                hidden[start * width..(start + 1) * width].to_vec()
            };
            start += len;
            first
        })
        .collect()
}

/// Matrix products: `c = a · op(b) + beta × c`, all row-major with leading dimensions.
mod gemm {
    /// `c[m × n] = a[m × k] · op(b) + beta × c`; `op(b)` is `bᵀ` when `b_transposed` (`b`
    /// stored `[n × k]`), else `b` (`[k × n]`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn product(
        m: usize,
        n: usize,
        k: usize,
        a: &[f32],
        lda: usize,
        b: &[f32],
        ldb: usize,
        b_transposed: bool,
        c: &mut [f32],
        ldc: usize,
        beta: f32,
        threads: usize,
    ) {
        if m == 0 || n == 0 {
            return;
        }
        assert!(
            k > 0 && lda >= k && ldc >= n,
            "inconsistent matrix dimensions"
        );
        assert!(ldb >= if b_transposed { k } else { n }, "inconsistent b");
        // The slices must reach the last element each operand is read or written at.
        assert!(a.len() >= (m - 1) * lda + k, "a is too short");
        let b_rows = if b_transposed { n } else { k };
        let b_cols = if b_transposed { k } else { n };
        assert!(b.len() >= (b_rows - 1) * ldb + b_cols, "b is too short");
        assert!(c.len() >= (m - 1) * ldc + n, "c is too short");
        #[cfg(feature = "mkl")]
        {
            use std::os::raw::c_int;
            // MKL takes its threads from its own setting.
            let _ = threads;
            extern "C" {
                fn cblas_sgemm(
                    layout: c_int,
                    trans_a: c_int,
                    trans_b: c_int,
                    m: c_int,
                    n: c_int,
                    k: c_int,
                    alpha: f32,
                    a: *const f32,
                    lda: c_int,
                    b: *const f32,
                    ldb: c_int,
                    beta: f32,
                    c: *mut f32,
                    ldc: c_int,
                );
            }
            // SAFETY: the asserts above: every operand's slice covers what MKL reads or writes
            // for these dimensions and leading dimensions; the buffers do not overlap (`c` is a
            // unique borrow).
            unsafe {
                cblas_sgemm(
                    ROW_MAJOR,
                    NO_TRANS,
                    if b_transposed { TRANS } else { NO_TRANS },
                    int(m),
                    int(n),
                    int(k),
                    1.0,
                    a.as_ptr(),
                    int(lda),
                    b.as_ptr(),
                    int(ldb),
                    beta,
                    c.as_mut_ptr(),
                    int(ldc),
                );
            }
        }
        #[cfg(not(feature = "mkl"))]
        {
            // Element (p, j) of op(b): b[j × ldb + p] when transposed, else b[p × ldb + j].
            let (b_row_stride, b_col_stride) = if b_transposed {
                (1, ldb as isize)
            } else {
                (ldb as isize, 1)
            };
            let parallelism = if threads > 1 && m * n * k >= 1 << 16 {
                ::gemm::Parallelism::Rayon(threads)
            } else {
                ::gemm::Parallelism::None
            };
            // SAFETY: as in the MKL version: the asserts above checked the extents, `c` is
            // unique. gemm computes dst = alpha × dst + beta × lhs · rhs (dst read only when
            // `read_dst`).
            unsafe {
                ::gemm::gemm(
                    m,
                    n,
                    k,
                    c.as_mut_ptr(),
                    1,
                    ldc as isize,
                    beta != 0.0,
                    a.as_ptr(),
                    1,
                    lda as isize,
                    b.as_ptr(),
                    b_col_stride,
                    b_row_stride,
                    beta,
                    1.0,
                    false,
                    false,
                    false,
                    parallelism,
                );
            }
        }
    }

    /// The same product for each of `count` heads; head `i`'s operands start `i × stride`
    /// floats after the first's.
    #[derive(Clone, Copy)]
    pub(super) struct Heads {
        pub count: usize,
        pub a_stride: usize,
        pub b_stride: usize,
        pub c_stride: usize,
    }

    /// [`product`] for every head (`beta` 0), in one call where the library has one.
    pub(super) fn products(
        heads: Heads,
        (m, n, k): (usize, usize, usize),
        (a, lda): (&[f32], usize),
        (b, ldb, b_transposed): (&[f32], usize, bool),
        (c, ldc): (&mut [f32], usize),
    ) {
        if heads.count == 0 || m == 0 || n == 0 {
            return;
        }
        assert!(
            k > 0 && lda >= k && ldc >= n,
            "inconsistent matrix dimensions"
        );
        assert!(ldb >= if b_transposed { k } else { n }, "inconsistent b");
        // Heads write disjoint blocks of c (MKL may run them in parallel).
        assert!(
            heads.count == 1 || heads.c_stride >= (m - 1) * ldc + n,
            "heads' outputs overlap"
        );
        let last = heads.count - 1;
        let b_rows = if b_transposed { n } else { k };
        let b_cols = if b_transposed { k } else { n };
        assert!(
            a.len() >= last * heads.a_stride + (m - 1) * lda + k,
            "a is too short"
        );
        assert!(
            b.len() >= last * heads.b_stride + (b_rows - 1) * ldb + b_cols,
            "b is too short"
        );
        assert!(
            c.len() >= last * heads.c_stride + (m - 1) * ldc + n,
            "c is too short"
        );
        batched(heads, (m, n, k), (a, lda), (b, ldb, b_transposed), (c, ldc));
    }

    #[cfg(not(feature = "mkl"))]
    fn batched(
        heads: Heads,
        (m, n, k): (usize, usize, usize),
        (a, lda): (&[f32], usize),
        (b, ldb, b_transposed): (&[f32], usize, bool),
        (c, ldc): (&mut [f32], usize),
    ) {
        for i in 0..heads.count {
            product(
                m,
                n,
                k,
                &a[i * heads.a_stride..],
                lda,
                &b[i * heads.b_stride..],
                ldb,
                b_transposed,
                &mut c[i * heads.c_stride..],
                ldc,
                0.0,
                1,
            );
        }
    }

    #[cfg(feature = "mkl")]
    fn batched(
        heads: Heads,
        (m, n, k): (usize, usize, usize),
        (a, lda): (&[f32], usize),
        (b, ldb, b_transposed): (&[f32], usize, bool),
        (c, ldc): (&mut [f32], usize),
    ) {
        use std::os::raw::c_int;
        extern "C" {
            fn cblas_sgemm_batch_strided(
                layout: c_int,
                trans_a: c_int,
                trans_b: c_int,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: f32,
                a: *const f32,
                lda: c_int,
                stride_a: c_int,
                b: *const f32,
                ldb: c_int,
                stride_b: c_int,
                beta: f32,
                c: *mut f32,
                ldc: c_int,
                stride_c: c_int,
                batch: c_int,
            );
        }
        // SAFETY: `products` checked that every head's operands lie inside the slices; `c` is
        // a unique borrow (heads write disjoint blocks: the caller's strides).
        unsafe {
            cblas_sgemm_batch_strided(
                ROW_MAJOR,
                NO_TRANS,
                if b_transposed { TRANS } else { NO_TRANS },
                int(m),
                int(n),
                int(k),
                1.0,
                a.as_ptr(),
                int(lda),
                int(heads.a_stride),
                b.as_ptr(),
                int(ldb),
                int(heads.b_stride),
                0.0,
                c.as_mut_ptr(),
                int(ldc),
                int(heads.c_stride),
                int(heads.count),
            );
        }
    }

    #[cfg(feature = "mkl")]
    const ROW_MAJOR: std::os::raw::c_int = 101;
    #[cfg(feature = "mkl")]
    const NO_TRANS: std::os::raw::c_int = 111;
    #[cfg(feature = "mkl")]
    const TRANS: std::os::raw::c_int = 112;

    #[cfg(feature = "mkl")]
    fn int(v: usize) -> std::os::raw::c_int {
        std::os::raw::c_int::try_from(v).expect("a matrix dimension fits MKL's int")
    }
}

/// Element-wise kernels, written as plain loops that the compiler vectorizes; each public one
/// dispatches at run time to a copy compiled for AVX-512 or AVX2 when the CPU has them.
mod kernels {
    use super::Norm;

    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;

    /// `e^x` to about 2 ulp over the range where it is a normal `f32` (inputs are clamped
    /// there), branch-free so that loops over it vectorize (Cephes' `expf` polynomial).
    #[inline(always)]
    pub(super) fn exp(x: f32) -> f32 {
        let x = x.clamp(-87.3, 88.3);
        let n = (x * LOG2E + 0.5).floor();
        let r = x - n * LN2_HI - n * LN2_LO;
        let mut p = 1.987_569_1e-4_f32;
        p = p * r + 1.398_2e-3;
        p = p * r + 8.333_452e-3;
        p = p * r + 4.166_579_6e-2;
        p = p * r + 0.166_666_65;
        p = p * r + 0.5;
        let y = p * r * r + r + 1.0;
        // 2ⁿ for the whole n in [-126, 127] without a float-to-integer conversion (Rust's `as`
        // saturates, which does not vectorize: it went lane by lane): n + 127 + 2²³ holds
        // n + 127 in its low mantissa bits, and the shift moves them into the exponent.
        y * f32::from_bits((n + (127.0 + 8_388_608.0)).to_bits() << 23)
    }

    /// The error function to within 1.5e-7 (Abramowitz and Stegun 7.1.26).
    #[inline(always)]
    pub(super) fn erf(x: f32) -> f32 {
        let a = x.abs();
        let t = 1.0 / (1.0 + 0.327_591_1 * a);
        let poly = t
            * (0.254_829_6
                + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152 + t * 1.061_405_4))));
        let magnitude = 1.0 - poly * exp(-a * a);
        magnitude.copysign(x)
    }

    #[inline(always)]
    fn gelu_erf_generic(xs: &mut [f32]) {
        for v in xs.iter_mut() {
            let x = *v;
            *v = 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
        }
    }

    #[inline(always)]
    fn gelu_tanh_generic(xs: &mut [f32]) {
        // 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)), u = √(2/π) (x + 0.044715 x³).
        const C: f32 = 0.797_884_6;
        for v in xs.iter_mut() {
            let x = *v;
            let u = C * (x + 0.044_715 * x * x * x);
            *v = x / (1.0 + exp(-2.0 * u));
        }
    }

    /// `row = e^(row - max(row))`; returns the sum (softmax = row / sum).
    #[inline(always)]
    fn exp_shifted_generic(row: &mut [f32]) -> f32 {
        let mut lanes = [f32::NEG_INFINITY; 16];
        let mut chunks = row.chunks_exact(16);
        for chunk in &mut chunks {
            for (m, v) in lanes.iter_mut().zip(chunk) {
                *m = m.max(*v);
            }
        }
        // The last values of a row (rows are any length) as one more vector, padded.
        let rest = chunks.remainder().len();
        let mut tail = [f32::NEG_INFINITY; 16];
        tail[..rest].copy_from_slice(chunks.remainder());
        for (m, v) in lanes.iter_mut().zip(&tail) {
            *m = m.max(*v);
        }
        let max = lanes.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sums = [0f32; 16];
        let mut chunks = row.chunks_exact_mut(16);
        for chunk in &mut chunks {
            for (s, v) in sums.iter_mut().zip(chunk.iter_mut()) {
                *v = exp(*v - max);
                *s += *v;
            }
        }
        for v in tail.iter_mut() {
            *v = exp(*v - max);
        }
        let out = chunks.into_remainder();
        out.copy_from_slice(&tail[..rest]);
        sums.iter().sum::<f32>() + out.iter().sum::<f32>()
    }

    /// `x = norm(x + add)` over each row of `width` (`add` absent: `norm(x)`).
    #[inline(always)]
    fn layer_norm_generic(x: &mut [f32], add: Option<&[f32]>, width: usize, n: &Norm, eps: f32) {
        for (index, row) in x.chunks_exact_mut(width).enumerate() {
            if let Some(add) = add {
                for (v, a) in row.iter_mut().zip(&add[index * width..(index + 1) * width]) {
                    *v += a;
                }
            }
            let mut sums = [0f32; 16];
            let mut chunks = row.chunks_exact(16);
            for chunk in &mut chunks {
                for (s, v) in sums.iter_mut().zip(chunk) {
                    *s += v;
                }
            }
            let mean =
                (sums.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()) / width as f32;
            let mut squares = [0f32; 16];
            let mut chunks = row.chunks_exact(16);
            for chunk in &mut chunks {
                for (s, v) in squares.iter_mut().zip(chunk) {
                    *s += (v - mean) * (v - mean);
                }
            }
            let rest: f32 = chunks
                .remainder()
                .iter()
                .map(|v| (v - mean) * (v - mean))
                .sum();
            let variance = (squares.iter().sum::<f32>() + rest) / width as f32;
            let inverse = 1.0 / (variance + eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&n.gamma).zip(&n.beta) {
                *v = (*v - mean) * inverse * g + b;
            }
        }
    }

    /// Defines `$name` that runs `$generic` compiled for the widest vector instructions the
    /// CPU has.
    macro_rules! widest {
        ($(#[$doc:meta])* $name:ident => $generic:ident ( $($arg:ident : $ty:ty),* )) => {
            widest!($(#[$doc])* $name => $generic($($arg: $ty),*) -> ());
        };
        ($(#[$doc:meta])* $name:ident => $generic:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty) => {
            $(#[$doc])*
            pub(super) fn $name($($arg: $ty),*) -> $ret {
                #[cfg(target_arch = "x86_64")]
                {
                    #[target_feature(enable = "avx512f,avx2,fma")]
                    fn avx512($($arg: $ty),*) -> $ret {
                        $generic($($arg),*)
                    }
                    #[target_feature(enable = "avx2,fma")]
                    fn avx2($($arg: $ty),*) -> $ret {
                        $generic($($arg),*)
                    }
                    if std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("fma")
                    {
                        // SAFETY: the CPU was just seen to have the features the copy uses.
                        return unsafe { avx512($($arg),*) };
                    }
                    if std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("fma")
                    {
                        // SAFETY: as above.
                        return unsafe { avx2($($arg),*) };
                    }
                }
                $generic($($arg),*)
            }
        };
    }

    widest!(
        /// The exact GELU, `x Φ(x)`.
        gelu_erf => gelu_erf_generic(xs: &mut [f32])
    );
    widest!(
        /// GELU with the tanh formula.
        gelu_tanh => gelu_tanh_generic(xs: &mut [f32])
    );
    widest!(
        /// `e^(x - max)` of each of `row`, in place; their sum (a softmax's denominator).
        exp_shifted => exp_shifted_generic(row: &mut [f32]) -> f32
    );
    widest!(
        /// Layer norm of each row of `x` (after adding `add`), in place.
        layer_norm => layer_norm_generic(
            x: &mut [f32],
            add: Option<&[f32]>,
            width: usize,
            n: &Norm,
            eps: f32
        )
    );
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use candle_core::{Device, Tensor};
    use candle_nn::VarBuilder;
    use candle_transformers::models::bert::{BertModel, Config, HiddenAct};
    use rand::{Rng, SeedableRng};

    use super::*;

    #[test]
    fn exp_and_erf_match_the_standard_library() {
        for i in -2000..=2000 {
            let x = i as f32 * 0.043;
            let want = (x as f64).exp();
            let got = kernels::exp(x) as f64;
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "exp({x}) = {got}, want {want}"
            );
        }
        // Far outside the range: clamped, finite, no NaN.
        assert!(kernels::exp(-1000.0) >= 0.0 && kernels::exp(-1000.0) < 1e-37);
        assert!(kernels::exp(1000.0).is_finite());
        for i in -600..=600 {
            let x = i as f32 * 0.01;
            let want = libm::erf(x as f64);
            let got = kernels::erf(x) as f64;
            assert!((got - want).abs() < 1e-6, "erf({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn the_kernels_compute_gelu_and_a_softmaxs_exponentials() {
        let xs: Vec<f32> = (-400..400).map(|i| i as f32 * 0.025).collect();
        let mut exact = xs.clone();
        kernels::gelu_erf(&mut exact);
        let mut tanh = xs.clone();
        kernels::gelu_tanh(&mut tanh);
        for ((x, e), t) in xs.iter().zip(&exact).zip(&tanh) {
            let x = *x as f64;
            let want = 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2));
            assert!(
                (*e as f64 - want).abs() < 1e-6,
                "gelu({x}) = {e}, want {want}"
            );
            let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
            let want = 0.5 * x * (1.0 + u.tanh());
            assert!((*t as f64 - want).abs() < 1e-5, "gelu_tanh({x}) = {t}");
        }
        // 37 values: one full chunk of 16 twice and a remainder.
        let row: Vec<f32> = (0..37).map(|i| ((i * 7) % 11) as f32 - 3.0).collect();
        let mut got = row.clone();
        let sum = kernels::exp_shifted(&mut got);
        let max = row.iter().copied().fold(f32::MIN, f32::max) as f64;
        let total: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
        assert!((sum as f64 - total).abs() < 1e-5 * total);
        for (v, g) in row.iter().zip(&got) {
            let want = (*v as f64 - max).exp();
            assert!((*g as f64 - want).abs() < 1e-6 * want.max(1.0));
        }
    }

    /// `c = a · op(b)` the slow way, for one head.
    #[allow(clippy::too_many_arguments)]
    fn naive(
        (m, n, k): (usize, usize, usize),
        a: &[f32],
        lda: usize,
        b: &[f32],
        ldb: usize,
        transposed: bool,
    ) -> Vec<f32> {
        let mut c = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut sum = 0.0;
                for p in 0..k {
                    let bv = if transposed {
                        b[j * ldb + p]
                    } else {
                        b[p * ldb + j]
                    };
                    sum += a[i * lda + p] * bv;
                }
                c[i * n + j] = sum;
            }
        }
        c
    }

    #[test]
    fn products_of_strided_heads_match_the_definition() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut random =
            |n: usize| -> Vec<f32> { (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect() };
        // Three heads of width 4 side by side in rows of 12 (as q, k, v sit in a layer).
        let (heads, d, len, width) = (3, 4, 5, 12);
        let q = random(len * width);
        let v = random(len * width);
        for transposed in [true, false] {
            let (m, n, k) = if transposed {
                (len, len, d)
            } else {
                (len, d, len)
            };
            let a = if transposed {
                q.clone()
            } else {
                random(heads * len * len)
            };
            let (lda, a_stride) = if transposed {
                (width, d)
            } else {
                (len, len * len)
            };
            let (ldc, c_stride) = if transposed {
                (len, len * len)
            } else {
                (d, len * d)
            };
            let mut c = vec![f32::NAN; heads * len * len.max(width)];
            gemm::products(
                gemm::Heads {
                    count: heads,
                    a_stride,
                    b_stride: d,
                    c_stride,
                },
                (m, n, k),
                (&a, lda),
                (&v, width, transposed),
                (&mut c, ldc),
            );
            for head in 0..heads {
                let want = naive(
                    (m, n, k),
                    &a[head * a_stride..],
                    lda,
                    &v[head * d..],
                    width,
                    transposed,
                );
                for i in 0..m {
                    for j in 0..n {
                        let got = c[head * c_stride + i * ldc + j];
                        let want = want[i * n + j];
                        assert!(
                            (got - want).abs() < 1e-5,
                            "head {head} ({i}, {j}) transposed {transposed}: {got} vs {want}"
                        );
                    }
                }
            }
        }
        // A linear layer: the bias as the starting value, beta 1.
        let x = random(7 * 6);
        let w = random(5 * 6);
        let mut out: Vec<f32> = (0..7 * 5).map(|i| (i % 5) as f32).collect();
        gemm::product(7, 5, 6, &x, 6, &w, 6, true, &mut out, 5, 1.0, 2);
        let want = naive((7, 5, 6), &x, 6, &w, 6, true);
        for (i, (got, want)) in out.iter().zip(&want).enumerate() {
            assert!(
                (got - (want + (i % 5) as f32)).abs() < 1e-5,
                "{i}: {got} vs {want}"
            );
        }
    }

    fn tiny_config(act: HiddenAct) -> Config {
        Config {
            vocab_size: 50,
            hidden_size: 48,
            num_hidden_layers: 2,
            num_attention_heads: 4,
            intermediate_size: 96,
            hidden_act: act,
            hidden_dropout_prob: 0.0,
            max_position_embeddings: 64,
            type_vocab_size: 2,
            initializer_range: 0.02,
            layer_norm_eps: 1e-12,
            pad_token_id: 0,
            position_embedding_type: Default::default(),
            use_cache: false,
            classifier_dropout: None,
            model_type: Some("bert".into()),
        }
    }

    /// Random weights of `config`'s shapes, under `prefix` (as checkpoints name them).
    fn random_weights(config: &Config, prefix: &str) -> HashMap<String, Tensor> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut tensors = HashMap::new();
        let mut add = |name: String, shape: Vec<usize>, around: f32| {
            let n: usize = shape.iter().product();
            let data: Vec<f32> = (0..n)
                .map(|_| around + rng.random_range(-0.3f32..0.3))
                .collect();
            let t = Tensor::from_vec(data, shape, &Device::Cpu).expect("tensor");
            tensors.insert(format!("{prefix}{name}"), t);
        };
        let (h, i) = (config.hidden_size, config.intermediate_size);
        add(
            "embeddings.word_embeddings.weight".into(),
            vec![config.vocab_size, h],
            0.0,
        );
        add(
            "embeddings.position_embeddings.weight".into(),
            vec![config.max_position_embeddings, h],
            0.0,
        );
        add(
            "embeddings.token_type_embeddings.weight".into(),
            vec![config.type_vocab_size, h],
            0.0,
        );
        let norm = |add: &mut dyn FnMut(String, Vec<usize>, f32), at: String| {
            add(format!("{at}.weight"), vec![h], 1.0);
            add(format!("{at}.bias"), vec![h], 0.0);
        };
        norm(&mut add, "embeddings.LayerNorm".into());
        for l in 0..config.num_hidden_layers {
            let at = format!("encoder.layer.{l}");
            for part in ["query", "key", "value"] {
                add(
                    format!("{at}.attention.self.{part}.weight"),
                    vec![h, h],
                    0.0,
                );
                add(format!("{at}.attention.self.{part}.bias"), vec![h], 0.0);
            }
            add(
                format!("{at}.attention.output.dense.weight"),
                vec![h, h],
                0.0,
            );
            add(format!("{at}.attention.output.dense.bias"), vec![h], 0.0);
            norm(&mut add, format!("{at}.attention.output.LayerNorm"));
            add(format!("{at}.intermediate.dense.weight"), vec![i, h], 0.0);
            add(format!("{at}.intermediate.dense.bias"), vec![i], 0.0);
            add(format!("{at}.output.dense.weight"), vec![h, i], 0.0);
            add(format!("{at}.output.dense.bias"), vec![h], 0.0);
            norm(&mut add, format!("{at}.output.LayerNorm"));
        }
        tensors
    }

    /// candle's model on the same rows, padded, masked; the hidden states of the real tokens.
    fn candle_hidden(model: &BertModel, rows: &[(Vec<u32>, Vec<u32>)]) -> Vec<Vec<Vec<f32>>> {
        let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let mut ids = Vec::new();
        let mut types = Vec::new();
        let mut mask = Vec::new();
        for (i, t) in rows {
            let pad = width - i.len();
            ids.extend(i.iter().copied().chain(std::iter::repeat_n(0, pad)));
            types.extend(t.iter().copied().chain(std::iter::repeat_n(0, pad)));
            mask.extend(std::iter::repeat_n(1u32, i.len()).chain(std::iter::repeat_n(0, pad)));
        }
        let shape = (rows.len(), width);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu).expect("ids");
        let types = Tensor::from_vec(types, shape, &Device::Cpu).expect("types");
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu).expect("mask");
        let hidden = model.forward(&ids, &types, Some(&mask)).expect("forward");
        rows.iter()
            .enumerate()
            .map(|(r, (i, _))| {
                let row = hidden
                    .get(r)
                    .expect("row")
                    .narrow(0, 0, i.len())
                    .expect("narrow");
                row.to_vec2::<f32>().expect("a 2-d f32 tensor")
            })
            .collect()
    }

    #[test]
    fn the_native_encoder_matches_candles_bert() {
        for (act, prefix) in [
            (HiddenAct::Gelu, ""),
            (HiddenAct::GeluApproximate, "bert."),
            (HiddenAct::Relu, ""),
        ] {
            let config = tiny_config(act);
            let vb =
                VarBuilder::from_tensors(random_weights(&config, prefix), DType::F32, &Device::Cpu);
            let reference = BertModel::load(vb.clone(), &config).expect("candle loads");
            let native = NativeBert::load(&vb, &config, Products::F32).expect("native loads");
            assert_eq!(native.products(), Products::F32);
            // Rows of different lengths (one of a single token, one longer than a chunk of 16),
            // both token types.
            let rows: Vec<(Vec<u32>, Vec<u32>)> = [1usize, 5, 17, 40, 9]
                .iter()
                .enumerate()
                .map(|(r, &len)| {
                    let ids = (0..len).map(|i| ((i * 13 + r * 7) % 50) as u32).collect();
                    let types = (0..len).map(|i| u32::from(i >= len / 2)).collect();
                    (ids, types)
                })
                .collect();
            let want = candle_hidden(&reference, &rows);
            let borrowed: Vec<Row<'_>> =
                rows.iter().map(|(ids, types)| Row { ids, types }).collect();
            for threads in [1, 2] {
                let got = native.forward(&borrowed, threads).expect("native runs");
                let h = native.hidden_size();
                let mut at = 0;
                for (r, row) in want.iter().enumerate() {
                    for (t, token) in row.iter().enumerate() {
                        let mine = &got[at * h..(at + 1) * h];
                        for (a, b) in mine.iter().zip(token) {
                            assert!(
                                (a - b).abs() < 2e-4,
                                "{act:?} row {r} token {t}: {a} against candle's {b}"
                            );
                        }
                        at += 1;
                    }
                }
                assert_eq!(at * h, got.len());
            }
        }
    }

    #[test]
    fn bfloat16_products_stay_close_to_candles_f32() {
        let config = tiny_config(HiddenAct::Gelu);
        let vb = VarBuilder::from_tensors(random_weights(&config, ""), DType::F32, &Device::Cpu);
        if !bf16::supported() {
            let err = NativeBert::load(&vb, &config, Products::Bf16)
                .err()
                .expect("refused without AVX512-BF16");
            assert!(err.to_string().contains("AVX512-BF16"), "{err}");
            return;
        }
        let reference = BertModel::load(vb.clone(), &config).expect("candle loads");
        let native = NativeBert::load(&vb, &config, Products::Bf16).expect("native loads");
        assert_eq!(native.products(), Products::Bf16);
        let rows: Vec<(Vec<u32>, Vec<u32>)> = [1usize, 12, 33]
            .iter()
            .map(|&len| {
                (
                    (0..len).map(|i| (i * 11 % 50) as u32).collect(),
                    vec![0; len],
                )
            })
            .collect();
        let want = candle_hidden(&reference, &rows);
        let borrowed: Vec<Row<'_>> = rows.iter().map(|(ids, types)| Row { ids, types }).collect();
        for threads in [1, 2] {
            let got = native.forward(&borrowed, threads).expect("native runs");
            let h = native.hidden_size();
            let mut worst = 1f64;
            let mut differs = false;
            for (at, token) in want.iter().flatten().enumerate() {
                let mine = &got[at * h..(at + 1) * h];
                let dot: f64 = mine.iter().zip(token).map(|(a, b)| (a * b) as f64).sum();
                let norm = |v: &[f32]| v.iter().map(|x| (x * x) as f64).sum::<f64>().sqrt();
                worst = worst.min(dot / (norm(mine) * norm(token)));
                differs |= mine.iter().zip(token).any(|(a, b)| a != b);
            }
            // Close to f32, and not f32 itself (the products did run in bfloat16).
            assert!(worst > 0.999, "worst token cosine {worst}");
            assert!(differs, "bfloat16 products gave f32's exact values");
        }
    }

    #[test]
    fn bad_ids_are_errors_not_panics() {
        let config = tiny_config(HiddenAct::Gelu);
        let vb = VarBuilder::from_tensors(random_weights(&config, ""), DType::F32, &Device::Cpu);
        let native = NativeBert::load(&vb, &config, Products::F32).expect("loads");
        let ids = [3u32, 99];
        let types = [0u32, 0];
        let err = native
            .forward(
                &[Row {
                    ids: &ids,
                    types: &types,
                }],
                1,
            )
            .expect_err("id 99 is outside a vocabulary of 50");
        assert!(err.contains("vocabulary"), "{err}");
        let long: Vec<u32> = vec![1; 65];
        let err = native
            .forward(
                &[Row {
                    ids: &long,
                    types: &long,
                }],
                1,
            )
            .expect_err("65 tokens exceed 64 positions");
        assert!(err.contains("positions"), "{err}");
        let err = native
            .forward(
                &[Row {
                    ids: &ids,
                    types: &types[..1],
                }],
                1,
            )
            .expect_err("two ids, one type");
        assert!(err.contains("token types"), "{err}");
        // A text the tokenizer made nothing of, between two others: no panic, the others'
        // states unchanged.
        let empty: [u32; 0] = [];
        let one = [4u32, 5];
        let both = native
            .forward(
                &[
                    Row {
                        ids: &one,
                        types: &[0, 0],
                    },
                    Row {
                        ids: &empty,
                        types: &empty,
                    },
                    Row {
                        ids: &one,
                        types: &[0, 0],
                    },
                ],
                1,
            )
            .expect("an empty row is no error");
        let h = native.hidden_size();
        assert_eq!(both.len(), 4 * h);
        for (a, b) in both[..2 * h].iter().zip(&both[2 * h..]) {
            assert!((a - b).abs() < 1e-5, "{a} against {b}");
        }
    }

    #[test]
    fn pooling_takes_each_rows_own_tokens() {
        // Two rows of 2 and 1 tokens, width 2.
        let hidden = [1.0, 2.0, 3.0, 4.0, 10.0, 20.0];
        assert_eq!(
            mean_pool(&hidden, &[2, 1], 2),
            vec![vec![2.0, 3.0], vec![10.0, 20.0]]
        );
        assert_eq!(
            cls_pool(&hidden, &[2, 1], 2),
            vec![vec![1.0, 2.0], vec![10.0, 20.0]]
        );
        // A row of no tokens pools to zeros and takes nothing from its neighbours.
        assert_eq!(
            cls_pool(&hidden, &[2, 0, 1], 2),
            vec![vec![1.0, 2.0], vec![0.0, 0.0], vec![10.0, 20.0]]
        );
        assert_eq!(mean_pool(&hidden, &[2, 0, 1], 2)[1], vec![0.0, 0.0]);
    }
}
