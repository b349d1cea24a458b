//! A local quantized model from a GGUF file, run with candle on its own thread.
//!
//! Supports the `llama` architecture (SmolLM2, Llama, Mistral) and `qwen2` (Qwen2.5). The chat
//! template is ChatML (`<|im_start|>role … <|im_end|>`), which both SmolLM2 and Qwen2.5 use. The
//! tokenizer comes from the GGUF file itself; SmolLM2's needs its pre-tokenizer corrected (digits
//! split one by one, byte-level without a prefix space), as its tokenizer.json has it.

use std::path::Path;
use std::sync::mpsc;

use async_trait::async_trait;
use candle_core::quantized::gguf_file;
use candle_core::quantized::tokenizer::TokenizerFromGguf;
use candle_core::{Device, Tensor};
use candle_transformers::generation::LogitsProcessor;
use candle_transformers::models::{quantized_llama, quantized_qwen2};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{PreTokenizerWrapper, Tokenizer};
use tokio::sync::oneshot;

use super::{ChatModel, ChatRequest, Completion, LlmError, Role, VoteOutput, VoteRequest};

/// Requests waiting for the model thread before callers wait.
const QUEUE: usize = 16;

enum Weights {
    Llama(quantized_llama::ModelWeights),
    Qwen2(quantized_qwen2::ModelWeights),
}

impl Weights {
    fn forward(&mut self, input: &Tensor, position: usize) -> candle_core::Result<Tensor> {
        match self {
            Weights::Llama(m) => m.forward(input, position),
            Weights::Qwen2(m) => m.forward(input, position),
        }
    }

    fn clear(&mut self) {
        match self {
            Weights::Llama(m) => m.clear_kv_cache(),
            Weights::Qwen2(m) => m.clear_kv_cache(),
        }
    }
}

struct LoadedModel {
    weights: Weights,
    tokenizer: Tokenizer,
    stop_tokens: Vec<u32>,
    context: usize,
}

enum Job {
    Chat(ChatRequest, oneshot::Sender<Result<Completion, LlmError>>),
    Vote(
        Box<VoteRequest>,
        oneshot::Sender<Result<Vec<VoteOutput>, LlmError>>,
    ),
    Each(
        Box<VoteRequest>,
        oneshot::Sender<Result<Vec<VoteOutput>, LlmError>>,
    ),
}

/// A GGUF chat model on a dedicated thread.
pub struct GgufChat {
    name: String,
    votes: bool,
    jobs: mpsc::SyncSender<Job>,
}

fn file_error(path: &Path, reason: impl ToString) -> LlmError {
    LlmError::ModelFile {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

impl GgufChat {
    /// Loads the model and starts its thread; `dequantize` expands the weights to f32.
    pub fn load(path: &Path, dequantize: bool) -> Result<Self, LlmError> {
        let model = load_model(path, dequantize)?;
        let votes = matches!(model.weights, Weights::Llama(_));
        let name = format!(
            "gguf:{}",
            path.file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default()
        );
        let (jobs, receiver) = mpsc::sync_channel::<Job>(QUEUE);
        std::thread::Builder::new()
            .name("llm-model".into())
            .spawn(move || serve(model, receiver))
            .map_err(|e| LlmError::Model(e.to_string()))?;
        Ok(GgufChat { name, votes, jobs })
    }
}

impl GgufChat {
    async fn submit(&self, job: Job) -> Result<(), LlmError> {
        let jobs = self.jobs.clone();
        // A full queue blocks; keep that off the async runtime.
        tokio::task::spawn_blocking(move || jobs.send(job))
            .await
            .map_err(|_| LlmError::Stopped)?
            .map_err(|_| LlmError::Stopped)
    }
}

/// The tokenizer stored in a GGUF file (SmolLM2's pre-tokenizer corrected).
pub fn load_tokenizer(path: &Path) -> Result<Tokenizer, LlmError> {
    let mut file = std::fs::File::open(path).map_err(|e| file_error(path, e))?;
    let content = gguf_file::Content::read(&mut file).map_err(|e| file_error(path, e))?;
    tokenizer_of(&content).map_err(|e| file_error(path, e))
}

/// A text value of the GGUF metadata (empty when absent).
fn metadata_text(content: &gguf_file::Content, key: &str) -> String {
    content
        .metadata
        .get(key)
        .and_then(|v| v.to_string().ok())
        .cloned()
        .unwrap_or_default()
}

fn tokenizer_of(content: &gguf_file::Content) -> Result<Tokenizer, String> {
    let mut tokenizer = Tokenizer::from_gguf(content).map_err(|e| e.to_string())?;
    if metadata_text(content, "tokenizer.ggml.pre") == "smollm" {
        let fixed = Sequence::new(vec![
            PreTokenizerWrapper::Digits(Digits::new(true)),
            PreTokenizerWrapper::ByteLevel(ByteLevel::new(false, true, true)),
        ]);
        tokenizer.with_pre_tokenizer(Some(PreTokenizerWrapper::Sequence(fixed)));
    }
    Ok(tokenizer)
}

fn load_model(path: &Path, dequantize: bool) -> Result<LoadedModel, LlmError> {
    // candle decides per weight, when it builds the model, whether to keep it quantized, from
    // this variable as the building thread first reads it: build on a fresh thread that reads
    // this call's choice (the variable names no secret; only model loads read it).
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                std::env::set_var("CANDLE_DEQUANTIZE_ALL", if dequantize { "1" } else { "0" });
                load_model_here(path)
            })
            .join()
            .map_err(|_| LlmError::Model("loading the model panicked".into()))?
    })
}

fn load_model_here(path: &Path) -> Result<LoadedModel, LlmError> {
    let device = Device::Cpu;
    let mut file = std::fs::File::open(path).map_err(|e| file_error(path, e))?;
    let content = gguf_file::Content::read(&mut file).map_err(|e| file_error(path, e))?;
    let architecture = metadata_text(&content, "general.architecture");
    let context = content
        .metadata
        .get(&format!("{architecture}.context_length"))
        .and_then(|v| v.to_u32().ok())
        .unwrap_or(2048) as usize;
    let tokenizer = tokenizer_of(&content).map_err(|e| file_error(path, e))?;
    let stop_tokens: Vec<u32> = ["<|im_end|>", "<|endoftext|>", "</s>"]
        .iter()
        .filter_map(|t| tokenizer.token_to_id(t))
        .collect();
    let weights = match architecture.as_str() {
        "llama" => Weights::Llama(
            quantized_llama::ModelWeights::from_gguf(content, &mut file, &device)
                .map_err(|e| file_error(path, e))?,
        ),
        "qwen2" => Weights::Qwen2(
            quantized_qwen2::ModelWeights::from_gguf(content, &mut file, &device)
                .map_err(|e| file_error(path, e))?,
        ),
        other => {
            return Err(file_error(
                path,
                format!("architecture {other:?} is not supported (llama, qwen2)"),
            ))
        }
    };
    Ok(LoadedModel {
        weights,
        tokenizer,
        stop_tokens,
        context,
    })
}

/// ChatML, as SmolLM2 and Qwen2.5 expect it, as token ids. The role markers are the only special
/// tokens: message contents are encoded with special-token parsing off (so a record or a
/// question holding `<|im_end|><|im_start|>system` is text, not a role boundary), and control
/// sequences are stripped from them first.
pub fn chat_prompt_ids(tokenizer: &Tokenizer, request: &ChatRequest) -> Result<Vec<u32>, LlmError> {
    let special = |name: &str| {
        tokenizer
            .token_to_id(name)
            .ok_or_else(|| LlmError::Model(format!("the tokenizer has no {name} token")))
    };
    let (start, end) = (special("<|im_start|>")?, special("<|im_end|>")?);
    let mut plain = tokenizer.clone();
    plain.set_encode_special_tokens(true);
    let encode = |text: &str| -> Result<Vec<u32>, LlmError> {
        plain
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| LlmError::Model(e.to_string()))
    };
    let mut ids = Vec::new();
    for message in &request.messages {
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        ids.push(start);
        ids.extend(encode(&format!("{role}\n"))?);
        ids.extend(encode(&crate::text::strip_control_sequences(
            &message.content,
        ))?);
        ids.push(end);
        ids.extend(encode("\n")?);
    }
    ids.push(start);
    ids.extend(encode("assistant\n")?);
    Ok(ids)
}

fn serve(mut model: LoadedModel, jobs: mpsc::Receiver<Job>) {
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Chat(request, reply) => {
                if reply.is_closed() {
                    continue; // the caller left
                }
                let _ = reply.send(generate(&mut model, &request));
            }
            Job::Vote(request, reply) => {
                if reply.is_closed() {
                    continue;
                }
                let _ = reply.send(vote(&mut model, *request));
            }
            Job::Each(request, reply) => {
                if reply.is_closed() {
                    continue;
                }
                let _ = reply.send(each(&mut model, *request));
            }
        }
    }
}

fn model_error(e: candle_core::Error) -> LlmError {
    LlmError::Model(e.to_string())
}

/// One pass over `rows` rows of equal length (`ids` holds them one after another): the last
/// position's logits of each row.
fn forward_rows(
    weights: &mut quantized_llama::ModelWeights,
    ids: &[u32],
    rows: usize,
    position: usize,
) -> Result<Vec<Vec<f32>>, LlmError> {
    let input = Tensor::from_slice(ids, (rows, ids.len() / rows.max(1)), &Device::Cpu)
        .map_err(model_error)?;
    weights
        .forward(&input, position)
        .and_then(|l| l.to_dtype(candle_core::DType::F32))
        .and_then(|l| l.to_vec2::<f32>())
        .map_err(model_error)
}

/// Why a model that is not Llama-architecture cannot vote.
const NOT_LLAMA: &str = "generation by votes needs a llama-architecture GGUF model";

/// The Llama weights that generation by votes needs.
fn llama(weights: &mut Weights) -> Result<&mut quantized_llama::ModelWeights, LlmError> {
    match weights {
        Weights::Llama(base) => Ok(base),
        _ => Err(LlmError::Unsupported(NOT_LLAMA.into())),
    }
}

/// Every voter's prompt as one row of token ids, all rows of one length (see [`vote`]): the
/// rows one after another, the length of a row, and the number of voters.
fn voter_rows(
    model: &LoadedModel,
    request: &VoteRequest,
) -> Result<(Vec<u32>, usize, usize), LlmError> {
    if !matches!(model.weights, Weights::Llama(_)) {
        return Err(LlmError::Unsupported(NOT_LLAMA.into()));
    }
    let special = |name: &str| {
        model
            .tokenizer
            .token_to_id(name)
            .ok_or_else(|| LlmError::Model(format!("the tokenizer has no {name} token")))
    };
    let (start, end) = (special("<|im_start|>")?, special("<|im_end|>")?);
    let mut plain = model.tokenizer.clone();
    plain.set_encode_special_tokens(true);
    let encode = |text: &str| -> Result<Vec<u32>, LlmError> {
        plain
            .encode(crate::text::strip_control_sequences(text).as_str(), false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| LlmError::Model(e.to_string()))
    };
    let mut prefix = vec![start];
    prefix.extend(encode("system\n")?);
    prefix.extend(encode(&request.system)?);
    prefix.push(end);
    prefix.extend(encode("\n")?);
    prefix.push(start);
    prefix.extend(encode("user\n")?);
    prefix.extend(encode(&format!("{}\n\nRecord:\n", request.question))?);
    // The question again after each record: a small model answers the last thing it read.
    let mut closing = encode(&format!(
        "\n\nQuestion: {}\nAnswer with the name only.",
        request.question
    ))?;
    closing.push(end);
    closing.extend(encode("\n")?);
    closing.push(start);
    closing.extend(encode("assistant\n")?);
    if !request.lead.is_empty() {
        closing.extend(encode(request.lead.trim_end())?);
    }
    let filler = *encode("\n")?
        .first()
        .ok_or_else(|| LlmError::Model("the tokenizer cannot encode a new line".into()))?;
    let contexts = request
        .contexts
        .iter()
        .map(|c| {
            let mut ids = encode(c)?;
            ids.truncate(request.max_context_tokens);
            Ok(ids)
        })
        .collect::<Result<Vec<_>, LlmError>>()?;
    let voters = contexts.len();
    let width = contexts.iter().map(Vec::len).max().unwrap_or(0);
    let row = prefix.len() + width + closing.len();
    if row + request.max_tokens > model.context {
        return Err(LlmError::PromptTooLong {
            tokens: row,
            context: model.context,
        });
    }
    let mut ids = Vec::with_capacity(voters * row);
    for context in &contexts {
        ids.extend_from_slice(&prefix);
        ids.extend(std::iter::repeat_n(filler, width - context.len()));
        ids.extend_from_slice(context);
        ids.extend_from_slice(&closing);
    }
    Ok((ids, row, voters))
}

/// Generation by votes, all voters in one batch. Every voter's prompt is the same instructions
/// and question, its own context, and the question again; contexts shorter than the longest
/// are filled with blank lines in front, so that every row has the same length and position
/// (candle's quantized Llama has no padding mask, and needs none then). One pass reads every
/// voter's prompt; each step then runs all voters on the chosen token in one pass of batch
/// size = voters, which reads the weights once per step instead of once per voter. Several
/// choosers continue from copies of the same attention cache. Llama-architecture models only.
fn vote(model: &mut LoadedModel, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
    let (ids, row, voters) = voter_rows(model, &request)?;
    if voters == 0 {
        return Ok(Vec::new());
    }
    let base = llama(&mut model.weights)?;
    let started = std::time::Instant::now();
    base.clear_kv_cache();
    let mut read = base.clone();
    let first = forward_rows(&mut read, &ids, voters, 0)?;
    let prompt_seconds = started.elapsed().as_secs_f64();
    let mut outputs = Vec::with_capacity(request.choosers.len());
    for mut chooser in request.choosers {
        let own_started = std::time::Instant::now();
        let mut weights = read.clone();
        let mut logits = first.clone();
        let mut generated = Vec::new();
        // Passes counted per voter, as one model call per voter would make them.
        let mut passes = voters as u32;
        while generated.len() < request.max_tokens {
            let next = chooser.choose(&logits);
            if model.stop_tokens.contains(&next) {
                break;
            }
            generated.push(next);
            if generated.len() == request.max_tokens {
                break;
            }
            let step = vec![next; voters];
            logits = forward_rows(&mut weights, &step, voters, row + generated.len() - 1)?;
            passes += voters as u32;
        }
        let text = model
            .tokenizer
            .decode(&generated, true)
            .map_err(|e| LlmError::Model(e.to_string()))?;
        outputs.push(VoteOutput {
            text: text.trim().to_string(),
            tokens: generated.len() as u32,
            passes,
            seconds: prompt_seconds + own_started.elapsed().as_secs_f64(),
        });
    }
    base.clear_kv_cache();
    Ok(outputs)
}

/// Every voter's own greedy answer (keyword-space aggregation, [`crate::dp::keywords`]): the
/// same batched prompt as [`vote`], then each row continues with its own arg max, all rows in
/// one pass per step; a row that stopped is fed a filler token and no longer read. One output
/// per voter, in the order of the contexts: its text, its tokens, its passes (the prompt and
/// one per token it was fed), and the seconds of the whole batch.
fn each(model: &mut LoadedModel, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
    let (ids, row, voters) = voter_rows(model, &request)?;
    if voters == 0 {
        return Ok(Vec::new());
    }
    let stop = model.stop_tokens.clone();
    let base = llama(&mut model.weights)?;
    let started = std::time::Instant::now();
    base.clear_kv_cache();
    let mut logits = forward_rows(base, &ids, voters, 0)?;
    let mut generated: Vec<Vec<u32>> = vec![Vec::new(); voters];
    let mut passes = vec![1u32; voters];
    let mut done = vec![false; voters];
    for step in 0..request.max_tokens {
        let mut next = vec![0u32; voters];
        for (v, row_logits) in logits.iter().enumerate() {
            if done[v] {
                continue;
            }
            let token = crate::dp::vote(row_logits, 0.0)
                .iter()
                .position(|p| *p > 0.0)
                .unwrap_or(0) as u32;
            if stop.contains(&token) {
                done[v] = true;
                continue;
            }
            generated[v].push(token);
            next[v] = token;
            done[v] = generated[v].len() >= request.max_tokens;
        }
        if done.iter().all(|d| *d) {
            break;
        }
        for (p, d) in passes.iter_mut().zip(&done) {
            *p += !d as u32;
        }
        logits = forward_rows(base, &next, voters, row + step)?;
    }
    base.clear_kv_cache();
    let seconds = started.elapsed().as_secs_f64();
    generated
        .into_iter()
        .zip(passes)
        .map(|(tokens, passes)| {
            let text = model
                .tokenizer
                .decode(&tokens, true)
                .map_err(|e| LlmError::Model(e.to_string()))?;
            Ok(VoteOutput {
                text: text.trim().to_string(),
                tokens: tokens.len() as u32,
                passes,
                seconds,
            })
        })
        .collect()
}

fn generate(model: &mut LoadedModel, request: &ChatRequest) -> Result<Completion, LlmError> {
    let prompt_tokens = chat_prompt_ids(&model.tokenizer, request)?;
    let budget = request.max_tokens as usize;
    if prompt_tokens.len() + budget > model.context {
        return Err(LlmError::PromptTooLong {
            tokens: prompt_tokens.len(),
            context: model.context,
        });
    }
    model.weights.clear();
    let temperature = (request.temperature > 0.0).then_some(request.temperature as f64);
    let mut sampler = LogitsProcessor::new(299_792_458, temperature, None);
    let input = Tensor::new(prompt_tokens.as_slice(), &Device::Cpu)
        .and_then(|t| t.unsqueeze(0))
        .map_err(model_error)?;
    let logits = model
        .weights
        .forward(&input, 0)
        .and_then(|l| l.squeeze(0))
        .map_err(model_error)?;
    let mut next = sampler.sample(&logits).map_err(model_error)?;
    let mut generated = Vec::with_capacity(budget);
    while generated.len() < budget && !model.stop_tokens.contains(&next) {
        generated.push(next);
        let input = Tensor::new(&[next], &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .map_err(model_error)?;
        let logits = model
            .weights
            .forward(&input, prompt_tokens.len() + generated.len() - 1)
            .and_then(|l| l.squeeze(0))
            .map_err(model_error)?;
        next = sampler.sample(&logits).map_err(model_error)?;
    }
    let text = model
        .tokenizer
        .decode(&generated, true)
        .map_err(|e| LlmError::Model(e.to_string()))?;
    Ok(Completion {
        text: text.trim().to_string(),
        prompt_tokens: prompt_tokens.len() as u32,
        completion_tokens: generated.len() as u32,
    })
}

#[async_trait]
impl ChatModel for GgufChat {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn complete(&self, request: ChatRequest) -> Result<Completion, LlmError> {
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Chat(request, reply)).await?;
        answer.await.map_err(|_| LlmError::Stopped)?
    }

    fn supports_votes(&self) -> bool {
        self.votes
    }

    async fn vote(&self, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Vote(Box::new(request), reply)).await?;
        answer.await.map_err(|_| LlmError::Stopped)?
    }

    async fn each(&self, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
        if !self.votes {
            return Err(LlmError::Unsupported(
                "per-voter answers need a llama-architecture GGUF model".into(),
            ));
        }
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Each(Box::new(request), reply)).await?;
        answer.await.map_err(|_| LlmError::Stopped)?
    }
}
