//! The de-identification step measured on a labelled set (`fhir-rag-harness eval deid`): clinical-note
//! sentences with synthetic identifiers of other people (names of many cultures and scripts,
//! phones of many countries, dates and ages in many spellings, addresses, e-mails, IBANs, IP
//! addresses, record numbers), each identifier labelled where it was put. The sentences are
//! built here from templates and lists written for this evaluation, not from the de-identifier's
//! rules; the vault is empty (these people are in no record), the hardest case.
//!
//! Recall: identifiers none of whose words (or, for numbers, digit groups of four or more)
//! survive. Precision: of the words removed, the share that belonged to an identifier.

use std::collections::BTreeMap;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use fhir_rag::privacy::deid::deidentify;
use fhir_rag::privacy::guard::MemoryVault;

/// Note frames; `{}` is the identifier, `{kind}` says what it is.
const FRAMES: &[(&str, &str)] = &[
    ("name", "Discussed plan with daughter {} at bedside."),
    (
        "name",
        "Patient accompanied by husband {}, who reports improved appetite.",
    ),
    ("name", "Seen together with Dr. {} from cardiology."),
    ("name", "Emergency contact: {}."),
    ("name", "Spoke with son {} by phone regarding discharge."),
    ("name", "{} called to ask about the refill."),
    ("name", "Nurse {} administered the second dose."),
    ("name", "患者の娘{}さんが同席。"),
    ("name", "Interpreter {} present for the visit."),
    ("name", "Lives with partner {} and two children."),
    ("phone", "Call back at {} after 5 pm."),
    ("phone", "Pharmacy phone {} confirmed the order."),
    ("phone", "患者电话 {} 已核实。"),
    ("phone", "Mobile: {}"),
    ("date", "Last seen on {} with stable vitals."),
    ("date", "Date of birth {} confirmed with ID."),
    ("date", "Symptoms began {} per patient."),
    ("email", "Results sent to {} as requested."),
    ("address", "Home visit at {} scheduled."),
    ("address", "Discharged to {} with home health."),
    ("id", "MRN {} verified at intake."),
    ("id", "Insurance member number {} on file."),
    ("id", "Passport {} copied for records."),
    ("iban", "Refund to account {} approved."),
    ("ip", "Portal accessed from {} at night."),
    ("age", "A {} presents with chest pain."),
];

const NAMES: &[&str] = &[
    "Mary Jones",
    "Oluwaseun Adebayo",
    "Siddharth Iyer",
    "Nguyễn Thị Hương",
    "José Guzmán",
    "Björn Ångström",
    "Aisha Al-Farsi",
    "Wang Xiuying",
    "Tomás Ó Briain",
    "Kwame Mensah-Boateng",
    "Yusuf Özdemir",
    "Li Na",
    "Ng Wei Ming",
    "Anastasia Kuznetsova",
    "Chidinma Okafor",
    "Priya Raghavan",
    "Hiroshi Tanaka",
    "Fatima Zahra Benali",
    "Mateus Oliveira",
    "Ewa Kowalczyk",
    "Seo-yeon Park",
    "Dmitri Volkov",
    "Leilani Kahale",
    "Sipho Dlamini",
    "Ingrid Solberg",
];
const NATIVE_NAMES: &[&str] = &[
    "佐藤花子",
    "王秀英",
    "김민준",
    "محمد العلي",
    "Алексей Смирнов",
];
const PHONES: &[&str] = &[
    "617-555-0199",
    "(617) 555 0142",
    "+44 20 7946 0958",
    "+91 98765 43210",
    "0176 2345 6789",
    "+33 1 42 68 53 00",
    "138-0013-8000",
    "+81 3-1234-5678",
    "617.555.0123",
    "+61 2 9374 4000",
    "555_010_7731",
    "+55 11 91234-5678",
];
const DATES: &[&str] = &[
    "4 March 2015",
    "March 4th, 2015",
    "03/04/2015",
    "2015-03-04",
    "17th of February 1983",
    "17.02.1983",
    "Feb 17 1983",
    "the 2nd of January 2019",
    "12-Dec-2020",
    "20150304",
];
const EMAILS: &[&str] = &[
    "jane.doe@example.org",
    "b.angstrom@mail.example.se",
    "oluwaseun_a@example.ng",
    "priya.r@hospital.example.in",
    "yusuf.ozdemir@mail.example.com",
];
const ADDRESSES: &[&str] = &[
    "12 Storgatan, Uppsala",
    "501 Pollich Burg, East Sandwich",
    "221B Baker Street, London",
    "4-2-8 Shibakoen, Minato-ku",
    "77 Rue de Rivoli, Paris",
    "1600 Amphitheatre Pkwy, Mountain View",
];
const IDS: &[&str] = &[
    "A12345678",
    "987654321",
    "MRN-0048213",
    "X9876543",
    "S99936947",
    "NHS 943 476 5919",
];
const IBANS: &[&str] = &[
    "DE89 3704 0044 0532 0130 00",
    "GB29 NWBK 6016 1331 9268 19",
    "FR14 2004 1010 0505 0001 3M02 606",
];
const IPS: &[&str] = &[
    "203.0.113.77",
    "198.51.100.23",
    "2001:db8:85a3::8a2e:370:7334",
];
const AGES: &[&str] = &["93-year-old woman", "97 year old man", "101-year-old"];

/// One labelled sentence.
#[derive(Clone, Debug, Serialize)]
pub struct Labelled {
    /// What the identifier is.
    pub kind: String,
    /// The sentence.
    pub text: String,
    /// The identifier as written in it.
    pub identifier: String,
}

/// The labelled set: every frame with identifiers of its kind, cycling through the lists.
pub fn labelled_set() -> Vec<Labelled> {
    let mut out = Vec::new();
    for round in 0..24 {
        for (i, (kind, frame)) in FRAMES.iter().enumerate() {
            let list: &[&str] = match *kind {
                "name" if frame.contains("患者") => NATIVE_NAMES,
                "name" => NAMES,
                "phone" => PHONES,
                "date" => DATES,
                "email" => EMAILS,
                "address" => ADDRESSES,
                "id" => IDS,
                "iban" => IBANS,
                "ip" => IPS,
                _ => AGES,
            };
            let identifier = list[(round * 7 + i) % list.len()];
            out.push(Labelled {
                kind: kind.to_string(),
                text: frame.replace("{}", identifier),
                identifier: identifier.to_string(),
            });
        }
    }
    out
}

fn fold(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in text.nfkd() {
        if unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The figures, overall and per kind.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DeidFigures {
    /// Sentences.
    pub sentences: usize,
    /// Identifiers removed whole.
    pub removed: usize,
    /// recall = removed / sentences.
    pub recall: f64,
    /// Words removed that belonged to identifiers.
    pub identifier_words_removed: usize,
    /// Words removed that did not.
    pub other_words_removed: usize,
    /// precision = identifier words removed / all words removed.
    pub precision: f64,
}

/// Runs the de-identifier over the labelled set.
pub fn evaluate() -> (DeidFigures, BTreeMap<String, DeidFigures>, Vec<String>) {
    let vault = MemoryVault::new([]);
    let mut all = DeidFigures::default();
    let mut by_kind: BTreeMap<String, DeidFigures> = BTreeMap::new();
    let mut missed = Vec::new();
    for item in labelled_set() {
        let out = deidentify(&item.text, &vault);
        let out_words = fold(&out);
        let id_words = fold(&item.identifier);
        // A word of the identifier survives when it is there whole (numbers: groups of 4+).
        let survives = |w: &String| {
            let numeric = w.chars().all(|c| c.is_ascii_digit());
            // A record-number prefix ("MRN", "NHS") identifies nobody; its digits do.
            if matches!(item.kind.as_str(), "id" | "iban" | "age")
                && !w.chars().any(|c| c.is_ascii_digit())
            {
                return false;
            }
            // Function words of a written date ("the 2nd of January") identify nothing.
            if ["the", "of", "on", "at"].contains(&w.as_str()) {
                return false;
            }
            (!numeric || w.len() >= 4)
                && (w.chars().count() >= 2 || !w.is_ascii())
                && out_words.contains(w)
        };
        let leaked = id_words.iter().any(survives);
        let figures = by_kind.entry(item.kind.clone()).or_default();
        for f in [&mut all, figures] {
            f.sentences += 1;
            if !leaked {
                f.removed += 1;
            }
        }
        if leaked && missed.len() < 40 {
            missed.push(format!("{}: {}", item.kind, out));
        }
        // Words removed, by where they came from.
        let mut remaining = out_words.clone();
        let mut id_pool = id_words.clone();
        for w in fold(&item.text) {
            if let Some(at) = remaining.iter().position(|r| *r == w) {
                remaining.remove(at);
                continue;
            }
            let from_identifier = id_pool
                .iter()
                .position(|i| *i == w)
                .map(|at| id_pool.remove(at))
                .is_some();
            let figures = by_kind.get_mut(&item.kind).expect("kind inserted above");
            for f in [&mut all, figures] {
                if from_identifier {
                    f.identifier_words_removed += 1;
                } else {
                    f.other_words_removed += 1;
                }
            }
        }
    }
    let finish = |f: &mut DeidFigures| {
        f.recall = f.removed as f64 / f.sentences.max(1) as f64;
        let removed = f.identifier_words_removed + f.other_words_removed;
        f.precision = f.identifier_words_removed as f64 / removed.max(1) as f64;
    };
    finish(&mut all);
    for f in by_kind.values_mut() {
        finish(f);
    }
    (all, by_kind, missed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_is_large_and_labelled() {
        let set = labelled_set();
        assert!(set.len() >= 500, "{}", set.len());
        assert!(set.iter().all(|s| s.text.contains(&s.identifier)));
        let kinds: std::collections::BTreeSet<&str> = set.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(kinds.len(), 9);
    }
}
