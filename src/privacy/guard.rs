//! The privacy guard: the last, deterministic gate before the answer topic.
//!
//! Two kinds of checks, both on the text as [`crate::text`] normalizes it (Unicode NFKC,
//! look-alike letters, invisible characters, diacritics and case folded; words split on every
//! non-word character and on script changes):
//!
//! - **The vault.** Every vault value is reduced at ingest to lookup keys ([`vault_keys`]): the
//!   folded words of a name and each of its parts (digit-stripped too, and joined without
//!   spaces), an address with and without its house number, the digits of a phone number, SSN or
//!   identifier (and their last nine or ten digits), a birth date as a day. The outgoing text is
//!   reduced the same way ([`candidates`]: its word n-grams, every digit window of its digit runs
//!   whatever the separators, every day its dates can mean) and the keys are looked up in an
//!   index ([`VaultIndex`]): an indexed PostgreSQL column in production, a hash map in unit
//!   tests. Nothing is built per request and nothing grows with the vault in a worker's memory.
//! - **Generic PII patterns**, independent of the vault: e-mail addresses, URLs, IP addresses,
//!   IBANs, UUIDs, identifiers that mix letters and five or more digits, any run of digit groups
//!   of seven or more digits (phone numbers of any country and spelling, SSNs, card numbers),
//!   and any date with its day (answers carry months only).
//!
//! Only [`PrivacyGuard::seal`] makes a [`Guarded`] value, and the answer publisher accepts nothing
//! else: an answer cannot reach the bus without passing here.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use regex::Regex;
use serde::Serialize;

use crate::phi::PhiKind;
use crate::text::{self, dates};

/// What replaces a redacted span.
pub const REDACTED: &str = "[redacted]";

/// Longest word sequence looked up (every part of a longer value is a key of its own).
const MAX_NGRAM: usize = 4;
/// Shortest digit key: shorter numbers are readings, house numbers, counts.
const MIN_DIGITS: usize = 5;
/// Longest digit key.
const MAX_DIGITS: usize = 20;

/// Name prefixes and suffixes are not identifying on their own.
fn matched_kind(kind: PhiKind) -> bool {
    !matches!(kind, PhiKind::NamePrefix | PhiKind::NameSuffix)
}

fn is_title(word: &str) -> bool {
    matches!(
        word,
        "mr" | "mrs"
            | "ms"
            | "miss"
            | "mx"
            | "dr"
            | "prof"
            | "jr"
            | "sr"
            | "ii"
            | "iii"
            | "iv"
            | "phd"
            | "md"
            | "rn"
            | "np"
            | "do"
            | "dds"
    )
}

fn word_key(words: &[String]) -> String {
    format!("t:{}", words.join(" "))
}

fn digit_key(digits: &str) -> String {
    format!("d:{digits}")
}

fn day_key(day: chrono::NaiveDate) -> String {
    format!("b:{day}")
}

/// The lookup keys of one vault value. Empty for kinds that are not matched.
pub fn vault_keys(kind: PhiKind, value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !matched_kind(kind) {
        return out;
    }
    let words: Vec<String> = text::words(value);
    let digits = text::digits(value);
    match kind {
        PhiKind::BirthDate => {
            for day in dates::days(value) {
                out.push(day_key(day));
            }
        }
        PhiKind::Phone | PhiKind::ContactPhone | PhiKind::Ssn => add_digits(&mut out, &digits),
        PhiKind::Email | PhiKind::ContactEmail => {
            if !words.is_empty() {
                out.push(word_key(&words));
                // the local part alone ("jane.doe")
                if let Some(local) = value.split('@').next() {
                    let local = text::words(local);
                    if local.iter().map(String::len).sum::<usize>() >= 4 {
                        out.push(word_key(&local));
                    }
                }
            }
        }
        kind if kind.is_person_name() => {
            let parts: Vec<String> = words.into_iter().filter(|w| !is_title(w)).collect();
            add_word_sequence(&mut out, &parts);
            for part in &parts {
                if part.chars().count() >= 2 && part.chars().any(char::is_alphabetic) {
                    out.push(word_key(std::slice::from_ref(part)));
                    let stripped = text::strip_digits(part);
                    if stripped.chars().count() >= 2 && stripped != *part {
                        out.push(word_key(&[stripped]));
                    }
                }
            }
            let stripped: Vec<String> = parts
                .iter()
                .map(|p| text::strip_digits(p))
                .filter(|p| !p.is_empty())
                .collect();
            add_word_sequence(&mut out, &stripped);
        }
        PhiKind::AddressLine
        | PhiKind::Address
        | PhiKind::BirthPlace
        | PhiKind::OrganizationName
        | PhiKind::City
        | PhiKind::ContactAddress
        | PhiKind::PostalCode => {
            add_word_sequence(&mut out, &words);
            // "501 Pollich Burg" is also "Pollich Burg".
            let without_numbers: Vec<String> = words
                .iter()
                .filter(|w| w.chars().any(char::is_alphabetic))
                .cloned()
                .collect();
            if without_numbers.len() >= 2 || (kind == PhiKind::City && !without_numbers.is_empty())
            {
                add_word_sequence(&mut out, &without_numbers);
            }
            if kind == PhiKind::PostalCode {
                add_digits(&mut out, &digits);
            }
        }
        _ => {
            // Identifiers: as written, and their digits alone (a licence without its letter).
            if words.iter().any(|w| w.chars().any(char::is_alphabetic)) {
                add_word_sequence(&mut out, &words);
            }
            add_digits(&mut out, &digits);
        }
    }
    out.retain(|k| k.len() > 2);
    out.sort();
    out.dedup();
    out
}

/// A word sequence: its key when short enough to be looked up as one n-gram, and the words
/// joined without spaces ("O'Hara" is also "ohara").
fn add_word_sequence(out: &mut Vec<String>, words: &[String]) {
    if words.is_empty() {
        return;
    }
    let letters: usize = words.iter().map(|w| w.chars().count()).sum();
    if words.len() <= MAX_NGRAM && (letters >= 2) {
        out.push(word_key(words));
    }
    if words.len() > 1 {
        let joined = words.concat();
        if joined.chars().count() >= 4 {
            out.push(word_key(&[joined]));
        }
    }
}

fn add_digits(out: &mut Vec<String>, digits: &str) {
    if digits.len() < MIN_DIGITS {
        return;
    }
    out.push(digit_key(
        &digits[digits.len().saturating_sub(MAX_DIGITS)..],
    ));
    // A number written without its country code or trunk prefix.
    for tail in [10, 9] {
        if digits.len() > tail {
            out.push(digit_key(&digits[digits.len() - tail..]));
        }
    }
}

/// A span of outgoing text and the key it is looked up by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The key.
    pub key: String,
    /// Byte offset of the start.
    pub start: usize,
    /// Byte offset of the end.
    pub end: usize,
}

/// A run of digit groups ("+1 (617) 555-0199", "999.12.3456", "617_555_0199").
static DIGIT_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\+?\(?\d+\)?(?:[ .\-_/\u{00A0}]{1,3}\(?\d+\)?)*").expect("valid regex")
});

/// Every key `text` could match the vault by.
pub fn candidates(text: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    let date_mentions = dates::find(text);
    let in_date = |start: usize, end: usize| {
        date_mentions
            .iter()
            .any(|m| start >= m.start && end <= m.end)
    };
    for m in &date_mentions {
        if m.precision == dates::Precision::Day {
            for day in &m.candidates {
                out.push(Candidate {
                    key: day_key(*day),
                    start: m.start,
                    end: m.end,
                });
            }
        }
    }
    // Words outside dates ("May" in "May 2015" is a month, not a name), as n-grams.
    let tokens: Vec<text::Token> = text::tokens(text)
        .into_iter()
        .filter(|t| !in_date(t.start, t.end))
        .collect();
    for i in 0..tokens.len() {
        for n in 1..=MAX_NGRAM.min(tokens.len() - i) {
            let window = &tokens[i..i + n];
            // n-grams only over words that follow one another in the text (no line break).
            if n > 1 && text[window[n - 2].end..window[n - 1].start].contains('\n') {
                break;
            }
            let words: Vec<String> = window.iter().map(|t| t.text.clone()).collect();
            let (start, end) = (window[0].start, window[n - 1].end);
            out.push(Candidate {
                key: word_key(&words),
                start,
                end,
            });
            if n > 1 {
                out.push(Candidate {
                    key: word_key(&[words.concat()]),
                    start,
                    end,
                });
            } else {
                let stripped = text::strip_digits(&words[0]);
                if stripped != words[0] && stripped.chars().count() >= 2 {
                    out.push(Candidate {
                        key: word_key(&[stripped]),
                        start,
                        end,
                    });
                }
            }
        }
    }
    // Digit windows of every digit run, whatever the separators.
    for run in DIGIT_RUN.find_iter(text) {
        let digits = text::digits(run.as_str());
        if digits.len() < MIN_DIGITS {
            continue;
        }
        let mut seen = HashSet::new();
        for len in MIN_DIGITS..=digits.len().min(MAX_DIGITS) {
            for start in 0..=digits.len() - len {
                let window = &digits[start..start + len];
                if seen.insert(window) {
                    out.push(Candidate {
                        key: digit_key(window),
                        start: run.start(),
                        end: run.end(),
                    });
                }
            }
        }
    }
    out
}

/// Where vault keys are looked up.
#[async_trait]
pub trait VaultIndex: Send + Sync {
    /// The keys among `keys` that belong to the vault, with the kind of value they come from.
    async fn lookup(&self, keys: &[String]) -> Result<HashMap<String, PhiKind>, GuardError>;
}

/// Errors of the guard (its index could not be read: worth a retry).
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// The database holding the vault index failed.
    #[error("vault index: {0}")]
    Index(#[from] sqlx::Error),
}

/// A vault index in memory, for unit tests and small tools.
#[derive(Debug, Default)]
pub struct MemoryVault {
    keys: HashMap<String, PhiKind>,
}

impl MemoryVault {
    /// Indexes `(kind, value)` entries.
    pub fn new<'a>(entries: impl IntoIterator<Item = (PhiKind, &'a str)>) -> Self {
        let mut keys = HashMap::new();
        for (kind, value) in entries {
            for key in vault_keys(kind, value) {
                keys.entry(key).or_insert(kind);
            }
        }
        MemoryVault { keys }
    }
}

#[async_trait]
impl VaultIndex for MemoryVault {
    async fn lookup(&self, keys: &[String]) -> Result<HashMap<String, PhiKind>, GuardError> {
        Ok(keys
            .iter()
            .filter_map(|k| self.keys.get(k).map(|kind| (k.clone(), *kind)))
            .collect())
    }
}

/// The vault index in PostgreSQL (`vault_keys`, filled at ingest, one B-tree lookup of every
/// key of an answer).
pub struct PgVault {
    pool: sqlx::PgPool,
}

impl PgVault {
    /// An index over the store's `vault_keys` table.
    pub fn new(pool: sqlx::PgPool) -> Self {
        PgVault { pool }
    }
}

#[async_trait]
impl VaultIndex for PgVault {
    async fn lookup(&self, keys: &[String]) -> Result<HashMap<String, PhiKind>, GuardError> {
        if keys.is_empty() {
            return Ok(HashMap::new());
        }
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT key, kind FROM vault.guard_kinds($1)")
                .bind(keys)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(key, kind)| PhiKind::parse(&kind).map(|k| (key, k)))
            .collect())
    }
}

/// An FDA application number (NDA, ANDA, BLA and six digits), as RxNorm writes it in a branded
/// drug's name: only right before a dose with its unit ("NDA020800 0.3 ML"), so that nothing
/// else shaped like one is let through.
static DRUG_APPLICATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(NDA|ANDA|BLA)(\d{6})(\s\d+(?:\.\d+)?\s?(?:ML|MG|MCG|UNT|HR|MEQ|ACTUAT)\b)")
        .expect("valid regex")
});

/// Generic PII patterns, independent of the vault.
static PII_PATTERNS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    let compile = |p: &str| Regex::new(p).expect("valid regex");
    vec![
        (
            "email",
            compile(r"(?i)[\p{L}\p{N}._%+\-]+\s*(?:@|\(at\)|\[at\])\s*[\p{L}\p{N}.\-]+\.[a-z]{2,}"),
        ),
        (
            "url",
            compile(
                r"(?i)\b(?:https?://|ftp://|www\.)[^\s<>]+|\b[a-z0-9\-]+\.(?:com|org|net|edu|gov|io|info|health|nhs\.uk|co\.uk)\b(?:/[^\s<>]*)?",
            ),
        ),
        (
            "uuid",
            compile(r"(?i)\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b"),
        ),
        (
            "ip_address",
            compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b|(?i)\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b"),
        ),
        (
            "iban",
            compile(r"(?i)\b[a-z]{2}\d{2}(?:[ \-]?[a-z0-9]{4}){2,7}(?:[ \-]?[a-z0-9]{1,4})?\b"),
        ),
        (
            "identifier",
            compile(r"(?i)\b(?:[a-z]+[\-]?\d{5,}[a-z0-9]*|\d{5,}[\-]?[a-z]+[a-z0-9]*)\b"),
        ),
    ]
});

/// Spans of `text` that look like PII whatever the vault holds, with their category.
pub fn pii_findings(text: &str) -> Vec<Finding> {
    let view = text::latin_view(text);
    // An FDA application number in a drug's name ("NDA020800 0.3 ML Epinephrine …") names the
    // product, not a person: masked (same length, so offsets hold) before the identifier and
    // digit-run patterns run. The vault check still sees it.
    let view = DRUG_APPLICATION.replace_all(&view, |c: &regex::Captures| {
        format!("{}{}{}", &c[1], "x".repeat(c[2].len()), &c[3])
    });
    let text = view.as_ref();
    let mut found = Vec::new();
    for (name, pattern) in PII_PATTERNS.iter() {
        for m in pattern.find_iter(text) {
            found.push(Finding {
                start: m.start(),
                end: m.end(),
                category: format!("pii:{name}"),
            });
        }
    }
    let days: Vec<dates::DateMention> = dates::find(text)
        .into_iter()
        .filter(|m| m.precision == dates::Precision::Day)
        .collect();
    for run in DIGIT_RUN.find_iter(text) {
        // "2015-03-04" is a day (below), not a phone number.
        let inside_a_day = days
            .iter()
            .any(|m| run.start() >= m.start && run.end() <= m.end);
        if !inside_a_day && text::digits(run.as_str()).len() >= 7 {
            found.push(Finding {
                start: run.start(),
                end: run.end(),
                category: "pii:phone_or_number".into(),
            });
        }
    }
    for m in days {
        found.push(Finding {
            start: m.start,
            end: m.end,
            category: "pii:date".into(),
        });
    }
    found
}

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

/// What the guard did to one answer. Holds counts and categories only, never matched text. It
/// goes to the audit table, never on the answer topic (its counts would tell what the vault
/// holds).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GuardReport {
    /// The checks that ran.
    pub checks: Vec<String>,
    /// Spans redacted.
    pub redactions: usize,
    /// Redactions per category (`vault:full_name`, `pii:phone_or_number`, …).
    pub by_category: BTreeMap<String, usize>,
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

impl<T: Untexted> Guarded<T> {
    /// Sets what the value carries besides text (numbers measured after the guard ran, such as
    /// its own timing). The type of that extra holds no text.
    pub fn set_extra(&mut self, extra: T::Extra) {
        self.value.set_extra(extra);
    }
}

/// A guarded value's part that is not text: numbers set after sealing.
pub trait Untexted {
    /// What may be set after sealing.
    type Extra;
    /// Sets it.
    fn set_extra(&mut self, extra: Self::Extra);
}

/// Something with free text fields the guard must see before it may leave.
pub trait Redactable {
    /// The free-text fields.
    fn texts(&self) -> Vec<String>;
    /// Calls `redact` on every free-text field and stores what it returns.
    fn redact_fields(&mut self, redact: &mut dyn FnMut(&str) -> String);
}

/// The vault matches of a set of texts, looked up at once: scans and redacts those texts
/// without further I/O (the Review agent's checks run on it).
#[derive(Clone, Debug, Default)]
pub struct Scanner {
    matched: HashMap<String, PhiKind>,
}

impl Scanner {
    /// A scanner over matches already looked up.
    pub fn from_matches(matched: HashMap<String, PhiKind>) -> Self {
        Scanner { matched }
    }

    /// Every span of `text` that matches the vault or a PII pattern, merged where they overlap.
    pub fn scan(&self, text: &str) -> Vec<Finding> {
        let mut found: Vec<Finding> = candidates(text)
            .into_iter()
            .filter_map(|c| {
                self.matched.get(&c.key).map(|kind| Finding {
                    start: c.start,
                    end: c.end,
                    category: format!("vault:{}", kind.as_str()),
                })
            })
            .collect();
        found.extend(pii_findings(text));
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
}

/// The guard: a vault index plus the PII patterns.
#[derive(Clone)]
pub struct PrivacyGuard {
    index: Arc<dyn VaultIndex>,
}

impl std::fmt::Debug for PrivacyGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrivacyGuard")
    }
}

impl PrivacyGuard {
    /// A guard over `index`.
    pub fn new(index: Arc<dyn VaultIndex>) -> PrivacyGuard {
        PrivacyGuard { index }
    }

    /// A guard over vault entries held in memory (unit tests, tools).
    pub fn in_memory<'a>(entries: impl IntoIterator<Item = (PhiKind, &'a str)>) -> PrivacyGuard {
        PrivacyGuard::new(Arc::new(MemoryVault::new(entries)))
    }

    /// Looks up every vault key of `texts` at once.
    pub async fn scanner(&self, texts: &[&str]) -> Result<Scanner, GuardError> {
        let mut keys: Vec<String> = texts
            .iter()
            .flat_map(|t| candidates(t))
            .map(|c| c.key)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        Ok(Scanner {
            matched: self.index.lookup(&keys).await?,
        })
    }

    /// Runs every free-text field of `value` through the vault and the PII patterns.
    pub async fn seal<T: Redactable>(&self, mut value: T) -> Result<Guarded<T>, GuardError> {
        let texts = value.texts();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scanner = self.scanner(&refs).await?;
        let mut report = GuardReport {
            checks: vec!["vault".into(), "pii_patterns".into()],
            ..GuardReport::default()
        };
        value.redact_fields(&mut |text| {
            let (redacted, findings) = scanner.redact(text);
            report.redactions += findings.len();
            for f in findings {
                *report.by_category.entry(f.category).or_default() += 1;
            }
            redacted
        });
        Ok(Guarded { value, report })
    }
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

    fn entries() -> Vec<(PhiKind, &'static str)> {
        vec![
            (PhiKind::FullName, "Mr. Ruben688 Medhurst46"),
            (PhiKind::GivenName, "Ruben688"),
            (PhiKind::FamilyName, "Medhurst46"),
            (PhiKind::FamilyName, "Guzmán"),
            (PhiKind::FamilyName, "Smith-Jones"),
            (PhiKind::FamilyName, "Li"),
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
            (PhiKind::ContactName, "Mary Jones"),
            (PhiKind::PersonName, "Dr. Ramiro608 Medina"),
        ]
    }

    fn redacted(text: &str) -> String {
        let guard = PrivacyGuard::in_memory(entries());
        let scanner = futures::executor::block_on(guard.scanner(&[text])).unwrap();
        scanner.redact(text).0
    }

    #[test]
    fn redacts_vault_strings_in_any_spelling() {
        for leak in [
            "Ruben688 Medhurst46",
            "Mr. Ruben Medhurst",
            "ruben medhurst",
            "RUBEN688",
            "Medhurst",
            "Rub\u{200b}en688",
            "Rubеn688",
            "Guzman",
            "GUZMÁN",
            "Smith",
            "Jones",
            "SmithJones",
            "Li",
            "15 November 1991",
            "November 15th, 1991",
            "the 15th of November 1991",
            "11/15/1991",
            "15.11.1991",
            "(555) 378-2854",
            "5553782854",
            "555_378_2854",
            "+1 555 378 2854",
            "Pollich Burg",
            "East Sandwich",
            "02537",
            "999.87.1947",
            "999 87 1947",
            "99936947",
            "085e81c0-7a95-ef02-16ef-aa1b4344deed",
            "Mary",
            "Ramiro",
            "患者Ruben688的",
        ] {
            let text = format!("The answer is {leak}, as requested.");
            let out = redacted(&text);
            assert!(out.contains(REDACTED), "not redacted: {leak} → {out}");
            let folded = text::fold(&out);
            for word in text::words(leak) {
                if word.len() >= 3
                    && !["mr", "the", "of"].contains(&word.as_str())
                    && word.chars().any(|c| c.is_ascii_alphabetic())
                {
                    assert!(!folded.contains(&word), "{word} survived in {out}");
                }
            }
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for clean in [
            "Value is 42 kg. Hamburger.",
            "Rubenesque",
            "Diastolic Blood Pressure is 76 to 83 mm[Hg], 3 readings, March 2015 to May 2016.",
            "Code is 0-10 verbal numeric rating. Onset in August 2011.",
            "Value is 4.7 10*6/uL.",
            "HbA1c is 6.1 %.",
            // An FDA application number in a drug's name, then the dose.
            "Medication is NDA020800 0.3 ML Epinephrine 1 MG/ML Auto-Injector.",
        ] {
            assert_eq!(redacted(clean), clean);
        }
    }

    #[test]
    fn generic_detectors_work_without_a_vault() {
        let guard = PrivacyGuard::in_memory([]);
        for leak in [
            "call 617-555-0199",
            "call +44 20 7946 0958",
            "call (617) 555-0199",
            "mail jane.doe@example.org",
            "see https://example.org/patient/1",
            "SSN 123.45.6789",
            "date of birth: 03/04/1950",
            "born on March 4, 1950",
            "id 9c3f0a4e-1b2c-4d5e-8f90-123456789abc",
            "MRN 1234567890123",
            "IBAN DE89 3704 0044 0532 0130 00",
            "from 192.168.10.24",
            "licence X1234567",
            // The application-number exemption is for that shape alone.
            "MRN NDA1234567",
            "NDA020800 617-555-0199",
            "NDA123456 7890",
            "ref BLA123456-01",
        ] {
            let scanner = futures::executor::block_on(guard.scanner(&[leak])).unwrap();
            let (out, findings) = scanner.redact(leak);
            assert!(!findings.is_empty(), "missed {leak}");
            assert!(out.contains(REDACTED), "{out}");
        }
    }

    #[test]
    fn seal_reports_categories_not_text() {
        struct Answer(String, String);
        impl Redactable for Answer {
            fn texts(&self) -> Vec<String> {
                vec![self.0.clone(), self.1.clone()]
            }
            fn redact_fields(&mut self, redact: &mut dyn FnMut(&str) -> String) {
                self.0 = redact(&self.0);
                self.1 = redact(&self.1);
            }
        }
        let guard = PrivacyGuard::in_memory(entries());
        let sealed = futures::executor::block_on(guard.seal(Answer(
            "Ruben688 lives at 501 Pollich Burg".into(),
            "Call 555-378-2854".into(),
        )))
        .unwrap();
        assert_eq!(sealed.value().0, "[redacted] lives at [redacted]");
        assert_eq!(sealed.value().1, "Call [redacted]");
        assert_eq!(sealed.report().redactions, 3);
        let json = serde_json::to_string(sealed.report()).unwrap();
        assert!(!json.contains("Ruben"), "{json}");
    }

    /// A small deterministic generator (xorshift): property tests without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[(self.next() % items.len() as u64) as usize]
        }
    }

    /// One spelling mutation a person or a model might produce, or an attacker might try.
    fn mutate(word: &str, rng: &mut Rng) -> String {
        const LOOK_ALIKE: [(char, char); 6] = [
            ('a', 'а'),
            ('e', 'е'),
            ('o', 'о'),
            ('c', 'с'),
            ('p', 'р'),
            ('i', 'і'),
        ];
        match rng.next() % 7 {
            0 => word.to_uppercase(),
            1 => word.to_lowercase(),
            2 => {
                // a zero-width space or joiner inside
                let at = word.char_indices().nth(1).map(|(i, _)| i).unwrap_or(0);
                format!(
                    "{}{}{}",
                    &word[..at],
                    rng.pick(&['\u{200b}', '\u{200d}', '\u{2060}', '\u{00ad}']),
                    &word[at..]
                )
            }
            3 => word
                .chars()
                .map(|c| {
                    LOOK_ALIKE
                        .iter()
                        .find(|(l, _)| *l == c)
                        .map(|(_, r)| *r)
                        .unwrap_or(c)
                })
                .collect(),
            4 => word
                .chars()
                .map(|c| match c {
                    'a' => 'á',
                    'e' => 'é',
                    'o' => 'ö',
                    'u' => 'ü',
                    'n' => 'ñ',
                    other => other,
                })
                .collect(),
            5 => word
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        char::from_u32(c as u32 + 0xFEE0).unwrap_or(c)
                    } else {
                        c
                    }
                })
                .collect(),
            _ => word.chars().filter(|c| !c.is_ascii_digit()).collect(),
        }
    }

    /// Property: whatever spelling mutation, separator or script is around it, a vault name, phone
    /// or birth date in an answer is found.
    #[test]
    fn mutated_vault_values_are_always_found() {
        let given = [
            "Ruben688",
            "Guzmán",
            "Siobhán",
            "Nguyen",
            "Oluwaseun",
            "Li",
            "Zoë",
            "Kowalczyk",
            "O'Hara248",
        ];
        let family = [
            "Medhurst46",
            "Smith-Jones",
            "Ng",
            "Abdullah",
            "Østergaard",
            "MacDonald",
        ];
        let mut rng = Rng(0x5EED_1234_ABCD_0001);
        for round in 0..400 {
            let g = rng.pick(&given).to_string();
            let f = rng.pick(&family).to_string();
            let phone = format!(
                "{}{}{}",
                200 + rng.next() % 700,
                100 + rng.next() % 900,
                1000 + rng.next() % 9000
            );
            let (y, m, d) = (
                1930 + rng.next() % 80,
                1 + rng.next() % 12,
                1 + rng.next() % 28,
            );
            let birth = format!("{y}-{m:02}-{d:02}");
            let guard = PrivacyGuard::in_memory([
                (PhiKind::GivenName, g.as_str()),
                (PhiKind::FamilyName, f.as_str()),
                (PhiKind::Phone, phone.as_str()),
                (PhiKind::BirthDate, birth.as_str()),
            ]);
            let sep = *rng.pick(&[" ", "-", ".", "_", "  ", " / "]);
            let phone_written = format!("{}{sep}{}{sep}{}", &phone[..3], &phone[3..6], &phone[6..]);
            let date = chrono::NaiveDate::from_ymd_opt(y as i32, m as u32, d as u32).unwrap();
            let pattern: &&str = rng.pick(&[
                "%-d %B %Y",
                "%B %-d, %Y",
                "%d.%m.%Y",
                "%m/%d/%Y",
                "%Y%m%d",
                "the %-dth of %B %Y",
            ]);
            let date_written = date.format(pattern).to_string();
            let context = *rng.pick(&[
                "The answer is {}.",
                "患者{}的记录",
                "คุณ{}โทร",
                "({})",
                "{}'s file",
            ]);
            for (what, value) in [
                ("given", mutate(&g, &mut rng)),
                ("family", mutate(&f, &mut rng)),
                ("phone", phone_written.clone()),
                ("birth", date_written.clone()),
            ] {
                if value.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
                    continue;
                }
                let text = context.replace("{}", &value);
                let scanner = futures::executor::block_on(guard.scanner(&[&text])).unwrap();
                assert!(
                    !scanner.scan(&text).is_empty(),
                    "round {round}: {what} {value:?} not found in {text:?}"
                );
            }
        }
    }
}
