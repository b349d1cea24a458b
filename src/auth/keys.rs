//! Ed25519 signing keys: PKCS#8 PEM files (what `openssl genpkey -algorithm ed25519` writes), their
//! public halves as JWKs (RFC 8037), key ids as JWK thumbprints (RFC 7638), and JWK sets.

use std::path::Path;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm,
    OctetKeyPairParameters, OctetKeyPairType, PublicKeyUse,
};
use jsonwebtoken::{DecodingKey, EncodingKey};
use ring::signature::{Ed25519KeyPair, KeyPair};
use sha2::{Digest, Sha256};

/// Errors reading or writing keys.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file holds no usable key.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// An Ed25519 private key with its key id. Its `Debug` shows the key id only.
pub struct SigningKey {
    pkcs8: Vec<u8>,
    public: [u8; 32],
    kid: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A fresh random key.
    pub fn generate() -> Self {
        let rng = ring::rand::SystemRandom::new();
        let document = Ed25519KeyPair::generate_pkcs8(&rng).expect("the system's random source");
        Self::from_pkcs8(document.as_ref()).expect("ring's own PKCS#8 document")
    }

    /// A key from PKCS#8 DER (v1 as OpenSSL writes it, or v2 with the public key).
    pub fn from_pkcs8(der: &[u8]) -> Result<Self, String> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
            .map_err(|e| format!("not an Ed25519 PKCS#8 private key ({e})"))?;
        let mut public = [0u8; 32];
        public.copy_from_slice(pair.public_key().as_ref());
        Ok(SigningKey {
            pkcs8: der.to_vec(),
            kid: thumbprint(&public),
            public,
        })
    }

    /// Reads a PEM file (`-----BEGIN PRIVATE KEY-----`). The file must not be readable by group
    /// or others.
    pub fn read(path: &Path) -> Result<Self, KeyError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| KeyError::Io {
            path: shown.clone(),
            source,
        })?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)
                .map_err(|source| KeyError::Io {
                    path: shown.clone(),
                    source,
                })?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(KeyError::Invalid {
                    path: shown,
                    reason: format!(
                        "a private key readable by group or others (mode {:o}); chmod 600 it",
                        mode & 0o777
                    ),
                });
            }
        }
        let der = pem_decode(&text, "PRIVATE KEY").map_err(|reason| KeyError::Invalid {
            path: shown.clone(),
            reason,
        })?;
        Self::from_pkcs8(&der).map_err(|reason| KeyError::Invalid {
            path: shown,
            reason,
        })
    }

    /// Writes the key as PEM, readable by its owner only.
    pub fn write(&self, path: &Path) -> Result<(), KeyError> {
        use std::io::Write;
        let shown = path.display().to_string();
        let io = |source| KeyError::Io {
            path: shown.clone(),
            source,
        };
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path).map_err(io)?;
        file.write_all(pem_encode(&self.pkcs8, "PRIVATE KEY").as_bytes())
            .map_err(io)
    }

    /// The key id: the RFC 7638 thumbprint of the public key.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The key for signing JWS.
    pub fn encoding_key(&self) -> EncodingKey {
        EncodingKey::from_ed_der(&self.pkcs8)
    }

    /// The public half as a JWK (`kty` OKP, `crv` Ed25519, `alg` EdDSA, `use` sig, `kid`).
    pub fn public_jwk(&self) -> Jwk {
        Jwk {
            common: CommonParameters {
                public_key_use: Some(PublicKeyUse::Signature),
                key_algorithm: Some(KeyAlgorithm::EdDSA),
                key_id: Some(self.kid.clone()),
                ..CommonParameters::default()
            },
            algorithm: AlgorithmParameters::OctetKeyPair(OctetKeyPairParameters {
                key_type: OctetKeyPairType::OctetKeyPair,
                curve: EllipticCurve::Ed25519,
                x: URL_SAFE_NO_PAD.encode(self.public),
            }),
        }
    }

    /// The key for verifying what this key signed.
    pub fn decoding_key(&self) -> DecodingKey {
        DecodingKey::from_ed_der(&self.public)
    }
}

/// RFC 7638 thumbprint of an Ed25519 public key (RFC 8037, section 2).
pub fn thumbprint(public: &[u8; 32]) -> String {
    let canonical = format!(
        r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#,
        URL_SAFE_NO_PAD.encode(public)
    );
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// Reads a JWK set from a file (`{"keys": [...]}`, or one JWK alone).
pub fn read_jwks(path: &Path) -> Result<JwkSet, KeyError> {
    let shown = path.display().to_string();
    let text = std::fs::read(path).map_err(|source| KeyError::Io {
        path: shown.clone(),
        source,
    })?;
    parse_jwks(&text).map_err(|reason| KeyError::Invalid {
        path: shown,
        reason,
    })
}

/// Parses a JWK set, or a single JWK as a set of one.
pub fn parse_jwks(bytes: &[u8]) -> Result<JwkSet, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let keys = match value.get("keys") {
        Some(serde_json::Value::Array(keys)) => keys.clone(),
        Some(_) => return Err("\"keys\" is not an array".into()),
        None => vec![value],
    };
    // Keys of a kind this crate does not know (a future `kty`, an encryption key) are skipped,
    // as RFC 7517 section 5 asks, rather than failing the whole set.
    let keys: Vec<Jwk> = keys
        .into_iter()
        .filter_map(|k| serde_json::from_value(k).ok())
        .collect();
    if keys.is_empty() {
        return Err("no usable key in the set".into());
    }
    Ok(JwkSet { keys })
}

/// PEM armour around DER.
pub fn pem_encode(der: &[u8], label: &str) -> String {
    let body = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in body.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// The DER inside the first PEM block labelled `label`.
pub fn pem_decode(text: &str, label: &str) -> Result<Vec<u8>, String> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = text
        .find(&begin)
        .ok_or_else(|| format!("no {begin} block"))?
        + begin.len();
    let stop = text[start..]
        .find(&end)
        .ok_or_else(|| format!("no {end} line"))?
        + start;
    let body: String = text[start..stop]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    STANDARD
        .decode(body)
        .map_err(|e| format!("the PEM body is not base64: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_survives_its_file_and_keeps_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gateway.key");
        let key = SigningKey::generate();
        key.write(&path).unwrap();
        let again = SigningKey::read(&path).unwrap();
        assert_eq!(again.kid(), key.kid());
        assert_eq!(again.public, key.public);
        // Never overwritten.
        assert!(key.write(&path).is_err());
        assert!(!format!("{again:?}").contains(&STANDARD.encode(&again.pkcs8)));
    }

    #[cfg(unix)]
    #[test]
    fn a_private_key_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.pem");
        SigningKey::generate().write(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = SigningKey::read(&path).unwrap_err().to_string();
        assert!(error.contains("readable by group or others"), "{error}");
    }

    #[test]
    fn thumbprint_matches_rfc_8037_appendix_a3() {
        // RFC 8037, A.1 and A.3: the public key and its thumbprint.
        let x = URL_SAFE_NO_PAD
            .decode("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
            .unwrap();
        let public: [u8; 32] = x.try_into().unwrap();
        assert_eq!(
            thumbprint(&public),
            "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
        );
    }

    #[test]
    fn a_jwk_set_keeps_the_keys_it_knows() {
        let key = SigningKey::generate();
        let mut set = serde_json::to_value(JwkSet {
            keys: vec![key.public_jwk()],
        })
        .unwrap();
        set["keys"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"kty": "future", "kid": "x"}));
        let parsed = parse_jwks(set.to_string().as_bytes()).unwrap();
        assert_eq!(parsed.keys.len(), 1);
        assert!(parsed.find(key.kid()).is_some());
        let single = serde_json::to_vec(&key.public_jwk()).unwrap();
        assert_eq!(parse_jwks(&single).unwrap().keys.len(), 1);
        assert!(parse_jwks(b"{\"keys\": []}").is_err());
    }
}
