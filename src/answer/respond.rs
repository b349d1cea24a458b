//! Answering from the synthetic document only: prompts for a model, and the deterministic
//! template used without one (or when the model fails).

use super::document::SyntheticDocument;
use super::question::{AnswerForm, QuestionAnalysis};
use super::review::Reviewed;
use crate::llm::{ChatMessage, ChatRequest};

/// What a model says when the document does not answer the question.
pub const NOT_FOUND_MARKER: &str = "NOT FOUND";

/// Most lines the template repeats.
const TEMPLATE_LINES: usize = 40;

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

/// Sentences of the record that say nothing a reader needs: the category of an ordinary
/// observation, a completed status, an order's intent, a confirmed diagnosis.
const BOILERPLATE: &[&str] = &[
    "Category is vital-signs",
    "Category is laboratory",
    "Category is survey",
    "Category is exam",
    "Category is procedure",
    "Category is social-history",
    "Category is imaging",
    "Category is therapy",
    "Category is activity",
    "Status is completed",
    "Status is final",
    "Status is finished",
    "Intent is order",
    "Verification status is confirmed",
    "Category is Encounter Diagnosis",
];

/// One synthetic line as a sentence: "The patient, January 2012: Category is vital-signs. Code is
/// Heart rate. Value is 69 /min." → ("The patient", "Heart rate was 69 /min (January 2012).").
fn readable(line: &str) -> (String, String) {
    let (head, body) = line.split_once(": ").unwrap_or(("", line));
    let (owner, period) = head.split_once(", ").unwrap_or((head, ""));
    // "January 2013 to March 2020 (5 readings)" → the period, and the count.
    let (period, readings) = match period.split_once(" (") {
        Some((p, rest)) => (p, rest.trim_end_matches(')')),
        None => (period, ""),
    };
    let mut parts: Vec<String> = Vec::new();
    let mut pending_code: Option<String> = None;
    for sentence in body.trim().trim_end_matches('.').split(". ") {
        let sentence = sentence.trim();
        if sentence.is_empty() || BOILERPLATE.contains(&sentence) {
            continue;
        }
        if let Some(code) = sentence.strip_prefix("Code is ") {
            if let Some(code) = pending_code.replace(code.to_string()) {
                parts.push(code);
            }
            continue;
        }
        match (pending_code.take(), sentence.strip_prefix("Value is ")) {
            (Some(code), Some(value)) => parts.push(format!("{code} was {value}")),
            (Some(code), None) => {
                parts.push(code);
                parts.push(sentence.to_string());
            }
            (None, _) => parts.push(sentence.to_string()),
        }
    }
    parts.extend(pending_code);
    let mut text = blood_pressure_as_written(&parts.join(", "));
    let when = match (period, readings) {
        ("" | "overall record", "") => String::new(),
        (p, "") => format!(" ({p})"),
        ("" | "overall record", r) => format!(" ({r})"),
        (p, r) => format!(" ({r}, {p})"),
    };
    text.push_str(&when);
    text.push('.');
    (owner.to_string(), text)
}

/// A blood pressure's two components as clinicians write them: "Diastolic Blood Pressure is 115
/// mm[Hg], Systolic Blood Pressure is 157 mm[Hg]" → "Blood pressure is 157/115 mm[Hg] (systolic
/// 157 mm[Hg], diastolic 115 mm[Hg])": the pair, and each part named for a question that asks
/// for one. Only a
/// single reading of each: ranges of several readings do not pair (the lowest systolic and the
/// lowest diastolic may be different readings), so they stay apart.
fn blood_pressure_as_written(text: &str) -> String {
    static PAIRS: std::sync::LazyLock<[regex::Regex; 2]> = std::sync::LazyLock::new(|| {
        [
            r"(?:Blood Pressure, )?Diastolic Blood Pressure (?P<v>is|was) (?P<d>[0-9.]+) (?P<u>\S+), Systolic Blood Pressure (?:is|was) (?P<s>[0-9.]+) \S+",
            r"(?:Blood Pressure, )?Systolic Blood Pressure (?P<v>is|was) (?P<s>[0-9.]+) (?P<u>\S+), Diastolic Blood Pressure (?:is|was) (?P<d>[0-9.]+) \S+",
        ]
        .map(|p| regex::Regex::new(p).expect("valid pattern"))
    });
    let mut out = text.to_string();
    for pattern in PAIRS.iter() {
        out = pattern
            .replace_all(
                &out,
                "Blood pressure ${v} ${s}/${d} ${u} (systolic ${s} ${u}, diastolic ${d} ${u})",
            )
            .into_owned();
    }
    out
}

/// Whether a document holds what a yes/no question asks about: a fact naming one of the
/// phrases it asks about (its reasons and occasions aside, [`QuestionAnalysis::yes_support`]),
/// of the kind it
/// names ("prescribed": a medication) when it names one. A question that names only a kind ("is
/// she on any meds?") is answered by any fact of that kind.
pub fn supports_yes(document: &SyntheticDocument, analysis: &QuestionAnalysis) -> bool {
    let items = analysis.yes_support();
    let kind = analysis.named_kind();
    let asks_concept = super::question::asks_concept(&items);
    // Nothing the records name and no kind of fact ("has she ever broken anything?" read
    // without a concept): no fact can stand for a yes.
    if !asks_concept && kind.is_none() && super::question::asked_kind_only(&items).is_none() {
        return false;
    }
    let asks_plan = analysis.terms.iter().any(|t| t == "plan");
    document.lines.iter().any(|line| {
        // A care plan is named after what it manages ("Diabetes self management plan" of a
        // prediabetic): it stands for a yes only when a plan is what is asked.
        let of_the_kind = match kind {
            Some(opening) => line.contains(opening),
            None => !line.contains("Care plan is ") || asks_plan,
        };
        of_the_kind
            && (!asks_concept
                || super::question::names_concept(&items, &super::question::line_terms(line))
                    && !negates(line, &items))
    })
}

/// Whether a line says an item asked about in the negative ("Marital status is Never
/// Married", "Never smoker" for "is he married?", "does she smoke?"): no yes stands on it.
fn negates(line: &str, items: &QuestionAnalysis) -> bool {
    let words = crate::text::words(line);
    words.windows(2).any(|pair| {
        matches!(pair[0].as_str(), "never" | "no" | "not" | "non")
            && super::question::line_terms(&pair[1])
                .iter()
                .any(|t| items.terms.contains(t))
    })
}

/// The first words of a template answer for the shape of answer the question asks: "Yes." for
/// a yes/no question whose concept the document holds ("Not at present." when it asks about
/// now and every such medication is stopped or condition resolved). The facts follow, so the
/// reader sees what the lead stands on.
pub fn lead(document: &SyntheticDocument, form: AnswerForm, now: bool) -> String {
    match form {
        AnswerForm::Facts => String::new(),
        // A count comes from the whole record (the caller counts it), never from the facts a
        // retrieval happened to bring.
        AnswerForm::Count => String::new(),
        AnswerForm::YesNo => {
            let ended = |l: &String| {
                l.contains("Status is stopped")
                    || l.contains("Status is completed")
                    || l.contains("Clinical status is resolved")
                    || l.contains("Clinical status is inactive")
            };
            // An encounter's status ("finished") says nothing of whether what it was for
            // still holds.
            let statuses: Vec<&String> = document
                .lines
                .iter()
                .filter(|l| l.contains("Status is ") || l.contains("Clinical status is "))
                .filter(|l| !l.contains("Status is finished"))
                .collect();
            let withheld = |l: &String| l.contains(crate::ingest::flatten::WITHHELD_TEXT);
            if let Some(lead) = smoking_lead(document) {
                lead.into()
            } else if !document.lines.is_empty() && document.lines.iter().all(withheld) {
                // "Does he have health insurance?" answered by a free-text value that was not
                // kept: the record holds the question, not its answer.
                "Not known: the record holds this item, but its value is free text, which is \
                 not kept. "
                    .into()
            } else if now && !statuses.is_empty() && statuses.iter().all(|l| ended(l)) {
                "No, not at present (on record, but stopped or resolved). ".into()
            } else {
                "Yes. ".into()
            }
        }
    }
}

/// "Does he smoke?" answered by what the smoking status readings say, not by their presence:
/// "No" when every one says never, "Not at present" when none says the patient smokes and one
/// says former. `None` unless every line of the document is a smoking status reading.
fn smoking_lead(document: &SyntheticDocument) -> Option<&'static str> {
    let lines: Vec<String> = document.lines.iter().map(|l| l.to_lowercase()).collect();
    if lines.is_empty() || !lines.iter().all(|l| l.contains("smoking status")) {
        return None;
    }
    let value = |l: &String| {
        l.split_once("smoking status")
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default()
    };
    let smokes = |v: &str| {
        [
            "current",
            "every day",
            "some day",
            "smokes",
            "light",
            "heavy",
        ]
        .iter()
        .any(|w| v.contains(w))
    };
    let values: Vec<String> = lines.iter().map(value).collect();
    if values
        .iter()
        .any(|v| smokes(v) || !(v.contains("never") || v.contains("former")))
    {
        return None;
    }
    Some(if values.iter().all(|v| v.contains("never")) {
        "No: never a smoker, as recorded. "
    } else {
        "Not at present (a former smoker, as recorded). "
    })
}

/// The deterministic answer: the synthetic document's facts as sentences, introduced as such;
/// the patient's label is said once when every fact is about one patient.
pub fn template_answer(document: &SyntheticDocument) -> String {
    format!(
        "From the de-identified record (values rounded, dates by month): {}",
        template_sentences(document)
    )
}

/// The lines of a document ("owner, period: sentence") as the sentences of a template answer.
pub fn template_sentences(document: &SyntheticDocument) -> String {
    let lines: Vec<(String, String)> = document
        .lines
        .iter()
        .take(TEMPLATE_LINES)
        .map(|l| readable(l.trim()))
        .collect();
    let one_owner = lines.windows(2).all(|w| w[0].0 == w[1].0);
    let mut sentences: Vec<String> = lines
        .into_iter()
        .map(|(owner, text)| {
            if one_owner || owner.is_empty() {
                text
            } else {
                format!("{owner}: {text}")
            }
        })
        .collect();
    if document.lines.len() > TEMPLATE_LINES {
        sentences.push(format!(
            "({} more facts not shown.)",
            document.lines.len() - TEMPLATE_LINES
        ));
    }
    sentences.join(" ")
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

/// Words a reply may use to phrase the document's facts without adding any: the connective
/// words of an answering sentence (with the question reader's stopwords and month names). A content word of four letters or more that is neither here
/// nor in the document nor in the (synthetic) query is something the model added.
const PHRASING_WORDS: &[&str] = &[
    "according",
    "answer",
    "around",
    "based",
    "because",
    "dated",
    "entry",
    "information",
    "last",
    "latest",
    "mentioned",
    "measured",
    "measurement",
    "past",
    "prescribed",
    "questions",
    "question",
    "recent",
    "recently",
    "reading",
    "readings",
    "result",
    "results",
    "says",
    "shows",
    "shown",
    "time",
    "times",
    "within",
    "rounded",
    "de-identified",
    "identified",
    "following",
    "include",
    "includes",
    "including",
    "first",
    "earliest",
    "diagnosed",
    "diagnosis",
    "medication",
    "medications",
    "procedure",
    "procedures",
    "condition",
    "conditions",
    "allergy",
    "allergies",
    "allergic",
    "old",
    "years",
    "aged",
    "age",
    "died",
];

/// Whether every content word a model wrote is the document's, the query's or a phrasing word
/// (plural and possessive endings aside): a model may phrase, never add a fact, and a 135M
/// model's "a type of medication called a statin" is a fact the record did not give.
pub fn words_are_grounded(reply: &str, document: &SyntheticDocument, query: &str) -> bool {
    let stem = |w: &str| -> String {
        let w = w.trim_end_matches("'s").trim_end_matches('\u{2019}');
        w.strip_suffix("es")
            .filter(|s| s.len() >= 4)
            .or_else(|| w.strip_suffix('s').filter(|s| s.len() >= 4))
            .unwrap_or(w)
            .to_string()
    };
    let words = |text: &str| -> std::collections::BTreeSet<String> {
        text.split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '-'))
            .flat_map(|w| w.split('-'))
            .map(|w| stem(&crate::text::fold(w.trim_matches('\''))))
            .filter(|w| w.chars().count() >= 4)
            .collect()
    };
    let mut known = words(&document.text());
    known.extend(words(query));
    known.extend(
        PHRASING_WORDS
            .iter()
            .copied()
            .chain(super::question::STOPWORDS.iter())
            .map(&stem),
    );
    known.extend(
        crate::text::dates::MONTHS
            .iter()
            .map(|m| stem(&m.to_lowercase())),
    );
    words(reply).iter().all(|w| known.contains(w))
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

/// The answer to a cohort role when nothing answers: a group of fewer than `k` patients is never
/// reported, and its words read as unknown, so "nothing found" cannot tell such a group from
/// none, and says so.
pub fn cohort_not_found(k: usize) -> String {
    format!(
        "No information that answers this question was found about a group of at least {k} \
         patients; groups of fewer than {k} are never reported, so this does not tell whether \
         any patient matches."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negated_item_is_no_yes() {
        let document = |line: &str| SyntheticDocument {
            lines: vec![line.to_string()],
            document_ids: Vec::new(),
        };
        let asked =
            |q: &str| super::super::question::analyze(q, &std::collections::BTreeSet::new());
        let single = document("The patient: Gender is female, Marital status is Never Married.");
        assert!(!supports_yes(&single, &asked("is she married?")));
        let married = document("The patient: Gender is female, Marital status is Married.");
        assert!(supports_yes(&married, &asked("is she married?")));
    }

    #[test]
    fn a_care_plan_is_no_diagnosis() {
        let document = |line: &str| SyntheticDocument {
            lines: vec![line.to_string()],
            document_ids: Vec::new(),
        };
        let plan = document(
            "The patient, March 1984: Care plan is assess-plan, Diabetes self management plan. \
             Status is active. Activities are Diabetic diet.",
        );
        let asked =
            |q: &str| super::super::question::analyze(q, &std::collections::BTreeSet::new());
        assert!(!supports_yes(&plan, &asked("is he diabetic?")));
        assert!(supports_yes(
            &plan,
            &asked("has he got a diabetes self-management care plan?")
        ));
        let condition = document(
            "The patient, March 1984: Condition is Diabetes mellitus type 2. Clinical status is \
             active.",
        );
        assert!(supports_yes(&condition, &asked("is he diabetic?")));
    }

    #[test]
    fn a_blood_pressure_reads_as_systolic_over_diastolic() {
        assert_eq!(
            readable("The patient, October 2020: Code is Blood Pressure. Code is Diastolic Blood Pressure. Value is 115 mm[Hg]. Code is Systolic Blood Pressure. Value is 157 mm[Hg].").1,
            "Blood pressure was 157/115 mm[Hg] (systolic 157 mm[Hg], diastolic 115 mm[Hg]) \
             (October 2020)."
        );
        assert_eq!(
            blood_pressure_as_written("Blood Pressure, Diastolic Blood Pressure is 86 mm[Hg], Systolic Blood Pressure is 135 mm[Hg]"),
            "Blood pressure is 135/86 mm[Hg] (systolic 135 mm[Hg], diastolic 86 mm[Hg])"
        );
        // Ranges over several readings do not pair.
        let range = "Blood Pressure, Diastolic Blood Pressure is 111 to 118 mm[Hg], Systolic Blood Pressure is 145 to 161 mm[Hg]";
        assert_eq!(blood_pressure_as_written(range), range);
    }

    #[test]
    fn a_yes_or_no_lead_reads_what_still_holds_and_never_a_withheld_value() {
        let doc = |lines: &[&str]| SyntheticDocument {
            lines: lines.iter().map(|l| l.to_string()).collect(),
            document_ids: Vec::new(),
        };
        let resolved =
            "The patient, May 2021: Condition is Anemia (disorder). Clinical status is resolved.";
        let visit = "The patient, May 2021: Encounter is Encounter for problem. Class is ambulatory. Status is finished. Reason is Anemia (disorder).";
        let active =
            "The patient, May 2021: Condition is Anemia (disorder). Clinical status is active.";
        let yes_no = AnswerForm::YesNo;
        // "Is she still anaemic?": the visit's status says nothing of the anaemia.
        assert!(lead(&doc(&[resolved, visit]), yes_no, true).starts_with("No, not at present"));
        assert_eq!(lead(&doc(&[active, visit]), yes_no, true), "Yes. ");
        assert_eq!(lead(&doc(&[resolved, visit]), yes_no, false), "Yes. ");
        // "Does he have health insurance?" of a free-text value that was not kept.
        let withheld = format!(
            "The patient, December 2018: Category is social-history. Code is Are you covered by health insurance. {}.",
            crate::ingest::flatten::WITHHELD_TEXT
        );
        assert!(lead(&doc(&[&withheld]), yes_no, false).starts_with("Not known"));
        assert_eq!(lead(&doc(&[&withheld, active]), yes_no, false), "Yes. ");
    }

    #[test]
    fn does_he_smoke_is_answered_by_the_status_read() {
        let doc = |lines: &[&str]| SyntheticDocument {
            lines: lines.iter().map(|l| l.to_string()).collect(),
            document_ids: Vec::new(),
        };
        let never = "The patient, January 2014: Code is Tobacco smoking status NHIS. Value is Never smoker.";
        let former =
            "The patient, May 2019: Code is Tobacco smoking status NHIS. Value is Former smoker.";
        let current = "The patient, May 2020: Code is Tobacco smoking status NHIS. Value is Current every day smoker.";
        let yes_no = AnswerForm::YesNo;
        assert!(lead(&doc(&[never, never]), yes_no, false).starts_with("No: never"));
        assert!(lead(&doc(&[never, former]), yes_no, false).starts_with("Not at present"));
        assert_eq!(lead(&doc(&[former, current]), yes_no, false), "Yes. ");
        // Another fact beside the readings: the status alone does not answer.
        let other =
            "The patient, May 2019: Condition is Nicotine dependence. Clinical status is active.";
        assert_eq!(lead(&doc(&[never, other]), yes_no, false), "Yes. ");
    }

    #[test]
    fn a_yes_about_an_allergy_stands_on_an_allergy() {
        let doc = |line: &str| SyntheticDocument {
            lines: vec![line.to_string()],
            document_ids: Vec::new(),
        };
        let none = std::collections::BTreeSet::new();
        let peanuts = crate::answer::question::analyze("is she allergic to peanuts?", &none);
        let lab = "The patient, June 2012: Code is Peanut IgE Ab in Serum. Value is 0.22 kU/L.";
        assert!(!supports_yes(&doc(lab), &peanuts));
        assert!(supports_yes(
            &doc("The patient: Allergy is Peanut (substance). Clinical status is active."),
            &peanuts
        ));
        assert!(!supports_yes(
            &doc("The patient: Refuted allergy (ruled out) is Peanut (substance)."),
            &peanuts
        ));
        let drug_or_food = crate::answer::question::analyze("Any drug or food allergies?", &none);
        assert!(supports_yes(
            &doc("The patient: Allergy is Allergy to fish. Category is food."),
            &drug_or_food
        ));
        let for_allergies =
            crate::answer::question::analyze("is he on any medication for his allergies?", &none);
        assert!(!supports_yes(
            &doc("The patient: Allergy is Allergy to fish. Category is food."),
            &for_allergies
        ));
        // "Allergic rhinitis" is a condition's name, not an allergy asked about.
        let rhinitis = crate::answer::question::analyze("does she have allergic rhinitis?", &none);
        assert!(supports_yes(
            &doc(
                "The patient: Condition is Perennial allergic rhinitis. Clinical status is active."
            ),
            &rhinitis
        ));
    }

    #[test]
    fn a_reply_may_phrase_the_record_but_not_add_to_it() {
        let doc = SyntheticDocument {
            lines: vec![
                "The patient, October 2015: Medication is lisinopril 10 MG Oral Tablet. Status is \
                 stopped. Reason is Hypertension."
                    .into(),
            ],
            document_ids: vec![1],
        };
        let query = "What does the record of the patient say about medications in October 2015?";
        assert!(words_are_grounded(
            "In October 2015 the patient was prescribed lisinopril 10 mg oral tablets for \
             hypertension; it was stopped.",
            &doc,
            query
        ));
        assert!(!words_are_grounded(
            "The patient takes lisinopril, which is a type of medication called a statin.",
            &doc,
            query
        ));
        assert!(!words_are_grounded(
            "The patient's heart rate is higher than the average for the age group.",
            &doc,
            query
        ));
    }

    #[test]
    fn template_lists_the_synthetic_lines() {
        let doc = SyntheticDocument {
            lines: vec!["Patient ABCDE, March 2015: Value is 80 kg".into()],
            document_ids: vec![1],
        };
        assert_eq!(
            template_answer(&doc),
            "From the de-identified record (values rounded, dates by month): Value is 80 kg (March 2015)."
        );
        let doc = SyntheticDocument {
            lines: vec![
                "Patient A, January 2012: Category is vital-signs. Code is Heart rate. Value is 69 /min.".into(),
                "Patient B, January 2013 to March 2020 (5 readings): Category is vital-signs. Code is Body Weight. Value is 78 to 82 kg.".into(),
                "Patient B, overall record: Condition is Stroke. Clinical status is active. Verification status is confirmed. Onset on October 1989.".into(),
            ],
            document_ids: vec![1],
        };
        assert_eq!(
            template_answer(&doc),
            "From the de-identified record (values rounded, dates by month): Patient A: Heart rate was \
             69 /min (January 2012). Patient B: Body Weight was 78 to 82 kg (5 readings, January 2013 \
             to March 2020). Patient B: Condition is Stroke, Clinical status is active, Onset on October 1989."
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
