//! Keyed digests of requests: what the audit table and the DP ledger keep of a question.
//!
//! An unsalted hash of a templated question ("What is the latest weight of NAME?") is undone by
//! hashing every template with every name the attacker can list. These digests are HMAC-SHA-256
//! under a secret that lives outside the database (`--audit-key`), so whoever reads the tables
//! cannot test guesses against them; two digests can still be compared for equality, which is all
//! the ledger needs (is this the same request as before?).

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The secret of the request digests. Its `Debug` never shows it.
#[derive(Clone)]
pub struct DigestKey(Vec<u8>);

impl DigestKey {
    /// Fewest characters a configured key may have.
    pub const MIN_LEN: usize = 32;

    /// A random key (for a worker started without one: its digests match only its own).
    pub fn random() -> DigestKey {
        DigestKey(crate::dp::Noise::fresh_seed().to_vec())
    }

    /// HMAC-SHA-256 of `parts`, each length-prefixed so that no two lists of parts collide.
    pub fn digest(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }
}

impl std::str::FromStr for DigestKey {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.chars().count() < Self::MIN_LEN {
            return Err(format!(
                "the audit key must have at least {} characters (e.g. `openssl rand -hex 32`)",
                Self::MIN_LEN
            ));
        }
        Ok(DigestKey(s.as_bytes().to_vec()))
    }
}

impl std::fmt::Debug for DigestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DigestKey(redacted)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_depend_on_the_key_and_on_how_parts_split() {
        let a: DigestKey = "a".repeat(32).parse().unwrap();
        let b: DigestKey = "b".repeat(32).parse().unwrap();
        assert_eq!(a.digest(&[b"x", b"y"]), a.digest(&[b"x", b"y"]));
        assert_ne!(a.digest(&[b"x", b"y"]), b.digest(&[b"x", b"y"]));
        assert_ne!(a.digest(&[b"xy", b""]), a.digest(&[b"x", b"y"]));
        assert!("short".parse::<DigestKey>().is_err());
        assert_eq!(format!("{a:?}"), "DigestKey(redacted)");
    }
}
