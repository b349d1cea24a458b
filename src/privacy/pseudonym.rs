//! Per-answer pseudonyms. An answer about one patient calls them "the patient"; an answer about
//! several calls them "Patient A", "Patient B", … in the order they first appear. Labels are
//! given afresh in every answer and derive from nothing but that order, so no label links two
//! answers, and none can be turned back into a patient by anyone, the deployment included.

use std::collections::BTreeMap;

/// "A", "B", …, "Z", "AA", "AB", …
fn letters(mut n: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII letters")
}

/// Labels for the patients of one answer, given in order of first appearance (repeats ignored).
pub fn labels(patients: impl IntoIterator<Item = i64>) -> BTreeMap<i64, String> {
    let mut order: Vec<i64> = Vec::new();
    for p in patients {
        if !order.contains(&p) {
            order.push(p);
        }
    }
    if order.len() == 1 {
        return BTreeMap::from([(order[0], "The patient".to_string())]);
    }
    order
        .into_iter()
        .enumerate()
        .map(|(i, p)| (p, format!("Patient {}", letters(i))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_patient_is_the_patient_several_are_lettered_in_order() {
        assert_eq!(labels([42, 42])[&42], "The patient");
        let l = labels([9, 3, 9, 7]);
        assert_eq!(
            (l[&9].as_str(), l[&3].as_str(), l[&7].as_str()),
            ("Patient A", "Patient B", "Patient C")
        );
        assert_eq!(letters(26), "AA");
        assert_eq!(letters(27), "AB");
    }

    #[test]
    fn labels_carry_no_identity() {
        // The same patient gets the label its position gives, in every answer.
        assert_eq!(labels([1, 2])[&1], labels([5, 6])[&5]);
        assert_eq!(labels([2, 1])[&1], "Patient B");
    }
}
