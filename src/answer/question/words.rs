//! The word lists the question reader uses, kept as data: one file per list under `words/`, one
//! word per line, `#` for comments, so that a clinician can review a change of vocabulary as a
//! one-line diff. Stopwords, request words, units, the words folded onto the records' own
//! (`canonical.tsv`: variant, tab, the record's word), the words that ask for a kind of fact or a
//! shape of answer. Each file's header says what its list is for.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// A list of words read from one of the files: in file order, with a set for lookups.
pub(crate) struct WordList {
    words: Vec<String>,
    index: HashSet<String>,
}

impl WordList {
    /// The words of `text`, one per line (blank lines and `#` comments skipped), then `extra`.
    fn parse(text: &str, extra: impl IntoIterator<Item = String>) -> WordList {
        let words: Vec<String> = entries(text).map(str::to_string).chain(extra).collect();
        let index = words.iter().cloned().collect();
        WordList { words, index }
    }

    /// Whether `word` is one of the list's words, exactly (the lists are lower case).
    pub(crate) fn contains(&self, word: &str) -> bool {
        self.index.contains(word)
    }

    /// The words in file order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(String::as_str)
    }
}

/// The lines of a data file that hold an entry.
fn entries(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Words folded onto the records' own word before the plural stripper ("meds" onto
/// "medication"), from `canonical.tsv`.
pub(crate) struct Canonical {
    /// Each record word with its variants, in file order.
    groups: Vec<(String, Vec<String>)>,
    /// Variant to record word; a variant listed twice keeps its first record word.
    index: HashMap<String, String>,
}

impl Canonical {
    fn parse(text: &str) -> Canonical {
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        let mut index = HashMap::new();
        for line in entries(text) {
            let (variant, to) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("canonical.tsv: no tab in {line:?}"));
            let (variant, to) = (variant.trim(), to.trim());
            index
                .entry(variant.to_string())
                .or_insert_with(|| to.to_string());
            match groups.iter_mut().find(|(word, _)| word == to) {
                Some((_, variants)) => variants.push(variant.to_string()),
                None => groups.push((to.to_string(), vec![variant.to_string()])),
            }
        }
        Canonical { groups, index }
    }

    /// The record word `variant` is folded onto, if it is one of the variants.
    pub(crate) fn get(&self, variant: &str) -> Option<&str> {
        self.index.get(variant).map(String::as_str)
    }

    /// Each record word with its variants.
    pub(crate) fn groups(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.groups
            .iter()
            .map(|(to, variants)| (to.as_str(), variants.as_slice()))
    }
}

macro_rules! word_list {
    ($(#[$doc:meta])* $name:ident, $file:literal) => {
        $(#[$doc])*
        pub(crate) static $name: LazyLock<WordList> = LazyLock::new(|| {
            WordList::parse(include_str!(concat!("words/", $file)), [])
        });
    };
}

/// Words that are never names and carry no content for retrieval (`stopwords.txt`), and the
/// month names of [`crate::text::dates::MONTHS`].
pub(crate) static STOPWORDS: LazyLock<WordList> = LazyLock::new(|| {
    let months = crate::text::dates::MONTHS.iter().map(|m| m.to_lowercase());
    WordList::parse(include_str!("words/stopwords.txt"), months)
});

word_list!(
    /// Words that ask for something rather than name it (`request_words.txt`).
    REQUEST_WORDS,
    "request_words.txt"
);
word_list!(
    /// Units written beside a number (`unit_words.txt`).
    UNIT_WORDS,
    "unit_words.txt"
);
word_list!(
    /// Words that ask for an overview rather than a particular fact (`broad_words.txt`).
    BROAD_WORDS,
    "broad_words.txt"
);
word_list!(
    /// Words that open a yes/no question (`yes_no_openers.txt`).
    YES_NO_OPENERS,
    "yes_no_openers.txt"
);
word_list!(
    /// Words that ask about the present (`now_words.txt`).
    NOW_WORDS,
    "now_words.txt"
);
word_list!(
    /// Words that name no concept of the record (`generic_terms.txt`).
    GENERIC_TERMS,
    "generic_terms.txt"
);
word_list!(
    /// Words before a date that make it a birth date (`birth_cues.txt`).
    BIRTH_CUES,
    "birth_cues.txt"
);
word_list!(
    /// Words that name a kind of record (`kind_terms.txt`).
    KIND_TERMS,
    "kind_terms.txt"
);
word_list!(
    /// Words that open the clause that asks (`asking_starts.txt`).
    ASKING_STARTS,
    "asking_starts.txt"
);
word_list!(
    /// Capitalized words that are never names (`question_words.txt`).
    QUESTION_WORDS,
    "question_words.txt"
);
word_list!(
    /// Words after "or" that bound a period or a number (`or_bounds.txt`): "2018 or later" offers
    /// no alternative.
    OR_BOUNDS,
    "or_bounds.txt"
);
word_list!(
    /// Words that never name a condition (`not_condition.txt`).
    NOT_CONDITION,
    "not_condition.txt"
);

/// Words read as one term (before the plural stripper): what `canonical` maps.
pub(crate) static CANONICAL: LazyLock<Canonical> =
    LazyLock::new(|| Canonical::parse(include_str!("words/canonical.tsv")));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_reads_and_holds_lower_case_words_once() {
        for (name, list) in [
            ("stopwords", &*STOPWORDS),
            ("request", &*REQUEST_WORDS),
            ("unit", &*UNIT_WORDS),
            ("broad", &*BROAD_WORDS),
            ("yes/no", &*YES_NO_OPENERS),
            ("now", &*NOW_WORDS),
            ("generic", &*GENERIC_TERMS),
            ("birth", &*BIRTH_CUES),
            ("kind", &*KIND_TERMS),
            ("asking", &*ASKING_STARTS),
            ("question", &*QUESTION_WORDS),
            ("not condition", &*NOT_CONDITION),
            ("or bounds", &*OR_BOUNDS),
        ] {
            assert!(list.iter().next().is_some(), "{name} is empty");
            for word in list.iter() {
                assert_eq!(word, word.to_lowercase(), "{name}: {word}");
                assert_eq!(word, word.trim(), "{name}: {word:?}");
            }
        }
        assert!(STOPWORDS.contains("march") && STOPWORDS.contains("plus"));
        assert!(!STOPWORDS.contains("March"));
    }

    #[test]
    fn canonical_variants_fold_onto_their_record_word() {
        assert_eq!(CANONICAL.get("meds"), Some("medication"));
        assert_eq!(CANONICAL.get("allergies"), Some("allergy"));
        assert_eq!(CANONICAL.get("medication"), None);
        let (to, variants) = CANONICAL.groups().next().expect("a group");
        assert_eq!(to, "medication");
        assert!(variants.iter().any(|v| v == "rx"));
    }
}
