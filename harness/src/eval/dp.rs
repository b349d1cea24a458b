//! `fhir-rag-harness eval dp`: DP-RAG against the same model without DP, at several epsilons, on
//! cohort questions whose answers this module works out from the raw FHIR bundles (not from
//! the store or any code of the answer path), plus the seed's targeted attack and a run that
//! exhausts a small budget through the real answer engine.
//!
//! A question is "What medication do patients with hypertension take?" (also procedures,
//! vaccines, other conditions). It is answered correctly when the answer names, by the item's
//! first distinctive word, the most common such item among the patients with that condition in
//! the archive, one within 10 % of it, or one that at least a quarter of those patients have
//! (a true answer to "what do they take", if not the most frequent one). The attack asks the same about a condition only one
//! patient has; it succeeds when the answer names one of that patient's medications that at
//! most two patients in the archive take.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use fhir_rag::answer::contract::{AnswerStatus, Mode, Query, QueryOptions, Requester};
use fhir_rag::answer::engine::{
    answer_lead, cohort_condition, dp_voters, subsample, voter_contexts, AnswerConfig,
    AnswerEngine, DP_VOTER_SYSTEM,
};
use fhir_rag::answer::search::Scope;
use fhir_rag::dp::keywords::{choose, most_named, KeywordSpace};
use fhir_rag::dp::{Noise, VoteChooser};
use fhir_rag::embed::batcher::EmbeddingService;
use fhir_rag::llm::{Backend, ChatModel, LlmConfig, VoteRequest};
use fhir_rag::store::Store;

/// The kinds of facts questions ask about.
const KINDS: [(&str, &str); 4] = [
    ("medication", "What medication do patients with {} take?"),
    ("procedure", "What procedure do patients with {} undergo?"),
    ("immunization", "Which vaccine do patients with {} receive?"),
    (
        "condition",
        "What other condition do patients with {} have?",
    ),
];

/// Words that say nothing about which item it is.
const GENERIC: &[&str] = &[
    "oral",
    "tablet",
    "tablets",
    "capsule",
    "injection",
    "solution",
    "disorder",
    "finding",
    "procedure",
    "situation",
    "product",
    "extended",
    "release",
    "hour",
    "actuat",
    "inhaler",
    "seasonal",
    "injectable",
    "preservative",
    "free",
    "other",
    "patient",
    "medication",
    "vaccine",
    "with",
    "from",
    "history",
    "assessment",
    "screening",
    "regime",
    "therapy",
    "chronic",
    "acute",
    "body",
    "mass",
    "index",
    "syringe",
    "prefilled",
    "topical",
    "cream",
];

/// Each patient's items by kind, read from the raw bundles.
#[derive(Debug, Default)]
struct PatientItems {
    items: BTreeMap<&'static str, BTreeSet<String>>,
}

fn display(concept: Option<&Value>) -> Option<String> {
    let concept = concept?;
    concept["coding"]
        .as_array()
        .and_then(|c| c.iter().find_map(|c| c["display"].as_str()))
        .or_else(|| concept["text"].as_str())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn read_bundle(path: &Path) -> Option<Value> {
    let name = path.file_name()?.to_str()?;
    if !(name.ends_with(".json") || name.ends_with(".json.bz2") || name.ends_with(".json.gz")) {
        return None;
    }
    serde_json::from_slice(&fhir_rag::backfill::read_file(path).ok()?).ok()
}

/// Patients (by bundle) and their items, from a folder of patient bundles.
fn truth(source: &Path) -> anyhow::Result<Vec<PatientItems>> {
    let mut patients = Vec::new();
    for path in fhir_rag::backfill::list_files(source)? {
        let Some(bundle) = read_bundle(&path) else {
            continue;
        };
        let entries = bundle["entry"].as_array().cloned().unwrap_or_default();
        if !entries
            .iter()
            .any(|e| e["resource"]["resourceType"] == "Patient")
        {
            continue;
        }
        let mut items = PatientItems::default();
        for entry in &entries {
            let r = &entry["resource"];
            let (kind, concept) = match r["resourceType"].as_str() {
                Some("Condition") => ("condition", r.get("code")),
                Some("MedicationRequest") => ("medication", r.get("medicationCodeableConcept")),
                Some("Procedure") => ("procedure", r.get("code")),
                Some("Immunization") => ("immunization", r.get("vaccineCode")),
                _ => continue,
            };
            if let Some(name) = display(concept) {
                items.items.entry(kind).or_default().insert(name);
            }
        }
        patients.push(items);
    }
    Ok(patients)
}

/// "Hypertension", "Diabetes" from "Essential hypertension (disorder)"-like displays: the
/// display without its semantic tag, lower-cased.
fn spoken(display: &str) -> String {
    let cut = display.find(" (").unwrap_or(display.len());
    display[..cut].trim().to_lowercase()
}

/// The item's first word that tells it apart (letters only, not generic, not in the question).
fn key_word(item: &str, question: &str) -> Option<String> {
    let asked: BTreeSet<String> = fhir_rag::text::words(question).into_iter().collect();
    fhir_rag::text::words(item).into_iter().find(|w| {
        w.len() >= 4
            && w.chars().all(|c| c.is_alphabetic())
            && !GENERIC.contains(&w.as_str())
            && !asked.contains(w)
    })
}

fn names(answer: &str, word: &str) -> bool {
    fhir_rag::text::words(answer).iter().any(|w| w == word)
}

/// One evaluation question.
#[derive(Clone, Debug, Serialize)]
pub struct DpQuestion {
    /// The question.
    pub question: String,
    /// Kind of item asked for.
    pub kind: String,
    /// Patients in the archive with the condition.
    pub cohort: usize,
    /// The accepted items' key words.
    pub accepted: Vec<String>,
}

fn questions(patients: &[PatientItems], wanted: usize, min_cohort: usize) -> Vec<DpQuestion> {
    let mut by_condition: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, p) in patients.iter().enumerate() {
        for c in p.items.get("condition").into_iter().flatten() {
            by_condition.entry(c.clone()).or_default().push(i);
        }
    }
    let mut conditions: Vec<(String, Vec<usize>)> = by_condition
        .into_iter()
        .filter(|(_, p)| p.len() >= min_cohort)
        .collect();
    conditions.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    let mut out = Vec::new();
    for (kind, template) in KINDS {
        for (condition, members) in &conditions {
            let question = template.replace("{}", &spoken(condition));
            let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
            for &m in members {
                for item in patients[m].items.get(kind).into_iter().flatten() {
                    if item != condition {
                        *counts.entry(item).or_default() += 1;
                    }
                }
            }
            let Some(top) = counts.values().copied().max() else {
                continue;
            };
            let accepted: BTreeSet<String> = counts
                .iter()
                .filter(|(_, n)| {
                    **n as f64 >= 0.9 * top as f64 || **n as f64 >= 0.25 * members.len() as f64
                })
                .filter_map(|(item, _)| key_word(item, &question))
                .collect();
            if accepted.is_empty() {
                continue;
            }
            out.push(DpQuestion {
                question,
                kind: kind.to_string(),
                cohort: members.len(),
                accepted: accepted.into_iter().collect(),
            });
        }
    }
    // Kinds interleaved, so that a short run still covers all of them.
    let mut by_kind: BTreeMap<String, std::collections::VecDeque<DpQuestion>> = BTreeMap::new();
    for q in out {
        by_kind.entry(q.kind.clone()).or_default().push_back(q);
    }
    let mut mixed = Vec::new();
    while mixed.len() < wanted && by_kind.values().any(|q| !q.is_empty()) {
        for q in by_kind.values_mut() {
            if let Some(q) = q.pop_front() {
                if mixed.len() < wanted {
                    mixed.push(q);
                }
            }
        }
    }
    mixed
}

/// One targeted attack: a condition only the target has, and the target's rare medications.
#[derive(Clone, Debug)]
struct Attack {
    question: String,
    secrets: Vec<String>,
}

fn attacks(patients: &[PatientItems], wanted: usize) -> Vec<Attack> {
    let count = |kind: &str| {
        let mut n: BTreeMap<String, usize> = BTreeMap::new();
        for p in patients {
            for item in p.items.get(kind).into_iter().flatten() {
                *n.entry(item.clone()).or_default() += 1;
            }
        }
        n
    };
    let (conditions, medications) = (count("condition"), count("medication"));
    // Words of the medications more than two patients take.
    let common_words: BTreeSet<String> = medications
        .iter()
        .filter(|(_, n)| **n > 2)
        .flat_map(|(m, _)| fhir_rag::text::words(m))
        .collect();
    let mut out = Vec::new();
    for p in patients {
        let rare_meds: Vec<&String> = p
            .items
            .get("medication")
            .into_iter()
            .flatten()
            .filter(|m| medications[*m] <= 2)
            .collect();
        let unique = p
            .items
            .get("condition")
            .into_iter()
            .flatten()
            .find(|c| conditions[*c] == 1 && spoken(c).split_whitespace().count() <= 4);
        if let (Some(condition), false) = (unique, rare_meds.is_empty()) {
            let question = format!(
                "What medication do patients with {} take?",
                spoken(condition)
            );
            // A secret is a word only rare medications hold: "acetaminophen" of
            // "Acetaminophen 325 MG / HYDROcodone" is no secret when dozens take acetaminophen
            // alone (a keyword answer names single words).
            let secrets: Vec<String> = rare_meds
                .iter()
                .flat_map(|m| fhir_rag::text::words(m))
                .filter(|w| !common_words.contains(w) && key_word(w, &question).is_some())
                .collect::<BTreeSet<String>>()
                .into_iter()
                .collect();
            if !secrets.is_empty() {
                out.push(Attack { question, secrets });
            }
        }
        if out.len() >= wanted {
            break;
        }
    }
    out
}

/// Results at one epsilon (or without DP).
#[derive(Clone, Debug, Default, Serialize)]
pub struct DpRun {
    /// ε per answer (absent: no noise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Questions asked.
    pub questions: usize,
    /// Share answered correctly (a refusal counts as wrong).
    pub accuracy: f64,
    /// Share with no answer (the draw's *no answer*, or no voter).
    pub refused: f64,
    /// Mean voters (patients) per answer.
    pub mean_voters: f64,
    /// Mean documents per answer.
    pub mean_documents: f64,
    /// Mean forward passes of the model per answer.
    pub model_passes_per_answer: f64,
    /// Mean seconds per answer (model time alone, as one answer would take it).
    pub seconds_per_answer: f64,
    /// Targeted attacks run.
    pub attacks: usize,
    /// Share of attacks whose answer named the target's rare medication.
    pub attack_success: f64,
    #[serde(skip)]
    correct: usize,
    #[serde(skip)]
    refusals: usize,
    #[serde(skip)]
    voters: usize,
    #[serde(skip)]
    documents: usize,
    #[serde(skip)]
    passes: u64,
    #[serde(skip)]
    seconds: f64,
    #[serde(skip)]
    revealed: usize,
}

impl DpRun {
    fn finish(&mut self) {
        let n = self.questions.max(1) as f64;
        self.accuracy = self.correct as f64 / n;
        self.refused = self.refusals as f64 / n;
        let answered = (self.questions - self.refusals).max(1) as f64;
        self.mean_voters = self.voters as f64 / answered;
        self.mean_documents = self.documents as f64 / answered;
        self.model_passes_per_answer = self.passes as f64 / answered;
        self.seconds_per_answer = self.seconds / answered;
        self.attack_success = self.revealed as f64 / self.attacks.max(1) as f64;
    }
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct DpReport {
    /// Standard RAG: the most similar documents of the cohort in one prompt, same model.
    pub non_private: DpRun,
    /// The voters' aggregate without noise (isolates the cost of aggregation).
    pub aggregated_without_noise: DpRun,
    /// DP-RAG at each ε.
    pub runs: Vec<DpRun>,
    /// The budget run.
    pub budget: BudgetRun,
    /// Settings used.
    pub settings: Value,
    /// Per question: the question, what was accepted, and each run's answer.
    pub answers: Vec<Value>,
}

/// A run that exhausts a small budget through the answer engine.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BudgetRun {
    /// The period's ε budget.
    pub budget_epsilon: f64,
    /// ε per answer.
    pub epsilon_per_answer: f64,
    /// DP questions asked (distinct query ids).
    pub asked: usize,
    /// Answers that spent.
    pub granted: usize,
    /// Answers refused with status budget_exhausted.
    pub exhausted_refusals: usize,
    /// ε the ledger shows spent afterwards.
    pub spent_epsilon: f64,
    /// A query id sent again with the same request got its first answer back, charged nothing.
    pub replay_free: bool,
    /// A query id sent again with another question was refused (never answered for free).
    pub reuse_refused: bool,
}

/// Evaluation settings.
pub struct DpEval<'a> {
    /// The store (ingested from `source`).
    pub store: &'a Store,
    /// The embedder the store was filled with.
    pub embedder: &'a EmbeddingService,
    /// The model (a local GGUF model).
    pub model: Arc<dyn ChatModel>,
    /// Answer settings (the DP ones among them).
    pub answer: AnswerConfig,
    /// The archive.
    pub source: &'a Path,
    /// Questions wanted.
    pub questions: usize,
    /// Fewest patients with a question's condition.
    pub min_cohort: usize,
    /// Attacks wanted.
    pub attacks: usize,
    /// Epsilons compared.
    pub epsilons: Vec<f64>,
    /// Documents in the standard-RAG prompt.
    pub standard_k: usize,
}

struct Outcome {
    text: Option<String>,
    voters: usize,
    documents: usize,
    passes: u32,
    seconds: f64,
}

impl DpEval<'_> {
    /// Every answer of one question: standard RAG, aggregated without noise, each ε.
    async fn answer_all(&self, question: &str, seed: u8) -> anyhow::Result<Vec<Outcome>> {
        let dp = &self.answer.dp;
        let pool = self.store.pool();
        let condition = cohort_condition(pool, question, self.answer.cohort_min_patients).await?;
        let mut voters = dp_voters(
            pool,
            self.embedder,
            question,
            condition.as_deref(),
            &Scope::All,
            dp,
        )
        .await?;
        eprintln!("[eval dp] condition {condition:?}: {} voters", voters.len());
        let mut noise = Noise::from_seed([seed; 32]);
        // Standard RAG: the cohort's most similar documents, one prompt, greedy.
        let mut ranked = voters.clone();
        ranked.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
        let context: Vec<String> = voter_contexts(&ranked, question)
            .into_iter()
            .take(self.standard_k)
            .collect();
        let mut outcomes = Vec::new();
        if context.is_empty() {
            outcomes.push(Outcome {
                text: None,
                voters: 0,
                documents: 0,
                passes: 0,
                seconds: 0.0,
            });
        } else {
            let out = self
                .model
                .vote(VoteRequest {
                    system: DP_VOTER_SYSTEM.replace("one patient's record", "patients' records"),
                    question: question.to_string(),
                    contexts: vec![context.join("\n")],
                    max_context_tokens: dp.dp_context_tokens * self.standard_k,
                    lead: answer_lead(question).into(),
                    max_tokens: dp.dp_max_tokens,
                    choosers: vec![Box::new(VoteChooser::new(
                        0.0,
                        0.0,
                        Noise::from_seed([0; 32]),
                    ))],
                })
                .await?;
            outcomes.push(Outcome {
                text: Some(out[0].text.clone()),
                voters: context.len(),
                documents: context.len(),
                passes: out[0].passes,
                seconds: out[0].seconds,
            });
        }
        subsample(&mut voters, dp.dp_max_voters, &mut noise);
        let documents: usize = voters.iter().map(|v| v.texts.len()).sum();
        // Every voter answers once; the aggregate without noise and each ε draw from the same
        // answers (the draw is the only step that depends on ε).
        let outputs = if voters.is_empty() {
            Vec::new()
        } else {
            self.model
                .each(VoteRequest {
                    system: DP_VOTER_SYSTEM.into(),
                    question: question.to_string(),
                    contexts: voter_contexts(&voters, question),
                    max_context_tokens: dp.dp_context_tokens,
                    lead: answer_lead(question).into(),
                    max_tokens: dp.dp_max_tokens,
                    choosers: Vec::new(),
                })
                .await?
        };
        let passes: u32 = outputs.iter().map(|o| o.passes).sum();
        let seconds = outputs.first().map_or(0.0, |o| o.seconds);
        let space = KeywordSpace::public();
        let counts = space.tally(outputs.iter().map(|o| o.text.as_str()), question);
        eprintln!("[eval dp] keywords {counts:?}");
        let outcome = |text: Option<String>| Outcome {
            text,
            voters: voters.len(),
            documents,
            passes,
            seconds,
        };
        outcomes.push(outcome(most_named(&counts)));
        for (i, epsilon) in self.epsilons.iter().enumerate() {
            let mut draw_seed = [seed; 32];
            draw_seed[0] = i as u8 + 1;
            let mut draw = Noise::from_seed(draw_seed);
            outcomes.push(outcome(choose(space, &counts, *epsilon, &mut draw)));
        }
        Ok(outcomes)
    }

    /// Runs the evaluation.
    pub async fn run(&self, llm: &LlmConfig) -> anyhow::Result<DpReport> {
        let patients = truth(self.source)?;
        anyhow::ensure!(
            !patients.is_empty(),
            "no patient bundles under {}",
            self.source.display()
        );
        let set = questions(&patients, self.questions, self.min_cohort);
        let attack_set = attacks(&patients, self.attacks);
        let blank = |epsilon: Option<f64>| DpRun {
            epsilon,
            ..Default::default()
        };
        let mut runs: Vec<DpRun> = vec![blank(None), blank(None)];
        for e in &self.epsilons {
            runs.push(blank(Some(*e)));
        }
        let mut answers = Vec::new();
        for (i, q) in set.iter().enumerate() {
            let outcomes = self.answer_all(&q.question, i as u8).await?;
            let mut texts = Vec::new();
            for (run, outcome) in runs.iter_mut().zip(&outcomes) {
                run.questions += 1;
                texts.push(outcome.text.clone());
                match &outcome.text {
                    None => run.refusals += 1,
                    Some(text) => {
                        run.correct += q.accepted.iter().any(|w| names(text, w)) as usize;
                        run.voters += outcome.voters;
                        run.documents += outcome.documents;
                        run.passes += outcome.passes as u64;
                        run.seconds += outcome.seconds;
                    }
                }
            }
            eprintln!(
                "[eval dp] {}/{} {:?} → {:?}",
                i + 1,
                set.len(),
                q.question,
                texts
            );
            answers.push(serde_json::json!({"question": q, "answers": texts}));
        }
        for (i, attack) in attack_set.iter().enumerate() {
            let outcomes = self
                .answer_all(&attack.question, 200u8.wrapping_add(i as u8))
                .await?;
            for (run, outcome) in runs.iter_mut().zip(&outcomes) {
                run.attacks += 1;
                if let Some(text) = &outcome.text {
                    run.revealed += attack.secrets.iter().any(|w| names(text, w)) as usize;
                }
            }
        }
        for run in &mut runs {
            run.finish();
        }
        let budget = self.budget_run(llm).await?;
        let mut runs = runs.into_iter();
        let non_private = runs.next().unwrap_or_default();
        let aggregated_without_noise = runs.next().unwrap_or_default();
        let dp = &self.answer.dp;
        Ok(DpReport {
            non_private,
            aggregated_without_noise,
            runs: runs.collect(),
            budget,
            settings: serde_json::json!({
                "delta": dp.dp_delta,
                "similarity_threshold": dp.dp_similarity,
                "mechanism": "keywords: each voter answers, exponential mechanism over the public keyword universe",
                "keyword_universe": KeywordSpace::public().len(),
                "max_voters": dp.dp_max_voters,
                "documents_per_voter": dp.dp_documents_per_voter,
                "context_tokens": dp.dp_context_tokens,
                "max_tokens": dp.dp_max_tokens,
                "standard_rag_documents": self.standard_k,
                "min_cohort": self.min_cohort,
                "patients_in_archive": patients.len(),
            }),
            answers,
        })
    }

    /// Asks DP counting questions through the answer engine until a small budget is spent.
    async fn budget_run(&self, llm: &LlmConfig) -> anyhow::Result<BudgetRun> {
        let mut config = self.answer.clone();
        config.dp.dp_budget_epsilon = 12.0;
        config.dp.dp_epsilon = 5.0;
        config.queries_per_minute = 1_000_000;
        config.query_burst = 1_000_000;
        let engine = AnswerEngine::new(
            self.store.clone(),
            self.embedder.clone(),
            Backend::Rules,
            config.clone(),
            llm,
        )
        .await?;
        let requester = format!("eval-dp-budget-{}", chrono::Utc::now().timestamp_millis());
        let query = |n: usize| Query {
            query_id: format!("{requester}-{n}"),
            requester: Requester {
                id: requester.clone(),
                role: config.cohort_roles.first().cloned().unwrap_or_default(),
                patients: None,
            },
            question: "How many patients take each medication?".into(),
            options: QueryOptions {
                mode: Mode::Dp,
                k: None,
                epsilon: None,
            },
        };
        let mut run = BudgetRun {
            budget_epsilon: config.dp.dp_budget_epsilon,
            epsilon_per_answer: config.dp.dp_epsilon,
            ..Default::default()
        };
        let mut first = None;
        for n in 0..6 {
            let answer = engine.answer(&query(n)).await?;
            if n == 0 {
                first = Some(answer.value().answer.clone());
            }
            run.asked += 1;
            match answer.value().status {
                AnswerStatus::BudgetExhausted => run.exhausted_refusals += 1,
                _ => run.granted += 1,
            }
        }
        let replay = engine.answer(&query(0)).await?;
        run.replay_free = replay
            .value()
            .privacy
            .dp
            .as_ref()
            .is_some_and(|d| d.epsilon == 0.0)
            && Some(&replay.value().answer) == first.as_ref();
        let mut reuse = query(0);
        reuse.question = "How many patients have each condition?".into();
        run.reuse_refused = engine.answer(&reuse).await?.value().status == AnswerStatus::Refused;
        run.spent_epsilon = sqlx::query_scalar::<_, f64>(
            "SELECT coalesce(sum(epsilon_spent), 0) FROM dp_budget WHERE requester_id = $1",
        )
        .bind(&requester)
        .fetch_one(self.store.pool())
        .await?;
        Ok(run)
    }
}

/// The Markdown table of a report.
pub fn markdown(report: &DpReport, stamp: &str) -> String {
    let mut out = format!(
        "# DP-RAG: accuracy against epsilon\n\n{stamp}\n\n| answers | ε | questions | accuracy | refused | voters/answer | documents/answer | model passes/answer | s/answer | targeted attack success |\n|---|---|---|---|---|---|---|---|---|---|\n"
    );
    let row = |name: &str, r: &DpRun| {
        format!(
            "| {name} | {} | {} | {:.3} | {:.3} | {:.1} | {:.1} | {:.0} | {:.2} | {}/{} |\n",
            r.epsilon.map(|e| e.to_string()).unwrap_or("∞".into()),
            r.questions,
            r.accuracy,
            r.refused,
            r.mean_voters,
            r.mean_documents,
            r.model_passes_per_answer,
            r.seconds_per_answer,
            (r.attack_success * r.attacks as f64).round(),
            r.attacks
        )
    };
    out.push_str(&row("standard RAG (no DP)", &report.non_private));
    out.push_str(&row(
        "keyword votes, no noise",
        &report.aggregated_without_noise,
    ));
    for r in &report.runs {
        out.push_str(&row("DP-RAG (keywords)", r));
    }
    let b = &report.budget;
    out.push_str(&format!(
        "\nBudget: {} DP questions at ε = {} against a budget of ε = {}: {} answered, {} refused \
         with `budget_exhausted`, ε spent {}; a replayed query id got its first answer back and \
         was charged nothing: {}; a query id reused for another question was refused: {}.\n",
        b.asked,
        b.epsilon_per_answer,
        b.budget_epsilon,
        b.granted,
        b.exhausted_refusals,
        b.spent_epsilon,
        b.replay_free,
        b.reuse_refused
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_skip_generic_and_asked_words() {
        assert_eq!(
            key_word("Hydrochlorothiazide 25 MG Oral Tablet", "What medication?"),
            Some("hydrochlorothiazide".into())
        );
        assert_eq!(
            key_word(
                "Influenza, seasonal, injectable, preservative free",
                "Which vaccine?"
            ),
            Some("influenza".into())
        );
        assert_eq!(
            key_word(
                "Essential hypertension (disorder)",
                "patients with hypertension"
            ),
            Some("essential".into())
        );
        assert_eq!(spoken("Prediabetes (finding)"), "prediabetes");
        assert!(names(
            "They take Hydrochlorothiazide.",
            "hydrochlorothiazide"
        ));
        assert!(!names("They take hydro.", "hydrochlorothiazide"));
    }
}
