//! A BERT-family sentence-embedding model (all-MiniLM-L6-v2, bge-base-en-v1.5, …) run with
//! candle, loaded from a local directory: model.safetensors, config.json, tokenizer.json, and the
//! sentence-transformers files that say how to pool.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{Config, HiddenAct};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::candle_bert::CandleBert;
use super::native::{self, NativeBert, Products};
use super::{read_model_info, EmbedError, Embedder, ModelInfo, Pooling, TokenCounter};

/// Where the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceKind {
    /// The CPU (default; works everywhere).
    Cpu,
    /// The first NVIDIA GPU; needs a build with `--features cuda`.
    Cuda,
}

/// Which code runs the model's forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Our own CPU forward pass (`embed::native`): rows unpadded, fused projections,
    /// vectorized element-wise kernels. CPU only; the default there (`Engine::for_device`).
    Native,
    /// candle's BERT: runs on the CPU or a GPU; the only one for `--device cuda`.
    Candle,
}

impl Engine {
    /// The engine a device runs best: ours on the CPU, candle's on a GPU.
    pub fn for_device(device: DeviceKind) -> Engine {
        match device {
            DeviceKind::Cpu => Engine::Native,
            DeviceKind::Cuda => Engine::Candle,
        }
    }
}

/// The number format the model computes in. Pooling and normalization are f32 always; in the
/// native engine so are layer norms, softmax, GELU and residual sums, and `bf16` rounds only the
/// operands of the matrix products (linear layers and attention; their sums stay f32).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Precision {
    /// bfloat16 products in the native engine on a CPU with AVX512-BF16 (twice f32's rate),
    /// f32 otherwise (default).
    #[default]
    Auto,
    /// Single precision throughout (the reference).
    F32,
    /// IEEE half precision: tensor cores on a GPU.
    F16,
    /// bfloat16: f32's range with 8 bits of mantissa; tensor cores on a GPU.
    Bf16,
}

impl Precision {
    /// What `engine` computes in on this CPU for this setting (`Auto` resolved).
    pub fn resolved(self, engine: Engine) -> Precision {
        match (self, engine) {
            (Precision::Auto, Engine::Native) if super::bf16::supported() => Precision::Bf16,
            (Precision::Auto, _) => Precision::F32,
            (precision, _) => precision,
        }
    }

    /// What candle's engine computes in.
    fn dtype(self) -> DType {
        match self {
            Precision::Auto | Precision::F32 => DType::F32,
            Precision::F16 => DType::F16,
            Precision::Bf16 => DType::BF16,
        }
    }
}

/// How to load a model: what overrides its files and what runs it.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Overrides the pooling the sentence-transformers files name.
    pub pooling: Option<Pooling>,
    /// Where the model runs.
    pub device: DeviceKind,
    /// Computes the model's exact (erf) GELU with the tanh formula (candle vectorizes only
    /// that one; all-MiniLM-L6-v2's vectors stay within cosine 0.999997 of
    /// sentence-transformers').
    pub approximate_gelu: bool,
    /// The forward pass; ours runs on the CPU only.
    pub engine: Engine,
    /// What the model computes in.
    pub precision: Precision,
}

impl LoadOptions {
    /// The defaults for a device: its own engine, f32, the files' pooling, exact GELU.
    pub fn for_device(device: DeviceKind) -> Self {
        LoadOptions {
            pooling: None,
            device,
            approximate_gelu: false,
            engine: Engine::for_device(device),
            precision: Precision::Auto,
        }
    }
}

enum Model {
    Native(NativeBert),
    Candle(CandleBert),
}

/// A loaded model with its tokenizer.
pub struct BertEmbedder {
    model: Model,
    tokenizer: Tokenizer,
    device: Device,
    info: ModelInfo,
    pad_id: u32,
    pad_type_id: u32,
    workers: usize,
    lone_pass_threads: usize,
    pass: PassLimits,
}

/// How many rows go through the model at once. Texts are sorted by length first, so the rows
/// of one pass are padded to about their own length (sentence-transformers does the same, in
/// passes of 32).
#[derive(Clone, Copy, Debug)]
struct PassLimits {
    /// Most rows in one pass.
    rows: usize,
    /// Most padded tokens in one pass.
    tokens: usize,
}

impl PassLimits {
    fn for_device(device: DeviceKind) -> Self {
        match device {
            // Long rows go fewer at a time, so that no intermediate tensor (the attention scores
            // grow with rows × heads × length²) outgrows what the allocator keeps for reuse;
            // larger ones came fresh from the kernel, zeroed, on every pass.
            DeviceKind::Cpu => PassLimits {
                rows: 32,
                tokens: 2048,
            },
            // A GPU is fed by big passes: each kernel launch costs microseconds whatever its
            // size. 64 Ki tokens of bge-base's attention scores are 12 heads × 512² × 128 rows
            // × 4 bytes = 1.6 GB at most.
            DeviceKind::Cuda => PassLimits {
                rows: 1024,
                tokens: 65_536,
            },
        }
    }
}

impl BertEmbedder {
    /// Loads the model from `dir` with the device's defaults (see [`LoadOptions::for_device`]).
    pub fn load(
        dir: &Path,
        pooling: Option<Pooling>,
        device: DeviceKind,
    ) -> Result<Self, EmbedError> {
        Self::load_with(
            dir,
            &LoadOptions {
                pooling,
                ..LoadOptions::for_device(device)
            },
        )
    }

    /// Loads the model from `dir`.
    pub fn load_with(dir: &Path, options: &LoadOptions) -> Result<Self, EmbedError> {
        let LoadOptions {
            pooling,
            device,
            approximate_gelu,
            engine,
            precision,
        } = *options;
        let info = read_model_info(dir, pooling)?;
        let fail = |reason: String| EmbedError::ModelFiles {
            dir: dir.display().to_string(),
            reason,
        };
        if engine == Engine::Native && device != DeviceKind::Cpu {
            return Err(fail(
                "the native engine runs on the CPU only; use --embed-engine candle on a GPU".into(),
            ));
        }
        let products =
            match (engine, precision.resolved(engine)) {
                (Engine::Native, Precision::Bf16) => Products::Bf16,
                (Engine::Native, Precision::F16) => return Err(fail(
                    "the native engine computes in f32 or bf16; use --embed-engine candle for f16"
                        .into(),
                )),
                _ => Products::F32,
            };
        let device = match device {
            DeviceKind::Cpu => Device::Cpu,
            DeviceKind::Cuda => {
                Device::new_cuda(0).map_err(|e| fail(format!("cannot use the GPU: {e}")))?
            }
        };
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| fail(format!("config.json: {e}")))?;
        let mut config: Config =
            serde_json::from_str(&config_text).map_err(|e| fail(format!("config.json: {e}")))?;
        if approximate_gelu && config.hidden_act == HiddenAct::Gelu {
            config.hidden_act = HiddenAct::GeluApproximate;
        }
        let weights = dir.join("model.safetensors");
        if !weights.exists() {
            return Err(fail("model.safetensors is missing".into()));
        }
        // SAFETY: the file is memory-mapped read-only; it must not change while the process
        // runs, which holds for a model directory.
        // The native engine reads f32 and rounds only what its products take.
        let dtype = match engine {
            Engine::Native => DType::F32,
            Engine::Candle => precision.resolved(engine).dtype(),
        };
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], dtype, &device) }
            .map_err(|e| fail(format!("model.safetensors: {e}")))?;
        let model = match engine {
            Engine::Native => NativeBert::load(&vb, &config, products).map(Model::Native),
            Engine::Candle => CandleBert::load(&vb, &config).map(Model::Candle),
        }
        .map_err(|e| fail(format!("model.safetensors: {e}")))?;
        let computes = match &model {
            Model::Native(native) => format!("{:?} products", native.products()),
            Model::Candle(_) => format!("{dtype:?}"),
        };
        tracing::info!(model = %info.name, ?engine, computes, "embedding model loaded");

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
            workers: 1,
            lone_pass_threads: 1,
            pass: PassLimits::for_device(options.device),
        })
    }

    /// Runs `workers` passes at once, each on its own thread (1: one pass at a time). On a CPU,
    /// passes side by side with one thread each use the cores better than one pass with all
    /// of them: a pass's matrix products divide among threads, but its other operations (GELU,
    /// softmax, layer norms, copies) run on one.
    pub fn with_workers(mut self, workers: usize) -> Self {
        self.workers = workers.max(1);
        self
    }

    /// Threads the matrix products of a single pass may use when it is the only one (a lone
    /// query, embedded while the other workers idle); passes side by side share them. candle's
    /// engine can change this per call only in the `mkl` build.
    pub fn with_lone_pass_threads(mut self, threads: usize) -> Self {
        self.lone_pass_threads = threads.max(1);
        self
    }

    /// One pass of the model over rows already tokenized: pooled, normalized if the model
    /// says so. `threads`: what the pass's matrix products may use.
    fn forward(&self, rows: &[&Encoding], threads: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut pooled = match &self.model {
            Model::Native(model) => {
                let lengths: Vec<usize> = rows.iter().map(|e| e.get_ids().len()).collect();
                let borrowed: Vec<native::Row<'_>> = rows
                    .iter()
                    .map(|e| native::Row {
                        ids: e.get_ids(),
                        types: e.get_type_ids(),
                    })
                    .collect();
                let hidden = model
                    .forward(&borrowed, threads)
                    .map_err(EmbedError::Model)?;
                let width = model.hidden_size();
                match self.info.pooling {
                    Pooling::Cls => native::cls_pool(&hidden, &lengths, width),
                    Pooling::Mean => native::mean_pool(&hidden, &lengths, width),
                }
            }
            Model::Candle(model) => self.forward_candle(model, rows)?,
        };
        if self.info.normalize {
            for vector in &mut pooled {
                let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
                vector.iter_mut().for_each(|v| *v /= norm);
            }
        }
        Ok(pooled)
    }

    /// candle's pass over rows padded to the longest of them, masked.
    fn forward_candle(
        &self,
        model: &CandleBert,
        rows: &[&Encoding],
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
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
        let fail = |e: candle_core::Error| EmbedError::Model(e.to_string());
        let ids = Tensor::from_vec(ids, (rows, width), &self.device).map_err(fail)?;
        let types = Tensor::from_vec(types, (rows, width), &self.device).map_err(fail)?;
        let started = std::time::Instant::now();
        let hidden = model
            .forward(&ids, &types, &mask, &self.device)
            .map_err(fail)?;
        let queued = started.elapsed();
        let mask = Tensor::from_vec(mask, (rows, width), &self.device).map_err(fail)?;
        let pooled = match self.info.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1).and_then(|t| t.squeeze(1)),
            Pooling::Mean => (|| {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
                summed.broadcast_div(&counts)
            })(),
        }
        .map_err(fail)?;
        let vectors = pooled.to_vec2::<f32>().map_err(fail)?;
        // On a GPU, `queued` is the host's time to launch the kernels, the rest waiting for
        // them and the copy back.
        tracing::trace!(
            rows,
            width,
            queued_ms = queued.as_secs_f64() * 1e3,
            total_ms = started.elapsed().as_secs_f64() * 1e3,
            "pass"
        );
        Ok(vectors)
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
            // Without offsets: counting is all the batcher needs, at about half the cost.
            tokenizer
                .encode_fast(text, false)
                .map(|e| e.len())
                .unwrap_or(text.len() / 3 + 1)
        })
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        #[cfg(feature = "mkl")]
        quiet_mkl_vector_math();
        let started = std::time::Instant::now();
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let tokenized = started.elapsed();
        // Shortest first; each pass takes the next rows of about the same length.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut passes = Vec::new();
        let mut rest = order.as_slice();
        while !rest.is_empty() {
            // Sorted ascending: the pass's last row is its longest.
            let mut take = 1;
            while take < rest.len()
                && take < self.pass.rows
                && (take + 1) * encodings[rest[take]].get_ids().len() <= self.pass.tokens
            {
                take += 1;
            }
            let (pass, later) = rest.split_at(take);
            passes.push(pass);
            rest = later;
        }
        // A pass alone may use every thread; passes side by side share them.
        let shared = (self.lone_pass_threads / self.workers).max(1);
        let run = |pass: &[usize], threads: usize| {
            let rows: Vec<&Encoding> = pass.iter().map(|&i| &encodings[i]).collect();
            self.forward(&rows, threads)
        };
        let mut results: Vec<Option<Result<Vec<Vec<f32>>, EmbedError>>> =
            (0..passes.len()).map(|_| None).collect();
        if passes.len() == 1 {
            // The only pass of this call, and the workers run one call at a time: the other
            // threads are idle, so its matrix products may take them all (a query's latency).
            #[cfg(feature = "mkl")]
            let _threads = MklThreads::local(self.lone_pass_threads);
            results[0] = Some(run(passes[0], self.lone_pass_threads));
        } else if self.workers <= 1 {
            for (slot, pass) in results.iter_mut().zip(&passes) {
                *slot = Some(run(pass, shared));
            }
        } else {
            // Longest passes first, so that the last to finish is a short one.
            let next = std::sync::atomic::AtomicUsize::new(0);
            let done = std::sync::Mutex::new(Vec::new());
            std::thread::scope(|scope| {
                for _ in 0..self.workers.min(passes.len()) {
                    scope.spawn(|| {
                        #[cfg(feature = "mkl")]
                        quiet_mkl_vector_math();
                        loop {
                            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if k >= passes.len() {
                                break;
                            }
                            let index = passes.len() - 1 - k;
                            let out = run(passes[index], shared);
                            done.lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push((index, out));
                        }
                    });
                }
            });
            for (index, out) in done.into_inner().unwrap_or_else(|p| p.into_inner()) {
                results[index] = Some(out);
            }
        }
        tracing::debug!(
            texts = texts.len(),
            passes = passes.len(),
            tokenize_ms = tokenized.as_secs_f64() * 1e3,
            model_ms = (started.elapsed() - tokenized).as_secs_f64() * 1e3,
            "embedded"
        );
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); encodings.len()];
        for (pass, out) in passes.iter().zip(results) {
            let out = out.ok_or_else(|| EmbedError::Model("a pass did not run".into()))??;
            for (&i, vector) in pass.iter().zip(out) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }
}

/// Sets the MKL threads of the calling thread for as long as it lives, then restores them.
#[cfg(feature = "mkl")]
struct MklThreads(std::os::raw::c_int);

#[cfg(feature = "mkl")]
extern "C" {
    fn MKL_Set_Num_Threads_Local(threads: std::os::raw::c_int) -> std::os::raw::c_int;
}

#[cfg(feature = "mkl")]
impl MklThreads {
    fn local(threads: usize) -> Self {
        // SAFETY: a thread-local setting of MKL, which the mkl build links; returns the
        // previous value (0: the global default).
        MklThreads(unsafe { MKL_Set_Num_Threads_Local(threads as std::os::raw::c_int) })
    }
}

#[cfg(feature = "mkl")]
impl Drop for MklThreads {
    fn drop(&mut self) {
        // SAFETY: as above.
        unsafe {
            MKL_Set_Num_Threads_Local(self.0);
        }
    }
}

/// MKL's vector functions (candle's `exp`, `add`… in the `mkl` build) report underflow, which
/// the softmax over the attention mask's large negative values causes on every pass, through
/// an error handler: it took a quarter of the embedder's time here. The IEEE results (zeros)
/// are the right ones, so errors are ignored. The mode is per thread; setting it is cheap.
#[cfg(feature = "mkl")]
fn quiet_mkl_vector_math() {
    extern "C" {
        fn vmlSetMode(mode: std::os::raw::c_uint) -> std::os::raw::c_uint;
    }
    // mkl_vml_defines.h: VML_HA (high accuracy, the default) | VML_ERRMODE_IGNORE.
    const MODE: std::os::raw::c_uint = 0x0000_0002 | 0x0000_0100;
    // SAFETY: sets a thread-local mode word of MKL, which the mkl build links.
    unsafe {
        vmlSetMode(MODE);
    }
}
