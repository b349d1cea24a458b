//! "How long was she in with covid?", "LOS for his appendicitis admission", "days in ICU
//! before she died": how long a hospital stay lasted. A record keeps one encounter per ward
//! (isolation, then intensive care, then observation), each stored with its length in days
//! ("Length of stay is 8 days"); one stay is the run of encounters each starting the day the
//! one before it ended. The stay asked about is the span of its encounters that name what the
//! question names: the intensive-care part when it asks about the ICU, the whole run when it
//! asks about the covid admission (every ward gives covid as its reason).

use chrono::{Duration, NaiveDate};

use super::search::RetrievedDocument;

/// One encounter of a stay: its start, its length, and what the record calls it and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub day: NaiveDate,
    pub days: i64,
    /// "Admission to intensive care unit (procedure)".
    pub name: String,
    /// "COVID-19", when the encounter gives a reason.
    pub reason: Option<String>,
    /// Whether it names what the question asks about.
    pub asked: bool,
}

impl Part {
    fn end(&self) -> NaiveDate {
        self.day + Duration::days(self.days)
    }
}

/// The length a stay's sentences give ("Length of stay is 9 days"), in days.
pub fn length(sentences: &str) -> Option<i64> {
    let rest = sentences.split("Length of stay is ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// The value after `subject is ` in a fact's sentences, up to the sentence's end.
fn said(sentences: &str, subject: &str) -> Option<String> {
    let rest = sentences.split(&format!("{subject} is ")).nth(1)?;
    let value = rest.split(". ").next()?.trim_end_matches('.').trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// The encounters of `facts` that have a length, as parts (`asked`: whether a fact's sentences
/// name what the question asks about), oldest first.
pub fn parts(facts: &[RetrievedDocument], asked: impl Fn(&str) -> bool) -> Vec<Part> {
    let mut parts: Vec<Part> = facts
        .iter()
        .filter(|f| f.text.starts_with("Encounter is "))
        .filter_map(|f| {
            Some(Part {
                day: f.day?,
                days: length(&f.text)?,
                name: said(&f.text, "Encounter")?,
                reason: said(&f.text, "Reason"),
                asked: asked(&f.text),
            })
        })
        .collect();
    parts.sort_by_key(|p| p.day);
    parts
}

/// The stays asked about: runs of parts each starting the day the one before ended, cut to
/// their asked parts (from the first asked to the last), oldest first. A run with no asked
/// part is no answer.
pub fn stays(parts: &[Part]) -> Vec<Vec<Part>> {
    let mut runs: Vec<Vec<Part>> = Vec::new();
    for part in parts {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|last| last.end() == part.day) => {
                run.push(part.clone())
            }
            _ => runs.push(vec![part.clone()]),
        }
    }
    runs.into_iter()
        .filter_map(|run| {
            let first = run.iter().position(|p| p.asked)?;
            let last = run.iter().rposition(|p| p.asked)?;
            Some(run[first..=last].to_vec())
        })
        .collect()
}

fn days(n: i64) -> String {
    match n {
        1 => "1 day".into(),
        n => format!("{n} days"),
    }
}

/// One stay as a reader says it: "the stay of March 2020 lasted 18 days: Hospital admission
/// for isolation (procedure) 8 days, then Admission to intensive care unit (procedure) 10
/// days; reason COVID-19".
fn stay_sentence(stay: &[Part]) -> String {
    let (Some(first), Some(last)) = (stay.first(), stay.last()) else {
        return String::new();
    };
    let total = (last.end() - first.day).num_days();
    let when = crate::text::dates::month_year(first.day);
    let mut reasons: Vec<&str> = Vec::new();
    for reason in stay.iter().filter_map(|p| p.reason.as_deref()) {
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    let why = match reasons.as_slice() {
        [] => String::new(),
        reasons => format!("; reason {}", reasons.join(", ")),
    };
    match stay {
        [one] => format!(
            "the stay of {when} lasted {} ({}{why})",
            days(total),
            one.name
        ),
        parts => {
            let wards: Vec<String> = parts
                .iter()
                .map(|p| format!("{} {}", p.name, days(p.days)))
                .collect();
            format!(
                "the stay of {when} lasted {} in all: {}{why}",
                days(total),
                wards.join(", then ")
            )
        }
    }
}

/// What the record says of the stays asked about, most recent first; empty when none is.
pub fn sentence(stays: &[Vec<Part>]) -> String {
    let said: Vec<String> = stays.iter().rev().map(|s| stay_sentence(s)).collect();
    match said.as_slice() {
        [] => String::new(),
        [one] => capitalized(one),
        many => format!("{} stays on record: {}", many.len(), many.join("; ")),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(day: &str, text: &str) -> RetrievedDocument {
        RetrievedDocument {
            document_id: 1,
            patient_key: 7,
            day: Some(day.parse().unwrap()),
            text: text.into(),
            score: 1.0,
        }
    }

    fn covid_stay() -> Vec<RetrievedDocument> {
        vec![
            fact("2019-01-28", "Encounter is Emergency room admission (procedure). Class is emergency. Status is finished."),
            fact("2020-03-07", "Encounter is Hospital admission for isolation (procedure). Class is inpatient. Status is finished. Reason is COVID-19. Length of stay is 8 days."),
            fact("2020-03-15", "Encounter is Admission to intensive care unit (procedure). Class is inpatient. Status is finished. Reason is COVID-19. Length of stay is 10 days."),
            fact("2021-06-11", "Encounter is Admission to thoracic surgery department. Class is inpatient. Status is finished. Reason is Pulmonary emphysema (disorder). Length of stay is 1 day."),
        ]
    }

    #[test]
    fn a_stay_is_the_run_of_its_wards() {
        assert_eq!(
            length("Class is inpatient. Length of stay is 12 days."),
            Some(12)
        );
        assert_eq!(length("Class is inpatient."), None);
        let facts = covid_stay();
        // The covid admission: both wards give covid as their reason, one stay of 18 days.
        let covid = stays(&parts(&facts, |s| s.contains("COVID")));
        assert_eq!(covid.len(), 1);
        assert_eq!(
            sentence(&covid),
            "The stay of March 2020 lasted 18 days in all: Hospital admission for isolation \
             (procedure) 8 days, then Admission to intensive care unit (procedure) 10 days; \
             reason COVID-19"
        );
        // The intensive-care part alone, when the question asks about the ICU.
        let icu = stays(&parts(&facts, |s| s.contains("intensive care")));
        assert_eq!(
            sentence(&icu),
            "The stay of March 2020 lasted 10 days (Admission to intensive care unit \
             (procedure); reason COVID-19)"
        );
        // Every stay, most recent first; the emergency visit within a day has no length.
        let all = stays(&parts(&facts, |_| true));
        assert_eq!(all.len(), 2);
        assert!(sentence(&all).starts_with(
            "2 stays on record: the stay of June 2021 lasted 1 day (Admission to thoracic \
             surgery department; reason Pulmonary emphysema (disorder)); the stay of March 2020"
        ));
        assert!(stays(&parts(&facts, |s| s.contains("Appendicitis"))).is_empty());
    }
}
