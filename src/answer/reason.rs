//! "What is she on for her osteoporosis?", "what procedures did he have for the breast
//! cancer?": the facts a record gives a condition as their reason. Medication requests,
//! procedures and visits say why ("… Reason is Malignant neoplasm of breast"); a question that
//! gives a reason after "for" asks for the facts of one kind (or naming one concept) whose
//! reason is that condition, not for the condition itself, nor for every fact that mentions it.

use std::collections::BTreeSet;

use chrono::NaiveDate;

use super::question::{
    holds_term, is_concept, is_of_kind, kind_term, line_terms, names_concept, QuestionAnalysis,
};
use super::search::RetrievedDocument;

/// What a question asks for a reason: the reason's phrases, what the facts must be, and how
/// the question named them.
#[derive(Debug, PartialEq)]
pub struct ForReason {
    /// Each condition it gives as a reason, as the terms a fact's reason must hold (a lexicon
    /// class stands for each of its members: "COPD", chronic obstructive bronchitis or
    /// pulmonary emphysema).
    pub reasons: Vec<Vec<String>>,
    /// The kind of fact asked for ("Medication is"), when it names one; a question that names
    /// neither a kind nor a concept ("what is she on for …") asks for medications.
    pub opening: Option<&'static str>,
    /// The question without its reasons, when it names a concept of its own ("which
    /// antibiotic for her ear infection": an antibiotic).
    pub items: Option<QuestionAnalysis>,
}

impl ForReason {
    /// None when the question gives no reason, or names something else than a kind or a
    /// concept to look for (a question about the condition itself).
    pub fn read(analysis: &QuestionAnalysis) -> Option<ForReason> {
        if analysis.asks_cause {
            return None;
        }
        // A phrase's words that name something ("malignant neoplasm breast").
        let content = |phrase: &[String]| -> Vec<String> {
            phrase
                .iter()
                .filter(|t| is_concept(t) && t.as_str() != "of")
                .cloned()
                .collect()
        };
        // "Ear infection 2014 - what abx?", "antibiotics in the ICU?": a class asked for beside
        // another concept, with no "for": that concept is the occasion, as a reason would be.
        let given = if analysis.reasons.is_empty() {
            let member = |p: &Vec<String>| {
                let concept = content(p);
                !concept.is_empty() && concept.iter().all(|t| analysis.is_class_member(t))
            };
            let others: Vec<Vec<String>> = analysis
                .phrases
                .iter()
                .filter(|p| !content(p).is_empty() && !member(p))
                .cloned()
                .collect();
            let asks_a_class = analysis.phrases.iter().any(member);
            if !asks_a_class || analysis.form == super::question::AnswerForm::Count {
                return None;
            }
            others
        } else {
            analysis.reasons.clone()
        };
        let mut reasons: Vec<Vec<String>> = Vec::new();
        for reason in &given {
            let concept = content(reason);
            if concept.is_empty() {
                continue;
            }
            // A class the lexicon rewrote: each member is the reason, as the question meant.
            match analysis
                .classes
                .iter()
                .find(|class| class.members.iter().any(|m| content(m) == concept))
            {
                Some(class) => reasons.extend(class.members.iter().map(|m| content(m))),
                None => reasons.push(concept),
            }
        }
        if reasons.is_empty() {
            return None;
        }
        // The question without its reasons (and without the other members of their classes).
        let mut items = analysis.clone();
        items.phrases.retain(|p| !reasons.contains(&content(p)));
        items.reasons.clear();
        let opening = items.named_kind();
        let names_concept = items.phrases.iter().flatten().any(|t| is_concept(t));
        // "Was he on metformin for the diabetes?", "still getting norco for her back?": a drug
        // named is asked about whatever reason its record gives (often none); a class ("which
        // antibiotic for …") is looked for among the facts given for the reason.
        let names_a_class_only = items
            .phrases
            .iter()
            .flatten()
            .filter(|t| is_concept(t))
            .all(|t| items.is_class_member(t));
        if names_concept && !names_a_class_only {
            return None;
        }
        Some(ForReason {
            reasons,
            opening: opening.or((!names_concept).then_some("Medication is")),
            items: names_concept.then_some(items),
        })
    }

    /// Whether the sentence after `marker` in `sentences` holds one of the reasons whole.
    fn names_a_reason_after(&self, sentences: &str, marker: &str) -> bool {
        let Some(at) = sentences.find(marker) else {
            return false;
        };
        let rest = &sentences[at + marker.len()..];
        let words = line_terms(rest.split(". ").next().unwrap_or(rest));
        self.reasons
            .iter()
            .any(|phrase| phrase.iter().all(|t| holds_term(&words, t)))
    }

    /// Whether a fact's sentences give one of the reasons as their own ("Reason is …").
    pub fn is_reason_of(&self, sentences: &str) -> bool {
        self.names_a_reason_after(sentences, "Reason is ")
    }

    /// Whether a condition's fact names one of the reasons (the condition is on record).
    pub fn names_condition(&self, sentences: &str) -> bool {
        sentences.starts_with("Condition is ")
            && self.names_a_reason_after(sentences, "Condition is ")
    }

    /// Of `facts`, those asked for: of the kind asked, naming the concept asked when there is
    /// one, and either giving a reason the question gives, or giving none and recorded on a day
    /// the condition was diagnosed or a visit was for it (records often leave the reason out:
    /// a drug started at the diagnosis). With `now`, only the active ones when any is active.
    /// The second value: whether any was chosen by its day alone (the reply says so).
    pub fn select(&self, facts: &[RetrievedDocument], now: bool) -> (Vec<usize>, bool) {
        // The days of the condition, of a visit or a stay for it or named by it ("in the
        // ICU"), and of a procedure named by it ("after his knee op").
        let days: BTreeSet<NaiveDate> = facts
            .iter()
            .filter(|f| {
                self.names_condition(&f.text)
                    || (f.text.starts_with("Encounter is ")
                        && (self.is_reason_of(&f.text)
                            || self.names_a_reason_after(&f.text, "Encounter is ")))
                    || (f.text.starts_with("Procedure is ")
                        && self.names_a_reason_after(&f.text, "Procedure is "))
            })
            .filter_map(|f| f.day)
            .collect();
        let mut by_day = false;
        let mut chosen: Vec<usize> = (0..facts.len())
            .filter(|i| {
                let sentences = &facts[*i].text;
                let asked = !sentences.starts_with("Encounter is ")
                    && !sentences.starts_with("Condition is ")
                    && self.opening.is_none_or(|o| is_of_kind(sentences, o))
                    && self
                        .items
                        .as_ref()
                        .is_none_or(|items| names_concept(items, &line_terms(sentences)));
                if !asked {
                    return false;
                }
                if self.is_reason_of(sentences) {
                    return true;
                }
                let of_the_day = !sentences.contains("Reason is ")
                    && facts[*i].day.is_some_and(|d| days.contains(&d));
                by_day |= of_the_day;
                of_the_day
            })
            .collect();
        if now {
            let active = |i: &usize| facts[*i].text.contains("tatus is active");
            if chosen.iter().any(active) {
                chosen.retain(active);
            }
        }
        (chosen, by_day)
    }

    /// The kind asked for, as a reply names it.
    pub fn kind_name(&self) -> &'static str {
        self.opening.and_then(kind_term).unwrap_or("medication")
    }
}

/// The earliest day of the chosen facts (when a condition was first recorded).
pub fn first_day(facts: &[RetrievedDocument], chosen: &[usize]) -> Option<NaiveDate> {
    chosen.iter().filter_map(|i| facts[*i].day).min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::question::analyze;

    fn facts() -> Vec<RetrievedDocument> {
        [
            ("2014-12-06", "Condition is Malignant neoplasm of breast (disorder). Clinical status is active."),
            ("2014-12-15", "Procedure is Lumpectomy of breast (procedure). Status is completed. Reason is Malignant neoplasm of breast (disorder)."),
            ("2014-12-06", "Procedure is Mammogram - symptomatic (procedure). Status is completed."),
            ("2015-02-16", "Medication is anastrozole 1 MG Oral Tablet. Status is stopped. Intent is order. Reason is Malignant neoplasm of breast (disorder)."),
            ("2013-05-01", "Medication is Amoxicillin 250 MG Oral Capsule. Status is stopped. Intent is order. Reason is Otitis media."),
            ("2016-01-01", "Medication is Ibuprofen 400 MG Oral Tablet. Status is active. Intent is order. Reason is Otitis media."),
            ("2015-06-01", "Condition is Osteoporosis (disorder). Clinical status is active."),
            ("2015-06-01", "Medication is Alendronic acid 10 MG Oral Tablet. Status is active. Intent is order."),
            ("2015-06-01", "Medication is lisinopril 10 MG Oral Tablet. Status is active. Intent is order. Reason is Hypertension."),
            ("2017-03-01", "Condition is Chronic pain. Clinical status is active."),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (day, text))| RetrievedDocument {
            document_id: i as i64,
            patient_key: 7,
            day: Some(day.parse().unwrap()),
            text: text.into(),
            score: 1.0,
        })
        .collect()
    }

    fn read(question: &str) -> ForReason {
        let names: BTreeSet<String> = ["yang".to_string()].into();
        let analysis = analyze(question, &names);
        ForReason::read(&analysis).unwrap_or_else(|| panic!("{question}: {analysis:?}"))
    }

    #[test]
    fn the_facts_whose_reason_the_question_gives() {
        let facts = facts();
        let procedures = read("What procedures did Yang have for her breast cancer?");
        assert_eq!(procedures.opening, Some("Procedure is"));
        // The lumpectomy for its reason, the mammogram of the diagnosis day; not the
        // anastrozole (a medication).
        assert_eq!(procedures.select(&facts, false), (vec![1, 2], true));
        assert!(procedures.names_condition(&facts[0].text));
        let names: BTreeSet<String> = ["yang".to_string()].into();
        let drug = analyze("was Yang on anastrozole for the breast cancer?", &names);
        assert_eq!(
            ForReason::read(&drug),
            None,
            "a drug named is asked about as such"
        );

        // A drug started the day of the diagnosis, with no reason recorded; not the one of that
        // day given for another reason.
        let on = read("what's Yang on for the osteoporosis?");
        assert_eq!(on.opening, Some("Medication is"));
        assert_eq!(on.select(&facts, false), (vec![7], true));
        let pain = read("what is Yang taking for her chronic pain?");
        assert!(pain.select(&facts, false).0.is_empty());
        assert!(pain.names_condition(&facts[9].text));

        // A concept of its own: an antibiotic, not the painkiller given for the same reason.
        let antibiotic = read("which antibiotic did Yang get for her ear infection?");
        assert_eq!(antibiotic.select(&facts, false), (vec![4], false));
        let meds = read("what meds is Yang on for the ear infection now?");
        assert_eq!(meds.select(&facts, true), (vec![5], false));
    }

    #[test]
    fn a_class_beside_an_occasion_asks_what_was_given_then() {
        let facts = facts();
        // No "for": the ear infection is the occasion of the antibiotic asked for.
        let antibiotic = read("Yang: ear infection 2013 - what abx?");
        assert_eq!(antibiotic.select(&facts, false), (vec![4], false));
        // A stay named by its ward: what was given the day it began.
        let mut facts = facts;
        for (id, text) in [
            (
                10,
                "Encounter is Admission to intensive care unit (procedure). Class is inpatient.",
            ),
            (
                11,
                "Medication is vancomycin 1000 MG Injection. Status is active. Intent is order.",
            ),
        ] {
            facts.push(RetrievedDocument {
                document_id: id,
                patient_key: 7,
                day: Some("2020-03-02".parse().unwrap()),
                text: text.into(),
                score: 1.0,
            });
        }
        let icu = read("Yang - antibiotics in the ICU?");
        assert_eq!(icu.select(&facts, false), (vec![11], true));
        // A class alone, or a count, names no occasion.
        let names: BTreeSet<String> = ["yang".to_string()].into();
        for question in [
            "which antibiotics has Yang had?",
            "how many antibiotics in the ICU?",
        ] {
            assert_eq!(
                ForReason::read(&analyze(question, &names)),
                None,
                "{question}"
            );
        }
    }

    #[test]
    fn a_question_about_the_condition_itself_gives_no_reason() {
        let names: BTreeSet<String> = ["yang".to_string()].into();
        for question in [
            "When was Yang diagnosed with breast cancer?",
            "Why was Yang in the ER in 2017?",
        ] {
            assert_eq!(
                ForReason::read(&analyze(question, &names)),
                None,
                "{question}"
            );
        }
    }
}
