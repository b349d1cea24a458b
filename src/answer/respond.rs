//! Answering from the synthetic document only: prompts for a model, and the deterministic
//! template used without one (or when the model fails).

use super::review::Reviewed;
use super::synthesis::SyntheticDocument;
use crate::llm::{ChatMessage, ChatRequest};

/// What a model says when the document does not answer the question.
pub const NOT_FOUND_MARKER: &str = "NOT FOUND";

/// Most lines the template repeats.
const TEMPLATE_LINES: usize = 12;

const ANSWER_SYSTEM: &str = "You are a clinical assistant. Answer the question using only the \
de-identified record you are given. Patients are named 'the patient' or 'Patient A', 'Patient B'; \
values are rounded and dates are given by month. Answer in one to three sentences. Never invent \
names, addresses, phone numbers, identifiers or birth dates. If the record does not answer the \
question, reply exactly: NOT FOUND.";

const SELECT_SYSTEM: &str = "You select facts. Reply only with the numbers of the lines needed \
to answer the question, separated by commas, or 0 if none is needed.";

/// The request that asks a model to answer: built from reviewed parts only.
pub fn answer_request(
    document: &Reviewed<SyntheticDocument>,
    query: &Reviewed<String>,
    max_tokens: u32,
    temperature: f32,
) -> ChatRequest {
    let (document, query) = (document.get(), query.get());
    ChatRequest {
        messages: vec![
            ChatMessage::system(ANSWER_SYSTEM),
            ChatMessage::user(format!(
                "De-identified record:\n{}\n\nQuestion: {query}",
                document.text()
            )),
        ],
        max_tokens,
        temperature,
    }
}

/// The request that asks a model to choose facts among numbered lines that Review passed.
pub fn select_request(
    lines: &Reviewed<SyntheticDocument>,
    query: &Reviewed<String>,
) -> ChatRequest {
    let query = query.get();
    let numbered: Vec<String> = lines
        .get()
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}. {l}", i + 1))
        .collect();
    ChatRequest {
        messages: vec![
            ChatMessage::system(SELECT_SYSTEM),
            ChatMessage::user(format!(
                "Lines:\n{}\n\nQuestion: {query}\nNumbers of the needed lines:",
                numbered.join("\n")
            )),
        ],
        max_tokens: 24,
        temperature: 0.0,
    }
}

/// Whether a model's reply means "not found".
pub fn says_not_found(reply: &str) -> bool {
    let trimmed = reply.trim();
    trimmed.is_empty() || trimmed.to_uppercase().contains(NOT_FOUND_MARKER)
}

/// The deterministic answer: the synthetic document's lines, introduced as such.
pub fn template_answer(document: &SyntheticDocument) -> String {
    let mut lines: Vec<String> = document
        .lines
        .iter()
        .take(TEMPLATE_LINES)
        .map(|l| {
            let l = l.trim();
            if l.ends_with('.') {
                l.to_string()
            } else {
                format!("{l}.")
            }
        })
        .collect();
    if document.lines.len() > TEMPLATE_LINES {
        lines.push(format!(
            "({} more facts not shown.)",
            document.lines.len() - TEMPLATE_LINES
        ));
    }
    format!(
        "From the de-identified record (values rounded, dates by month): {}",
        lines.join(" ")
    )
}

/// Whether every number a model wrote appears in the synthetic document it was given: a model
/// may phrase, never add a value (otherwise the template answers).
pub fn numbers_are_grounded(reply: &str, document: &SyntheticDocument) -> bool {
    let numbers = |text: &str| -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        let mut current = String::new();
        for c in text.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_digit() || (c == '.' && !current.is_empty()) {
                current.push(c);
            } else if !current.is_empty() {
                out.insert(current.trim_end_matches('.').to_string());
                current.clear();
            }
        }
        out
    };
    let known = numbers(&document.text());
    numbers(reply).iter().all(|n| known.contains(n))
}

/// The deterministic answer to a cohort question: the aggregate lines, introduced as such.
pub fn cohort_answer(document: &SyntheticDocument, k: usize) -> String {
    format!(
        "From the de-identified records (counts of patients; items and readings shared by fewer \
         than {k} patients are not shown): {}",
        document.lines.join(" ")
    )
}

/// The answer when nothing the requester may see answers the question.
pub const NOT_FOUND_ANSWER: &str =
    "No information that answers this question was found in the records you may access.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_lists_the_synthetic_lines() {
        let doc = SyntheticDocument {
            lines: vec!["Patient ABCDE, March 2015: Value is 80 kg".into()],
            document_ids: vec![1],
        };
        assert_eq!(
            template_answer(&doc),
            "From the de-identified record (values rounded, dates by month): Patient ABCDE, March 2015: Value is 80 kg."
        );
    }

    #[test]
    fn model_numbers_must_come_from_the_document() {
        let doc = SyntheticDocument {
            lines: vec!["The patient, March 2015: Value is 80 kg.".into()],
            document_ids: vec![1],
        };
        assert!(numbers_are_grounded("About 80 kg in March 2015.", &doc));
        assert!(!numbers_are_grounded("About 82 kg.", &doc));
        assert!(numbers_are_grounded("The weight was recorded.", &doc));
    }

    #[test]
    fn reads_not_found() {
        assert!(says_not_found("NOT FOUND."));
        assert!(says_not_found("  "));
        assert!(!says_not_found("The weight was about 80 kg."));
    }

    #[test]
    fn prompts_hold_only_the_synthetic_document() {
        let doc = SyntheticDocument {
            lines: vec!["Patient ABCDE, March 2015: Value is 80 kg.".into()],
            document_ids: vec![1],
        };
        let guard = crate::privacy::PrivacyGuard::in_memory([]);
        let scanner = futures::executor::block_on(guard.scanner(&[&doc.text()])).unwrap();
        let super::super::review::Verdict::Passed {
            document, query, ..
        } = super::super::review::review_loop(
            doc.clone(),
            "What was Patient ABCDE's weight?".into(),
            &scanner,
            0,
        )
        else {
            panic!("a clean document passes");
        };
        let request = answer_request(&document, &query, 64, 0.0);
        assert_eq!(request.messages.len(), 2);
        assert!(request.messages[1]
            .content
            .contains("Patient ABCDE, March 2015"));
        let select = select_request(&document, &query);
        assert!(select.messages[1].content.contains("1. Patient ABCDE"));
    }
}
