//! Facts to documents, and documents to chunks that fit the embedding model.
//!
//! A patient has one document per local date (observations, procedures, immunizations and
//! reports of that day) and one summary document (demographic facts that identify no one,
//! conditions, allergies, medications, care plans). Documents are rebuilt from *all* stored facts
//! of their (patient, date), so an EHR feed that sends one new resource at a time and a Synthea
//! archive that sends the whole record both end in the same document. Pure functions.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use sha2::{Digest, Sha256};

use super::flatten::Fact;

/// A fact as read back from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFact {
    /// FHIR resource type.
    pub resource_type: String,
    /// The sentences, without the date.
    pub sentences: String,
    /// For summary facts: the date the fact is about, as written.
    pub event_date: Option<String>,
}

/// A document ready to be chunked and embedded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// `None` for the summary document.
    pub day: Option<NaiveDate>,
    /// First line, repeated at the top of every chunk so a chunk keeps its context.
    pub header: String,
    /// One line per fact (identical facts folded).
    pub lines: Vec<String>,
    /// Indices of the lines that open a section (a kind of fact in a summary): a chunk never
    /// spans two sections, so a new fact of one kind re-cuts, and re-embeds, only the chunks of
    /// its kind, and the other chunks keep their vectors.
    pub sections: Vec<usize>,
}

impl Document {
    /// The whole text: the header and the lines, one per line.
    pub fn text(&self) -> String {
        let mut text = self.header.clone();
        for line in &self.lines {
            text.push('\n');
            text.push_str(line);
        }
        text
    }

    /// sha256 of the text: equal hashes mean nothing to re-embed.
    pub fn content_hash(&self) -> Vec<u8> {
        Sha256::digest(self.text().as_bytes()).to_vec()
    }
}

/// Order of resource types within a document.
fn type_rank(resource_type: &str) -> usize {
    const ORDER: &[&str] = &[
        "Patient",
        "Condition",
        "AllergyIntolerance",
        "MedicationRequest",
        "CarePlan",
        "Device",
        "Encounter",
        "Observation",
        "Procedure",
        "Immunization",
        "DiagnosticReport",
    ];
    ORDER
        .iter()
        .position(|t| *t == resource_type)
        .unwrap_or(ORDER.len())
}

/// The document of one patient's day.
pub fn day_document(day: NaiveDate, facts: &[StoredFact]) -> Document {
    let mut counts: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    for fact in facts.iter().filter(|f| !f.sentences.is_empty()) {
        *counts
            .entry((type_rank(&fact.resource_type), &fact.sentences))
            .or_default() += 1;
    }
    let lines = counts
        .into_iter()
        .map(|((_, sentences), n)| match n {
            1 => sentences.to_string(),
            n => format!("{sentences} Recorded {n} times that day."),
        })
        .collect();
    Document {
        day: Some(day),
        header: format!("Record of {day}."),
        lines,
        sections: Vec::new(),
    }
}

/// The patient's summary document: identical facts are folded into one line with their dates.
pub fn summary_document(facts: &[StoredFact]) -> Document {
    let mut groups: BTreeMap<(usize, &str, &str), Vec<&str>> = BTreeMap::new();
    for fact in facts.iter().filter(|f| !f.sentences.is_empty()) {
        let dates = groups
            .entry((
                type_rank(&fact.resource_type),
                &fact.resource_type,
                &fact.sentences,
            ))
            .or_default();
        if let Some(date) = fact.event_date.as_deref() {
            dates.push(date.get(..10).unwrap_or(date));
        }
    }
    let mut sections = Vec::new();
    let mut previous_rank = None;
    let lines = groups
        .into_iter()
        .enumerate()
        .map(|(index, ((rank, resource_type, sentences), mut dates))| {
            if previous_rank != Some(rank) {
                sections.push(index);
                previous_rank = Some(rank);
            }
            dates.sort_unstable();
            let label = match resource_type {
                "Condition" => "Onset",
                "MedicationRequest" => "Prescribed",
                "CarePlan" => "Started",
                _ => "Recorded",
            };
            match dates.as_slice() {
                [] => sentences.to_string(),
                [only] => format!("{sentences} {label} on {only}."),
                [first, .., last] => format!(
                    "{sentences} {label} {} times, first on {first}, last on {last}.",
                    dates.len()
                ),
            }
        })
        .collect();
    Document {
        day: None,
        sections,
        header: "Summary of the patient's record.".into(),
        lines,
    }
}

/// The documents a set of facts yields, keyed by (patient logical id, day), computed in memory
/// exactly as the store computes them (one fact per resource, the last one wins). Used by
/// evaluation and tests as an oracle for what the store must hold.
pub fn build_all<'a>(
    facts: impl IntoIterator<Item = &'a Fact>,
) -> BTreeMap<(String, Option<NaiveDate>), Document> {
    // One fact per resource, as the store keeps them: a resource sent again (under the same
    // or another patient) replaces the earlier one.
    let mut unique: BTreeMap<(&str, &str), &Fact> = BTreeMap::new();
    for fact in facts {
        unique.insert((fact.resource_type, &fact.resource_id), fact);
    }
    let mut grouped: BTreeMap<(String, Option<NaiveDate>), Vec<StoredFact>> = BTreeMap::new();
    for fact in unique.into_values() {
        grouped
            .entry((fact.patient.clone(), fact.day))
            .or_default()
            .push(StoredFact {
                resource_type: fact.resource_type.to_string(),
                sentences: fact.sentences.clone(),
                event_date: fact.event_date.clone(),
            });
    }
    grouped
        .into_iter()
        .map(|((patient, day), facts)| {
            let document = match day {
                Some(day) => day_document(day, &facts),
                None => summary_document(&facts),
            };
            ((patient, day), document)
        })
        .collect()
}

/// What the store must hold after these messages, computed in memory by the pure stages: the
/// oracle of the integration tests and of the reliability campaign. Messages in order: each
/// one's retractions (deletions, entered-in-error, a Patient retraction for all of a patient's
/// facts), then its facts (a resource sent again replaces the earlier one, whatever its
/// patient). Messages that do not parse count for nothing, as in the store.
pub fn expected_documents(messages: &[Vec<u8>]) -> BTreeMap<(String, Option<NaiveDate>), Document> {
    use super::flatten::{flatten_parsed, FreeText};
    use super::parse::{parse_message, ParseLimits};
    let mut facts: BTreeMap<(String, &'static str, String), Fact> = BTreeMap::new();
    for bytes in messages {
        let Ok(parsed) = parse_message(bytes, ParseLimits::default()) else {
            continue;
        };
        let flat = flatten_parsed(&parsed, FreeText::Drop);
        for r in &flat.retractions {
            facts.retain(|(source, resource_type, resource_id), fact| {
                *source != flat.source
                    || if r.resource_type == "Patient" {
                        fact.patient != r.resource_id
                    } else {
                        *resource_type != r.resource_type || *resource_id != r.resource_id
                    }
            });
        }
        for fact in flat.facts {
            facts.insert(
                (
                    flat.source.clone(),
                    fact.resource_type,
                    fact.resource_id.clone(),
                ),
                fact,
            );
        }
    }
    build_all(facts.values())
}

/// Splits a document into chunks of at most `max_tokens` tokens (as counted by `count`), at line
/// boundaries and at every section start, each starting with the header. A single line longer
/// than the budget becomes a chunk of its own (the model truncates it).
pub fn chunk(document: &Document, max_tokens: usize, count: impl Fn(&str) -> usize) -> Vec<String> {
    let header_tokens = count(&document.header);
    let mut chunks = Vec::new();
    let mut current = document.header.clone();
    let mut current_tokens = header_tokens;
    let mut has_lines = false;
    for (index, line) in document.lines.iter().enumerate() {
        let tokens = count(line);
        let section_starts = document.sections.binary_search(&index).is_ok();
        if has_lines && (section_starts || current_tokens + tokens > max_tokens) {
            chunks.push(std::mem::replace(&mut current, document.header.clone()));
            current_tokens = header_tokens;
        }
        current.push('\n');
        current.push_str(line);
        current_tokens += tokens;
        has_lines = true;
    }
    chunks.push(current);
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(resource_type: &str, sentences: &str, date: Option<&str>) -> StoredFact {
        StoredFact {
            resource_type: resource_type.into(),
            sentences: sentences.into(),
            event_date: date.map(str::to_string),
        }
    }

    #[test]
    fn day_document_orders_by_type_and_folds_duplicates() {
        let day = NaiveDate::from_ymd_opt(2012, 3, 2).unwrap();
        let doc = day_document(
            day,
            &[
                fact("Procedure", "Procedure is Dental care.", None),
                fact(
                    "Observation",
                    "Code is Body Height. Value is 173.9 cm.",
                    None,
                ),
                fact(
                    "Observation",
                    "Code is Body Height. Value is 173.9 cm.",
                    None,
                ),
            ],
        );
        assert_eq!(
            doc.text(),
            "Record of 2012-03-02.\nCode is Body Height. Value is 173.9 cm. Recorded 2 times that day.\nProcedure is Dental care."
        );
    }

    #[test]
    fn summary_folds_repeated_prescriptions_into_a_date_range() {
        let doc = summary_document(&[
            fact(
                "MedicationRequest",
                "Medication is Aspirin.",
                Some("2015-01-01T10:00:00-05:00"),
            ),
            fact(
                "MedicationRequest",
                "Medication is Aspirin.",
                Some("2011-06-01T10:00:00-05:00"),
            ),
            fact(
                "MedicationRequest",
                "Medication is Aspirin.",
                Some("2013-02-01T10:00:00-05:00"),
            ),
            fact(
                "Condition",
                "Condition is Hypertension.",
                Some("2010-03-01"),
            ),
            fact("Patient", "Gender is female.", None),
        ]);
        assert_eq!(
            doc.lines,
            vec![
                "Gender is female.",
                "Condition is Hypertension. Onset on 2010-03-01.",
                "Medication is Aspirin. Prescribed 3 times, first on 2011-06-01, last on 2015-01-01.",
            ]
        );
    }

    #[test]
    fn chunks_respect_the_budget_and_repeat_the_header() {
        let doc = Document {
            day: None,
            header: "H.".into(),
            lines: vec!["a b c".into(), "d e".into(), "f g h i".into(), "j".into()],
            sections: Vec::new(),
        };
        let words = |s: &str| s.split_whitespace().count();
        let chunks = chunk(&doc, 6, words);
        assert_eq!(chunks, vec!["H.\na b c\nd e", "H.\nf g h i\nj"]);
        for c in &chunks {
            assert!(words(c) <= 6);
        }
        // A line over the budget stands alone rather than being lost.
        let long = Document {
            day: None,
            header: "H.".into(),
            lines: vec!["x x x x x x x x".into(), "y".into()],
            sections: Vec::new(),
        };
        assert_eq!(chunk(&long, 4, words), vec!["H.\nx x x x x x x x", "H.\ny"]);
    }

    #[test]
    fn a_new_fact_in_a_summary_leaves_the_chunks_of_other_kinds_as_they_were() {
        let words = |s: &str| s.split_whitespace().count();
        let mut facts = vec![
            fact("Patient", "Gender is female.", None),
            fact("Condition", "Condition is Asthma.", Some("2001-01-01")),
            fact(
                "Condition",
                "Condition is Hypertension.",
                Some("2005-01-01"),
            ),
            fact(
                "MedicationRequest",
                "Medication is Aspirin.",
                Some("2015-01-01"),
            ),
            fact(
                "MedicationRequest",
                "Medication is Insulin.",
                Some("2016-01-01"),
            ),
        ];
        let before = chunk(&summary_document(&facts), 40, words);
        // One chunk per kind here (the budget holds each kind whole).
        assert_eq!(before.len(), 3, "{before:?}");
        assert!(before[1].contains("Asthma") && before[1].contains("Hypertension"));
        facts.push(fact(
            "Condition",
            "Condition is Bronchitis.",
            Some("2010-01-01"),
        ));
        let after = chunk(&summary_document(&facts), 40, words);
        assert_eq!(after.len(), 3);
        assert_eq!(after[0], before[0]);
        assert_ne!(after[1], before[1]);
        assert!(after[1].contains("Bronchitis"));
        assert_eq!(after[2], before[2], "the medications' chunk is untouched");
    }

    #[test]
    fn content_hash_changes_with_the_text_only() {
        let a = summary_document(&[fact(
            "Condition",
            "Condition is Asthma.",
            Some("2001-01-01"),
        )]);
        let b = summary_document(&[fact(
            "Condition",
            "Condition is Asthma.",
            Some("2001-01-01"),
        )]);
        let c = summary_document(&[fact(
            "Condition",
            "Condition is Asthma.",
            Some("2001-01-02"),
        )]);
        assert_eq!(a.content_hash(), b.content_hash());
        assert_ne!(a.content_hash(), c.content_hash());
    }
}
