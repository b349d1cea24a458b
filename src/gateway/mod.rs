//! `fhir-rag gateway`: the only way questions enter. An HTTP service that verifies the bearer's
//! OAuth2 / SMART access token, decides from it (never from the client) who may be asked about,
//! signs the query, puts it on `rag.queries`, and hands the signed answer back to the principal
//! that asked, and to no one else.
//!
//! ```text
//! POST /v1/questions        Authorization: Bearer <token>   {question, mode?, k?, epsilon?,
//!                                                            wait_secs?, break_glass?}
//!      200 {query_id, state: answered, answer}  or  202 {query_id, state: pending}
//! GET  /v1/questions/{id}   the same principal only (anyone else: 404)
//! GET  /healthz  /readyz  /openapi.json
//! ```
//!
//! Metrics are not served here, where every client can reach them: they are on the operators'
//! `--metrics-addr` listener (keep it on a management network or on localhost).
//!
//! A request without a valid token gets 401 with `WWW-Authenticate` and nothing else; a valid
//! token whose scopes grant no question gets 403 `insufficient_scope`. The request body has no
//! field for patients, roles or requester ids: they come from the token and the store.

mod listener;
pub mod studies;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::Message;
use rdkafka::producer::{FutureProducer, FutureRecord};
use serde::{Deserialize, Serialize};
use sqlx::{PgPool, Row};
use tokio::sync::{broadcast, watch, Semaphore};

use crate::answer::contract::{Answer, Mode, Query, QueryOptions, Requester};
use crate::auth::access::{self, Access, Principal};
use crate::auth::envelope::{now_secs, Signer, Verifier};
use crate::auth::token::{TokenConfig, TokenVerifier};
use crate::bus::BusConfig;

/// The OpenAPI document the gateway serves (and a test checks against the server).
pub const OPENAPI: &str = include_str!("../../docs/openapi.json");

/// Longest reason for a break-the-glass request, in characters.
const MAX_REASON_CHARS: usize = 500;
/// Fewest characters a break-the-glass reason must have.
const MIN_REASON_CHARS: usize = 10;
/// Most patients a clinician's list may hold (the query contract's limit).
const MAX_PATIENTS: usize = crate::answer::contract::MAX_REQUESTER_PATIENTS;

/// `fhir-rag gateway`.
#[derive(Clone, Debug, clap::Args)]
pub struct GatewayConfig {
    /// Address to listen on.
    #[arg(
        long,
        env = "FHIR_RAG_GATEWAY_LISTEN",
        default_value = "127.0.0.1:8080"
    )]
    pub listen: SocketAddr,
    /// The gateway's Ed25519 private key (PKCS#8 PEM, mode 600): it signs every query. Create
    /// one with `fhir-rag keygen`.
    #[arg(long, env = "FHIR_RAG_GATEWAY_SIGNING_KEY")]
    pub gateway_signing_key: PathBuf,
    /// The answer workers' public keys (a JWK set): answers signed by anything else are dropped.
    #[arg(long, env = "FHIR_RAG_WORKER_KEYS")]
    pub worker_keys: PathBuf,
    /// The gateway's name (the `iss` of the envelopes it signs).
    #[arg(
        long,
        env = "FHIR_RAG_GATEWAY_NAME",
        default_value = "fhir-rag-gateway"
    )]
    pub gateway_name: String,
    /// Topic for questions.
    #[arg(long, env = "FHIR_RAG_QUERY_TOPIC", default_value = "rag.queries")]
    pub query_topic: String,
    /// Topic of answers.
    #[arg(long, env = "FHIR_RAG_ANSWER_TOPIC", default_value = "rag.answers")]
    pub answer_topic: String,
    /// Consumer group the gateway reads answers in.
    #[arg(
        long,
        env = "FHIR_RAG_GATEWAY_GROUP",
        default_value = "fhir-rag-gateway"
    )]
    pub gateway_group: String,
    /// Seconds a signed query stays valid: a worker refuses it after that.
    #[arg(long, env = "FHIR_RAG_ENVELOPE_TTL_SECS", default_value_t = 900)]
    pub envelope_ttl_secs: u64,
    /// Longest wait for an answer a request may ask for, in seconds (then 202 and a query id).
    #[arg(long, env = "FHIR_RAG_GATEWAY_MAX_WAIT_SECS", default_value_t = 60)]
    pub max_wait_secs: u64,
    /// Days back a treatment relationship counts (0: any date).
    #[arg(long, env = "FHIR_RAG_RELATIONSHIP_DAYS", default_value_t = 730)]
    pub relationship_days: u32,
    /// Let clinicians state a reason to ask about a patient outside their relationships
    /// (answered, flagged in the audit, counted).
    #[arg(long, env = "FHIR_RAG_BREAK_GLASS", default_value_t = true, action = clap::ArgAction::Set)]
    pub break_glass: bool,
    /// Break-the-glass questions one clinician may ask per day (then 403).
    #[arg(long, env = "FHIR_RAG_BREAK_GLASS_PER_DAY", default_value_t = 10)]
    pub break_glass_per_day: u32,
    /// The source system whose ids the tokens use (`fhirUser`, `patient`): only its treatment
    /// relationships and practitioner identifiers count, and its patients are the ones named
    /// ("": the default source, as the backfill and most feeds write it).
    #[arg(long, env = "FHIR_RAG_IDENTITY_SOURCE", default_value = "")]
    pub identity_source: String,
    /// Requests handled at once (more wait, then 503).
    #[arg(long, env = "FHIR_RAG_GATEWAY_MAX_CONCURRENT", default_value_t = 256)]
    pub max_concurrent: usize,
    /// Connections open at once; more are closed as they arrive.
    #[arg(long, env = "FHIR_RAG_GATEWAY_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,
    /// Connections one client (an IPv4 address, an IPv6 /64) may hold at once, so that one
    /// client cannot take every connection (0: no limit, for a gateway behind a proxy through
    /// which every client arrives from one address).
    #[arg(long, env = "FHIR_RAG_GATEWAY_MAX_PER_CLIENT", default_value_t = 64)]
    pub max_connections_per_client: usize,
    /// Seconds a client has to send a request's head, and then its body: a client that never
    /// finishes a request is dropped.
    #[arg(long, env = "FHIR_RAG_GATEWAY_REQUEST_READ_SECS", default_value_t = 10)]
    pub request_read_secs: u64,
    /// Requests one principal may have in flight at once (more: 429).
    #[arg(long, env = "FHIR_RAG_GATEWAY_MAX_PER_PRINCIPAL", default_value_t = 8)]
    pub max_per_principal: usize,
}

/// Errors that stop the gateway.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// A key or key set could not be read.
    #[error(transparent)]
    Key(#[from] crate::auth::keys::KeyError),
    /// The token settings are unusable.
    #[error("token settings: {0}")]
    Token(String),
    /// Kafka.
    #[error(transparent)]
    Bus(#[from] crate::bus::BusError),
    /// The listener.
    #[error("listen: {0}")]
    Io(#[from] std::io::Error),
}

struct Gateway {
    config: GatewayConfig,
    tokens: TokenVerifier,
    signer: Signer,
    workers: Verifier,
    producer: FutureProducer,
    pool: PgPool,
    answered: broadcast::Sender<String>,
    intake_running: AtomicBool,
    slots: Semaphore,
    /// Requests in flight per principal (entries leave at zero: bounded by what is in flight).
    in_flight: std::sync::Mutex<std::collections::HashMap<String, usize>>,
}

/// One principal's place among the requests in flight; freed on drop.
struct InFlight<'a> {
    gateway: &'a Gateway,
    subject: String,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut map = self.gateway.in_flight.lock().expect("not poisoned");
        if let Some(n) = map.get_mut(&self.subject) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.subject);
            }
        }
    }
}

impl Gateway {
    fn enter(&self, subject: &str) -> Option<InFlight<'_>> {
        let mut map = self.in_flight.lock().expect("not poisoned");
        let n = map.entry(subject.to_string()).or_insert(0);
        if *n >= self.config.max_per_principal.max(1) {
            return None;
        }
        *n += 1;
        Some(InFlight {
            gateway: self,
            subject: subject.to_string(),
        })
    }

    /// A patient id of the identity source as the query names it.
    fn qualified(&self, id: &str) -> String {
        if self.config.identity_source.is_empty() {
            id.to_string()
        } else {
            format!("{}|{id}", self.config.identity_source)
        }
    }
}

/// The body of `POST /v1/questions`. No field names patients, a role or a requester.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestionRequest {
    question: String,
    #[serde(default)]
    mode: Mode,
    #[serde(default)]
    k: Option<u32>,
    #[serde(default)]
    epsilon: Option<f64>,
    #[serde(default)]
    wait_secs: Option<u64>,
    #[serde(default)]
    break_glass: Option<BreakGlass>,
    /// A cohort requester's registered study: the group its answer is over.
    #[serde(default)]
    study: Option<String>,
}

/// A clinician's stated reason to see a patient outside their relationships.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BreakGlass {
    patient: String,
    reason: String,
}

/// What the gateway answers about a question.
#[derive(Debug, Serialize, Deserialize)]
pub struct QuestionState {
    /// The id the gateway gave the question.
    pub query_id: String,
    /// `answered`, `pending` or `expired`.
    pub state: String,
    /// The answer, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

enum ApiError {
    /// No token, or a token that does not verify: 401 and nothing else.
    Unauthorized {
        presented: bool,
    },
    /// A valid token whose scopes grant no question.
    Forbidden(String),
    BadRequest(String),
    NotFound,
    TooMany,
    Unavailable(String),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let json =
            |status: StatusCode, body: serde_json::Value| (status, Json(body)).into_response();
        match self {
            ApiError::Unauthorized { presented } => {
                let challenge = if presented {
                    r#"Bearer realm="fhir-rag", error="invalid_token""#
                } else {
                    r#"Bearer realm="fhir-rag""#
                };
                let mut response = json(
                    StatusCode::UNAUTHORIZED,
                    serde_json::json!({"error": "invalid_token"}),
                );
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(challenge),
                );
                response
            }
            ApiError::Forbidden(reason) => {
                let mut response = json(
                    StatusCode::FORBIDDEN,
                    serde_json::json!({"error": "insufficient_scope", "error_description": reason}),
                );
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(
                        r#"Bearer realm="fhir-rag", error="insufficient_scope""#,
                    ),
                );
                response
            }
            ApiError::BadRequest(reason) => json(
                StatusCode::BAD_REQUEST,
                serde_json::json!({"error": "invalid_request", "error_description": reason}),
            ),
            ApiError::NotFound => json(
                StatusCode::NOT_FOUND,
                serde_json::json!({"error": "not_found"}),
            ),
            ApiError::TooMany => json(
                StatusCode::TOO_MANY_REQUESTS,
                serde_json::json!({"error": "too_many_requests", "error_description": "too many of your requests are in flight"}),
            ),
            ApiError::Unavailable(reason) => json(
                StatusCode::SERVICE_UNAVAILABLE,
                serde_json::json!({"error": "unavailable", "error_description": reason}),
            ),
        }
    }
}

/// A fresh query id: 128 random bits.
pub fn random_query_id() -> String {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .expect("the system's random source");
    format!("q-{}", hex::encode(bytes))
}

/// Runs the gateway until shutdown.
pub async fn run(
    config: GatewayConfig,
    tokens: TokenConfig,
    bus: &BusConfig,
    pool: PgPool,
    shutdown: watch::Receiver<bool>,
) -> Result<(), GatewayError> {
    let tokens = TokenVerifier::new(tokens).map_err(GatewayError::Token)?;
    match tokens.refresh().await {
        Ok(n) => tracing::info!(keys = n, "the issuer's keys are loaded"),
        Err(e) => tracing::warn!(error = %e, "the issuer's keys are not loaded yet: not ready"),
    }
    let signer = Signer::read(&config.gateway_signing_key, &config.gateway_name)?;
    let workers = Verifier::read(&config.worker_keys)?;
    let producer: FutureProducer = bus
        .producer()
        .create()
        .map_err(|e| crate::bus::BusError::Client(e.to_string()))?;
    let consumer: StreamConsumer = bus
        .consumer(&config.gateway_group)
        .create()
        .map_err(|e| crate::bus::BusError::Client(e.to_string()))?;
    consumer
        .subscribe(&[&config.answer_topic])
        .map_err(|e| crate::bus::BusError::Client(e.to_string()))?;
    let (answered, _) = broadcast::channel(1024);
    let gateway = Arc::new(Gateway {
        slots: Semaphore::new(config.max_concurrent.max(1)),
        config,
        tokens,
        signer,
        workers,
        producer,
        pool,
        answered,
        intake_running: AtomicBool::new(false),
        in_flight: Default::default(),
    });
    tracing::info!(kid = %gateway.signer.key().kid(), "gateway signing key loaded");
    let intake = tokio::spawn(take_answers(gateway.clone(), consumer, shutdown.clone()));
    let listener = tokio::net::TcpListener::bind(gateway.config.listen).await?;
    tracing::info!(addr = %gateway.config.listen, "gateway listening");
    let app = router(gateway.clone());
    let read = Duration::from_secs(gateway.config.request_read_secs.max(1));
    let limits = listener::Limits {
        max_connections: gateway.config.max_connections,
        header_timeout: read,
        body_timeout: read,
        max_lifetime: Duration::from_secs(600),
        max_per_client: gateway.config.max_connections_per_client,
    };
    let result = listener::serve(listener, app, limits, shutdown).await;
    intake.abort();
    result.map_err(GatewayError::Io)
}

fn router(gateway: Arc<Gateway>) -> Router {
    let authenticated = Router::new()
        .route("/v1/questions", post(ask))
        .route("/v1/questions/{id}", get(fetch))
        .layer(middleware::from_fn_with_state(
            gateway.clone(),
            authenticate,
        ))
        .layer(DefaultBodyLimit::max(16 * 1024));
    Router::new()
        .merge(authenticated)
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route(
            "/openapi.json",
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI) }),
        )
        .with_state(gateway)
}

/// Verifies the bearer token before anything else of the request is read.
async fn authenticate(
    State(gateway): State<Arc<Gateway>>,
    mut request: Request,
    next: Next,
) -> Response {
    let refused = |label: &str, presented: bool| {
        crate::metrics::count(
            "fhir_rag_gateway_refused_total",
            "Requests the gateway refused, by reason.",
            &[("reason", label)],
            1.0,
        );
        ApiError::Unauthorized { presented }.into_response()
    };
    let Some(token) = bearer(request.headers()) else {
        return refused("no_token", false);
    };
    let claims = match gateway.tokens.verify(&token, now_secs()).await {
        Ok(claims) => claims,
        Err(e) => {
            tracing::debug!(reason = e.label(), detail = %e, "token refused");
            return refused(e.label(), true);
        }
    };
    let principal = match access::principal(&claims, gateway.tokens.config()) {
        Ok(principal) => principal,
        Err(e) => {
            crate::metrics::count(
                "fhir_rag_gateway_refused_total",
                "Requests the gateway refused, by reason.",
                &[("reason", "insufficient_scope")],
                1.0,
            );
            return ApiError::Forbidden(e.0).into_response();
        }
    };
    request.extensions_mut().insert(principal);
    next.run(request).await
}

/// The bearer token of an `Authorization` header (RFC 6750, section 2.1).
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = token.trim();
    (!token.is_empty()).then(|| token.to_string())
}

async fn ready(State(gateway): State<Arc<Gateway>>) -> Response {
    let mut problems = Vec::new();
    if !gateway.tokens.ready().await {
        problems.push("the issuer's keys are not loaded".to_string());
    }
    if !gateway.intake_running.load(Ordering::Relaxed) {
        problems.push("the answer consumer is not running".to_string());
    }
    if sqlx::query("SELECT 1")
        .execute(&gateway.pool)
        .await
        .is_err()
    {
        problems.push("the database is unreachable".to_string());
    }
    if problems.is_empty() {
        (StatusCode::OK, "ready\n").into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{}\n", problems.join("; ")),
        )
            .into_response()
    }
}

async fn ask(
    State(gateway): State<Arc<Gateway>>,
    Extension(principal): Extension<Principal>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let _mine = gateway.enter(&principal.subject).ok_or(ApiError::TooMany)?;
    let slot = tokio::time::timeout(Duration::from_secs(5), gateway.slots.acquire())
        .await
        .map_err(|_| ApiError::Unavailable("too many requests in flight".into()))?
        .map_err(|_| ApiError::Unavailable("shutting down".into()))?;
    let request: QuestionRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::BadRequest(format!("body: {e}")))?;
    if request.study.is_some() && principal.access != Access::Cohort {
        return Err(ApiError::Forbidden(
            "studies are for cohort requesters".into(),
        ));
    }
    let mut patients = match &principal.access {
        Access::Patient { patient } => Some(vec![gateway.qualified(patient)]),
        Access::Clinician { practitioner } => Some(
            treated_patients(
                &gateway.pool,
                practitioner,
                gateway.config.relationship_days,
                &gateway.config.identity_source,
            )
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "treatment relationships could not be read");
                ApiError::Unavailable("the store is unavailable".into())
            })?,
        ),
        Access::Cohort => match &request.study {
            Some(study) => Some(
                studies::granted_members(&gateway.pool, study, &principal.subject)
                    .await
                    .map_err(|e| {
                        tracing::error!(error = %e, "studies could not be read");
                        ApiError::Unavailable("the store is unavailable".into())
                    })?
                    // Unknown, closed or not granted: one answer.
                    .ok_or_else(|| {
                        ApiError::Forbidden("no open study of that name is granted to you".into())
                    })?,
            ),
            None => None,
        },
    };
    let mut break_glass: Option<(String, String)> = None;
    if let Some(glass) = &request.break_glass {
        let Access::Clinician { .. } = principal.access else {
            return Err(ApiError::Forbidden(
                "break-the-glass is for clinicians".into(),
            ));
        };
        if !gateway.config.break_glass {
            return Err(ApiError::Forbidden(
                "break-the-glass is disabled here".into(),
            ));
        }
        let reason = glass.reason.trim();
        let chars = reason.chars().count();
        if !(MIN_REASON_CHARS..=MAX_REASON_CHARS).contains(&chars)
            || reason.chars().any(char::is_control)
        {
            return Err(ApiError::BadRequest(format!(
                "break_glass.reason must have {MIN_REASON_CHARS} to {MAX_REASON_CHARS} characters"
            )));
        }
        let patient = glass.patient.trim();
        if !crate::ingest::flatten::is_fhir_id(patient) {
            return Err(ApiError::BadRequest(
                "break_glass.patient must be a FHIR Patient id".into(),
            ));
        }
        let used: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM gateway_requests
             WHERE principal = $1 AND break_glass_reason IS NOT NULL
               AND created_at > now() - interval '1 day'",
        )
        .bind(&principal.subject)
        .fetch_one(&gateway.pool)
        .await
        .map_err(|_| ApiError::Unavailable("the store is unavailable".into()))?;
        if used >= i64::from(gateway.config.break_glass_per_day) {
            return Err(ApiError::Forbidden(
                "break-the-glass limit for today reached; call the privacy office".into(),
            ));
        }
        let patient = gateway.qualified(patient);
        let list = patients.get_or_insert_with(Vec::new);
        if !list.iter().any(|p| p == &patient) {
            if list.len() >= MAX_PATIENTS {
                list.remove(list.len() - 1);
            }
            list.push(patient.clone());
        }
        break_glass = Some((patient, reason.to_string()));
    }
    let query = Query {
        query_id: random_query_id(),
        requester: Requester {
            id: principal.key(),
            role: principal.access.role().to_string(),
            patients,
        },
        question: request.question,
        options: QueryOptions {
            mode: request.mode,
            k: request.k,
            epsilon: request.epsilon,
        },
    };
    query.validate().map_err(ApiError::BadRequest)?;
    let patient_count = query.requester.patients.as_ref().map_or(0, Vec::len);
    let ttl = gateway
        .config
        .envelope_ttl_secs
        .clamp(1, crate::auth::envelope::MAX_LIFETIME_SECS);
    sqlx::query(
        "INSERT INTO gateway_requests
             (query_id, principal, role, access, patients, break_glass_patient,
              break_glass_reason, expires_at, study)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8), $9)",
    )
    .bind(&query.query_id)
    .bind(&principal.subject)
    .bind(&query.requester.role)
    .bind(principal.access.as_str())
    .bind(patient_count as i32)
    .bind(break_glass.as_ref().map(|(p, _)| p))
    .bind(break_glass.as_ref().map(|(_, r)| r))
    .bind(ttl as f64)
    .bind(&request.study)
    .execute(&gateway.pool)
    .await
    .map_err(|e| {
        tracing::error!(error = %e, "the request could not be recorded");
        ApiError::Unavailable("the store is unavailable".into())
    })?;
    if break_glass.is_some() {
        crate::metrics::count(
            "fhir_rag_gateway_break_glass_total",
            "Questions asked by breaking the glass (a clinician's stated reason to see a patient outside their relationships).",
            &[],
            1.0,
        );
        tracing::warn!(query_id = %query.query_id, principal = %principal.key(), "break-the-glass question (patient and reason in gateway_requests)");
    }
    let envelope = gateway.signer.sign_query(&query, ttl);
    // Subscribe before publishing, so that an answer faster than this request is not missed.
    let mut answered = gateway.answered.subscribe();
    gateway
        .producer
        .send(
            FutureRecord::to(&gateway.config.query_topic)
                .key(query.query_id.as_bytes())
                .payload(envelope.as_bytes()),
            Duration::from_secs(30),
        )
        .await
        .map_err(|(e, _)| {
            tracing::error!(error = %e, "the question could not be published");
            ApiError::Unavailable("the bus is unavailable".into())
        })?;
    crate::metrics::count(
        "fhir_rag_gateway_questions_total",
        "Questions the gateway accepted, by access.",
        &[("access", principal.access.as_str())],
        1.0,
    );
    let wait = Duration::from_secs(
        request
            .wait_secs
            .unwrap_or(30)
            .min(gateway.config.max_wait_secs),
    );
    // The request's share of the gateway is given back while it waits.
    drop(slot);
    let deadline = tokio::time::Instant::now() + wait;
    // Read the store at the start, when this question's id goes by, and every 2 s (another
    // gateway replica may have filed the answer): never on every other question's answer.
    let mut look = true;
    loop {
        if look {
            if let Some(state) = state_of(&gateway.pool, &query.query_id, &principal).await? {
                if state.state != "pending" {
                    return Ok((StatusCode::OK, Json(state)).into_response());
                }
            }
        }
        if tokio::time::Instant::now() >= deadline {
            break;
        }
        let until = (tokio::time::Instant::now() + Duration::from_secs(2)).min(deadline);
        look = tokio::select! {
            _ = tokio::time::sleep_until(until) => true,
            id = answered.recv() => match id {
                Ok(id) => id == query.query_id,
                Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => {
                    tokio::time::sleep_until(until).await;
                    true
                }
            },
        };
    }
    let location = format!("/v1/questions/{}", query.query_id);
    let mut response = (
        StatusCode::ACCEPTED,
        Json(QuestionState {
            query_id: query.query_id,
            state: "pending".into(),
            answer: None,
        }),
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

async fn fetch(
    State(gateway): State<Arc<Gateway>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state_of(&gateway.pool, &id, &principal).await? {
        Some(state) => {
            let status = if state.state == "pending" {
                StatusCode::ACCEPTED
            } else {
                StatusCode::OK
            };
            Ok((status, Json(state)).into_response())
        }
        None => Err(ApiError::NotFound),
    }
}

/// A question's state, if `principal` asked it (anyone else's question is not found).
async fn state_of(
    pool: &PgPool,
    query_id: &str,
    principal: &Principal,
) -> Result<Option<QuestionState>, ApiError> {
    let row = sqlx::query(
        "SELECT answer, expires_at < now() AS expired FROM gateway_requests
         WHERE query_id = $1 AND principal = $2",
    )
    .bind(query_id)
    .bind(&principal.subject)
    .fetch_optional(pool)
    .await
    .map_err(|e| {
        tracing::error!(error = %e, "a request could not be read");
        ApiError::Unavailable("the store is unavailable".into())
    })?;
    let Some(row) = row else {
        return Ok(None);
    };
    let answer: Option<serde_json::Value> = row.get("answer");
    let expired: bool = row.get("expired");
    let answer = answer.and_then(|a| serde_json::from_value::<Answer>(a).ok());
    let state = match (&answer, expired) {
        (Some(_), _) => "answered",
        (None, true) => "expired",
        (None, false) => "pending",
    };
    Ok(Some(QuestionState {
        query_id: query_id.to_string(),
        state: state.into(),
        answer,
    }))
}

/// The patients a practitioner of `source` has a treatment relationship with inside the window
/// (a link dated in the last `window_days` days, not in the future; any dated link with 0), most
/// recent first, at most [`MAX_PATIENTS`]; as the query names them (`source|id` outside the
/// default source). Only `source`'s links and identifiers count: another feed's `Practitioner/7`
/// is another person.
pub async fn treated_patients(
    pool: &PgPool,
    practitioner: &str,
    window_days: u32,
    source: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(
        "WITH keys AS (
             SELECT $1::text AS k
             UNION SELECT alias FROM practitioner_aliases WHERE source = $4 AND reference = $1)
         SELECT CASE WHEN p.source = '' THEN p.fhir_id ELSE p.source || '|' || p.fhir_id END
         FROM care_relationships c JOIN patients p USING (patient_key)
         WHERE c.source = $4 AND c.practitioner IN (SELECT k FROM keys)
           AND c.last_day IS NOT NULL AND c.last_day <= current_date + 1
           AND ($2 = 0 OR c.last_day >= current_date - $2)
         GROUP BY p.source, p.fhir_id
         ORDER BY max(c.last_day) DESC, p.source, p.fhir_id
         LIMIT $3",
    )
    .bind(practitioner)
    .bind(window_days as i32)
    .bind(MAX_PATIENTS as i64)
    .bind(source)
    .fetch_all(pool)
    .await
}

/// Reads signed answers and files each with its question; anything unsigned, forged or for a
/// question this gateway never asked is dropped and counted.
async fn take_answers(
    gateway: Arc<Gateway>,
    consumer: StreamConsumer,
    mut shutdown: watch::Receiver<bool>,
) {
    gateway.intake_running.store(true, Ordering::Relaxed);
    loop {
        let message = tokio::select! {
            _ = shutdown.wait_for(|stop| *stop) => break,
            message = consumer.recv() => message,
        };
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                tracing::warn!(error = %e, "reading answers failed; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        let outcome = match message.payload() {
            None => "empty",
            Some(payload) => match gateway.workers.verify_answer(payload, now_secs()) {
                Err(e) => {
                    // The kind only: a claims error may quote a value.
                    let kind = match e {
                        crate::auth::envelope::EnvelopeError::InvalidClaims(_) => "invalid claims",
                        _ => "bad or missing signature, wrong type, audience or time",
                    };
                    tracing::warn!(
                        partition = message.partition(),
                        offset = message.offset(),
                        reason = kind,
                        "an answer that does not verify was dropped"
                    );
                    "forged"
                }
                Ok(claims) => {
                    let answer = claims.answer;
                    let stored = loop {
                        match sqlx::query(
                            "UPDATE gateway_requests SET answer = $2, answered_at = now()
                             WHERE query_id = $1 AND answer IS NULL",
                        )
                        .bind(&answer.query_id)
                        .bind(serde_json::to_value(&answer).expect("answers serialize"))
                        .execute(&gateway.pool)
                        .await
                        {
                            Ok(done) => break done.rows_affected(),
                            Err(e) => {
                                tracing::warn!(error = %e, "an answer could not be filed; retrying");
                                tokio::time::sleep(Duration::from_secs(1)).await;
                                if *shutdown.borrow() {
                                    // Not filed: the offset stays, the next start reads it again.
                                    gateway.intake_running.store(false, Ordering::Relaxed);
                                    return;
                                }
                            }
                        }
                    };
                    if stored == 1 {
                        let _ = gateway.answered.send(answer.query_id.clone());
                        "filed"
                    } else {
                        "unknown_or_repeated"
                    }
                }
            },
        };
        crate::metrics::count(
            "fhir_rag_gateway_answers_total",
            "Answers the gateway read, by outcome.",
            &[("outcome", outcome)],
            1.0,
        );
        if let Err(e) = consumer.commit_message(&message, CommitMode::Async) {
            tracing::warn!(error = %e, "an answer offset could not be committed");
        }
    }
    gateway.intake_running.store(false, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_ids_are_random_and_fit_the_contract() {
        let (a, b) = (random_query_id(), random_query_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 34);
        assert!(a.starts_with("q-") && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn only_bearer_tokens_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic dXNlcjpwdw=="),
        );
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer  abc.def.ghi "),
        );
        assert_eq!(bearer(&headers).as_deref(), Some("abc.def.ghi"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }
}
