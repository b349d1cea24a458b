//! A development identity provider, so that the demo and the tests need nothing external:
//! `fhir-rag dev-idp` holds a local Ed25519 key, serves SMART and OpenID discovery documents and
//! its JWK set, issues tokens on `POST /token`, and answers RFC 7662 introspection; `fhir-rag
//! token` mints a token offline with the same key. It listens on loopback addresses only and
//! issues whatever it is asked for: it is a test fixture with real signatures, never an identity
//! provider for production.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};

use super::envelope::now_secs;
use super::keys::SigningKey;

/// What a token says.
#[derive(Clone, Debug, Default, clap::Args, Deserialize)]
pub struct TokenRequest {
    /// Subject (`sub`).
    #[arg(long)]
    #[serde(default)]
    pub sub: String,
    /// Scopes, space-separated (`user/*.read`, `patient/*.read launch/patient`, `system/*.read`).
    #[arg(long, default_value = "")]
    #[serde(default)]
    pub scope: String,
    /// `fhirUser` (a clinician: `Practitioner/<id>`).
    #[arg(long)]
    #[serde(default)]
    pub fhir_user: Option<String>,
    /// Launch patient (`patient`).
    #[arg(long)]
    #[serde(default)]
    pub patient: Option<String>,
    /// Client (`client_id`).
    #[arg(long)]
    #[serde(default)]
    pub client_id: Option<String>,
    /// Roles (`roles`, comma-separated).
    #[arg(long)]
    #[serde(default)]
    pub roles: Option<String>,
    /// Audience (`aud`).
    #[arg(long, default_value = "fhir-rag")]
    #[serde(default)]
    pub audience: String,
    /// Lifetime in seconds.
    #[arg(long, default_value_t = 3600)]
    #[serde(default)]
    pub ttl_secs: u64,
}

#[derive(Serialize, Deserialize)]
struct Claims {
    iss: String,
    sub: String,
    aud: String,
    iat: u64,
    nbf: u64,
    exp: u64,
    jti: String,
    #[serde(skip_serializing_if = "String::is_empty", default)]
    scope: String,
    #[serde(rename = "fhirUser", skip_serializing_if = "Option::is_none", default)]
    fhir_user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    patient: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    client_id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    roles: Vec<String>,
}

/// A signed access token (EdDSA, with the key's id).
pub fn mint(key: &SigningKey, issuer: &str, request: &TokenRequest) -> String {
    let now = now_secs();
    let claims = Claims {
        iss: issuer.to_string(),
        sub: request.sub.clone(),
        aud: request.audience.clone(),
        iat: now,
        nbf: now,
        exp: now + request.ttl_secs,
        jti: crate::gateway::random_query_id(),
        scope: request.scope.clone(),
        fhir_user: request.fhir_user.clone(),
        patient: request.patient.clone(),
        client_id: request.client_id.clone(),
        roles: request
            .roles
            .iter()
            .flat_map(|r| r.split(','))
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string)
            .collect(),
    };
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(key.kid().to_string());
    header.typ = Some("at+jwt".into());
    jsonwebtoken::encode(&header, &claims, &key.encoding_key()).expect("EdDSA signing")
}

/// `fhir-rag dev-idp`.
#[derive(Clone, Debug, clap::Args)]
pub struct DevIdpConfig {
    /// Address to listen on (loopback only).
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub listen: SocketAddr,
    /// Signing key (PKCS#8 PEM); more keys after it are published too (rotation).
    #[arg(long = "key", required = true)]
    pub keys: Vec<PathBuf>,
    /// The issuer URL it puts in tokens (default: http://<listen>).
    #[arg(long)]
    pub issuer: Option<String>,
}

struct Idp {
    key: SigningKey,
    published: JwkSet,
    issuer: String,
}

/// Runs the development identity provider until the process ends.
pub async fn run(config: DevIdpConfig) -> anyhow::Result<()> {
    anyhow::ensure!(
        config.listen.ip().is_loopback(),
        "the development identity provider issues any token it is asked for: it listens on a loopback address only"
    );
    let mut keys = Vec::new();
    for path in &config.keys {
        keys.push(SigningKey::read(path)?);
    }
    let published = JwkSet {
        keys: keys.iter().map(SigningKey::public_jwk).collect(),
    };
    let issuer = config
        .issuer
        .clone()
        .unwrap_or_else(|| format!("http://{}", config.listen));
    let idp = Arc::new(Idp {
        key: keys.remove(0),
        published,
        issuer,
    });
    let app = Router::new()
        .route("/.well-known/smart-configuration", get(discovery))
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/jwks.json", get(jwks))
        .route("/token", post(token))
        .route("/introspect", post(introspect))
        .with_state(idp.clone());
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::warn!(issuer = %idp.issuer, kid = %idp.key.kid(), "development identity provider: issues any token asked for; never use it in production");
    axum::serve(listener, app).await?;
    Ok(())
}

async fn discovery(State(idp): State<Arc<Idp>>) -> Json<serde_json::Value> {
    let base = idp.issuer.trim_end_matches('/');
    Json(serde_json::json!({
        "issuer": idp.issuer,
        "jwks_uri": format!("{base}/jwks.json"),
        "token_endpoint": format!("{base}/token"),
        "introspection_endpoint": format!("{base}/introspect"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["openid", "fhirUser", "launch/patient", "patient/*.read", "user/*.read", "system/*.read"],
        "capabilities": ["launch-standalone", "context-standalone-patient", "permission-patient", "permission-user", "permission-v1", "permission-v2"],
        "id_token_signing_alg_values_supported": ["EdDSA"],
    }))
}

async fn jwks(State(idp): State<Arc<Idp>>) -> Json<JwkSet> {
    Json(idp.published.clone())
}

async fn token(State(idp): State<Arc<Idp>>, Form(request): Form<TokenRequest>) -> Response {
    if request.sub.trim().is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({"error": "invalid_request", "error_description": "sub is required"})),
        )
            .into_response();
    }
    let mut request = request;
    if request.audience.is_empty() {
        request.audience = "fhir-rag".into();
    }
    if request.ttl_secs == 0 {
        request.ttl_secs = 3600;
    }
    let token = mint(&idp.key, &idp.issuer, &request);
    Json(serde_json::json!({
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": request.ttl_secs,
        "scope": request.scope,
    }))
    .into_response()
}

#[derive(Deserialize)]
struct Introspection {
    token: String,
}

async fn introspect(
    State(idp): State<Arc<Idp>>,
    Form(form): Form<Introspection>,
) -> Json<serde_json::Value> {
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.validate_aud = false;
    validation.set_issuer(&[idp.issuer.as_str()]);
    match jsonwebtoken::decode::<serde_json::Value>(
        &form.token,
        &idp.key.decoding_key(),
        &validation,
    ) {
        Ok(data) => {
            let mut claims = data.claims;
            claims["active"] = serde_json::Value::Bool(true);
            Json(claims)
        }
        Err(_) => Json(serde_json::json!({"active": false})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::token::{TokenConfig, TokenVerifier};

    /// The identity provider as a server, and the gateway's two ways of checking its tokens:
    /// discovery and its JWK set, and RFC 7662 introspection.
    #[tokio::test]
    async fn tokens_verify_through_discovery_and_through_introspection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idp.key");
        let key = SigningKey::generate();
        key.write(&path).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let issuer = format!("http://{listen}");
        tokio::spawn(run(DevIdpConfig {
            listen,
            keys: vec![path],
            issuer: None,
        }));
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(listen).await.is_ok() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let request = TokenRequest {
            sub: "dr-a".into(),
            scope: "user/*.read".into(),
            fhir_user: Some("Practitioner/1".into()),
            audience: "https://gateway.example".into(),
            ttl_secs: 300,
            ..TokenRequest::default()
        };
        let token = mint(&key, &issuer, &request);
        let config = TokenConfig {
            token_algorithms: vec!["EdDSA".into()],
            token_leeway_secs: 5,
            ..TokenConfig::with_jwks_file(&issuer, "https://gateway.example", None)
        };
        let now = now_secs();
        let discovered = TokenVerifier::new(config.clone()).unwrap();
        assert_eq!(discovered.verify(&token, now).await.unwrap().sub, "dr-a");
        let introspected = TokenVerifier::new(TokenConfig {
            introspection_url: Some(format!("{issuer}/introspect")),
            ..config
        })
        .unwrap();
        let claims = introspected.verify(&token, now).await.unwrap();
        assert_eq!(claims.fhir_user.as_deref(), Some("Practitioner/1"));
        let forged = mint(&SigningKey::generate(), &issuer, &request);
        assert_eq!(
            introspected.verify(&forged, now).await.unwrap_err().label(),
            "introspection"
        );
        let elsewhere = mint(
            &key,
            &issuer,
            &TokenRequest {
                audience: "https://other.example".into(),
                ..request
            },
        );
        assert_eq!(
            introspected
                .verify(&elsewhere, now)
                .await
                .unwrap_err()
                .label(),
            "rejected"
        );
    }
}
