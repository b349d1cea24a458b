//! Signed envelopes: what travels on `rag.queries` and `rag.answers`.
//!
//! The gateway verifies the requester, decides what they may see, and signs the whole query
//! (query id, requester, role, patient keys, question, options) with its Ed25519 key, with an
//! issue and an expiry time; the answer worker verifies it against the gateway keys it is
//! configured with before anything else, and signs its answer the same way for the gateway. Both
//! are compact JWS (RFC 7515) with `alg` EdDSA, so that any JOSE library can check them:
//!
//! ```text
//! query:  header {alg: EdDSA, kid, typ: "fhir-rag-query+jwt"}
//!         claims {iss: <gateway>, aud: "fhir-rag/answer", iat, exp, query: {...}}
//! answer: header {alg: EdDSA, kid, typ: "fhir-rag-answer+jwt"}
//!         claims {iss: <worker>, aud: "fhir-rag/gateway", iat, exp, answer: {...}}
//! ```
//!
//! The `typ` and the audience differ, so that an answer can never pass for a query or the other
//! way round. Only Ed25519 keys verify envelopes: a key set with an RSA, EC or HMAC key for the
//! gateway is refused when it is read, never used.

use std::collections::HashMap;
use std::path::Path;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Header, Validation};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::keys::{read_jwks, KeyError, SigningKey};
use crate::answer::contract::{Answer, Query};

/// `typ` of a query envelope.
pub const QUERY_TYPE: &str = "fhir-rag-query+jwt";
/// `typ` of an answer envelope.
pub const ANSWER_TYPE: &str = "fhir-rag-answer+jwt";
/// Audience of a query envelope: the answer workers.
pub const QUERY_AUDIENCE: &str = "fhir-rag/answer";
/// Audience of an answer envelope: the gateway.
pub const ANSWER_AUDIENCE: &str = "fhir-rag/gateway";
/// Longest lifetime an envelope may claim (`exp - iat`), in seconds: a leaked envelope is not a
/// standing pass.
pub const MAX_LIFETIME_SECS: u64 = 24 * 3600;
/// Clock skew tolerated between signer and verifier, in seconds.
pub const LEEWAY_SECS: u64 = 30;

/// Why an envelope is refused. Each is dead-lettered as `unauthenticated` with this reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Not a compact JWS at all (a bare JSON query, say).
    #[error("unsigned: the message is not a signed envelope (compact JWS)")]
    Unsigned,
    /// Signed, but with an algorithm other than EdDSA, or a header that cannot be read.
    #[error("bad header: {0}")]
    BadHeader(String),
    /// The `typ` says it is another kind of envelope.
    #[error("wrong envelope type {found:?} (expected {expected})")]
    WrongType {
        /// The header's `typ`.
        found: Option<String>,
        /// What was expected.
        expected: &'static str,
    },
    /// No configured key has the envelope's `kid`.
    #[error("unknown signing key {0:?}")]
    UnknownKey(Option<String>),
    /// The signature does not verify, or the claims were changed after signing.
    #[error("the signature does not verify")]
    BadSignature,
    /// Past its expiry.
    #[error("expired")]
    Expired,
    /// Issued in the future, or for longer than the longest lifetime.
    #[error("invalid times: {0}")]
    BadTimes(String),
    /// Addressed to someone else.
    #[error("wrong audience")]
    WrongAudience,
    /// The claims are not what the contract says.
    #[error("invalid claims: {0}")]
    InvalidClaims(String),
}

/// The claims of a query envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryClaims {
    /// The gateway that signed it.
    pub iss: String,
    /// [`QUERY_AUDIENCE`].
    pub aud: String,
    /// Issued at (Unix seconds).
    pub iat: u64,
    /// Expires at (Unix seconds).
    pub exp: u64,
    /// The verified request.
    pub query: Query,
}

/// The claims of an answer envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerClaims {
    /// The worker that signed it.
    pub iss: String,
    /// [`ANSWER_AUDIENCE`].
    pub aud: String,
    /// Issued at (Unix seconds).
    pub iat: u64,
    /// Expires at (Unix seconds).
    pub exp: u64,
    /// The answer.
    pub answer: Answer,
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

/// Signs envelopes with one Ed25519 key.
pub struct Signer {
    key: SigningKey,
    encoding: jsonwebtoken::EncodingKey,
    issuer: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("kid", &self.key.kid())
            .field("issuer", &self.issuer)
            .finish()
    }
}

impl Signer {
    /// A signer named `issuer` (the `iss` of what it signs).
    pub fn new(key: SigningKey, issuer: &str) -> Self {
        Signer {
            encoding: key.encoding_key(),
            key,
            issuer: issuer.to_string(),
        }
    }

    /// Reads the key from a PEM file.
    pub fn read(path: &Path, issuer: &str) -> Result<Self, KeyError> {
        Ok(Self::new(SigningKey::read(path)?, issuer))
    }

    /// The key.
    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// A query envelope valid for `lifetime_secs` from now.
    pub fn sign_query(&self, query: &Query, lifetime_secs: u64) -> String {
        let iat = now_secs();
        let claims = QueryClaims {
            iss: self.issuer.clone(),
            aud: QUERY_AUDIENCE.into(),
            iat,
            exp: iat + lifetime_secs.min(MAX_LIFETIME_SECS),
            query: query.clone(),
        };
        self.sign(QUERY_TYPE, &claims)
    }

    /// An answer envelope valid for `lifetime_secs` from now.
    pub fn sign_answer(&self, answer: &Answer, lifetime_secs: u64) -> String {
        let iat = now_secs();
        let claims = AnswerClaims {
            iss: self.issuer.clone(),
            aud: ANSWER_AUDIENCE.into(),
            iat,
            exp: iat + lifetime_secs.min(MAX_LIFETIME_SECS),
            answer: answer.clone(),
        };
        self.sign(ANSWER_TYPE, &claims)
    }

    /// Signs any claims under `typ` (tests use it to forge envelopes with odd claims).
    pub fn sign<T: Serialize>(&self, typ: &str, claims: &T) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.typ = Some(typ.to_string());
        header.kid = Some(self.key.kid().to_string());
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("EdDSA signing cannot fail")
    }
}

/// The public keys envelopes are verified with, by key id (several, for rotation).
#[derive(Clone)]
pub struct Verifier {
    keys: HashMap<String, DecodingKey>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("kids", &self.keys.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Verifier {
    /// The Ed25519 keys of a JWK set. Any other kind of key is an error: an envelope key set
    /// holds the signers' Ed25519 keys and nothing else.
    pub fn from_jwks(set: &JwkSet) -> Result<Self, String> {
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            let AlgorithmParameters::OctetKeyPair(okp) = &jwk.algorithm else {
                return Err("an envelope key set may hold Ed25519 (OKP) keys only".into());
            };
            if okp.curve != EllipticCurve::Ed25519 {
                return Err("an envelope key set may hold Ed25519 (OKP) keys only".into());
            }
            let key = DecodingKey::from_jwk(jwk).map_err(|e| format!("unusable key: {e}"))?;
            let x =
                base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, &okp.x)
                    .map_err(|e| format!("unusable key: {e}"))?;
            let public: [u8; 32] = x
                .try_into()
                .map_err(|_| "an Ed25519 key has 32 bytes".to_string())?;
            // The key id is the key's thumbprint whatever the file says, so that a kid can
            // never be made to point at another key.
            let kid = super::keys::thumbprint(&public);
            if let Some(declared) = &jwk.common.key_id {
                if declared != &kid {
                    return Err(format!(
                        "key id {declared:?} is not the key's RFC 7638 thumbprint {kid:?}"
                    ));
                }
            }
            keys.insert(kid, key);
        }
        if keys.is_empty() {
            return Err("no key".into());
        }
        Ok(Verifier { keys })
    }

    /// Reads a JWK set file.
    pub fn read(path: &Path) -> Result<Self, KeyError> {
        let set = read_jwks(path)?;
        Self::from_jwks(&set).map_err(|reason| KeyError::Invalid {
            path: path.display().to_string(),
            reason,
        })
    }

    /// A verifier of one key's signatures.
    pub fn of(key: &SigningKey) -> Self {
        Verifier {
            keys: HashMap::from([(key.kid().to_string(), key.decoding_key())]),
        }
    }

    /// Verifies a query envelope at time `now`.
    pub fn verify_query(&self, message: &[u8], now: u64) -> Result<QueryClaims, EnvelopeError> {
        let claims: QueryClaims = self.verify(message, QUERY_TYPE)?;
        check(claims.aud == QUERY_AUDIENCE, claims.iat, claims.exp, now)?;
        claims
            .query
            .validate()
            .map_err(EnvelopeError::InvalidClaims)?;
        Ok(claims)
    }

    /// Verifies an answer envelope at time `now`.
    pub fn verify_answer(&self, message: &[u8], now: u64) -> Result<AnswerClaims, EnvelopeError> {
        let claims: AnswerClaims = self.verify(message, ANSWER_TYPE)?;
        check(claims.aud == ANSWER_AUDIENCE, claims.iat, claims.exp, now)?;
        Ok(claims)
    }

    fn verify<T: DeserializeOwned>(
        &self,
        message: &[u8],
        typ: &'static str,
    ) -> Result<T, EnvelopeError> {
        let text = std::str::from_utf8(message).map_err(|_| EnvelopeError::Unsigned)?;
        let text = text.trim();
        if text.split('.').count() != 3
            || !text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        {
            return Err(EnvelopeError::Unsigned);
        }
        let header = jsonwebtoken::decode_header(text)
            .map_err(|e| EnvelopeError::BadHeader(e.to_string()))?;
        if header.alg != Algorithm::EdDSA {
            return Err(EnvelopeError::BadHeader(format!(
                "algorithm {:?} (envelopes are EdDSA)",
                header.alg
            )));
        }
        if header.typ.as_deref() != Some(typ) {
            return Err(EnvelopeError::WrongType {
                found: header.typ,
                expected: typ,
            });
        }
        let key = header
            .kid
            .as_deref()
            .and_then(|kid| self.keys.get(kid))
            .ok_or_else(|| EnvelopeError::UnknownKey(header.kid.clone()))?;
        // Times and audience are checked by `check` on the typed claims, with the contract's
        // own rules; the library checks the signature and the algorithm.
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let data =
            jsonwebtoken::decode::<T>(text, key, &validation).map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::InvalidSignature
                | jsonwebtoken::errors::ErrorKind::Crypto(_) => EnvelopeError::BadSignature,
                jsonwebtoken::errors::ErrorKind::Json(e) => {
                    EnvelopeError::InvalidClaims(e.to_string())
                }
                other => EnvelopeError::BadHeader(format!("{other:?}")),
            })?;
        Ok(data.claims)
    }
}

fn check(audience_ok: bool, iat: u64, exp: u64, now: u64) -> Result<(), EnvelopeError> {
    if !audience_ok {
        return Err(EnvelopeError::WrongAudience);
    }
    if iat > now + LEEWAY_SECS {
        return Err(EnvelopeError::BadTimes("issued in the future".into()));
    }
    if exp <= iat || exp - iat > MAX_LIFETIME_SECS {
        return Err(EnvelopeError::BadTimes(format!(
            "a lifetime of {} s (at most {MAX_LIFETIME_SECS})",
            exp.saturating_sub(iat)
        )));
    }
    if now > exp + LEEWAY_SECS {
        return Err(EnvelopeError::Expired);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::contract::{QueryOptions, Requester};
    use base64::Engine;

    fn query() -> Query {
        Query {
            query_id: "q-1".into(),
            requester: Requester {
                id: "Practitioner/1".into(),
                role: "clinician".into(),
                patients: Some(vec!["p1".into()]),
            },
            question: "What is the latest weight?".into(),
            options: QueryOptions::default(),
        }
    }

    #[test]
    fn a_signed_query_verifies_and_says_what_was_signed() {
        let key = SigningKey::generate();
        let verifier = Verifier::of(&key);
        let signer = Signer::new(key, "gateway-a");
        let envelope = signer.sign_query(&query(), 600);
        let claims = verifier
            .verify_query(envelope.as_bytes(), now_secs())
            .unwrap();
        assert_eq!(claims.query, query());
        assert_eq!(claims.iss, "gateway-a");
        assert_eq!(claims.exp - claims.iat, 600);
    }

    #[test]
    fn tampering_unknown_keys_expiry_and_bare_json_are_refused() {
        let key = SigningKey::generate();
        let verifier = Verifier::of(&key);
        let signer = Signer::new(key, "gw");
        let envelope = signer.sign_query(&query(), 600);
        let now = now_secs();

        // A patient added to the signed list.
        let parts: Vec<&str> = envelope.split('.').collect();
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut claims: serde_json::Value =
            serde_json::from_slice(&b64.decode(parts[1]).unwrap()).unwrap();
        claims["query"]["requester"]["patients"] = serde_json::json!(["p1", "p2"]);
        let forged = format!(
            "{}.{}.{}",
            parts[0],
            b64.encode(serde_json::to_vec(&claims).unwrap()),
            parts[2]
        );
        assert_eq!(
            verifier.verify_query(forged.as_bytes(), now).unwrap_err(),
            EnvelopeError::BadSignature
        );

        // Signed by a key the verifier does not hold.
        let other = Signer::new(SigningKey::generate(), "gw");
        assert!(matches!(
            verifier
                .verify_query(other.sign_query(&query(), 600).as_bytes(), now)
                .unwrap_err(),
            EnvelopeError::UnknownKey(_)
        ));

        // Expired, issued in the future, too long a life.
        assert_eq!(
            verifier
                .verify_query(envelope.as_bytes(), now + 600 + LEEWAY_SECS + 1)
                .unwrap_err(),
            EnvelopeError::Expired
        );
        assert!(matches!(
            verifier
                .verify_query(envelope.as_bytes(), now - 3600)
                .unwrap_err(),
            EnvelopeError::BadTimes(_)
        ));
        let eternal = signer.sign(
            QUERY_TYPE,
            &QueryClaims {
                iss: "gw".into(),
                aud: QUERY_AUDIENCE.into(),
                iat: now,
                exp: now + 10 * 365 * 24 * 3600,
                query: query(),
            },
        );
        assert!(matches!(
            verifier.verify_query(eternal.as_bytes(), now).unwrap_err(),
            EnvelopeError::BadTimes(_)
        ));

        // A bare query, as anyone on the bus could write it.
        let bare = serde_json::to_vec(&query()).unwrap();
        assert_eq!(
            verifier.verify_query(&bare, now).unwrap_err(),
            EnvelopeError::Unsigned
        );

        // `alg: none`, with the signature stripped.
        let none_header = b64.encode(br#"{"alg":"none","typ":"fhir-rag-query+jwt"}"#);
        let unsigned = format!("{none_header}.{}.", parts[1]);
        assert!(verifier.verify_query(unsigned.as_bytes(), now).is_err());
    }

    #[test]
    fn an_answer_never_passes_for_a_query() {
        let key = SigningKey::generate();
        let verifier = Verifier::of(&key);
        let signer = Signer::new(key, "worker");
        let answer_claims = serde_json::json!({
            "iss": "worker", "aud": QUERY_AUDIENCE, "iat": now_secs(), "exp": now_secs() + 60,
            "query": query(),
        });
        let wrong_type = signer.sign(ANSWER_TYPE, &answer_claims);
        assert!(matches!(
            verifier
                .verify_query(wrong_type.as_bytes(), now_secs())
                .unwrap_err(),
            EnvelopeError::WrongType { .. }
        ));
        let wrong_audience = signer.sign(
            QUERY_TYPE,
            &serde_json::json!({
                "iss": "worker", "aud": ANSWER_AUDIENCE, "iat": now_secs(),
                "exp": now_secs() + 60, "query": query(),
            }),
        );
        assert_eq!(
            verifier
                .verify_query(wrong_audience.as_bytes(), now_secs())
                .unwrap_err(),
            EnvelopeError::WrongAudience
        );
    }

    #[test]
    fn envelope_key_sets_hold_ed25519_keys_with_honest_ids() {
        let key = SigningKey::generate();
        let mut jwk = serde_json::to_value(key.public_jwk()).unwrap();
        jwk["kid"] = serde_json::json!("someone-else");
        let set: JwkSet = serde_json::from_value(serde_json::json!({ "keys": [jwk] })).unwrap();
        assert!(Verifier::from_jwks(&set)
            .unwrap_err()
            .contains("thumbprint"));
        let hmac: JwkSet = serde_json::from_value(
            serde_json::json!({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "h"}]}),
        )
        .unwrap();
        assert!(Verifier::from_jwks(&hmac).is_err());
    }
}
