//! Retrieval quality (thesis Tables 4.1 and 4.2, plus MRR): for each question, is a source
//! document among the first k the Search agent returns, per retrieval mode; over the whole set
//! and as the mean of 5 seeded random draws of 100 questions.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use sqlx::{PgPool, Row};

use super::metrics::{hit_at, mean, reciprocal_rank};
use super::questions::EvalQuestion;
use fhir_rag::answer::engine::{find_documents, AnswerError, SearchPlan};
use fhir_rag::answer::search::{RetrievalMode, Scope};
use fhir_rag::embed::batcher::EmbeddingService;

/// The cut-offs reported.
pub const KS: [usize; 4] = [1, 3, 4, 5];

/// The modes, in table order.
pub const MODES: [&str; 5] = ["dense", "text", "hybrid", "condition", "hybrid+condition"];

fn plan(mode: &str, filters: bool) -> SearchPlan {
    let ranked = |mode| SearchPlan {
        mode,
        condition_search: false,
        filters,
        ..SearchPlan::default()
    };
    match mode {
        "dense" => ranked(RetrievalMode::Dense),
        "text" => ranked(RetrievalMode::Text),
        "hybrid" => ranked(RetrievalMode::Hybrid),
        "condition" => SearchPlan {
            ranked: false,
            filters,
            ..SearchPlan::default()
        },
        _ => SearchPlan {
            filters,
            ..SearchPlan::default()
        },
    }
}

/// hit@k and MRR of one mode.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scores {
    /// hit@1.
    #[serde(rename = "hit@1")]
    pub hit1: f64,
    /// hit@3.
    #[serde(rename = "hit@3")]
    pub hit3: f64,
    /// hit@4.
    #[serde(rename = "hit@4")]
    pub hit4: f64,
    /// hit@5.
    #[serde(rename = "hit@5")]
    pub hit5: f64,
    /// Mean reciprocal rank (within the first 5).
    pub mrr: f64,
}

/// Per question: hit@k for each k and the reciprocal rank.
#[derive(Clone, Debug, PartialEq)]
struct Outcome {
    hits: [f64; 4],
    rr: f64,
}

fn scores(outcomes: &[&Outcome]) -> Scores {
    let column = |i: usize| mean(&outcomes.iter().map(|o| o.hits[i]).collect::<Vec<_>>());
    Scores {
        hit1: column(0),
        hit3: column(1),
        hit4: column(2),
        hit5: column(3),
        mrr: mean(&outcomes.iter().map(|o| o.rr).collect::<Vec<_>>()),
    }
}

/// A small, seeded generator (xorshift64*): draws are the same on every machine.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// `n` distinct indices below `len` (all of them if fewer).
    fn sample(&mut self, len: usize, n: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..len).collect();
        for i in (1..len).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            all.swap(i, j);
        }
        all.truncate(n);
        all
    }
}

/// `n` indices below `len`, drawn with a seed (the same on every machine).
pub fn seeded_sample(len: usize, n: usize, seed: u64) -> Vec<usize> {
    Draw(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1).sample(len, n)
}

/// The retrieval report.
#[derive(Clone, Debug, Serialize)]
pub struct RetrievalReport {
    /// Questions evaluated.
    pub questions: usize,
    /// Scores over the whole set, with the Search agent's name and date filters.
    pub modes: BTreeMap<String, Scores>,
    /// Mean of 5 random draws of 100 questions (seeds 1 to 5), with filters.
    pub draws: BTreeMap<String, Scores>,
    /// Scores over the whole set without name and date filters (the whole store ranked, as the
    /// thesis's retrievers did).
    pub unfiltered: BTreeMap<String, Scores>,
    /// Questions per kind.
    pub kinds: BTreeMap<String, usize>,
}

/// Document ids of each (FHIR id, day), for mapping question sources.
async fn document_ids(
    pool: &PgPool,
) -> Result<HashMap<(String, Option<chrono::NaiveDate>), i64>, AnswerError> {
    let rows = sqlx::query(
        "SELECT p.fhir_id, d.day, d.document_id FROM documents d JOIN patients p USING (patient_key)",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| ((r.get("fhir_id"), r.get("day")), r.get("document_id")))
        .collect())
}

/// Evaluates retrieval for every mode, filtered and unfiltered.
pub async fn evaluate(
    pool: &PgPool,
    embedder: &EmbeddingService,
    questions: &[EvalQuestion],
) -> Result<RetrievalReport, AnswerError> {
    let ids = document_ids(pool).await?;
    let k = *KS.last().expect("cut-offs");
    let mut modes = BTreeMap::new();
    let mut draws = BTreeMap::new();
    let mut unfiltered = BTreeMap::new();
    for filters in [true, false] {
        for mode in MODES {
            if !filters && (mode == "condition" || mode == "hybrid+condition") {
                continue; // the condition search needs no name filter; reported once
            }
            let plan = plan(mode, filters);
            let mut outcomes = Vec::with_capacity(questions.len());
            for q in questions {
                let relevant: Vec<i64> = q
                    .sources
                    .iter()
                    .filter_map(|s| ids.get(&(s.patient.clone(), s.day)).copied())
                    .collect();
                let found =
                    find_documents(pool, embedder, &q.question, &Scope::All, &plan, k).await?;
                let ranked: Vec<i64> = found
                    .documents
                    .iter()
                    .map(|d| d.document_id)
                    .take(k)
                    .collect();
                let hits = KS.map(|k| {
                    relevant
                        .iter()
                        .map(|r| hit_at(&ranked, *r, k))
                        .fold(0.0, f64::max)
                });
                let rr = relevant
                    .iter()
                    .map(|r| reciprocal_rank(&ranked, *r))
                    .fold(0.0, f64::max);
                outcomes.push(Outcome { hits, rr });
            }
            let all: Vec<&Outcome> = outcomes.iter().collect();
            if filters {
                modes.insert(mode.to_string(), scores(&all));
                let per_draw: Vec<Scores> = (1..=5u64)
                    .map(|seed| {
                        let picked: Vec<&Outcome> = seeded_sample(outcomes.len(), 100, seed)
                            .into_iter()
                            .map(|i| &outcomes[i])
                            .collect();
                        scores(&picked)
                    })
                    .collect();
                let field =
                    |f: fn(&Scores) -> f64| mean(&per_draw.iter().map(f).collect::<Vec<_>>());
                draws.insert(
                    mode.to_string(),
                    Scores {
                        hit1: field(|s| s.hit1),
                        hit3: field(|s| s.hit3),
                        hit4: field(|s| s.hit4),
                        hit5: field(|s| s.hit5),
                        mrr: field(|s| s.mrr),
                    },
                );
            } else {
                unfiltered.insert(mode.to_string(), scores(&all));
            }
        }
    }
    let mut kinds = BTreeMap::new();
    for q in questions {
        *kinds
            .entry(
                serde_json::to_value(q.kind)
                    .expect("kind")
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
            .or_insert(0) += 1;
    }
    Ok(RetrievalReport {
        questions: questions.len(),
        modes,
        draws,
        unfiltered,
        kinds,
    })
}

/// The report as Markdown tables laid out like the thesis's Tables 4.1 and 4.2 (percentages).
pub fn markdown(report: &RetrievalReport, stamp: &str) -> String {
    let mut out = format!(
        "# Retrieval\n\n{stamp}\n\n{} questions ({}).\n\n",
        report.questions,
        report
            .kinds
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let table = |title: &str, rows: &BTreeMap<String, Scores>| {
        let mut t = format!(
            "## {title}\n\n| mode | hit@1 | hit@3 | hit@4 | hit@5 | MRR |\n|---|---|---|---|---|---|\n"
        );
        for mode in MODES {
            if let Some(s) = rows.get(mode) {
                t.push_str(&format!(
                    "| {mode} | {:.1} | {:.1} | {:.1} | {:.1} | {:.3} |\n",
                    s.hit1 * 100.0,
                    s.hit3 * 100.0,
                    s.hit4 * 100.0,
                    s.hit5 * 100.0,
                    s.mrr
                ));
            }
        }
        t.push('\n');
        t
    };
    out.push_str(&table(
        "Mean of 5 random draws of 100 questions, Search agent filters on (as Table 4.1)",
        &report.draws,
    ));
    out.push_str(&table(
        "All questions, Search agent filters on",
        &report.modes,
    ));
    out.push_str(&table(
        "All questions, no name or date filters: the whole store ranked (as the thesis's retrievers; Table 4.2 is its dense row)",
        &report.unfiltered,
    ));
    out.push_str(
        "Thesis (Tables 4.1, 4.2, k = 3/4/5): semantic (hybrid) 81.8/82.4/88, keyword 26.2/32.2/30.4, \
         both 83.8/85.8/88, non-hybrid semantic 52/60.2/66.6.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_seeded_and_distinct() {
        let a = Draw(11).sample(500, 100);
        let b = Draw(11).sample(500, 100);
        let c = Draw(12).sample(500, 100);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 100);
        assert_eq!(Draw(3).sample(10, 100).len(), 10);
    }

    #[test]
    fn scores_average_outcomes() {
        let a = Outcome {
            hits: [1.0, 1.0, 1.0, 1.0],
            rr: 1.0,
        };
        let b = Outcome {
            hits: [0.0, 1.0, 1.0, 1.0],
            rr: 1.0 / 3.0,
        };
        let s = scores(&[&a, &b]);
        assert_eq!(s.hit1, 0.5);
        assert_eq!(s.hit3, 1.0);
        assert!((s.mrr - 2.0 / 3.0).abs() < 1e-12);
        let json = serde_json::to_value(&s).unwrap();
        assert!(json.get("hit@4").is_some() && json.get("mrr").is_some());
    }
}
