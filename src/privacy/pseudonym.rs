//! Stable pseudonyms: a keyed hash of the internal patient key, so that the same patient has the
//! same pseudonym in every answer of one deployment, while the pseudonym reveals nothing without
//! the deployment's secret (kept in the database, never on the bus).

use sha2::{Digest, Sha256};

/// Letters and digits that cannot be confused with one another (no 0/O, 1/I/L).
const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// The pseudonym of one patient: "Patient" followed by five characters of a keyed hash.
pub fn pseudonym(secret: &[u8], patient_key: i64) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"fhir-rag pseudonym v1\0");
    hasher.update(secret);
    hasher.update(patient_key.to_le_bytes());
    let digest = hasher.finalize();
    let code: String = digest
        .iter()
        .take(5)
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect();
    format!("Patient {code}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_for_one_secret_and_different_across_secrets() {
        assert_eq!(pseudonym(b"s1", 42), pseudonym(b"s1", 42));
        assert_ne!(pseudonym(b"s1", 42), pseudonym(b"s2", 42));
        assert_ne!(pseudonym(b"s1", 42), pseudonym(b"s1", 43));
        let p = pseudonym(b"s1", 42);
        assert!(p.starts_with("Patient "), "{p}");
        assert_eq!(p.len(), "Patient ".len() + 5);
    }

    #[test]
    fn hardly_ever_collide() {
        let all: std::collections::HashSet<String> =
            (0..2000).map(|k| pseudonym(b"secret", k)).collect();
        assert!(all.len() >= 1998, "{} distinct of 2000", all.len());
    }
}
