//! The privacy guard: the last, deterministic gate before the answer topic.
//!
//! It holds one Aho-Corasick automaton over every string of the PHI vault plus the variants a
//! model could write instead (digit-stripped Synthea names, each part of a full name, birth dates
//! in common formats, phone numbers with other separators or none), matched case-insensitively
//! on word boundaries, and a set of generic PII patterns (phone numbers, e-mail addresses, SSNs,
//! dates next to "born"/"DOB", URLs, UUIDs, long digit runs). Every match is redacted.
//!
//! Only [`PrivacyGuard::seal`] makes a [`Guarded`] value, and the answer publisher accepts nothing
//! else: an answer cannot reach the bus without passing here.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use chrono::{Datelike, NaiveDate};
use regex::Regex;
use serde::Serialize;

use crate::phi::{strip_digits, PhiKind};

/// What replaces a redacted span.
pub const REDACTED: &str = "[redacted]";

/// Vault strings shorter than this (after trimming) are not matched: one- or two-letter strings
/// would redact ordinary words and carry no identifying power.
const MIN_PATTERN_CHARS: usize = 3;
/// Purely numeric vault strings shorter than this are not matched (house numbers, short
/// identifiers would redact every reading with the same digits); phone numbers, SSNs, postal
/// codes and real identifiers are all at least this long.
const MIN_NUMERIC_CHARS: usize = 5;

/// Name prefixes and suffixes are not identifying on their own.
fn matched_kind(kind: PhiKind) -> bool {
    !matches!(kind, PhiKind::NamePrefix | PhiKind::NameSuffix)
}

/// The strings the guard looks for, for one vault value.
pub fn vault_variants(kind: PhiKind, value: &str) -> Vec<String> {
    let value = value.trim();
    let mut out = vec![value.to_string()];
    match kind {
        PhiKind::FullName
        | PhiKind::GivenName
        | PhiKind::FamilyName
        | PhiKind::MaidenName
        | PhiKind::BirthPlace => {
            out.push(collapse_spaces(&strip_digits(value)));
            for part in value.split_whitespace() {
                let part = part.trim_matches(|c: char| !c.is_alphanumeric());
                if part.ends_with('.') || is_title(part) {
                    continue;
                }
                out.push(part.to_string());
                out.push(strip_digits(part));
            }
        }
        PhiKind::BirthDate => {
            if let Ok(date) =
                NaiveDate::parse_from_str(value.get(..10).unwrap_or(value), "%Y-%m-%d")
            {
                out.extend(date_formats(date));
            }
        }
        PhiKind::Phone => {
            let digits: String = value.chars().filter(char::is_ascii_digit).collect();
            let national = digits
                .strip_prefix('1')
                .filter(|d| d.len() == 10)
                .unwrap_or(&digits);
            if national.len() == 10 {
                let (a, b, c) = (&national[..3], &national[3..6], &national[6..]);
                out.extend([
                    national.to_string(),
                    format!("{a}-{b}-{c}"),
                    format!("{a}.{b}.{c}"),
                    format!("{a} {b} {c}"),
                    format!("({a}) {b}-{c}"),
                    format!("({a}){b}-{c}"),
                ]);
            } else if digits.len() >= MIN_NUMERIC_CHARS {
                out.push(digits);
            }
        }
        PhiKind::Ssn => {
            let digits: String = value.chars().filter(char::is_ascii_digit).collect();
            if digits.len() == 9 {
                out.push(digits.clone());
                out.push(format!(
                    "{} {} {}",
                    &digits[..3],
                    &digits[3..5],
                    &digits[5..]
                ));
            }
        }
        _ => {}
    }
    out.retain(|v| keep_pattern(v));
    out.sort();
    out.dedup();
    out
}

fn is_title(part: &str) -> bool {
    matches!(
        part.to_ascii_lowercase().as_str(),
        "mr" | "mrs" | "ms" | "miss" | "dr" | "prof" | "jr" | "sr" | "ii" | "iii" | "phd" | "md"
    )
}

fn collapse_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn keep_pattern(pattern: &str) -> bool {
    let chars = pattern.chars().count();
    if chars < MIN_PATTERN_CHARS {
        return false;
    }
    let numeric = pattern
        .chars()
        .all(|c| c.is_ascii_digit() || " -./()".contains(c));
    !(numeric && pattern.chars().filter(char::is_ascii_digit).count() < MIN_NUMERIC_CHARS)
}

/// A date written the ways people and models write it.
pub fn date_formats(date: NaiveDate) -> Vec<String> {
    let (y, m, d) = (date.year(), date.month(), date.day());
    let month = super::generalize::MONTHS[date.month0() as usize];
    let short = &month[..3];
    vec![
        format!("{y}-{m:02}-{d:02}"),
        format!("{y}/{m:02}/{d:02}"),
        format!("{y}{m:02}{d:02}"),
        format!("{m:02}/{d:02}/{y}"),
        format!("{m}/{d}/{y}"),
        format!("{d:02}/{m:02}/{y}"),
        format!("{d}/{m}/{y}"),
        format!("{m:02}-{d:02}-{y}"),
        format!("{d:02}.{m:02}.{y}"),
        format!("{d}.{m}.{y}"),
        format!("{month} {d}, {y}"),
        format!("{month} {d} {y}"),
        format!("{d} {month} {y}"),
        format!("{d} {month}, {y}"),
        format!("{short} {d}, {y}"),
        format!("{short}. {d}, {y}"),
        format!("{d} {short} {y}"),
        format!("{d}-{short}-{y}"),
    ]
}

const DATE: &str = r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*,?\s+\d{4})";

/// Generic PII detectors, independent of the vault.
static PII_PATTERNS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    let compile = |p: &str| Regex::new(p).expect("valid regex");
    vec![
        (
            "email",
            compile(r"(?i)\b[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}\b"),
        ),
        ("url", compile(r"(?i)\b(?:https?://|www\.)[^\s<>]+")),
        ("ssn", compile(r"\b\d{3}-\d{2}-\d{4}\b")),
        (
            "phone",
            compile(
                r"(?:\+?\b1[\s.\-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.\-])\d{3}[\s.\-]\d{4}\b|\b\d{10}\b",
            ),
        ),
        (
            "date_of_birth",
            compile(&format!(
                r"(?i)\b(?:born|birth\s*date|date\s+of\s+birth|d\.?o\.?b\.?|birthday)\b[^.\n]{{0,24}}?{DATE}"
            )),
        ),
        (
            "uuid",
            compile(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
        ),
        ("long_number", compile(r"\b\d{9,}\b")),
    ]
});

/// One span the guard found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Byte offset of the start.
    pub start: usize,
    /// Byte offset of the end (exclusive).
    pub end: usize,
    /// What matched: `vault:<kind>` or `pii:<detector>`. Never the matched text.
    pub category: String,
}

/// What the guard did to one answer. Holds counts and categories only, never matched text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GuardReport {
    /// The checks that ran.
    pub checks: Vec<String>,
    /// Spans redacted.
    pub redactions: usize,
    /// Redactions per category (`vault:full_name`, `pii:phone`, …).
    pub by_category: BTreeMap<String, usize>,
    /// Strings the vault matcher held.
    pub vault_patterns: usize,
}

/// A value that went through the guard. Only the guard constructs it.
#[derive(Clone, Debug)]
pub struct Guarded<T> {
    value: T,
    report: GuardReport,
}

impl<T> Guarded<T> {
    /// The guarded value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// What the guard redacted.
    pub fn report(&self) -> &GuardReport {
        &self.report
    }

    /// The value and the report, for the publisher that serializes them.
    pub fn into_parts(self) -> (T, GuardReport) {
        (self.value, self.report)
    }
}

/// Something with free text fields the guard must see before it may leave.
pub trait Redactable {
    /// Calls `redact` on every free-text field and stores what it returns.
    fn redact_fields(&mut self, redact: &mut dyn FnMut(&str) -> String);
}

/// One automaton over a set of vault strings.
struct VaultLayer {
    matcher: Option<AhoCorasick>,
    categories: Vec<&'static str>,
    patterns: usize,
}

impl VaultLayer {
    fn build<'a>(entries: impl IntoIterator<Item = (PhiKind, &'a str)>) -> VaultLayer {
        let mut seen: BTreeMap<String, &'static str> = BTreeMap::new();
        for (kind, value) in entries {
            if !matched_kind(kind) {
                continue;
            }
            for variant in vault_variants(kind, value) {
                seen.entry(variant.to_ascii_lowercase())
                    .or_insert(kind.as_str());
            }
        }
        let (patterns, categories): (Vec<String>, Vec<&'static str>) = seen.into_iter().unzip();
        let matcher = (!patterns.is_empty()).then(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .expect("vault patterns build an automaton")
        });
        VaultLayer {
            matcher,
            categories,
            patterns: patterns.len(),
        }
    }
}

/// The guard: vault matchers plus PII detectors. A guard is built once from the whole vault and
/// refreshed as the vault grows; [`PrivacyGuard::with_entries`] adds, for one answer, the vault
/// rows of the patients it involves as read at that moment, so that a patient ingested since the
/// last refresh is covered too.
#[derive(Clone)]
pub struct PrivacyGuard {
    layers: Vec<std::sync::Arc<VaultLayer>>,
}

impl std::fmt::Debug for PrivacyGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivacyGuard")
            .field("vault_patterns", &self.vault_patterns())
            .finish()
    }
}

impl PrivacyGuard {
    /// Builds the matcher from vault entries `(kind, value)`.
    pub fn new<'a>(entries: impl IntoIterator<Item = (PhiKind, &'a str)>) -> PrivacyGuard {
        PrivacyGuard {
            layers: vec![std::sync::Arc::new(VaultLayer::build(entries))],
        }
    }

    /// This guard plus a layer for more entries (the first layers are shared, not rebuilt).
    pub fn with_entries<'a>(
        &self,
        entries: impl IntoIterator<Item = (PhiKind, &'a str)>,
    ) -> PrivacyGuard {
        let mut layers = self.layers.clone();
        layers.push(std::sync::Arc::new(VaultLayer::build(entries)));
        PrivacyGuard { layers }
    }

    /// Number of strings in the vault matchers.
    pub fn vault_patterns(&self) -> usize {
        self.layers.iter().map(|l| l.patterns).sum()
    }

    /// Every span of `text` that matches the vault or a PII detector, merged where they overlap.
    pub fn scan(&self, text: &str) -> Vec<Finding> {
        let mut found = Vec::new();
        for layer in &self.layers {
            let Some(matcher) = &layer.matcher else {
                continue;
            };
            for m in matcher.find_overlapping_iter(text) {
                if on_word_boundaries(text, m.start(), m.end()) {
                    found.push(Finding {
                        start: m.start(),
                        end: m.end(),
                        category: format!("vault:{}", layer.categories[m.pattern().as_usize()]),
                    });
                }
            }
        }
        for (name, pattern) in PII_PATTERNS.iter() {
            for m in pattern.find_iter(text) {
                found.push(Finding {
                    start: m.start(),
                    end: m.end(),
                    category: format!("pii:{name}"),
                });
            }
        }
        merge(found)
    }

    /// `text` with every finding replaced by [`REDACTED`], and the findings.
    pub fn redact(&self, text: &str) -> (String, Vec<Finding>) {
        let findings = self.scan(text);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for f in &findings {
            out.push_str(&text[last..f.start]);
            out.push_str(REDACTED);
            last = f.end;
        }
        out.push_str(&text[last..]);
        (out, findings)
    }

    /// Runs every free-text field of `value` through [`PrivacyGuard::redact`].
    pub fn seal<T: Redactable>(&self, mut value: T) -> Guarded<T> {
        let mut report = GuardReport {
            checks: vec!["vault".into(), "pii_patterns".into()],
            vault_patterns: self.vault_patterns(),
            ..GuardReport::default()
        };
        value.redact_fields(&mut |text| {
            let (redacted, findings) = self.redact(text);
            report.redactions += findings.len();
            for f in findings {
                *report.by_category.entry(f.category).or_default() += 1;
            }
            redacted
        });
        Guarded { value, report }
    }
}

fn on_word_boundaries(text: &str, start: usize, end: usize) -> bool {
    let inner_first = text[start..end].chars().next();
    let inner_last = text[start..end].chars().next_back();
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let joins = |outer: Option<char>, inner: Option<char>| matches!((outer, inner), (Some(o), Some(i)) if o.is_alphanumeric() && i.is_alphanumeric());
    !joins(before, inner_first) && !joins(after, inner_last)
}

/// Sorts findings and merges overlapping spans (the first category wins).
fn merge(mut found: Vec<Finding>) -> Vec<Finding> {
    found.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut merged: Vec<Finding> = Vec::with_capacity(found.len());
    for f in found {
        match merged.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => merged.push(f),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> PrivacyGuard {
        PrivacyGuard::new([
            (PhiKind::FullName, "Mr. Ruben688 Medhurst46"),
            (PhiKind::GivenName, "Ruben688"),
            (PhiKind::FamilyName, "Medhurst46"),
            (PhiKind::NamePrefix, "Mr."),
            (PhiKind::BirthDate, "1991-11-15"),
            (PhiKind::Phone, "555-378-2854"),
            (PhiKind::AddressLine, "501 Pollich Burg"),
            (PhiKind::City, "East Sandwich"),
            (PhiKind::PostalCode, "02537"),
            (PhiKind::Ssn, "999-87-1947"),
            (PhiKind::DriversLicense, "S99936947"),
            (PhiKind::Identifier, "085e81c0-7a95-ef02-16ef-aa1b4344deed"),
            (PhiKind::Identifier, "42"),
        ])
    }

    fn redacted(text: &str) -> String {
        guard().redact(text).0
    }

    #[test]
    fn redacts_vault_strings_and_their_variants() {
        for leak in [
            "Ruben688 Medhurst46",
            "Mr. Ruben Medhurst",
            "ruben medhurst",
            "RUBEN688",
            "Medhurst",
            "born 1991-11-15",
            "15 November 1991",
            "November 15, 1991",
            "11/15/1991",
            "Nov 15, 1991",
            "(555) 378-2854",
            "5553782854",
            "555.378.2854",
            "501 Pollich Burg",
            "East Sandwich",
            "02537",
            "999-87-1947",
            "999871947",
            "S99936947",
            "085e81c0-7a95-ef02-16ef-aa1b4344deed",
        ] {
            let text = format!("The answer is {leak}, as requested.");
            let out = redacted(&text);
            assert!(out.contains(REDACTED), "not redacted: {leak} → {out}");
            for word in leak.split_whitespace() {
                let word = word.trim_matches(|c: char| !c.is_alphanumeric());
                if word.len() >= 3 && !["born", "Mr"].contains(&word) {
                    assert!(
                        !out.to_lowercase().contains(&word.to_lowercase()),
                        "{word} survived in {out}"
                    );
                }
            }
        }
    }

    #[test]
    fn respects_word_boundaries_and_short_values() {
        // "Burg" is only part of an address line; "42" is too short to match.
        assert_eq!(
            redacted("Value is 42 kg. Hamburger."),
            "Value is 42 kg. Hamburger."
        );
        // A name inside a longer word is not that name.
        assert_eq!(redacted("Rubenesque"), "Rubenesque");
        assert_eq!(redacted("Mr. Smith"), "Mr. Smith");
    }

    #[test]
    fn generic_detectors_work_without_a_vault() {
        let empty = PrivacyGuard::new([]);
        for leak in [
            "call 617-555-0199",
            "call (617) 555-0199",
            "mail jane.doe@example.org",
            "see https://example.org/patient/1",
            "SSN 123-45-6789",
            "date of birth: 03/04/1950",
            "born on March 4, 1950",
            "DOB 1950-03-04",
            "id 9c3f0a4e-1b2c-4d5e-8f90-123456789abc",
            "MRN 1234567890123",
        ] {
            let (out, findings) = empty.redact(leak);
            assert!(!findings.is_empty(), "missed {leak}");
            assert!(out.contains(REDACTED), "{out}");
        }
        for clean in [
            "Value is 118 mm[Hg] in March 2015.",
            "Diastolic Blood Pressure is 76 to 83 mm[Hg].",
            "Onset in August 2011.",
            "Code is 0-10 verbal numeric rating.",
        ] {
            assert_eq!(empty.redact(clean).0, clean);
        }
    }

    #[test]
    fn seal_reports_categories_not_text() {
        struct Answer(String, String);
        impl Redactable for Answer {
            fn redact_fields(&mut self, redact: &mut dyn FnMut(&str) -> String) {
                self.0 = redact(&self.0);
                self.1 = redact(&self.1);
            }
        }
        let sealed = guard().seal(Answer(
            "Ruben688 lives at 501 Pollich Burg".into(),
            "Call 555-378-2854".into(),
        ));
        assert_eq!(sealed.value().0, "[redacted] lives at [redacted]");
        assert_eq!(sealed.value().1, "Call [redacted]");
        let report = sealed.report();
        assert_eq!(report.redactions, 3);
        assert_eq!(report.by_category["vault:address_line"], 1);
        assert_eq!(report.by_category["vault:phone"], 1);
        let names: usize = report
            .by_category
            .iter()
            .filter(|(k, _)| k.ends_with("_name"))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(names, 1);
        let json = serde_json::to_string(report).unwrap();
        assert!(!json.contains("Ruben"), "{json}");
    }

    #[test]
    fn merges_overlaps() {
        let merged = merge(vec![
            Finding {
                start: 0,
                end: 5,
                category: "a".into(),
            },
            Finding {
                start: 3,
                end: 9,
                category: "b".into(),
            },
            Finding {
                start: 10,
                end: 12,
                category: "c".into(),
            },
        ]);
        assert_eq!(merged.len(), 2);
        assert_eq!((merged[0].start, merged[0].end), (0, 9));
    }
}
