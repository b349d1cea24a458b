//! Evaluation: the thesis's protocols and tables, run against any store.
//!
//! - [`questions`]: a question set generated from the stored documents, with each answer's source.
//! - [`retrieval`]: hit@k and MRR per retrieval mode (Tables 4.1, 4.2).
//! - [`answers`]: whether answers are right, checked against the archive's raw bundles.
//! - [`attack`]: the PII-extraction attack protocol (§4.3).
//! - [`disclosure`]: the privacy evaluation by category (cohort lookups, membership probes,
//!   planted free text and instructions, out-of-scope questions).
//! - [`dp`]: DP-RAG accuracy against epsilon, the targeted attack, budget exhaustion.
//! - [`deid`]: the de-identification step on a labelled set of note sentences.
//! - [`compare`]: the single-agent baseline against the pipeline: privacy and utility.
//! - [`metrics`]: hit@k, MRR, BLEU, ROUGE.
//! - [`run`]: the `fhir-rag-harness eval` commands and their reports under `docs/results/`.

/// A tag unique to this evaluation process, at the head of its query ids: the store keeps the
/// audit row of every query id, and an id sent again with another question is refused, so a
/// kept database evaluated twice needs ids of its own each time.
pub fn run_tag() -> &'static str {
    static TAG: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| format!("r{}", chrono::Utc::now().timestamp_millis()));
    &TAG
}

pub mod answers;
pub mod attack;
pub mod compare;
pub mod deid;
pub mod disclosure;
pub mod dp;
pub mod front_door;
pub mod metrics;
pub mod questions;
pub mod retrieval;
pub mod run;
