//! Access tokens as SMART on FHIR and OAuth2 issue them: JWTs verified against the issuer's JWK
//! set (a file, a URL, or found through the issuer's discovery document), or opaque tokens
//! checked by RFC 7662 introspection; and what a verified token lets its bearer ask.
//!
//! A JWT is accepted only when all of this holds: its `alg` is in the allow-list (asymmetric
//! algorithms only: `none` and HMAC can never be configured), its `kid` names a key of the
//! issuer's set whose type and curve fit that algorithm, the signature verifies, `iss` is the
//! configured issuer, `aud` holds the configured audience, `exp` is in the future and `nbf` (when
//! present) in the past, within the configured leeway, and `sub` is present. Keys are cached and
//! fetched again when a token names a key id the cache lacks (at most once per
//! [`REFRESH_MIN_SECS`]), so that the issuer can rotate keys. One fetch runs at a time: requests
//! that find a key missing while a fetch is under way wait for it instead of starting their own.
//!
//! Introspection answers that say a token is active are kept for
//! `--introspection-cache-secs` (never past the token's own `exp`), keyed by the token's SHA-256,
//! so that a busy client does not double every request with a call to the issuer. A revoked token
//! is therefore honoured for at most that long; 0 asks the issuer every time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use tokio::sync::RwLock;

/// Fewest seconds between two fetches of the key set prompted by unknown key ids.
pub const REFRESH_MIN_SECS: u64 = 30;
/// Seconds after which the key set is fetched again anyway.
pub const REFRESH_MAX_SECS: u64 = 3600;
/// Longest token accepted, in bytes.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;
/// Most introspection answers kept at once; past it, answers are not kept until some expire.
pub const INTROSPECTION_CACHE_ENTRIES: usize = 10_000;

/// How the gateway verifies tokens (`fhir-rag gateway`).
#[derive(Clone, Debug, clap::Args)]
pub struct TokenConfig {
    /// The OAuth2 / OpenID issuer whose tokens are accepted (the `iss` every token must carry).
    /// Its JWK set is found through `/.well-known/smart-configuration` or
    /// `/.well-known/openid-configuration` unless `--jwks-url` or `--jwks-file` is given.
    #[arg(long, env = "FHIR_RAG_OIDC_ISSUER")]
    pub oidc_issuer: String,
    /// The issuer's JWK set, by URL (https, or http on a loopback address only).
    #[arg(long, env = "FHIR_RAG_JWKS_URL")]
    pub jwks_url: Option<String>,
    /// The issuer's JWK set, from a file (read again when a token names an unknown key).
    #[arg(long, env = "FHIR_RAG_JWKS_FILE", conflicts_with = "jwks_url")]
    pub jwks_file: Option<PathBuf>,
    /// The audience every token must name (this gateway's base URL, usually).
    #[arg(long, env = "FHIR_RAG_TOKEN_AUDIENCE")]
    pub token_audience: String,
    /// Token algorithms accepted (asymmetric only).
    #[arg(
        long,
        env = "FHIR_RAG_TOKEN_ALGORITHMS",
        value_delimiter = ',',
        default_value = "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,EdDSA"
    )]
    pub token_algorithms: Vec<String>,
    /// Clock skew tolerated on `exp` and `nbf`, in seconds.
    #[arg(long, env = "FHIR_RAG_TOKEN_LEEWAY_SECS", default_value_t = 30)]
    pub token_leeway_secs: u64,
    /// Check every token by RFC 7662 introspection at this URL instead of as a JWT (for opaque
    /// tokens); the gateway authenticates with `--introspection-client-id` and the secret in
    /// `FHIR_RAG_INTROSPECTION_SECRET`.
    #[arg(long, env = "FHIR_RAG_INTROSPECTION_URL")]
    pub introspection_url: Option<String>,
    /// Client id for introspection.
    #[arg(long, env = "FHIR_RAG_INTROSPECTION_CLIENT_ID")]
    pub introspection_client_id: Option<String>,
    /// Seconds an introspection answer saying a token is active is reused (never past the
    /// token's `exp`); a revoked token stays usable that long. 0 asks the issuer every time.
    #[arg(long, env = "FHIR_RAG_INTROSPECTION_CACHE_SECS", default_value_t = 60)]
    pub introspection_cache_secs: u64,
    /// OAuth2 clients whose `system/*.read` tokens are cohort (research) requesters.
    #[arg(long, env = "FHIR_RAG_COHORT_CLIENTS", value_delimiter = ',')]
    pub cohort_clients: Vec<String>,
    /// A claim holding the requester's roles (a list or a space-separated string), for issuers
    /// that assign roles; a role in `--cohort-role-values` makes a cohort requester.
    #[arg(long, env = "FHIR_RAG_ROLES_CLAIM")]
    pub roles_claim: Option<String>,
    /// The FHIR server base the identity provider's `fhirUser` URLs point to
    /// (`https://ehr.example/fhir`): an absolute `fhirUser` elsewhere is refused. Without it, only
    /// relative ones (`Practitioner/123`) are taken.
    #[arg(long, env = "FHIR_RAG_FHIR_BASE_URL")]
    pub fhir_base_url: Option<String>,
    /// Role values (in `--roles-claim`) that make a cohort requester.
    #[arg(
        long,
        env = "FHIR_RAG_COHORT_ROLE_VALUES",
        value_delimiter = ',',
        default_value = "researcher"
    )]
    pub cohort_role_values: Vec<String>,
}

impl TokenConfig {
    /// The settings' defaults for one issuer and audience, with its keys from a file (tests,
    /// benchmarks, evaluations).
    pub fn with_jwks_file(issuer: &str, audience: &str, jwks_file: Option<PathBuf>) -> Self {
        TokenConfig {
            oidc_issuer: issuer.to_string(),
            jwks_url: None,
            jwks_file,
            token_audience: audience.to_string(),
            token_algorithms: ["RS256", "ES256", "EdDSA"].map(String::from).to_vec(),
            token_leeway_secs: 30,
            introspection_url: None,
            introspection_client_id: None,
            introspection_cache_secs: 60,
            cohort_clients: Vec::new(),
            roles_claim: None,
            fhir_base_url: None,
            cohort_role_values: Vec::new(),
        }
    }
}

/// Why a token is refused. The client sees `invalid_token` and nothing more; the reason goes to
/// the log and the metric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// No token, or not a token.
    #[error("malformed: {0}")]
    Malformed(String),
    /// An algorithm outside the allow-list (`none`, HMAC, or one not configured).
    #[error("algorithm not allowed: {0}")]
    Algorithm(String),
    /// No key of the issuer has this id (after fetching the set again).
    #[error("unknown key {0:?}")]
    UnknownKey(Option<String>),
    /// The key does not fit the algorithm (an RSA key for ES256, an encryption key).
    #[error("the key does not fit: {0}")]
    KeyMismatch(String),
    /// Signature, issuer, audience, expiry or not-before failed.
    #[error("rejected: {0}")]
    Rejected(String),
    /// Introspection said the token is not active, or could not be asked.
    #[error("introspection: {0}")]
    Introspection(String),
    /// The issuer's keys could not be fetched.
    #[error("keys unavailable: {0}")]
    KeysUnavailable(String),
}

impl TokenError {
    /// A short label for metrics and logs.
    pub fn label(&self) -> &'static str {
        match self {
            TokenError::Malformed(_) => "malformed",
            TokenError::Algorithm(_) => "algorithm",
            TokenError::UnknownKey(_) => "unknown_key",
            TokenError::KeyMismatch(_) => "key_mismatch",
            TokenError::Rejected(_) => "rejected",
            TokenError::Introspection(_) => "introspection",
            TokenError::KeysUnavailable(_) => "keys_unavailable",
        }
    }
}

/// The claims of a verified token that decide access.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct TokenClaims {
    /// The subject: who the token is for.
    pub sub: String,
    /// Granted scopes (`scope`, space-separated; or `scp`, a list).
    #[serde(default)]
    pub scope: Option<String>,
    /// Granted scopes as a list (some issuers).
    #[serde(default)]
    pub scp: Option<Vec<String>>,
    /// SMART launch context: the patient in context.
    #[serde(default)]
    pub patient: Option<String>,
    /// SMART: the user's FHIR resource (`Practitioner/123`, or an absolute URL of one).
    #[serde(default, rename = "fhirUser")]
    pub fhir_user: Option<String>,
    /// The OAuth2 client.
    #[serde(default)]
    pub client_id: Option<String>,
    /// The authorized party (OpenID), the client when `client_id` is absent.
    #[serde(default)]
    pub azp: Option<String>,
    /// Expiry (Unix seconds).
    #[serde(default)]
    pub exp: Option<u64>,
    /// Every other claim (for `--roles-claim`).
    #[serde(flatten)]
    pub other: HashMap<String, serde_json::Value>,
}

impl TokenClaims {
    /// Every granted scope.
    pub fn scopes(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .scope
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        out.extend(self.scp.iter().flatten().cloned());
        out
    }

    /// The client the token was issued to.
    pub fn client(&self) -> Option<&str> {
        self.client_id.as_deref().or(self.azp.as_deref())
    }
}

/// Where the issuer's keys come from.
#[derive(Debug, Clone)]
enum KeySource {
    File(PathBuf),
    Url(String),
    Discovery(String),
}

struct KeyCache {
    keys: HashMap<String, Jwk>,
    /// Keys without a `kid`: usable only when the set has exactly one key.
    anonymous: Vec<Jwk>,
    fetched: Option<Instant>,
    last_attempt: Option<Instant>,
    /// Fetches finished, whatever their outcome: a request that saw a key missing waits for the
    /// fetch under way and uses its result when this has moved on meanwhile.
    generation: u64,
}

/// Introspection answers by the token's SHA-256: the claims, and until when they may be reused.
type IntrospectionCache = HashMap<[u8; 32], (TokenClaims, Instant)>;

/// Verifies access tokens.
#[derive(Clone)]
pub struct TokenVerifier {
    config: Arc<TokenConfig>,
    algorithms: Arc<Vec<Algorithm>>,
    source: Option<KeySource>,
    cache: Arc<RwLock<KeyCache>>,
    /// Held while the key set is fetched: one fetch at a time.
    fetching: Arc<tokio::sync::Mutex<()>>,
    introspected: Arc<std::sync::Mutex<IntrospectionCache>>,
    http: reqwest::Client,
    refresh_min: Duration,
}

impl std::fmt::Debug for TokenVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenVerifier")
            .field("issuer", &self.config.oidc_issuer)
            .field("source", &self.source)
            .finish()
    }
}

/// Whether a URL may be fetched for keys or introspection: https, or http to a loopback host.
pub fn url_allowed(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    match parsed.scheme() {
        "https" => true,
        "http" => match parsed.host_str() {
            Some("localhost") => true,
            Some(host) => host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback()),
            None => false,
        },
        _ => false,
    }
}

impl TokenVerifier {
    /// A verifier for `config`; fails on an algorithm that may not be allowed or a URL that
    /// would send keys or tokens in the clear.
    pub fn new(config: TokenConfig) -> Result<Self, String> {
        let mut algorithms = Vec::new();
        for name in &config.token_algorithms {
            let name = name.trim();
            let alg: Algorithm = name
                .parse()
                .map_err(|_| format!("unknown token algorithm {name:?}"))?;
            if matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512) {
                return Err(format!(
                    "{name} is symmetric: a gateway verifying with a shared secret could mint tokens; only asymmetric algorithms may be allowed"
                ));
            }
            algorithms.push(alg);
        }
        if algorithms.is_empty() {
            return Err("no token algorithm allowed".into());
        }
        if config.oidc_issuer.trim().is_empty() || config.token_audience.trim().is_empty() {
            return Err("--oidc-issuer and --token-audience must not be empty".into());
        }
        for url in [&config.jwks_url, &config.introspection_url]
            .into_iter()
            .flatten()
        {
            if !url_allowed(url) {
                return Err(format!(
                    "{url}: keys and tokens travel over https only (http to a loopback address for development)"
                ));
            }
        }
        let source = if config.introspection_url.is_some() {
            None
        } else if let Some(file) = &config.jwks_file {
            Some(KeySource::File(file.clone()))
        } else if let Some(url) = &config.jwks_url {
            Some(KeySource::Url(url.clone()))
        } else {
            if !url_allowed(&config.oidc_issuer) {
                return Err(format!(
                    "{}: discovery over https only (http to a loopback address for development); or give --jwks-file",
                    config.oidc_issuer
                ));
            }
            Some(KeySource::Discovery(config.oidc_issuer.clone()))
        };
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        Ok(TokenVerifier {
            config: Arc::new(config),
            algorithms: Arc::new(algorithms),
            source,
            cache: Arc::new(RwLock::new(KeyCache {
                keys: HashMap::new(),
                anonymous: Vec::new(),
                fetched: None,
                last_attempt: None,
                generation: 0,
            })),
            fetching: Arc::new(tokio::sync::Mutex::new(())),
            introspected: Arc::new(std::sync::Mutex::new(HashMap::new())),
            http,
            refresh_min: Duration::from_secs(REFRESH_MIN_SECS),
        })
    }

    /// The same verifier with another shortest interval between two fetches of the key set
    /// prompted by unknown key ids (tests).
    pub fn with_refresh_min(mut self, interval: Duration) -> Self {
        self.refresh_min = interval;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &TokenConfig {
        &self.config
    }

    /// Whether keys are loaded (or introspection is used): the gateway is ready.
    pub async fn ready(&self) -> bool {
        self.source.is_none() || self.cache.read().await.fetched.is_some()
    }

    /// Loads the keys now (at start, and for readiness).
    pub async fn refresh(&self) -> Result<usize, TokenError> {
        let _fetching = self.fetching.lock().await;
        self.refresh_locked().await
    }

    /// Fetches the key set unless a fetch finished after the caller looked (`seen`, the
    /// generation it saw): that fetch's result is what the caller waited for.
    async fn refresh_unless_done(&self, seen: u64) -> Result<usize, TokenError> {
        let _fetching = self.fetching.lock().await;
        if self.cache.read().await.generation != seen {
            return Ok(0);
        }
        self.refresh_locked().await
    }

    /// Fetches the key set; the caller holds `fetching`.
    async fn refresh_locked(&self) -> Result<usize, TokenError> {
        let Some(source) = &self.source else {
            return Ok(0);
        };
        {
            let mut cache = self.cache.write().await;
            cache.last_attempt = Some(Instant::now());
        }
        let set = match self.fetch(source).await {
            Ok(set) => set,
            Err(e) => {
                self.cache.write().await.generation += 1;
                return Err(e);
            }
        };
        let mut keys = HashMap::new();
        let mut anonymous = Vec::new();
        for jwk in set.keys {
            // Encryption keys and symmetric keys never verify a token.
            if jwk.common.public_key_use == Some(PublicKeyUse::Encryption)
                || matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_))
            {
                continue;
            }
            match jwk.common.key_id.clone() {
                Some(kid) => {
                    keys.insert(kid, jwk);
                }
                None => anonymous.push(jwk),
            }
        }
        let count = keys.len() + anonymous.len();
        let mut cache = self.cache.write().await;
        cache.keys = keys;
        cache.anonymous = anonymous;
        cache.fetched = Some(Instant::now());
        cache.generation += 1;
        Ok(count)
    }

    async fn fetch(&self, source: &KeySource) -> Result<JwkSet, TokenError> {
        let unavailable = |e: String| TokenError::KeysUnavailable(e);
        match source {
            KeySource::File(path) => {
                let bytes = tokio::fs::read(path)
                    .await
                    .map_err(|e| unavailable(format!("{}: {e}", path.display())))?;
                super::keys::parse_jwks(&bytes).map_err(unavailable)
            }
            KeySource::Url(url) => self.fetch_jwks(url).await,
            KeySource::Discovery(issuer) => {
                let base = issuer.trim_end_matches('/');
                let mut last = String::new();
                for doc in ["smart-configuration", "openid-configuration"] {
                    let url = format!("{base}/.well-known/{doc}");
                    match self.get_json(&url).await {
                        Ok(value) => {
                            // The document must be the issuer's own (OpenID Discovery 4.3).
                            let said = value.get("issuer").and_then(|v| v.as_str());
                            if said.is_some_and(|i| i.trim_end_matches('/') != base) {
                                return Err(unavailable(format!("{url} names another issuer")));
                            }
                            let Some(jwks_uri) = value.get("jwks_uri").and_then(|v| v.as_str())
                            else {
                                last = format!("{url} has no jwks_uri");
                                continue;
                            };
                            // Keys of an https issuer come over https.
                            let downgraded =
                                base.starts_with("https://") && !jwks_uri.starts_with("https://");
                            if !url_allowed(jwks_uri) || downgraded {
                                return Err(unavailable(format!(
                                    "jwks_uri {jwks_uri} is not https"
                                )));
                            }
                            return self.fetch_jwks(jwks_uri).await;
                        }
                        Err(e) => last = e,
                    }
                }
                Err(unavailable(last))
            }
        }
    }

    async fn get_json(&self, url: &str) -> Result<serde_json::Value, String> {
        let response = self
            .http
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: HTTP {}", response.status()));
        }
        let bytes = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
        if bytes.len() > 1024 * 1024 {
            return Err(format!("{url}: over 1 MiB"));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("{url}: {e}"))
    }

    async fn fetch_jwks(&self, url: &str) -> Result<JwkSet, TokenError> {
        let value = self
            .get_json(url)
            .await
            .map_err(TokenError::KeysUnavailable)?;
        super::keys::parse_jwks(value.to_string().as_bytes()).map_err(TokenError::KeysUnavailable)
    }

    /// The key for `kid`, fetching the set again when it is unknown (or stale) and the last
    /// fetch is old enough.
    async fn key(&self, kid: Option<&str>) -> Result<Jwk, TokenError> {
        let lookup = |cache: &KeyCache| -> Option<Jwk> {
            match kid {
                Some(kid) => cache.keys.get(kid).cloned(),
                None if cache.keys.len() + cache.anonymous.len() == 1 => cache
                    .keys
                    .values()
                    .chain(cache.anonymous.iter())
                    .next()
                    .cloned(),
                None => None,
            }
        };
        let (found, may_refresh, seen) = {
            let cache = self.cache.read().await;
            let stale = cache
                .fetched
                .is_none_or(|t| t.elapsed() > Duration::from_secs(REFRESH_MAX_SECS));
            let may = cache
                .last_attempt
                .is_none_or(|t| t.elapsed() > self.refresh_min);
            (
                lookup(&cache).filter(|_| !stale),
                may || cache.fetched.is_none(),
                cache.generation,
            )
        };
        if let Some(jwk) = found {
            return Ok(jwk);
        }
        if may_refresh {
            if let Err(e) = self.refresh_unless_done(seen).await {
                tracing::warn!(error = %e, "the issuer's keys could not be fetched");
            }
        }
        let cache = self.cache.read().await;
        if cache.fetched.is_none() {
            return Err(TokenError::KeysUnavailable("no key set loaded".into()));
        }
        lookup(&cache).ok_or_else(|| TokenError::UnknownKey(kid.map(str::to_string)))
    }

    /// Verifies a bearer token and returns its claims.
    pub async fn verify(&self, token: &str, now: u64) -> Result<TokenClaims, TokenError> {
        if token.is_empty() || token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::Malformed("empty or too long".into()));
        }
        if self.config.introspection_url.is_some() {
            return self.introspect(token, now).await;
        }
        let header = jsonwebtoken::decode_header(token).map_err(|e| {
            // `alg: none` and other algorithms the library does not know fail here.
            TokenError::Algorithm(format!("unreadable header: {e}"))
        })?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenError::Algorithm(format!("{:?}", header.alg)));
        }
        let jwk = self.key(header.kid.as_deref()).await?;
        check_key_fits(&jwk, header.alg)?;
        let key =
            DecodingKey::from_jwk(&jwk).map_err(|e| TokenError::KeyMismatch(e.to_string()))?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.config.token_leeway_secs;
        validation.validate_nbf = true;
        validation.set_issuer(&[self.config.oidc_issuer.as_str()]);
        validation.set_audience(&[self.config.token_audience.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<TokenClaims>(token, &key, &validation)
            .map_err(|e| TokenError::Rejected(format!("{:?}", e.kind())))?;
        let claims = data.claims;
        if claims.sub.trim().is_empty() {
            return Err(TokenError::Rejected("empty sub".into()));
        }
        // The library compares against its own clock; the caller's `now` (tests) too.
        if claims
            .exp
            .is_some_and(|exp| now > exp + self.config.token_leeway_secs)
        {
            return Err(TokenError::Rejected("ExpiredSignature".into()));
        }
        Ok(claims)
    }

    /// RFC 7662: asks the issuer whether the token is active, and for its claims.
    async fn introspect(&self, token: &str, now: u64) -> Result<TokenClaims, TokenError> {
        use sha2::Digest;
        let digest: [u8; 32] = sha2::Sha256::digest(token.as_bytes()).into();
        let kept = {
            let mut cache = self.introspected.lock().expect("introspection cache");
            match cache.get(&digest) {
                Some((claims, until)) if Instant::now() < *until => Some(claims.clone()),
                Some(_) => {
                    cache.remove(&digest);
                    None
                }
                None => None,
            }
        };
        let claims = match kept {
            Some(claims) => claims,
            None => {
                let claims = self.ask_issuer(token, now).await?;
                self.keep_introspected(digest, &claims, now);
                claims
            }
        };
        match claims.exp {
            Some(exp) if now <= exp + self.config.token_leeway_secs => Ok(claims),
            Some(_) => Err(TokenError::Rejected("ExpiredSignature".into())),
            None => Err(TokenError::Rejected("no exp".into())),
        }
    }

    /// Keeps an active token's claims for the configured time, never past its `exp`.
    fn keep_introspected(&self, digest: [u8; 32], claims: &TokenClaims, now: u64) {
        let ttl = self
            .config
            .introspection_cache_secs
            .min(claims.exp.map_or(0, |exp| {
                (exp + self.config.token_leeway_secs).saturating_sub(now)
            }));
        if ttl == 0 {
            return;
        }
        let now_instant = Instant::now();
        let mut cache = self.introspected.lock().expect("introspection cache");
        if cache.len() >= INTROSPECTION_CACHE_ENTRIES {
            cache.retain(|_, (_, until)| *until > now_instant);
        }
        if cache.len() < INTROSPECTION_CACHE_ENTRIES {
            cache.insert(
                digest,
                (claims.clone(), now_instant + Duration::from_secs(ttl)),
            );
        }
    }

    /// One RFC 7662 call: the claims of an active access token for this audience and issuer.
    async fn ask_issuer(&self, token: &str, now: u64) -> Result<TokenClaims, TokenError> {
        let url = self.config.introspection_url.as_deref().expect("checked");
        let secret = std::env::var("FHIR_RAG_INTROSPECTION_SECRET").ok();
        let mut request = self
            .http
            .post(url)
            .header("accept", "application/json")
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some(client) = &self.config.introspection_client_id {
            request = request.basic_auth(client, secret);
        }
        let response = request
            .send()
            .await
            .map_err(|e| TokenError::Introspection(e.to_string()))?;
        if !response.status().is_success() {
            return Err(TokenError::Introspection(format!(
                "HTTP {}",
                response.status()
            )));
        }
        let bytes = response
            .bytes()
            .await
            .map_err(|e| TokenError::Introspection(e.to_string()))?;
        if bytes.len() > 64 * 1024 {
            return Err(TokenError::Introspection("a reply over 64 KiB".into()));
        }
        let value: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|_| TokenError::Introspection("a reply that is not JSON".into()))?;
        if value.get("active") != Some(&serde_json::Value::Bool(true)) {
            return Err(TokenError::Introspection("not active".into()));
        }
        // An active refresh token (or anything but an access token) asks nothing.
        if let Some(kind) = value.get("token_type").and_then(|v| v.as_str()) {
            if !["bearer", "access_token"].contains(&kind.to_ascii_lowercase().as_str()) {
                return Err(TokenError::Introspection(format!("a {kind} token")));
            }
        }
        if value
            .get("nbf")
            .and_then(|v| v.as_u64())
            .is_some_and(|nbf| nbf > now + self.config.token_leeway_secs)
        {
            return Err(TokenError::Rejected("ImmatureSignature".into()));
        }
        if let Some(iss) = value.get("iss").and_then(|v| v.as_str()) {
            if iss != self.config.oidc_issuer {
                return Err(TokenError::Rejected("InvalidIssuer".into()));
            }
        }
        let audience_ok = match value.get("aud") {
            Some(serde_json::Value::String(a)) => a == &self.config.token_audience,
            Some(serde_json::Value::Array(list)) => list
                .iter()
                .any(|a| a.as_str() == Some(self.config.token_audience.as_str())),
            _ => false,
        };
        if !audience_ok {
            return Err(TokenError::Rejected("InvalidAudience".into()));
        }
        // Serde's message may quote a claim's value: not in logs.
        let claims: TokenClaims = serde_json::from_value(value)
            .map_err(|_| TokenError::Introspection("claims of the wrong types".into()))?;
        if claims.sub.trim().is_empty() {
            return Err(TokenError::Rejected("empty sub".into()));
        }
        Ok(claims)
    }
}

/// Whether a key may verify a token of algorithm `alg`: its type and curve fit the algorithm,
/// and its own `alg`, when it declares one, is that algorithm.
fn check_key_fits(jwk: &Jwk, alg: Algorithm) -> Result<(), TokenError> {
    let fits = match (&jwk.algorithm, alg) {
        (
            AlgorithmParameters::RSA(_),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512,
        ) => true,
        (AlgorithmParameters::EllipticCurve(ec), Algorithm::ES256) => {
            ec.curve == EllipticCurve::P256
        }
        (AlgorithmParameters::EllipticCurve(ec), Algorithm::ES384) => {
            ec.curve == EllipticCurve::P384
        }
        (AlgorithmParameters::OctetKeyPair(okp), Algorithm::EdDSA) => {
            okp.curve == EllipticCurve::Ed25519
        }
        _ => false,
    };
    if !fits {
        return Err(TokenError::KeyMismatch(format!(
            "{alg:?} with a {} key",
            match &jwk.algorithm {
                AlgorithmParameters::RSA(_) => "RSA",
                AlgorithmParameters::EllipticCurve(_) => "EC",
                AlgorithmParameters::OctetKeyPair(_) => "OKP",
                AlgorithmParameters::OctetKey(_) => "symmetric",
            }
        )));
    }
    if let Some(declared) = jwk.common.key_algorithm {
        let same = matches!(
            (declared, alg),
            (KeyAlgorithm::RS256, Algorithm::RS256)
                | (KeyAlgorithm::RS384, Algorithm::RS384)
                | (KeyAlgorithm::RS512, Algorithm::RS512)
                | (KeyAlgorithm::PS256, Algorithm::PS256)
                | (KeyAlgorithm::PS384, Algorithm::PS384)
                | (KeyAlgorithm::PS512, Algorithm::PS512)
                | (KeyAlgorithm::ES256, Algorithm::ES256)
                | (KeyAlgorithm::ES384, Algorithm::ES384)
                | (KeyAlgorithm::EdDSA, Algorithm::EdDSA)
        );
        if !same {
            return Err(TokenError::KeyMismatch(format!(
                "the key is for {declared:?}, the token says {alg:?}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::keys::SigningKey;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use jsonwebtoken::{EncodingKey, Header};

    const ISSUER: &str = "https://idp.example";
    const AUDIENCE: &str = "https://gateway.example";

    fn config(jwks: &std::path::Path) -> TokenConfig {
        TokenConfig {
            token_leeway_secs: 5,
            ..TokenConfig::with_jwks_file(ISSUER, AUDIENCE, Some(jwks.to_path_buf()))
        }
    }

    fn claims(now: u64) -> serde_json::Value {
        serde_json::json!({
            "iss": ISSUER, "aud": AUDIENCE, "sub": "dr-a", "iat": now, "exp": now + 300,
            "scope": "user/*.read", "fhirUser": "Practitioner/1",
        })
    }

    fn sign(key: &SigningKey, claims: &serde_json::Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(key.kid().to_string());
        jsonwebtoken::encode(&header, claims, &key.encoding_key()).unwrap()
    }

    fn write_set(path: &std::path::Path, keys: Vec<Jwk>) {
        std::fs::write(path, serde_json::to_vec(&JwkSet { keys }).unwrap()).unwrap();
    }

    /// An issuer on a loopback port that counts the key-set fetches and introspection calls it
    /// answers; it knows the tokens in `active`.
    struct CountingIssuer {
        base: String,
        keys: Arc<std::sync::Mutex<JwkSet>>,
        active: Arc<std::sync::Mutex<HashMap<String, serde_json::Value>>>,
        jwks_fetches: Arc<std::sync::atomic::AtomicUsize>,
        introspections: Arc<std::sync::atomic::AtomicUsize>,
    }

    async fn counting_issuer(keys: Vec<Jwk>) -> CountingIssuer {
        use axum::extract::Form;
        use axum::routing::{get, post};
        use std::sync::atomic::{AtomicUsize, Ordering};
        let keys = Arc::new(std::sync::Mutex::new(JwkSet { keys }));
        let active = Arc::new(std::sync::Mutex::new(HashMap::new()));
        let jwks_fetches = Arc::new(AtomicUsize::new(0));
        let introspections = Arc::new(AtomicUsize::new(0));
        let app = axum::Router::new()
            .route(
                "/jwks.json",
                get({
                    let (keys, count) = (keys.clone(), jwks_fetches.clone());
                    move || async move {
                        count.fetch_add(1, Ordering::SeqCst);
                        // Slow enough that concurrent requests find a fetch under way.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        let set = keys.lock().unwrap().clone();
                        axum::Json(set)
                    }
                }),
            )
            .route(
                "/introspect",
                post({
                    let (active, count) = (active.clone(), introspections.clone());
                    move |Form(form): Form<HashMap<String, String>>| async move {
                        count.fetch_add(1, Ordering::SeqCst);
                        let known = active.lock().unwrap().get(&form["token"]).cloned();
                        axum::Json(known.unwrap_or(serde_json::json!({"active": false})))
                    }
                }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        CountingIssuer {
            base,
            keys,
            active,
            jwks_fetches,
            introspections,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_requests_for_a_new_key_fetch_the_set_once() {
        use std::sync::atomic::Ordering;
        let old = SigningKey::generate();
        let issuer = counting_issuer(vec![old.public_jwk()]).await;
        let verifier = TokenVerifier::new(TokenConfig {
            jwks_url: Some(format!("{}/jwks.json", issuer.base)),
            jwks_file: None,
            ..config(std::path::Path::new("unused"))
        })
        .unwrap()
        // No rate limit: only the single flight keeps the fetches to one.
        .with_refresh_min(Duration::ZERO);
        verifier.refresh().await.unwrap();
        assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 1);
        let new = SigningKey::generate();
        issuer.keys.lock().unwrap().keys.push(new.public_jwk());
        let now = now();
        let token = sign(&new, &claims(now));
        let mut tasks = Vec::new();
        for _ in 0..32 {
            let (verifier, token) = (verifier.clone(), token.clone());
            tasks.push(tokio::spawn(
                async move { verifier.verify(&token, now).await },
            ));
        }
        for task in tasks {
            assert_eq!(task.await.unwrap().unwrap().sub, "dr-a");
        }
        assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn an_active_introspection_answer_is_reused_until_its_time_or_the_tokens_expiry() {
        use std::sync::atomic::Ordering;
        let issuer = counting_issuer(Vec::new()).await;
        let now = now();
        let mut active = claims(now);
        active["active"] = serde_json::Value::Bool(true);
        issuer
            .active
            .lock()
            .unwrap()
            .insert("opaque-1".into(), active.clone());
        let introspecting = |cache_secs| {
            TokenVerifier::new(TokenConfig {
                introspection_url: Some(format!("{}/introspect", issuer.base)),
                introspection_cache_secs: cache_secs,
                ..config(std::path::Path::new("unused"))
            })
            .unwrap()
        };
        let verifier = introspecting(60);
        for _ in 0..5 {
            assert_eq!(verifier.verify("opaque-1", now).await.unwrap().sub, "dr-a");
        }
        assert_eq!(issuer.introspections.load(Ordering::SeqCst), 1);
        // A kept answer still expires with the token.
        assert_eq!(
            verifier
                .verify("opaque-1", now + 300 + 6)
                .await
                .unwrap_err()
                .label(),
            "rejected"
        );
        // An unknown token is asked about every time: refusals are never kept.
        for _ in 0..3 {
            assert_eq!(
                verifier.verify("opaque-2", now).await.unwrap_err().label(),
                "introspection"
            );
        }
        assert_eq!(issuer.introspections.load(Ordering::SeqCst), 4);
        // Revoked at the issuer: honoured until the kept answer's time is up, then refused.
        issuer.active.lock().unwrap().remove("opaque-1");
        assert!(verifier.verify("opaque-1", now).await.is_ok());
        let uncached = introspecting(0);
        assert_eq!(
            uncached.verify("opaque-1", now).await.unwrap_err().label(),
            "introspection"
        );
        issuer
            .active
            .lock()
            .unwrap()
            .insert("opaque-1".into(), active);
        for _ in 0..3 {
            assert!(uncached.verify("opaque-1", now).await.is_ok());
        }
        assert_eq!(issuer.introspections.load(Ordering::SeqCst), 8);
    }

    #[tokio::test]
    async fn only_well_signed_tokens_for_this_audience_from_this_issuer_pass() {
        let dir = tempfile::tempdir().unwrap();
        let jwks = dir.path().join("jwks.json");
        let key = SigningKey::generate();
        write_set(&jwks, vec![key.public_jwk()]);
        let verifier = TokenVerifier::new(config(&jwks)).unwrap();
        let now = now();
        let good = sign(&key, &claims(now));
        assert_eq!(verifier.verify(&good, now).await.unwrap().sub, "dr-a");

        let refused = |token: String| {
            let verifier = verifier.clone();
            async move { verifier.verify(&token, now).await.unwrap_err() }
        };
        let mut c = claims(now);
        c["exp"] = (now - 60).into();
        assert_eq!(refused(sign(&key, &c)).await.label(), "rejected");
        let mut c = claims(now);
        c["aud"] = "https://elsewhere.example".into();
        assert_eq!(refused(sign(&key, &c)).await.label(), "rejected");
        let mut c = claims(now);
        c["iss"] = "https://evil.example".into();
        assert_eq!(refused(sign(&key, &c)).await.label(), "rejected");
        let mut c = claims(now);
        c["nbf"] = (now + 600).into();
        assert_eq!(refused(sign(&key, &c)).await.label(), "rejected");
        let mut c = claims(now);
        c.as_object_mut().unwrap().remove("sub");
        assert_eq!(refused(sign(&key, &c)).await.label(), "rejected");
        // Signed by a key the issuer never published.
        let forger = SigningKey::generate();
        assert_eq!(
            refused(sign(&forger, &claims(now))).await.label(),
            "unknown_key"
        );
        // The forger claims the issuer's key id.
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(key.kid().to_string());
        let spoofed = jsonwebtoken::encode(&header, &claims(now), &forger.encoding_key()).unwrap();
        assert_eq!(refused(spoofed).await.label(), "rejected");
        // A payload changed after signing.
        let parts: Vec<&str> = good.split('.').collect();
        let mut c = claims(now);
        c["fhirUser"] = "Practitioner/2".into();
        let tampered = format!(
            "{}.{}.{}",
            parts[0],
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&c).unwrap()),
            parts[2]
        );
        assert_eq!(refused(tampered).await.label(), "rejected");
        // `alg: none`, and HMAC keyed with the public key (algorithm confusion).
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#),
            parts[1]
        );
        assert_eq!(refused(none).await.label(), "algorithm");
        let mut hs = Header::new(Algorithm::HS256);
        hs.kid = Some(key.kid().to_string());
        let confused = jsonwebtoken::encode(
            &hs,
            &claims(now),
            &EncodingKey::from_secret(&serde_json::to_vec(&key.public_jwk()).unwrap()),
        )
        .unwrap();
        assert_eq!(refused(confused).await.label(), "algorithm");
        assert_eq!(refused("not a token".into()).await.label(), "algorithm");
        assert_eq!(refused(String::new()).await.label(), "malformed");
    }

    #[tokio::test]
    async fn a_rotated_key_is_fetched_when_a_token_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let jwks = dir.path().join("jwks.json");
        let old = SigningKey::generate();
        write_set(&jwks, vec![old.public_jwk()]);
        let verifier = TokenVerifier::new(config(&jwks))
            .unwrap()
            .with_refresh_min(Duration::from_millis(200));
        verifier.refresh().await.unwrap();
        let new = SigningKey::generate();
        write_set(&jwks, vec![old.public_jwk(), new.public_jwk()]);
        let now = now();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(verifier
            .verify(&sign(&new, &claims(now)), now)
            .await
            .is_ok());
        assert!(verifier
            .verify(&sign(&old, &claims(now)), now)
            .await
            .is_ok());
        // The old key withdrawn: its tokens stop verifying once the set is read again.
        write_set(&jwks, vec![new.public_jwk()]);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let third = SigningKey::generate();
        // An unknown kid prompts the fetch that drops the old key.
        assert!(verifier
            .verify(&sign(&third, &claims(now)), now)
            .await
            .is_err());
        assert_eq!(
            verifier
                .verify(&sign(&old, &claims(now)), now)
                .await
                .unwrap_err()
                .label(),
            "unknown_key"
        );
    }

    #[tokio::test]
    async fn rsa_tokens_from_an_openssl_key_verify() {
        let dir = tempfile::tempdir().unwrap();
        let pem = dir.path().join("rsa.pem");
        let made = std::process::Command::new("openssl")
            .args([
                "genpkey",
                "-algorithm",
                "RSA",
                "-pkeyopt",
                "rsa_keygen_bits:2048",
                "-out",
            ])
            .arg(&pem)
            .output()
            .expect("openssl (Debian package openssl) to make an RSA key");
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let modulus = std::process::Command::new("openssl")
            .args(["rsa", "-noout", "-modulus", "-in"])
            .arg(&pem)
            .output()
            .unwrap();
        let modulus = String::from_utf8(modulus.stdout).unwrap();
        let n = hex::decode(modulus.trim().trim_start_matches("Modulus=")).unwrap();
        let jwk: Jwk = serde_json::from_value(serde_json::json!({
            "kty": "RSA", "kid": "rsa-1", "alg": "RS256", "use": "sig",
            "n": URL_SAFE_NO_PAD.encode(&n), "e": "AQAB",
        }))
        .unwrap();
        let jwks = dir.path().join("jwks.json");
        write_set(&jwks, vec![jwk]);
        let verifier = TokenVerifier::new(config(&jwks)).unwrap();
        let key = EncodingKey::from_rsa_pem(&std::fs::read(&pem).unwrap()).unwrap();
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("rsa-1".into());
        let now = now();
        let token = jsonwebtoken::encode(&header, &claims(now), &key).unwrap();
        assert!(verifier.verify(&token, now).await.is_ok());
        // The same key under another RSA algorithm than the one its JWK declares.
        let mut ps = Header::new(Algorithm::RS384);
        ps.kid = Some("rsa-1".into());
        let other = jsonwebtoken::encode(&ps, &claims(now), &key).unwrap();
        assert_eq!(
            verifier.verify(&other, now).await.unwrap_err().label(),
            "algorithm"
        );
    }

    #[test]
    fn symmetric_algorithms_and_clear_text_urls_are_refused_at_start() {
        let path = std::path::Path::new("/nonexistent");
        let mut hmac = config(path);
        hmac.token_algorithms = vec!["HS256".into()];
        assert!(TokenVerifier::new(hmac).unwrap_err().contains("symmetric"));
        let mut clear = config(path);
        clear.jwks_file = None;
        clear.jwks_url = Some("http://idp.example/jwks".into());
        assert!(TokenVerifier::new(clear).is_err());
        let mut local = config(path);
        local.jwks_file = None;
        local.jwks_url = Some("http://127.0.0.1:8090/jwks.json".into());
        assert!(TokenVerifier::new(local).is_ok());
        assert!(url_allowed("https://idp.example/x"));
        assert!(url_allowed("http://[::1]:80/x"));
        assert!(!url_allowed("http://10.0.0.1/x"));
        assert!(!url_allowed("ftp://idp.example/x"));
    }

    fn now() -> u64 {
        crate::auth::envelope::now_secs()
    }
}
