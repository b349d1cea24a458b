//! The Review agent: checks a synthetic document and query against the synthesis rules before
//! any model sees them, and sends them back for correction a bounded number of times.
//!
//! Rules: no vault string and no generic PII (the guard's matcher), no exact date, no value with
//! more precision than rounding leaves, no age above 89. Correction round 1 redacts the offending
//! spans and generalizes the line again; round 2 drops the offending lines. What still fails
//! after the last round is refused.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::document::SyntheticDocument;
use crate::privacy::generalize::generalize_text;
use crate::privacy::guard::{Scanner, REDACTED};
use crate::text::dates;
static PRECISE_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bis -?\d{2,}\.\d+\b|\bis -?[1-9]\.\d{2,}\b").expect("valid regex")
});
static OLD_AGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:9\d|1\d\d)(?:\s+|-)years?(?:\s+|-)old\b|\baged?\s+(?:9\d|1\d\d)\b")
        .expect("valid regex")
});

/// An age over 89 written out, other than the band "aged 90 or older" itself.
fn old_age(text: &str) -> bool {
    OLD_AGE
        .find_iter(text)
        .any(|m| !text[m.end()..].starts_with(" or older"))
}

/// One rule a line breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The line (None: the synthetic query).
    pub line: Option<usize>,
    /// The rule: `vault`, `pii`, `exact_date`, `precision`, `age`.
    pub rule: &'static str,
}

fn check_text(text: &str, guard: &Scanner) -> Vec<&'static str> {
    let mut rules = Vec::new();
    for f in guard.scan(text) {
        rules.push(if f.category.starts_with("vault:") {
            "vault"
        } else {
            "pii"
        });
    }
    if dates::names_a_day(text) {
        rules.push("exact_date");
    }
    if PRECISE_VALUE.is_match(text) {
        rules.push("precision");
    }
    if old_age(text) {
        rules.push("age");
    }
    rules.sort_unstable();
    rules.dedup();
    rules
}

/// Every rule the document and query break.
pub fn review(document: &SyntheticDocument, query: &str, guard: &Scanner) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, line) in document.lines.iter().enumerate() {
        for rule in check_text(line, guard) {
            findings.push(Finding {
                line: Some(i),
                rule,
            });
        }
    }
    for rule in check_text(query, guard) {
        findings.push(Finding { line: None, rule });
    }
    findings
}

fn redact_everything(text: &str, guard: &Scanner) -> String {
    let (redacted, _) = guard.redact(&generalize_text(text));
    let redacted = dates::replace(&redacted, |m| match m.precision {
        dates::Precision::Day => REDACTED.to_string(),
        dates::Precision::Month => dates::month_year(m.date()),
    });
    if old_age(&redacted) {
        OLD_AGE
            .replace_all(&redacted, "aged 90 or older")
            .into_owned()
    } else {
        redacted
    }
}

/// Sends the document back: round 0 redacts and re-generalizes the offending lines (and the
/// query); later rounds drop them.
pub fn correct(
    document: &SyntheticDocument,
    query: &str,
    findings: &[Finding],
    round: u32,
    guard: &Scanner,
) -> (SyntheticDocument, String) {
    let bad: std::collections::BTreeSet<usize> = findings.iter().filter_map(|f| f.line).collect();
    let query_bad = findings.iter().any(|f| f.line.is_none());
    let mut corrected = document.clone();
    corrected.lines = document
        .lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| match (bad.contains(&i), round) {
            (false, _) => Some(line.clone()),
            (true, 0) => Some(redact_everything(line, guard)),
            (true, _) => None,
        })
        .collect();
    let query = if query_bad {
        redact_everything(query, guard)
    } else {
        query.to_string()
    };
    (corrected, query)
}

/// A value the Review agent passed. Only [`review_loop`] makes one, and the prompts a model is
/// given are built from these alone ([`super::respond`]): nothing reaches a model, in any
/// backend or mode, that Review has not checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Reviewed<T>(T);

impl<T> Reviewed<T> {
    /// The reviewed value.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// The reviewed value, owned.
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// The outcome of the review loop.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Passed, possibly after corrections.
    Passed {
        /// The (corrected) document.
        document: Reviewed<SyntheticDocument>,
        /// The (corrected) query.
        query: Reviewed<String>,
        /// Rounds of correction.
        corrections: u32,
        /// Findings fixed, by rule.
        fixed: BTreeMap<String, usize>,
    },
    /// Still breaking a rule after the last round.
    Refused {
        /// The rules still broken.
        rules: Vec<&'static str>,
        /// Rounds of correction tried.
        corrections: u32,
    },
}

/// Reviews, corrects up to `max_rounds` times, and passes or refuses.
pub fn review_loop(
    document: SyntheticDocument,
    query: String,
    guard: &Scanner,
    max_rounds: u32,
) -> Verdict {
    let mut document = document;
    let mut query = query;
    let mut fixed: BTreeMap<String, usize> = BTreeMap::new();
    let mut round = 0;
    loop {
        let findings = review(&document, &query, guard);
        if findings.is_empty() {
            return Verdict::Passed {
                document: Reviewed(document),
                query: Reviewed(query),
                corrections: round,
                fixed,
            };
        }
        if round >= max_rounds {
            let mut rules: Vec<&'static str> = findings.iter().map(|f| f.rule).collect();
            rules.sort_unstable();
            rules.dedup();
            return Verdict::Refused {
                rules,
                corrections: round,
            };
        }
        for f in &findings {
            *fixed.entry(f.rule.to_string()).or_default() += 1;
        }
        (document, query) = correct(&document, &query, &findings, round, guard);
        round += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phi::PhiKind;

    fn guard_for(texts: &[&str]) -> Scanner {
        let guard = crate::privacy::PrivacyGuard::in_memory([
            (PhiKind::GivenName, "Ruben688"),
            (PhiKind::Phone, "555-378-2854"),
        ]);
        futures::executor::block_on(guard.scanner(texts)).unwrap()
    }

    fn document(lines: &[&str]) -> SyntheticDocument {
        SyntheticDocument {
            lines: lines.iter().map(|l| l.to_string()).collect(),
            document_ids: vec![1],
        }
    }

    #[test]
    fn a_clean_document_passes_untouched() {
        let doc = document(&["Patient ABCDE, March 2015: Code is Body Weight. Value is 80 kg."]);
        let guard = guard_for(&[&doc.text(), "What was the weight?"]);
        match review_loop(doc.clone(), "What was the weight?".into(), &guard, 2) {
            Verdict::Passed {
                document,
                corrections,
                ..
            } => {
                assert_eq!(document.get(), &doc);
                assert_eq!(corrections, 0);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn leaks_are_corrected_within_the_bound() {
        let doc = document(&[
            "Patient ABCDE, March 2015: Note says Ruben688 called from 555-378-2854 on 2015-03-04.",
            "Patient ABCDE, March 2015: Value is 80.346 kg. A 93-year-old.",
            "Patient ABCDE, March 2015: Code is Heart rate. Value is 83 /min.",
        ]);
        let guard = guard_for(&[&doc.text(), "Weight of Ruben688?"]);
        match review_loop(doc, "Weight of Ruben688?".into(), &guard, 2) {
            Verdict::Passed {
                document,
                query,
                corrections,
                fixed,
            } => {
                assert_eq!(corrections, 1);
                let text = document.get().text();
                assert!(!text.contains("Ruben"), "{text}");
                assert!(!text.contains("2854"), "{text}");
                assert!(!text.contains("2015-03-04"), "{text}");
                assert!(!text.contains("80.346"), "{text}");
                assert!(!text.contains("93"), "{text}");
                assert!(text.contains("Heart rate"));
                assert_eq!(query.get(), "Weight of [redacted]?");
                assert!(fixed.contains_key("vault") && fixed.contains_key("precision"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refuses_when_no_round_is_allowed() {
        let doc = document(&["Patient ABCDE: Ruben688"]);
        let guard = guard_for(&[&doc.text(), "q"]);
        assert!(matches!(
            review_loop(doc, "q".into(), &guard, 0),
            Verdict::Refused { corrections: 0, .. }
        ));
    }
}
