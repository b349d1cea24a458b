//! Differential privacy for cohort answers: the accounting, the noise, and the private
//! aggregation of per-patient next-token votes (DP-RAG, seed 002).
//!
//! # The guarantee
//!
//! Neighbouring stores differ by **one patient** (all of that patient's documents, added or
//! removed). Every DP answer is built so that each patient contributes at most one bounded
//! vector to every noisy sum it releases:
//!
//! - **DP text** ([`keywords`]): every patient whose best document passes the fixed
//!   similarity threshold is one *voter* (a patient with many documents is still one voter:
//!   the voter holds that patient's best few). Each voter answers in full from a prompt holding
//!   that patient's documents only; its answer is mapped to one keyword of a public universe,
//!   and the exponential mechanism over the universe (plus *no answer*, at a public weight)
//!   draws the answer's keyword. Adding or removing one patient moves every keyword's score by
//!   at most 1: the answer is ε-DP (δ = 0).
//! - **DP text by token votes** ([`VoteChooser`], kept for comparison in the evaluation): at
//!   each generated token each voter's next-token distribution is clipped to L2 norm ≤ 1, the
//!   distributions are summed, Gaussian noise N(0, σ²) is added to every one of the
//!   vocabulary's entries, and the arg max is the token; a noisy voter count gates it.
//! - **DP aggregates** ([`aggregate`]): noisy counts of patients per item (each patient counted
//!   in at most `m` items, so L2 sensitivity √m) released only above a threshold that one
//!   patient alone passes with probability below δ/2, and quantiles of readings (one reading
//!   per patient) chosen by the exponential mechanism over a fixed grid.
//!
//! # Accounting (the theorems used)
//!
//! Everything is accounted in zero-concentrated DP (Bun & Steinke, *Concentrated Differential
//! Privacy*, TCC 2016):
//!
//! 1. The Gaussian mechanism with L2 sensitivity Δ and noise σ is ρ-zCDP with ρ = Δ²/(2σ²)
//!    (their Proposition 1.6).
//! 2. An ε₀-DP mechanism (the exponential mechanism) is ε₀²/2-zCDP (Proposition 1.4).
//! 3. zCDP composes additively, also adaptively (each token depends on the tokens before it):
//!    ρ = Σ ρᵢ (Lemma 2.3).
//! 4. ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP for every δ > 0 (Proposition 1.3).
//!
//! So one answer with (ε, δ) gets ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))² (the inverse of 4); a DP
//! text answer of at most T tokens spends a share of ρ on the voter count and the rest in T
//! equal parts, σ = 1/√(2ρ_token) per token. The answer is charged for all T tokens whether it
//! stops early or not (the stop is a function of noisy outputs). The thresholded histogram adds
//! δ/2 of its own (stability: an item held by one patient only is released with probability
//! below δ/2), its Gaussian part gets δ/2.
//!
//! **Across answers** the per-requester budget ([`budget`]) adds the answers' ε and δ (basic
//! composition, Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*,
//! Theorem 3.16): a requester who spent ε_total in a period learned, about any one patient,
//! at most what an ε_total-DP release tells.
//!
//! Not covered: floating-point noise (the textbook continuous Gaussian; a discrete Gaussian
//! would close Mironov's attack on floating-point Laplace), and the choice of questions, which
//! is the requester's and public.

pub mod aggregate;
pub mod budget;
pub mod keywords;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_distr::StandardNormal;

/// A per-answer privacy loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrivacyCost {
    /// ε.
    pub epsilon: f64,
    /// δ.
    pub delta: f64,
}

impl PrivacyCost {
    /// Checks that ε > 0 and 0 < δ < 1.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(format!("epsilon must be positive, got {}", self.epsilon));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(format!("delta must be in (0, 1), got {}", self.delta));
        }
        Ok(())
    }

    /// The zCDP ρ whose conversion (theorem 4 above) gives exactly this (ε, δ).
    pub fn rho(&self) -> f64 {
        let log = (1.0 / self.delta).ln();
        ((log + self.epsilon).sqrt() - log.sqrt()).powi(2)
    }
}

/// ε of a ρ-zCDP mechanism at δ (Bun & Steinke, Proposition 1.3).
pub fn epsilon_of(rho: f64, delta: f64) -> f64 {
    rho + 2.0 * (rho * (1.0 / delta).ln()).sqrt()
}

/// σ of the Gaussian mechanism that is ρ-zCDP for L2 sensitivity `sensitivity`.
pub fn gaussian_sigma(sensitivity: f64, rho: f64) -> f64 {
    sensitivity / (2.0 * rho).sqrt()
}

/// How one DP text answer divides its ρ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextPlan {
    /// Noise on the voter count.
    pub count_sigma: f64,
    /// Noise on every token's summed votes.
    pub token_sigma: f64,
    /// Tokens charged (the most the answer may have).
    pub tokens: usize,
}

/// Share of an answer's ρ spent on the noisy voter count.
pub const COUNT_SHARE: f64 = 0.05;

impl TextPlan {
    /// The noise for an answer of at most `tokens` tokens at `cost`.
    pub fn new(cost: PrivacyCost, tokens: usize) -> TextPlan {
        let rho = cost.rho();
        let tokens = tokens.max(1);
        TextPlan {
            count_sigma: gaussian_sigma(1.0, COUNT_SHARE * rho),
            token_sigma: gaussian_sigma(1.0, (1.0 - COUNT_SHARE) * rho / tokens as f64),
            tokens,
        }
    }

    /// The ρ this plan spends (for checking the accounting).
    pub fn rho(&self) -> f64 {
        let rho = |sigma: f64| 1.0 / (2.0 * sigma * sigma);
        rho(self.count_sigma) + self.tokens as f64 * rho(self.token_sigma)
    }
}

/// The answer's noise: a ChaCha20 stream from a fresh 32-byte seed that is never stored (whoever
/// could read it could strip the noise). A query id asked again gets its published answer back
/// from the ledger instead of new noise (see [`budget`]), so a replay does not average the
/// noise away.
pub struct Noise {
    rng: ChaCha20Rng,
}

impl Noise {
    /// The stream of `seed`.
    pub fn from_seed(seed: [u8; 32]) -> Noise {
        Noise {
            rng: ChaCha20Rng::from_seed(seed),
        }
    }

    /// A fresh seed from the operating system.
    pub fn fresh_seed() -> [u8; 32] {
        let mut seed = [0u8; 32];
        rand::rng().fill(&mut seed);
        seed
    }

    /// One draw of N(0, σ²).
    pub fn gaussian(&mut self, sigma: f64) -> f64 {
        let z: f64 = self.rng.sample(StandardNormal);
        z * sigma
    }

    /// One draw of U(0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// Moves a uniformly random `keep` of `items` to the front, in random order (a partial
    /// Fisher–Yates shuffle), and returns how many that is.
    pub fn choose_front<T>(&mut self, items: &mut [T], keep: usize) -> usize {
        let keep = keep.min(items.len());
        for i in 0..keep {
            let j = self.rng.random_range(i..items.len());
            items.swap(i, j);
        }
        keep
    }

    /// A seed for a second, independent stream drawn from this one.
    pub fn seed(&mut self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        self.rng.fill(&mut seed);
        seed
    }
}

/// Chooses each generated token from the voters' logits. The model runs the voters; a chooser
/// decides. One generation may drive several choosers (the evaluation compares epsilons on the
/// same voters); each then has its own continuation.
pub trait TokenChooser: Send {
    /// The next token, from one row of logits per voter (vocabulary-sized rows).
    fn choose(&mut self, logits: &[Vec<f32>]) -> u32;
}

/// A voter's distribution: softmax at `temperature` (0: all mass on the arg max), clipped to
/// L2 norm ≤ 1 (a probability vector always is; the clip states the bound the noise relies on).
pub fn vote(logits: &[f32], temperature: f32) -> Vec<f32> {
    let mut out = vec![0.0f32; logits.len()];
    if logits.is_empty() {
        return out;
    }
    let (best, max) =
        logits
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |(bi, bv), (i, &v)| {
                if v > bv {
                    (i, v)
                } else {
                    (bi, bv)
                }
            });
    if temperature <= 0.0 || !max.is_finite() {
        out[best] = 1.0;
        return out;
    }
    let mut total = 0.0f64;
    for (o, &l) in out.iter_mut().zip(logits) {
        let e = ((l - max) / temperature).exp();
        *o = if e.is_finite() { e } else { 0.0 };
        total += *o as f64;
    }
    let mut norm = 0.0f64;
    for o in out.iter_mut() {
        *o = (*o as f64 / total) as f32;
        norm += (*o as f64) * (*o as f64);
    }
    let norm = norm.sqrt();
    if norm > 1.0 {
        for o in out.iter_mut() {
            *o = (*o as f64 / norm) as f32;
        }
    }
    out
}

/// The private chooser: summed votes plus N(0, σ²) on every vocabulary entry, then the arg max
/// (the report-noisy-max form of the Gaussian mechanism: the arg max is post-processing).
/// `sigma` 0 is the non-private aggregate (the "aggregation without noise" reference).
pub struct VoteChooser {
    temperature: f32,
    sigma: f64,
    noise: Noise,
}

impl VoteChooser {
    /// A chooser with noise σ per entry, voters' softmax at `temperature`.
    pub fn new(temperature: f32, sigma: f64, noise: Noise) -> VoteChooser {
        VoteChooser {
            temperature,
            sigma,
            noise,
        }
    }
}

impl TokenChooser for VoteChooser {
    fn choose(&mut self, logits: &[Vec<f32>]) -> u32 {
        let width = logits.iter().map(Vec::len).max().unwrap_or(0);
        let mut sum = vec![0.0f64; width];
        for row in logits {
            for (s, v) in sum.iter_mut().zip(vote(row, self.temperature)) {
                *s += v as f64;
            }
        }
        let mut best = (0usize, f64::NEG_INFINITY);
        for (i, s) in sum.iter().enumerate() {
            let noisy = if self.sigma > 0.0 {
                s + self.noise.gaussian(self.sigma)
            } else {
                *s
            };
            if noisy > best.1 {
                best = (i, noisy);
            }
        }
        best.0 as u32
    }
}

/// How a DP text answer is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DpText {
    /// Each voter answers in full; the exponential mechanism over a public keyword universe
    /// draws the answer's keyword ([`keywords`]; pure ε-DP).
    Keywords,
    /// Noisy votes over the model's vocabulary at every token ([`VoteChooser`]), gated by a
    /// noisy voter count.
    Tokens,
}

impl DpText {
    /// The name on the command line and in the audit.
    pub fn as_str(self) -> &'static str {
        match self {
            DpText::Keywords => "keywords",
            DpText::Tokens => "tokens",
        }
    }
}

/// Settings of DP answers (mode `dp`) and of the per-requester budget.
#[derive(Clone, Debug, clap::Args)]
pub struct DpConfig {
    /// Roles whose cohort questions always get DP answers, whatever mode they ask for.
    #[arg(
        long,
        env = "FHIR_RAG_DP_ROLES",
        value_delimiter = ',',
        default_value = ""
    )]
    pub dp_roles: Vec<String>,
    /// ε of one DP answer (a query's options.epsilon may ask for less, never more than
    /// --dp-max-epsilon).
    #[arg(long, env = "FHIR_RAG_DP_EPSILON", default_value_t = 5.0)]
    pub dp_epsilon: f64,
    /// Largest ε a query may ask for.
    #[arg(long, env = "FHIR_RAG_DP_MAX_EPSILON", default_value_t = 10.0)]
    pub dp_max_epsilon: f64,
    /// δ of one DP answer.
    #[arg(long, env = "FHIR_RAG_DP_DELTA", default_value_t = 1e-6)]
    pub dp_delta: f64,
    /// ε one requester may spend per period.
    #[arg(long, env = "FHIR_RAG_DP_BUDGET_EPSILON", default_value_t = 50.0)]
    pub dp_budget_epsilon: f64,
    /// δ one requester may spend per period.
    #[arg(long, env = "FHIR_RAG_DP_BUDGET_DELTA", default_value_t = 1e-4)]
    pub dp_budget_delta: f64,
    /// The budget's period.
    #[arg(
        long,
        env = "FHIR_RAG_DP_BUDGET_PERIOD",
        value_enum,
        default_value = "month"
    )]
    pub dp_budget_period: budget::Period,
    /// Cosine similarity a patient's document must reach for the patient to vote (fixed, so
    /// that no one patient changes who else votes).
    #[arg(long, env = "FHIR_RAG_DP_SIMILARITY", default_value_t = 0.2)]
    pub dp_similarity: f64,
    /// How DP text answers are formed: `keywords` (each voter answers, one public keyword is
    /// drawn by the exponential mechanism) or `tokens` (noisy votes on every token).
    #[arg(long, env = "FHIR_RAG_DP_TEXT", value_enum, default_value = "keywords")]
    pub dp_text: DpText,
    /// Fewest voters (by the noisy count) a DP text answer by token votes needs; fewer:
    /// refused. (Keyword answers need no gate: their draw says *no answer* when few agree.)
    #[arg(long, env = "FHIR_RAG_DP_MIN_VOTERS", default_value_t = 10)]
    pub dp_min_voters: usize,
    /// Most voters per answer (more: a random subset, drawn from the answer's noise).
    #[arg(long, env = "FHIR_RAG_DP_MAX_VOTERS", default_value_t = 48)]
    pub dp_max_voters: usize,
    /// Documents per voter (the patient's most similar ones above the threshold).
    #[arg(long, env = "FHIR_RAG_DP_DOCUMENTS_PER_VOTER", default_value_t = 2)]
    pub dp_documents_per_voter: usize,
    /// Tokens of one voter's context at most.
    #[arg(long, env = "FHIR_RAG_DP_CONTEXT_TOKENS", default_value_t = 96)]
    pub dp_context_tokens: usize,
    /// Tokens a DP text answer may have (each is charged).
    #[arg(long, env = "FHIR_RAG_DP_MAX_TOKENS", default_value_t = 6)]
    pub dp_max_tokens: usize,
    /// Softmax temperature of each voter's distribution (0: each voter votes for its arg max).
    #[arg(long, env = "FHIR_RAG_DP_VOTE_TEMPERATURE", default_value_t = 0.0)]
    pub dp_vote_temperature: f32,
    /// Most items one patient counts in, in DP counts.
    #[arg(long, env = "FHIR_RAG_DP_MAX_ITEMS", default_value_t = 8)]
    pub dp_max_items: usize,
}

impl DpConfig {
    /// The defaults of the command line.
    pub fn defaults() -> DpConfig {
        #[derive(clap::Parser)]
        struct Only {
            #[command(flatten)]
            dp: DpConfig,
        }
        <Only as clap::Parser>::parse_from(["fhir-rag"]).dp
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<(), String> {
        PrivacyCost {
            epsilon: self.dp_epsilon,
            delta: self.dp_delta,
        }
        .validate()?;
        if self.dp_epsilon > self.dp_max_epsilon {
            return Err("--dp-epsilon must not exceed --dp-max-epsilon".into());
        }
        if self.dp_budget_epsilon < 0.0 || self.dp_budget_delta < 0.0 {
            return Err("the DP budget must not be negative".into());
        }
        if !(-1.0..=1.0).contains(&self.dp_similarity) {
            return Err("--dp-similarity is a cosine similarity, in [-1, 1]".into());
        }
        if self.dp_min_voters == 0 || self.dp_max_voters < self.dp_min_voters {
            return Err("--dp-min-voters must be at least 1 and at most --dp-max-voters".into());
        }
        if self.dp_max_tokens == 0 || self.dp_max_items == 0 || self.dp_documents_per_voter == 0 {
            return Err(
                "--dp-max-tokens, --dp-max-items and --dp-documents-per-voter must be at least 1"
                    .into(),
            );
        }
        Ok(())
    }

    /// The limits of the budget.
    pub fn limits(&self) -> budget::Limits {
        budget::Limits {
            epsilon: self.dp_budget_epsilon,
            delta: self.dp_budget_delta,
            period: self.dp_budget_period,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rho_and_epsilon_are_inverse() {
        for (epsilon, delta) in [(1.0, 1e-6), (5.0, 1e-6), (10.0, 1e-8), (0.1, 1e-5)] {
            let cost = PrivacyCost { epsilon, delta };
            let back = epsilon_of(cost.rho(), delta);
            assert!((back - epsilon).abs() < 1e-9, "{epsilon} → {back}");
        }
        // A larger epsilon buys a larger rho, hence less noise.
        let rho = |e| {
            PrivacyCost {
                epsilon: e,
                delta: 1e-6,
            }
            .rho()
        };
        assert!(rho(1.0) < rho(5.0) && rho(5.0) < rho(10.0));
    }

    #[test]
    fn noise_scale_follows_epsilon_tokens_and_sensitivity() {
        let cost = PrivacyCost {
            epsilon: 5.0,
            delta: 1e-6,
        };
        let plan = TextPlan::new(cost, 8);
        // The plan spends exactly the answer's rho.
        assert!((plan.rho() - cost.rho()).abs() < 1e-12);
        assert!((epsilon_of(plan.rho(), 1e-6) - 5.0).abs() < 1e-9);
        // Four times the tokens: twice the noise per token.
        let longer = TextPlan::new(cost, 32);
        assert!((longer.token_sigma / plan.token_sigma - 2.0).abs() < 1e-9);
        // Sensitivity scales sigma linearly; rho scales it by 1/sqrt.
        assert!((gaussian_sigma(3.0, 0.5) - 3.0).abs() < 1e-12);
        assert!((gaussian_sigma(1.0, 2.0) - 0.5).abs() < 1e-12);
        // Empirical spread of the noise matches sigma.
        let mut noise = Noise::from_seed([7; 32]);
        let draws: Vec<f64> = (0..40_000)
            .map(|_| noise.gaussian(plan.token_sigma))
            .collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd =
            (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        assert!(mean.abs() < 0.05 * plan.token_sigma, "mean {mean}");
        assert!(
            (sd / plan.token_sigma - 1.0).abs() < 0.02,
            "sd {sd} vs {}",
            plan.token_sigma
        );
    }

    #[test]
    fn votes_are_bounded_and_sharpen_with_temperature() {
        let logits = vec![2.0, 1.0, 0.5, -1.0];
        for t in [0.0, 0.25, 1.0, 4.0] {
            let v = vote(&logits, t);
            let l1: f32 = v.iter().sum();
            let l2: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((l1 - 1.0).abs() < 1e-5 && l2 <= 1.0 + 1e-6, "{t}: {v:?}");
        }
        assert_eq!(vote(&logits, 0.0), vec![1.0, 0.0, 0.0, 0.0]);
        assert!(vote(&logits, 0.25)[0] > vote(&logits, 1.0)[0]);
    }

    #[test]
    fn many_agreeing_voters_survive_the_noise_and_one_voter_does_not() {
        let vocab = 5000;
        let row = |top: usize| {
            let mut r = vec![0.0f32; vocab];
            r[top] = 10.0;
            r
        };
        let plan = TextPlan::new(
            PrivacyCost {
                epsilon: 5.0,
                delta: 1e-6,
            },
            8,
        );
        let mut agreeing = 0;
        let mut single = 0;
        for seed in 0..50u8 {
            let mut chooser = VoteChooser::new(0.0, plan.token_sigma, Noise::from_seed([seed; 32]));
            let voters: Vec<Vec<f32>> = (0..60).map(|_| row(42)).collect();
            agreeing += (chooser.choose(&voters) == 42) as usize;
            single += (chooser.choose(&[row(43)]) == 43) as usize;
        }
        assert!(agreeing >= 48, "{agreeing}/50");
        assert!(single <= 3, "one voter steered {single}/50 tokens");
        // Without noise the arg max of the votes wins.
        let mut plain = VoteChooser::new(1.0, 0.0, Noise::from_seed([0; 32]));
        assert_eq!(plain.choose(&[row(7), row(7), row(9)]), 7);
    }
}
