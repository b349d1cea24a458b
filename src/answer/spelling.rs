//! Typos read against the records' own vocabulary: a word of a question that no record uses,
//! one edit (a letter dropped, added, changed, or two swapped) from exactly one word the records
//! do use, is read as that word ("depresion" as "depression", "colonscopy" as "colonoscopy").
//! The vocabulary is the one every reading uses (the records of at least k patients, or the care
//! team's own patients'), so a correction tells nothing the plain word would not; the answer
//! says how it read the word.

use std::collections::BTreeSet;

/// Shortest word corrected: shorter words are one edit from too many others.
pub const MIN_LENGTH: usize = 7;

/// Every word one edit from `word` (lower-case ASCII letters): deletions, transpositions of
/// neighbours, substitutions and insertions of a to z.
pub fn one_edit(word: &str) -> BTreeSet<String> {
    let letters: Vec<char> = word.chars().collect();
    let mut out = BTreeSet::new();
    for i in 0..letters.len() {
        let mut deleted = letters.clone();
        deleted.remove(i);
        out.insert(deleted.iter().collect());
        if i + 1 < letters.len() {
            let mut swapped = letters.clone();
            swapped.swap(i, i + 1);
            out.insert(swapped.iter().collect());
        }
        for c in 'a'..='z' {
            let mut changed = letters.clone();
            changed[i] = c;
            out.insert(changed.iter().collect());
        }
    }
    for i in 0..=letters.len() {
        for c in 'a'..='z' {
            let mut inserted = letters.clone();
            inserted.insert(i, c);
            out.insert(inserted.iter().collect());
        }
    }
    out.remove(word);
    out
}

/// Whether `written` may be a typo worth reading otherwise: long enough, lower-case letters
/// only (a capitalized or mixed word may be a name; those are never corrected), and not an
/// "-ing" form (an everyday verb the records do not use, "gaining", "putting").
pub fn may_be_misspelt(written: &str) -> bool {
    written.chars().count() >= MIN_LENGTH
        && written.chars().all(|c| c.is_ascii_lowercase())
        && !written.ends_with("ing")
}

/// The one word of `known` among `word`'s one-edit neighbours, if exactly one is. The records'
/// vocabulary is matched by stems, so an "-ing" neighbour ("codeing", "paining") is known by
/// a stem the records use ("code", "pain") without being a word: never a correction.
pub fn correction(word: &str, known: &BTreeSet<String>) -> Option<String> {
    let mut found = one_edit(word)
        .into_iter()
        .filter(|w| known.contains(w) && !w.ends_with("ing"));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// `question` with each `(from, to)` whole word replaced, whatever its case.
pub fn rewrite(question: &str, corrections: &[(String, String)]) -> String {
    let mut out = question.to_string();
    for (from, to) in corrections {
        let pattern = format!(r"(?i)\b{}\b", regex::escape(from));
        if let Ok(re) = regex::Regex::new(&pattern) {
            out = re.replace_all(&out, regex::NoExpand(to)).into_owned();
        }
    }
    out
}

/// The words an answer opens with when it read some otherwise: `Read "depresion" as
/// "depression".`
pub fn note(corrections: &[(String, String)]) -> String {
    let parts: Vec<String> = corrections
        .iter()
        .map(|(from, to)| format!("\u{201c}{from}\u{201d} as \u{201c}{to}\u{201d}"))
        .collect();
    format!("Read {}. ", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn one_edit_covers_the_four_kinds_of_typo() {
        let near = one_edit("depresion");
        for w in ["depression", "depresoin", "depresiom", "deprsion"] {
            assert!(near.contains(w), "{w}");
        }
        assert!(!near.contains("depresion"));
        assert!(!near.contains("repressions"));
    }

    #[test]
    fn a_typo_is_read_as_the_one_known_word_near_it() {
        let vocabulary = known(&["depression", "colonoscopy", "dysphagia", "dysphasia"]);
        assert_eq!(
            correction("depresion", &vocabulary),
            Some("depression".into())
        );
        assert_eq!(
            correction("colonscopy", &vocabulary),
            Some("colonoscopy".into())
        );
        // Two known words one edit away: which one was meant is not guessed.
        assert_eq!(correction("dysphaxia", &vocabulary), None);
        assert_eq!(correction("leprosy", &vocabulary), None);
        assert!(may_be_misspelt("depresion"));
        assert!(!may_be_misspelt("Pnuemovax"));
        assert!(!may_be_misspelt("cough"));
        // Everyday verbs the records do not use, and stems that make non-words "known".
        assert!(!may_be_misspelt("gaining"));
        assert_eq!(correction("codeine", &known(&["codeing"])), None);
    }

    #[test]
    fn the_question_is_rewritten_word_by_word_and_the_answer_says_so() {
        let corrections = vec![("depresion".to_string(), "depression".to_string())];
        assert_eq!(
            rewrite(
                "quincy's Depresion - when was it first diagnosed?",
                &corrections
            ),
            "quincy's depression - when was it first diagnosed?"
        );
        assert_eq!(
            note(&corrections),
            "Read \u{201c}depresion\u{201d} as \u{201c}depression\u{201d}. "
        );
    }
}
