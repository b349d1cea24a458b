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
        VoteRequest,
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
    /// Loads the model and starts its thread.
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        let model = load_model(path)?;
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

fn load_model(path: &Path) -> Result<LoadedModel, LlmError> {
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
                let _ = reply.send(vote(&mut model, request));
            }
        }
    }
}

fn model_error(e: candle_core::Error) -> LlmError {
    LlmError::Model(e.to_string())
}

fn last_logits(logits: Tensor) -> Result<Vec<f32>, LlmError> {
    logits
        .squeeze(0)
        .and_then(|l| l.to_dtype(candle_core::DType::F32))
        .and_then(|l| l.to_vec1::<f32>())
        .map_err(model_error)
}

fn forward_ids(
    weights: &mut quantized_llama::ModelWeights,
    ids: &[u32],
    position: usize,
) -> Result<Vec<f32>, LlmError> {
    let input = Tensor::new(ids, &Device::Cpu)
        .and_then(|t| t.unsqueeze(0))
        .map_err(model_error)?;
    last_logits(weights.forward(&input, position).map_err(model_error)?)
}

/// One voter: its own copy of the model's attention cache, where it stands, its last logits.
#[derive(Clone)]
struct Voter {
    weights: quantized_llama::ModelWeights,
    position: usize,
    logits: Vec<f32>,
}

/// Generation by votes. The shared prompt (system, question) is computed once; each voter
/// continues from a copy of its cache (candle's weights are shared, only the cache is copied)
/// with its own context, then every step runs each voter on the chosen token. candle's
/// quantized Llama keeps one cache per model and has no padding mask, so voters run one after
/// another rather than as one padded batch. Llama-architecture models only.
fn vote(model: &mut LoadedModel, request: VoteRequest) -> Result<Vec<VoteOutput>, LlmError> {
    let Weights::Llama(base) = &mut model.weights else {
        return Err(LlmError::Unsupported(
            "generation by votes needs a llama-architecture GGUF model".into(),
        ));
    };
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
    let longest = prefix.len() + request.max_context_tokens + closing.len() + request.max_tokens;
    if longest > model.context {
        return Err(LlmError::PromptTooLong {
            tokens: longest - request.max_tokens,
            context: model.context,
        });
    }
    let started = std::time::Instant::now();
    base.clear_kv_cache();
    let mut shared = base.clone();
    forward_ids(&mut shared, &prefix, 0)?;
    let mut passes = 1u32;
    let mut voters = Vec::with_capacity(request.contexts.len());
    for context in &request.contexts {
        let mut ids = encode(context)?;
        ids.truncate(request.max_context_tokens);
        ids.extend_from_slice(&closing);
        let mut weights = shared.clone();
        let logits = forward_ids(&mut weights, &ids, prefix.len())?;
        passes += 1;
        voters.push(Voter {
            weights,
            position: prefix.len() + ids.len(),
            logits,
        });
    }
    let shared_seconds = started.elapsed().as_secs_f64();
    let mut outputs = Vec::with_capacity(request.choosers.len());
    for mut chooser in request.choosers {
        let own_started = std::time::Instant::now();
        let mut voters = voters.clone();
        let mut generated = Vec::new();
        let mut own_passes = passes;
        while generated.len() < request.max_tokens && !voters.is_empty() {
            let rows: Vec<Vec<f32>> = voters
                .iter_mut()
                .map(|v| std::mem::take(&mut v.logits))
                .collect();
            let next = chooser.choose(&rows);
            if model.stop_tokens.contains(&next) {
                break;
            }
            generated.push(next);
            if generated.len() == request.max_tokens {
                break;
            }
            for voter in voters.iter_mut() {
                voter.logits = forward_ids(&mut voter.weights, &[next], voter.position)?;
                voter.position += 1;
                own_passes += 1;
            }
        }
        let text = model
            .tokenizer
            .decode(&generated, true)
            .map_err(|e| LlmError::Model(e.to_string()))?;
        outputs.push(VoteOutput {
            text: text.trim().to_string(),
            tokens: generated.len() as u32,
            passes: own_passes,
            seconds: shared_seconds + own_started.elapsed().as_secs_f64(),
        });
    }
    base.clear_kv_cache();
    Ok(outputs)
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
        self.submit(Job::Vote(request, reply)).await?;
        answer.await.map_err(|_| LlmError::Stopped)?
    }
}
