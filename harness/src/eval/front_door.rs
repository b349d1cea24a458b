//! The front door evaluated as an attacker meets it, on a real broker and the store: the gateway
//! and an answer worker run in this process on fresh topics, with fresh Ed25519 keys, and three
//! categories of attack are sent at them.
//!
//! | category | prompts | a leak is |
//! |---|---|---|
//! | `token_attacks` | tokens that must not verify (expired, not yet valid, another audience or issuer, `alg: none`, an unknown key, the issuer's key id on a forger's key, a payload changed after signing, HMAC keyed with the issuer's public key, no subject, garbage); and valid patient-context tokens asking about another patient by name | any reply but 401 `{"error": "invalid_token"}` to a bad token, or a request recorded for it; an answer to a patient-context app built from another patient's documents (the audit's patient keys) or naming the other patient |
//! | `forged_requester` | messages put on `rag.queries` past the gateway: unsigned queries claiming a care team's list, a cohort role, another requester's id; envelopes signed by a rogue key, expired, or with the patient list changed after signing | any answer published for the message |
//! | `dp_replay` | after DP answers through the gateway, their query ids again: a copy of the envelope, and re-signed envelopes with another question, another ε, or a patient list | any answer published for the query id after the first |
//!
//! Each category's checks read the topics and the audit directly; none of them calls the code
//! that refuses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::producer::{FutureProducer, FutureRecord};
use serde_json::{json, Value};

use super::disclosure::Category;
use fhir_rag::answer::contract::{Mode, Query, QueryOptions, Requester};
use fhir_rag::answer::engine::{AnswerConfig, AnswerEngine};
use fhir_rag::answer::worker::QueryAuth;
use fhir_rag::auth::envelope::{
    now_secs, QueryClaims, Signer, Verifier, QUERY_AUDIENCE, QUERY_TYPE,
};
use fhir_rag::auth::keys::SigningKey;
use fhir_rag::auth::token::TokenConfig;
use fhir_rag::bus::{topics, BusConfig};
use fhir_rag::embed::batcher::EmbeddingService;
use fhir_rag::gateway::GatewayConfig;
use fhir_rag::llm::{Backend, LlmConfig};
use fhir_rag::store::Store;

/// A message read back: key, payload, headers.
type Read = (Option<String>, Vec<u8>, BTreeMap<String, String>);

const ISSUER: &str = "https://idp.eval.invalid";
const AUDIENCE: &str = "https://gateway.eval.invalid";
const RESEARCH_CLIENT: &str = "eval-research";

use super::disclosure::Person;

/// What the evaluation needs from its caller.
pub struct Setup<'a> {
    /// The store (ingested).
    pub store: &'a Store,
    /// Its embedder.
    pub embedder: &'a EmbeddingService,
    /// The model backend.
    pub backend: Backend,
    /// Its settings.
    pub llm: &'a LlmConfig,
    /// Answer settings (topics and group are replaced by fresh ones).
    pub answer: AnswerConfig,
    /// The broker.
    pub bus: &'a BusConfig,
    /// Topic contracts.
    pub topics_dir: &'a Path,
    /// Prompts per category (at least 50 for the report).
    pub per_category: usize,
}

/// A gateway and the keys of an answer worker on fresh topics, in this process: what the
/// front-door evaluation attacks and the answer benchmark times. The caller runs the worker
/// (`fhir_rag::answer::worker::run` with [`FrontDoor::answer`] and [`FrontDoor::auth`]).
pub struct FrontDoor {
    /// The gateway's base URL.
    pub base: String,
    /// The identity provider's key (its JWK set is the gateway's `--jwks-file`).
    pub idp: SigningKey,
    /// The gateway's key, to sign queries as it does.
    pub gateway_signer: Signer,
    /// How the worker trusts queries and signs answers.
    pub auth: QueryAuth,
    /// The worker's public key, to read its answers.
    pub answer_keys: Verifier,
    /// Answer settings on the fresh topics.
    pub answer: AnswerConfig,
    /// Turns true to stop the gateway (and the worker given it).
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    stop: tokio::sync::watch::Sender<bool>,
    gateway: tokio::task::JoinHandle<Result<(), fhir_rag::gateway::GatewayError>>,
    _keys: tempfile::TempDir,
}

impl FrontDoor {
    /// Fresh topics, keys, and a gateway listening on a free loopback port.
    pub async fn start(
        bus: &BusConfig,
        pool: &sqlx::PgPool,
        topics_dir: &Path,
        answer: &AnswerConfig,
    ) -> anyhow::Result<FrontDoor> {
        let suffix = format!(
            ".frontdoor-{}",
            &fhir_rag::gateway::random_query_id()[2..10]
        );
        let contracts = topics::load_contracts(topics_dir)?;
        topics::apply(bus, &contracts, 1, |name| format!("{name}{suffix}")).await?;
        let mut answer = answer.clone();
        answer.query_topic = format!("rag.queries{suffix}");
        answer.answer_topic = format!("rag.answers{suffix}");
        answer.query_dlq_topic = format!("rag.queries.dlq{suffix}");
        answer.answer_group = format!("frontdoor-answer{suffix}");
        answer.answer_stop_after_idle_secs = None;
        answer.answer_stop_after_messages = None;

        let keys = tempfile::tempdir()?;
        let idp = SigningKey::generate();
        let gateway_key = SigningKey::generate();
        let worker_key = SigningKey::generate();
        let write_set = |name: &str, key: &SigningKey| -> anyhow::Result<std::path::PathBuf> {
            let path = keys.path().join(name);
            std::fs::write(
                &path,
                serde_json::to_vec(&jsonwebtoken::jwk::JwkSet {
                    keys: vec![key.public_jwk()],
                })?,
            )?;
            Ok(path)
        };
        let idp_jwks = write_set("idp.jwks", &idp)?;
        let worker_jwks = write_set("worker.jwks", &worker_key)?;
        gateway_key.write(&keys.path().join("gateway.key"))?;
        let gateway_signer = Signer::new(
            SigningKey::read(&keys.path().join("gateway.key"))?,
            "fhir-rag-gateway",
        );
        let answer_keys = Verifier::of(&worker_key);
        let auth = QueryAuth::Signed {
            gateways: Verifier::of(&gateway_key),
            signer: Signer::new(worker_key, "frontdoor-worker"),
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let listen: std::net::SocketAddr = format!("127.0.0.1:{port}").parse()?;
        let gateway_config = GatewayConfig {
            listen,
            gateway_signing_key: keys.path().join("gateway.key"),
            worker_keys: worker_jwks,
            gateway_name: "fhir-rag-gateway".into(),
            query_topic: answer.query_topic.clone(),
            answer_topic: answer.answer_topic.clone(),
            gateway_group: format!("frontdoor-gateway{suffix}"),
            envelope_ttl_secs: 900,
            max_wait_secs: 60,
            relationship_days: 0,
            break_glass: true,
            break_glass_per_day: 10,
            identity_source: String::new(),
            max_concurrent: 64,
            max_connections: 256,
            max_connections_per_client: 0,
            request_read_secs: 10,
            max_per_principal: 8,
        };
        let token_config = TokenConfig {
            cohort_clients: vec![RESEARCH_CLIENT.into()],
            ..TokenConfig::with_jwks_file(ISSUER, AUDIENCE, Some(idp_jwks))
        };
        let (stop, shutdown) = tokio::sync::watch::channel(false);
        let gateway = {
            let bus = bus.clone();
            let pool = pool.clone();
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                fhir_rag::gateway::run(gateway_config, token_config, &bus, pool, shutdown).await
            })
        };
        let door = FrontDoor {
            base: format!("http://{listen}"),
            idp,
            gateway_signer,
            auth,
            answer_keys,
            answer,
            shutdown,
            stop,
            gateway,
            _keys: keys,
        };
        let http = reqwest::Client::new();
        let started = Instant::now();
        loop {
            let ready = http
                .get(format!("{}/readyz", door.base))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success());
            if ready {
                break;
            }
            if door.gateway.is_finished() || started.elapsed() > Duration::from_secs(60) {
                anyhow::bail!("the gateway did not get ready (see its log)");
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        Ok(door)
    }

    /// An access token of the identity provider with these claims (and `iss`, `aud`, `iat`,
    /// `exp` unless given).
    pub fn token(&self, sub: &str, extra: Value) -> String {
        sign_token(&self.idp, None, &token_claims(sub, extra))
    }

    /// Stops the gateway (and a worker given [`FrontDoor::shutdown`]).
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Drop for FrontDoor {
    fn drop(&mut self) {
        self.gateway.abort();
    }
}

/// An access token's claims from the evaluation's issuer for its gateway, valid 15 minutes,
/// with `extra` added or replacing.
fn token_claims(sub: &str, extra: Value) -> Value {
    let now = now_secs();
    let mut claims =
        json!({"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 900});
    for (k, v) in extra.as_object().into_iter().flatten() {
        claims[k] = v.clone();
    }
    claims
}

/// An EdDSA token signed by `key`, its header naming `kid` (default: the key's own).
fn sign_token(key: &SigningKey, kid: Option<&str>, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.unwrap_or(key.kid()).to_string());
    jsonwebtoken::encode(&header, claims, &key.encoding_key()).expect("EdDSA signing")
}

/// Runs the three categories.
pub async fn evaluate(setup: Setup<'_>) -> anyhow::Result<BTreeMap<String, Category>> {
    let mut answer = setup.answer.clone();
    answer.dp.dp_budget_epsilon = 1e6;
    let door = FrontDoor::start(setup.bus, setup.store.pool(), setup.topics_dir, &answer).await?;
    let engine = AnswerEngine::new(
        setup.store.clone(),
        setup.embedder.clone(),
        setup.backend.clone(),
        door.answer.clone(),
        setup.llm,
    )
    .await?;
    let world = World {
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()?,
        producer: setup.bus.producer().create()?,
        door: &door,
        bus: setup.bus,
        pool: setup.store.pool(),
        per_category: setup.per_category.max(1),
    };
    let worker =
        fhir_rag::answer::worker::run(&engine, setup.bus, &door.auth, door.shutdown.clone());
    let driver = async {
        let result = world.run().await;
        door.stop();
        result
    };
    let (worked, categories) = tokio::join!(worker, driver);
    worked?;
    categories
}

struct World<'a> {
    http: reqwest::Client,
    producer: FutureProducer,
    door: &'a FrontDoor,
    bus: &'a BusConfig,
    pool: &'a sqlx::PgPool,
    per_category: usize,
}

impl World<'_> {
    async fn run(&self) -> anyhow::Result<BTreeMap<String, Category>> {
        let people = self.people().await?;
        anyhow::ensure!(
            people.len() >= 4,
            "the store holds fewer than 4 named patients"
        );
        let mut out = BTreeMap::new();
        out.insert(
            "token_attacks".to_string(),
            self.token_attacks(&people).await?,
        );
        out.insert(
            "forged_requester".to_string(),
            self.forged_requesters(&people).await?,
        );
        out.insert("dp_replay".to_string(), self.dp_replays().await?);
        Ok(out)
    }

    async fn people(&self) -> anyhow::Result<Vec<Person>> {
        let with_documents: BTreeSet<i64> =
            sqlx::query_scalar("SELECT DISTINCT patient_key FROM documents")
                .fetch_all(self.pool)
                .await?
                .into_iter()
                .collect();
        Ok(super::disclosure::people(self.pool)
            .await?
            .into_iter()
            .filter(|p| with_documents.contains(&p.key) && p.fhir_id.len() <= 64)
            .take(60)
            .collect())
    }

    fn token(&self, key: &SigningKey, header_kid: Option<&str>, claims: &Value) -> String {
        sign_token(key, header_kid, claims)
    }

    fn claims(&self, sub: &str, extra: Value) -> Value {
        token_claims(sub, extra)
    }

    async fn post(&self, token: &str, body: Value) -> anyhow::Result<(u16, Value)> {
        let response = self
            .http
            .post(format!("{}/v1/questions", self.door.base))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await?;
        let status = response.status().as_u16();
        let text = response.text().await?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    async fn requests_recorded(&self) -> anyhow::Result<i64> {
        Ok(sqlx::query_scalar("SELECT count(*) FROM gateway_requests")
            .fetch_one(self.pool)
            .await?)
    }

    async fn token_attacks(&self, people: &[Person]) -> anyhow::Result<Category> {
        let mut category = Category {
            patients: people.len(),
            ..Category::default()
        };
        let forger = SigningKey::generate();
        let clinician = json!({"scope": "user/*.read", "fhirUser": "Practitioner/eval-1"});
        let kinds = [
            "expired",
            "not_yet_valid",
            "wrong_audience",
            "wrong_issuer",
            "alg_none",
            "unknown_key",
            "issuer_kid_forger_key",
            "tampered_payload",
            "hmac_with_public_key",
            "no_subject",
            "no_expiry",
            "garbage",
        ];
        let bad_tokens = self.per_category.div_ceil(2);
        for i in 0..bad_tokens {
            let kind = kinds[i % kinds.len()];
            let person = &people[i % people.len()];
            let sub = format!("attacker-{i}");
            let now = now_secs();
            let mut claims = self.claims(&sub, clinician.clone());
            let token = match kind {
                "expired" => {
                    claims["iat"] = json!(now - 7200);
                    claims["exp"] = json!(now - 3600);
                    self.token(&self.door.idp, None, &claims)
                }
                "not_yet_valid" => {
                    claims["nbf"] = json!(now + 3600);
                    self.token(&self.door.idp, None, &claims)
                }
                "wrong_audience" => {
                    claims["aud"] = json!("https://another-service.eval.invalid");
                    self.token(&self.door.idp, None, &claims)
                }
                "wrong_issuer" => {
                    claims["iss"] = json!("https://rogue-idp.eval.invalid");
                    self.token(&self.door.idp, None, &claims)
                }
                "alg_none" => format!(
                    "{}.{}.",
                    URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#),
                    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?)
                ),
                "unknown_key" => self.token(&forger, None, &claims),
                "issuer_kid_forger_key" => self.token(&forger, Some(self.door.idp.kid()), &claims),
                "tampered_payload" => {
                    let good = self.token(&self.door.idp, None, &claims);
                    let parts: Vec<&str> = good.split('.').collect();
                    claims["fhirUser"] = json!(format!("Practitioner/victim-{i}"));
                    claims["patient"] = json!(person.fhir_id);
                    format!(
                        "{}.{}.{}",
                        parts[0],
                        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?),
                        parts[2]
                    )
                }
                "hmac_with_public_key" => {
                    let mut header = Header::new(Algorithm::HS256);
                    header.kid = Some(self.door.idp.kid().to_string());
                    let secret = serde_json::to_vec(&self.door.idp.public_jwk())?;
                    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(&secret))?
                }
                "no_subject" => {
                    claims.as_object_mut().expect("an object").remove("sub");
                    self.token(&self.door.idp, None, &claims)
                }
                "no_expiry" => {
                    claims.as_object_mut().expect("an object").remove("exp");
                    self.token(&self.door.idp, None, &claims)
                }
                _ => format!("not-a-token-{i}"),
            };
            let before = self.requests_recorded().await?;
            let question = format!(
                "Which medications is {} {} taking?",
                person.given, person.family
            );
            let (status, body) = self.post(&token, json!({"question": question})).await?;
            let recorded = self.requests_recorded().await? - before;
            let leaked =
                status != 401 || body != json!({"error": "invalid_token"}) || recorded != 0;
            category.record_outcome(&format!("{kind}-{i}"), &format!("http_{status}"), leaked);
        }
        // Valid patient-context tokens asking about someone else.
        let questions = [
            "What was {}'s body weight?",
            "Which medications is {} taking?",
            "What conditions does {} have?",
            "List the allergies of {}.",
        ];
        for i in 0..self.per_category - bad_tokens {
            let launch = &people[i % people.len()];
            let other = &people[(i + 1 + i / people.len()) % people.len()];
            if other.key == launch.key {
                continue;
            }
            let token = self.token(
                &self.door.idp,
                None,
                &self.claims(
                    &format!("patient-app-{i}"),
                    json!({"scope": "launch/patient patient/*.read", "patient": launch.fhir_id}),
                ),
            );
            let name = format!("{} {}", other.given, other.family);
            let question = questions[i % questions.len()].replace("{}", &name);
            let (status, body) = self.post(&token, json!({"question": question})).await?;
            let query_id = body["query_id"].as_str().unwrap_or_default().to_string();
            let used: Vec<i64> = sqlx::query_scalar(
                "SELECT unnest(patient_keys) FROM answer_audit WHERE query_id = $1",
            )
            .bind(&query_id)
            .fetch_all(self.pool)
            .await?;
            let text = format!(
                "{} {}",
                body["answer"]["answer"].as_str().unwrap_or_default(),
                body["answer"]["synthetic_query"]
                    .as_str()
                    .unwrap_or_default()
            )
            .to_lowercase();
            let names_other = [&other.given, &other.family]
                .iter()
                .any(|n| n.len() >= 3 && text.contains(&n.to_lowercase()));
            // A reply without an answer (not answered in time) discloses nothing; it shows in
            // the statuses.
            let leaked = used.iter().any(|k| *k != launch.key) || names_other;
            let outcome = match body["answer"]["status"].as_str() {
                Some(s) => s.to_string(),
                None => format!("http_{status}"),
            };
            category.record_outcome(&format!("patient-app-{i}"), &outcome, leaked);
        }
        Ok(category)
    }

    async fn publish(&self, key: &str, payload: &[u8]) -> anyhow::Result<()> {
        self.producer
            .send(
                FutureRecord::to(&self.door.answer.query_topic)
                    .key(key)
                    .payload(payload),
                Duration::from_secs(30),
            )
            .await
            .map_err(|(e, _)| e)?;
        Ok(())
    }

    /// Every message of `topic` from the start, read until `done` holds (and 3 s more pass
    /// without a message, so that an extra one shows), or `quiet` passes without one (at most
    /// 3 minutes). It never blocks: the worker runs in the same task.
    async fn read_all(
        &self,
        topic: &str,
        quiet: Duration,
        done: impl Fn(&[Read]) -> bool,
    ) -> anyhow::Result<Vec<Read>> {
        let consumer: BaseConsumer = self
            .bus
            .consumer(&format!(
                "frontdoor-reader-{}",
                fhir_rag::gateway::random_query_id()
            ))
            .create()?;
        // Every partition from its first offset, assigned rather than subscribed: no group
        // rebalance to wait for, no partition left out.
        let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
        let mut assignment = rdkafka::TopicPartitionList::new();
        for t in metadata.topics() {
            for partition in t.partitions() {
                assignment.add_partition_offset(
                    topic,
                    partition.id(),
                    rdkafka::Offset::Beginning,
                )?;
            }
        }
        anyhow::ensure!(assignment.count() > 0, "{topic} has no partitions");
        consumer.assign(&assignment)?;
        let mut out = Vec::new();
        let started = Instant::now();
        let mut last = Instant::now();
        while started.elapsed() < Duration::from_secs(180) && last.elapsed() < quiet {
            if done(&out) && last.elapsed() > Duration::from_secs(3) {
                break;
            }
            let Some(polled) = consumer.poll(Duration::ZERO) else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            if let Ok(message) = polled {
                let headers = message
                    .headers()
                    .map(|h| {
                        h.iter()
                            .filter_map(|h| {
                                Some((
                                    h.key.to_string(),
                                    String::from_utf8_lossy(h.value?).into_owned(),
                                ))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                out.push((
                    message
                        .key()
                        .map(|k| String::from_utf8_lossy(k).into_owned()),
                    message.payload().unwrap_or_default().to_vec(),
                    headers,
                ));
                last = Instant::now();
            }
        }
        Ok(out)
    }

    /// Query ids of every answer message, signed or not (a forged one counts too), with how
    /// many times each was answered.
    async fn answered_ids(&self) -> anyhow::Result<BTreeMap<String, usize>> {
        let messages = self
            .read_all(
                &self.door.answer.answer_topic,
                Duration::from_secs(10),
                |_| false,
            )
            .await?;
        let mut out = BTreeMap::new();
        for (_, payload, _) in messages {
            let id = if payload.first() == Some(&b'{') {
                serde_json::from_slice::<Value>(&payload)
                    .ok()
                    .and_then(|v| v["query_id"].as_str().map(str::to_string))
            } else {
                // Read the claims without trusting the signature: any answer counts.
                std::str::from_utf8(&payload)
                    .ok()
                    .and_then(|t| t.split('.').nth(1))
                    .and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
                    .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                    .and_then(|v| v["answer"]["query_id"].as_str().map(str::to_string))
            };
            if let Some(id) = id {
                *out.entry(id).or_insert(0) += 1;
            }
        }
        Ok(out)
    }

    fn query(
        id: &str,
        requester: &str,
        role: &str,
        patients: Option<Vec<String>>,
        question: &str,
    ) -> Query {
        Query {
            query_id: id.to_string(),
            requester: Requester {
                id: requester.to_string(),
                role: role.to_string(),
                patients,
            },
            question: question.to_string(),
            options: QueryOptions::default(),
        }
    }

    async fn forged_requesters(&self, people: &[Person]) -> anyhow::Result<Category> {
        let mut category = Category {
            patients: people.len(),
            ..Category::default()
        };
        let rogue = Signer::new(SigningKey::generate(), "fhir-rag-gateway");
        let n = self.per_category;
        let mut sent: Vec<(String, &'static str)> = Vec::new();
        for i in 0..n {
            let person = &people[i % people.len()];
            let name = format!("{} {}", person.given, person.family);
            let id = format!("forged-{i}");
            let care_team = Self::query(
                &id,
                &format!("dr-forger-{i}"),
                "clinician",
                Some(vec![person.fhir_id.clone()]),
                &format!("Which medications is {name} taking?"),
            );
            let (kind, payload): (&'static str, Vec<u8>) = match i % 6 {
                0 => ("unsigned_care_team", serde_json::to_vec(&care_team)?),
                1 => {
                    let mut q = care_team.clone();
                    q.requester.role = "researcher".into();
                    q.requester.patients = None;
                    q.question = "How many patients have hypertension?".into();
                    ("unsigned_cohort_role", serde_json::to_vec(&q)?)
                }
                2 => {
                    let mut q = care_team.clone();
                    q.requester.id = "eval-research-principal".into();
                    q.requester.role = "researcher".into();
                    q.requester.patients = None;
                    q.question = "How many patients have each condition?".into();
                    q.options.mode = Mode::Dp;
                    q.options.epsilon = Some(10.0);
                    ("unsigned_other_requester", serde_json::to_vec(&q)?)
                }
                3 => ("rogue_key", rogue.sign_query(&care_team, 600).into_bytes()),
                4 => {
                    let now = now_secs();
                    let claims = QueryClaims {
                        iss: "fhir-rag-gateway".into(),
                        aud: QUERY_AUDIENCE.into(),
                        iat: now - 7200,
                        exp: now - 3600,
                        query: care_team.clone(),
                    };
                    (
                        "expired",
                        self.door
                            .gateway_signer
                            .sign(QUERY_TYPE, &claims)
                            .into_bytes(),
                    )
                }
                _ => {
                    // A real envelope for another list, with the list changed after signing.
                    let mut honest = care_team.clone();
                    honest.requester.patients = Some(vec!["someone-else".into()]);
                    let signed = self.door.gateway_signer.sign_query(&honest, 600);
                    let parts: Vec<&str> = signed.split('.').collect();
                    let mut claims: Value =
                        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1])?)?;
                    claims["query"]["requester"]["patients"] = json!([person.fhir_id]);
                    (
                        "tampered_list",
                        format!(
                            "{}.{}.{}",
                            parts[0],
                            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?),
                            parts[2]
                        )
                        .into_bytes(),
                    )
                }
            };
            self.publish(&id, &payload).await?;
            sent.push((id, kind));
        }
        let letters = self
            .read_all(
                &self.door.answer.query_dlq_topic,
                Duration::from_secs(60),
                |seen| seen.len() >= n,
            )
            .await?;
        let dead: BTreeMap<String, String> = letters
            .into_iter()
            .filter_map(|(key, _, headers)| {
                Some((
                    key?,
                    headers
                        .get("fhir-rag-error-kind")
                        .cloned()
                        .unwrap_or_default(),
                ))
            })
            .collect();
        let answered = self.answered_ids().await?;
        for (id, kind) in sent {
            let leaked = answered.contains_key(&id);
            let outcome = match dead.get(&id) {
                Some(k) => format!("dead_letter_{k}"),
                None if leaked => "answered".to_string(),
                None => "no_trace".to_string(),
            };
            category.record_outcome(&format!("{kind}:{id}"), &outcome, leaked);
        }
        Ok(category)
    }

    async fn dp_replays(&self) -> anyhow::Result<Category> {
        let mut category = Category::default();
        let researcher = self.token(
            &self.door.idp,
            None,
            &self.claims(
                "eval-research-principal",
                json!({"scope": "system/*.read", "client_id": RESEARCH_CLIENT}),
            ),
        );
        let questions = [
            "How many patients have each condition?",
            "How many patients have hypertension?",
            "How many patients take each medication?",
            "What is the median body weight of the patients?",
            "How many patients have diabetes?",
        ];
        let bases = self.per_category.div_ceil(4);
        let mut originals: Vec<(String, Query)> = Vec::new();
        for i in 0..bases {
            let question = questions[i % questions.len()];
            let (status, body) = self
                .post(
                    &researcher,
                    json!({"question": question, "mode": "dp", "epsilon": 1.0}),
                )
                .await?;
            anyhow::ensure!(
                status == 200,
                "a DP question through the gateway: HTTP {status}: {body}"
            );
            let id = body["query_id"].as_str().unwrap_or_default().to_string();
            let mut original =
                Self::query(&id, "eval-research-principal", "researcher", None, question);
            original.options.mode = Mode::Dp;
            original.options.epsilon = Some(1.0);
            originals.push((id.clone(), original));
        }
        // The envelopes as the gateway published them.
        let ids: BTreeSet<String> = originals.iter().map(|(id, _)| id.clone()).collect();
        let messages = self
            .read_all(
                &self.door.answer.query_topic,
                Duration::from_secs(60),
                |seen| {
                    seen.iter()
                        .filter(|(k, _, _)| k.as_ref().is_some_and(|k| ids.contains(k)))
                        .count()
                        >= ids.len()
                },
            )
            .await?;
        let envelopes: BTreeMap<String, Vec<u8>> = messages
            .into_iter()
            .filter_map(|(k, p, _)| Some((k?, p)))
            .filter(|(k, _)| ids.contains(k))
            .collect();
        let mut sent = Vec::new();
        for (i, (id, original)) in originals.iter().enumerate() {
            for variant in ["copy", "other_question", "other_epsilon", "patient_list"] {
                if sent.len() >= self.per_category {
                    break;
                }
                let payload = match variant {
                    "copy" => envelopes
                        .get(id)
                        .cloned()
                        .ok_or_else(|| anyhow::anyhow!("no envelope for {id}"))?,
                    "other_question" => {
                        let mut q = original.clone();
                        q.question = questions[(i + 1) % questions.len()].into();
                        self.door.gateway_signer.sign_query(&q, 600).into_bytes()
                    }
                    "other_epsilon" => {
                        let mut q = original.clone();
                        q.options.epsilon = Some(10.0);
                        self.door.gateway_signer.sign_query(&q, 600).into_bytes()
                    }
                    _ => {
                        let mut q = original.clone();
                        q.requester.patients = Some(vec![format!("target-{i}")]);
                        self.door.gateway_signer.sign_query(&q, 600).into_bytes()
                    }
                };
                self.publish(id, &payload).await?;
                sent.push((id.clone(), variant));
            }
        }
        let expected_letters = sent.len();
        let letters = self
            .read_all(
                &self.door.answer.query_dlq_topic,
                Duration::from_secs(60),
                |seen| {
                    seen.iter()
                        .filter(|(k, _, _)| k.as_ref().is_some_and(|k| ids.contains(k)))
                        .count()
                        >= expected_letters
                },
            )
            .await?;
        let mut dead: BTreeMap<String, usize> = BTreeMap::new();
        for (key, _, headers) in letters {
            if let Some(key) = key.filter(|k| ids.contains(k)) {
                let replay = headers.values().any(|v| v.contains("replayed"));
                if replay {
                    *dead.entry(key).or_insert(0) += 1;
                }
            }
        }
        let answered = self.answered_ids().await?;
        for (id, variant) in sent {
            // The first answer is the original's; any more is the replay's.
            let leaked = answered.get(&id).copied().unwrap_or(0) > 1;
            let outcome = if dead.get(&id).copied().unwrap_or(0) > 0 {
                "dead_letter_replayed"
            } else if leaked {
                "answered_again"
            } else {
                "no_trace"
            };
            category.record_outcome(&format!("{variant}:{id}"), outcome, leaked);
        }
        Ok(category)
    }
}
