//! The messages of `rag.queries` and `rag.answers` (JSON Schemas in `topics/`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::privacy::guard::Redactable;
use crate::privacy::GuardReport;

/// Longest question accepted, in characters.
pub const MAX_QUESTION_CHARS: usize = 2000;
/// Most patients one requester may be limited to in one query.
pub const MAX_REQUESTER_PATIENTS: usize = 10_000;

/// A question on `rag.queries`. The topic is written by a trusted gateway that authenticated the
/// requester; the worker enforces what the requester may see.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// Unique id chosen by the sender; the answer carries it and is keyed by it.
    pub query_id: String,
    /// Who asks and what they may see.
    pub requester: Requester,
    /// The question, in natural language.
    pub question: String,
    /// How to answer.
    #[serde(default)]
    pub options: QueryOptions,
}

/// The person or system asking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requester {
    /// Stable id (rate limits and the audit table are per id).
    pub id: String,
    /// Role; roles listed in `--all-patients-roles` see every patient.
    pub role: String,
    /// FHIR Patient ids this requester may see. Absent: only a role that sees all may ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patients: Option<Vec<String>>,
}

/// How to answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryOptions {
    /// Answering mode.
    #[serde(default)]
    pub mode: Mode,
    /// Documents to retrieve (default from `--k`, at most `--max-k`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<u32>,
}

/// Answering mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Search, synthesize a de-identified document from all retrieved documents, review, answer.
    #[default]
    Synthetic,
    /// Incremental page retrieval: one retrieved document at a time, in rank order, until the
    /// model answers instead of saying it found nothing.
    Incremental,
}

impl Query {
    /// Checks what serde cannot: lengths and non-empty fields.
    pub fn validate(&self) -> Result<(), String> {
        // The id is echoed on the answer unchanged (it is how the sender finds its answer), so it
        // must be an opaque token, not free text.
        if self.query_id.is_empty()
            || self.query_id.len() > 200
            || !self
                .query_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
        {
            return Err("query_id must have 1 to 200 characters among A-Z a-z 0-9 - _ . :".into());
        }
        let fields = [&self.requester.id, &self.requester.role, &self.question];
        if fields
            .iter()
            .any(|f| f.chars().any(|c| c.is_control() && !c.is_whitespace()))
        {
            return Err(
                "requester.id, requester.role and question must not hold control characters".into(),
            );
        }
        if self.requester.id.trim().is_empty() || self.requester.role.trim().is_empty() {
            return Err("requester.id and requester.role must not be empty".into());
        }
        if self.question.trim().is_empty() {
            return Err("question is empty".into());
        }
        if self.question.chars().count() > MAX_QUESTION_CHARS {
            return Err(format!(
                "question longer than {MAX_QUESTION_CHARS} characters"
            ));
        }
        if let Some(patients) = &self.requester.patients {
            if patients.len() > MAX_REQUESTER_PATIENTS {
                return Err(format!(
                    "requester.patients lists more than {MAX_REQUESTER_PATIENTS} patients"
                ));
            }
        }
        if self.options.k == Some(0) {
            return Err("options.k must be at least 1".into());
        }
        Ok(())
    }
}

/// What happened to a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// An answer from the synthetic document.
    Answered,
    /// Nothing the requester may see answers the question.
    NotFound,
    /// Refused: no access, or the synthetic document could not be made safe.
    Refused,
    /// The requester or the worker is over its limit; ask again later.
    RateLimited,
}

impl AnswerStatus {
    /// The name used in JSON and the audit table.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerStatus::Answered => "answered",
            AnswerStatus::NotFound => "not_found",
            AnswerStatus::Refused => "refused",
            AnswerStatus::RateLimited => "rate_limited",
        }
    }
}

/// What the privacy machinery applied, on the answer: the policy and the checks, never what
/// they found. Redaction counts and review findings would tell a requester what the vault holds
/// (whether a name they typed belongs to a patient here); they go to the audit table only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivacySummary {
    /// The disclosure policy applied: `care_team`, `cohort` or `none` (refused before it).
    pub policy: String,
    /// Checks every answer goes through (synthesis, review, vault, pii_patterns).
    pub checks: Vec<String>,
}

/// What the privacy machinery found in one answer: kept in the audit table, never published.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PrivacyFindings {
    /// Review rounds that sent the synthetic document back for correction.
    pub review_corrections: u32,
    /// Review findings fixed during synthesis, by rule.
    pub review_findings: BTreeMap<String, usize>,
    /// Why the question was not answered, when it was not (`cohort_individual`,
    /// `unresolved_name`, `identifier`, `ambiguous_name`, `too_few_patients`, …).
    pub reason: Option<String>,
}

/// Milliseconds spent per stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Search agent.
    pub search_ms: u64,
    /// Synthesis agent (and its LLM call).
    pub synthesis_ms: u64,
    /// Review agent.
    pub review_ms: u64,
    /// Answering.
    pub answer_ms: u64,
    /// Privacy guard.
    pub guard_ms: u64,
    /// Whole query.
    pub total_ms: u64,
}

/// An answer on `rag.answers`. Never record text or PHI: only the synthetic query, the answer
/// derived from the synthetic document, and counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// The query's id.
    pub query_id: String,
    /// What happened.
    pub status: AnswerStatus,
    /// The answer, for a person.
    pub answer: String,
    /// The de-identified query the answering model saw (empty when none was made).
    pub synthetic_query: String,
    /// Model backend that answered (`rules`, `openai:<model>`, `gguf:<file>`).
    pub backend: String,
    /// Documents the synthetic document was made from.
    pub documents_used: usize,
    /// Calls made to the model for this answer.
    pub llm_calls: u32,
    /// The privacy report.
    pub privacy: PrivacySummary,
    /// Time spent.
    pub timings: Timings,
    /// When the answer was made (RFC 3339).
    pub answered_at: String,
}

impl Redactable for Answer {
    fn texts(&self) -> Vec<String> {
        vec![self.answer.clone(), self.synthetic_query.clone()]
    }

    fn redact_fields(&mut self, redact: &mut dyn FnMut(&str) -> String) {
        // The query id is an opaque token (validated on the way in) and is echoed unchanged.
        self.answer = redact(&self.answer);
        self.synthetic_query = redact(&self.synthetic_query);
    }
}

impl crate::privacy::guard::Untexted for Answer {
    type Extra = Timings;
    fn set_extra(&mut self, timings: Timings) {
        self.timings = timings;
    }
}

impl Answer {
    /// Names the guard's checks on the answer (its counts stay in the audit table).
    pub fn with_guard_report(mut self, report: &GuardReport) -> Answer {
        for check in &report.checks {
            if !self.privacy.checks.contains(check) {
                self.privacy.checks.push(check.clone());
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_minimal_query_and_rejects_unknown_fields() {
        let q: Query = serde_json::from_str(
            r#"{"query_id":"q1","requester":{"id":"u1","role":"clinician","patients":["p1"]},"question":"What?"}"#,
        )
        .unwrap();
        assert_eq!(q.options.mode, Mode::Synthetic);
        assert!(q.validate().is_ok());
        assert!(serde_json::from_str::<Query>(
            r#"{"query_id":"q1","requester":{"id":"u1","role":"r"},"question":"What?","extra":1}"#
        )
        .is_err());
        let mut empty = q.clone();
        empty.question = "  ".into();
        assert!(empty.validate().is_err());
        let mut nul = q.clone();
        nul.question = "What\u{0}?".into();
        assert!(nul.validate().is_err());
        let mut id = q.clone();
        id.query_id = "9c3f0a4e-1b2c-4d5e-8f90-123456789abc".into();
        assert!(id.validate().is_ok());
        id.query_id = "Ruben 688".into();
        assert!(id.validate().is_err());
    }

    /// The Rust types and the JSON Schemas in topics/ describe the same messages.
    #[test]
    fn types_and_topic_contracts_agree() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("topics");
        let contracts = crate::bus::topics::load_contracts(&dir).unwrap();
        let contract = |name: &str| contracts.iter().find(|c| c.name == name).unwrap().clone();
        let queries = contract("rag.queries");
        let answers = contract("rag.answers");
        assert!(contracts.iter().any(|c| c.name == "rag.queries.dlq"));

        let example: Query = serde_json::from_value(queries.example.clone()).unwrap();
        example.validate().unwrap();
        let query_schema = jsonschema::validator_for(&queries.value_schema).unwrap();
        assert!(query_schema.is_valid(&serde_json::to_value(&example).unwrap()));
        assert!(!query_schema.is_valid(&serde_json::json!({"query_id": "q", "question": "x"})));

        let answer: Answer = serde_json::from_value(answers.example.clone()).unwrap();
        let answer_schema = jsonschema::validator_for(&answers.value_schema).unwrap();
        let mut made = answer.clone();
        made.status = AnswerStatus::RateLimited;
        made.privacy.policy = "cohort".into();
        let value = serde_json::to_value(&made).unwrap();
        let errors: Vec<String> = answer_schema
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
}
