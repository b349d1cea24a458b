//! The gateway as a user and an attacker meet it: the real binary (`dev-idp`, `gateway`, `answer`,
//! `ingest`) against the real broker and PostgreSQL, HTTP clients, real Ed25519 keys made by
//! `fhir-rag keygen`, tokens issued by the development identity provider and forged in the test.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use fhir_rag::answer::contract::AnswerStatus;
use fhir_rag::auth::keys::SigningKey;
use jsonwebtoken::{Algorithm, Header};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::*;

/// NPI of the practitioner who treats Ruben688 in the sample, and their Practitioner id in the
/// practitioner bundle.
const NPI: &str = "9999999499";
const PRACTITIONER: &str = "Practitioner/49914ff7-662c-3748-b9e5-2fd0dba5bbf6";
const RUBEN: &str = "085e81c0-7a95-ef02-16ef-aa1b4344deed";
const SYBIL: &str = "19625ee6-1a94-1a6a-ca95-40c4efbbdfc7";

/// The patients a practitioner (by NPI) is linked to in the sample's raw bundles, read here
/// independently of the ingest code: encounter participants, care team members, prescribers,
/// performers.
fn oracle_patients(npi: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let target = format!("Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|{npi}");
    for entry in std::fs::read_dir(repo().join("sample/synthea")).unwrap() {
        let bundle: Value = serde_json::from_slice(&read_bz2(&entry.unwrap().path())).unwrap();
        let entries = bundle["entry"].as_array().unwrap();
        let patient = entries
            .iter()
            .find(|e| e["resource"]["resourceType"] == "Patient")
            .map(|e| e["resource"]["id"].as_str().unwrap().to_string())
            .unwrap();
        let refs = |r: &Value| -> Vec<String> {
            let mut found = Vec::new();
            for p in r["participant"].as_array().into_iter().flatten() {
                for field in ["individual", "member"] {
                    if let Some(s) = p[field]["reference"].as_str() {
                        found.push(s.to_string());
                    }
                }
            }
            for p in r["performer"].as_array().into_iter().flatten() {
                if let Some(s) = p["actor"]["reference"].as_str() {
                    found.push(s.to_string());
                }
            }
            for field in ["requester", "performer"] {
                if let Some(s) = r[field]["reference"].as_str() {
                    found.push(s.to_string());
                }
            }
            found
        };
        let linked = entries.iter().any(|e| {
            let r = &e["resource"];
            matches!(
                r["resourceType"].as_str(),
                Some("Encounter" | "CareTeam" | "MedicationRequest" | "Procedure" | "Immunization")
            ) && refs(r).contains(&target)
        });
        if linked {
            out.insert(patient);
        }
    }
    out
}

/// The sample's patient ids (its file names).
fn sample_patients() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(repo().join("sample/synthea"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".json.bz2").map(str::to_string)
        })
        .collect();
    ids.sort();
    ids
}

/// The sample's patients with a Condition whose display starts with `display`, read from the raw
/// bundles.
fn patients_with_condition(display: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for patient in sample_patients() {
        let path = repo().join(format!("sample/synthea/{patient}.json.bz2"));
        let bundle: Value = serde_json::from_slice(&read_bz2(&path)).unwrap();
        let has = bundle["entry"].as_array().unwrap().iter().any(|e| {
            let r = &e["resource"];
            r["resourceType"] == "Condition"
                && r["code"]["coding"][0]["display"]
                    .as_str()
                    .is_some_and(|d| d.starts_with(display))
        });
        if has {
            out.insert(patient);
        }
    }
    out
}

struct Client {
    http: reqwest::Client,
    base: String,
    /// The operators' metrics listener (`--metrics-addr`), apart from the clients' one.
    metrics: String,
    /// Every JSON body the gateway sent, with its status (checked against the OpenAPI document).
    seen: std::sync::Mutex<Vec<(u16, Value)>>,
}

impl Client {
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> (StatusCode, reqwest::header::HeaderMap, Value) {
        let response = request.send().await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if !body.is_null() {
            self.seen
                .lock()
                .unwrap()
                .push((status.as_u16(), body.clone()));
        }
        (status, headers, body)
    }

    async fn ask(
        &self,
        token: Option<&str>,
        body: Value,
    ) -> (StatusCode, reqwest::header::HeaderMap, Value) {
        let mut request = self
            .http
            .post(format!("{}/v1/questions", self.base))
            .json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        self.send(request).await
    }

    async fn get(&self, token: Option<&str>, id: &str) -> (StatusCode, Value) {
        let mut request = self.http.get(format!("{}/v1/questions/{id}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let (status, _, body) = self.send(request).await;
        (status, body)
    }

    async fn metric(&self, name: &str) -> f64 {
        let text = self
            .http
            .get(format!("{}/metrics", self.metrics))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }
}

async fn issued(
    client: &reqwest::Client,
    issuer: &str,
    audience: &str,
    form: &[(&str, &str)],
) -> String {
    let mut fields: Vec<(&str, &str)> = form.to_vec();
    fields.push(("audience", audience));
    let response: Value = client
        .post(format!("{issuer}/token"))
        .form(&fields)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    response["access_token"].as_str().unwrap().to_string()
}

fn forge(key: &SigningKey, header: Header, claims: &Value) -> String {
    jsonwebtoken::encode(&header, claims, &key.encoding_key()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_gateway_is_the_only_way_in() {
    let run = TestRun::new("gateway").await;
    let store = run.store().await;
    let pool = store.pool();
    // The sample's ten patients and its practitioners, through the normal ingest path.
    let patients = run.backfill(&repo().join("sample/synthea"))["published"]
        .as_i64()
        .unwrap();
    let practitioners = run.backfill(&repo().join("sample/practitioners"))["published"]
        .as_i64()
        .unwrap();
    let mut ingest = run.spawn_worker("ingest", &["--embedder", "hashed"]);
    run.wait_committed(
        patients + practitioners,
        Duration::from_secs(600),
        &mut ingest,
    )
    .await;
    // Then another Practitioner resource claiming the same NPI: the identifier stays with the
    // first, and the impostor treats nobody. And an encounter that linked the practitioner to
    // Ruben688, re-sent as entered in error: its link goes with it.
    let impostor = json!({"resourceType": "Bundle", "type": "batch", "entry": [{"resource": {
        "resourceType": "Practitioner", "id": "impostor",
        "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi", "value": NPI}],
        "name": [{"family": "Mallory"}]}}]});
    let encounter: String = sqlx::query_scalar(
        "SELECT resource_id FROM care_relationships
         WHERE resource_type = 'Encounter' AND practitioner LIKE '%|' || $1 ORDER BY 1 LIMIT 1",
    )
    .bind(NPI)
    .fetch_one(pool)
    .await
    .unwrap();
    let retracted = json!({"resourceType": "Bundle", "type": "collection", "entry": [{"resource": {
        "resourceType": "Encounter", "id": encounter, "status": "entered-in-error",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "AMB"},
        "subject": {"reference": format!("Patient/{RUBEN}")}}}]});
    let (impostor, retracted) = (
        serde_json::to_vec(&impostor).unwrap(),
        serde_json::to_vec(&retracted).unwrap(),
    );
    run.publish(&[
        (None, impostor.as_slice()),
        (Some(RUBEN), retracted.as_slice()),
    ])
    .await;
    run.wait_committed(
        patients + practitioners + 2,
        Duration::from_secs(120),
        &mut ingest,
    )
    .await;
    let left: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM care_relationships
         WHERE resource_type = 'Encounter' AND resource_id = $1",
    )
    .bind(&encounter)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(left, 0, "an encounter entered in error links nobody");
    let impostor_seen: i64 =
        sqlx::query_scalar("SELECT count(*) FROM parties WHERE fhir_id = 'impostor'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(impostor_seen, 1, "the impostor's bundle was ingested");
    let (status, _, log) = ingest.terminate();
    assert!(status.success(), "{log}");
    let alias: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM practitioner_aliases WHERE reference = $1 AND alias LIKE '%|' || $2",
    )
    .bind(PRACTITIONER)
    .bind(NPI)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(alias, 1, "the practitioner bundle's NPI became an alias");
    let impostor_aliases: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM practitioner_aliases WHERE reference = 'Practitioner/impostor'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        impostor_aliases, 0,
        "an identifier already held is not taken"
    );

    // Keys made by the CLI, as an operator would.
    for name in ["idp", "forger"] {
        let made = run
            .command(&[
                "keygen",
                "--out",
                run.key_file(&format!("{name}.key")).to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
    }
    let idp_key = SigningKey::read(&run.key_file("idp.key")).unwrap();
    let forger = SigningKey::read(&run.key_file("forger.key")).unwrap();
    let idp_addr = free_local_addr();
    let issuer = format!("http://{idp_addr}");
    let _idp = run.spawn_role(
        "dev-idp",
        "idp",
        &[
            "--listen",
            &idp_addr,
            "--key",
            run.key_file("idp.key").to_str().unwrap(),
        ],
    );
    let gateway_addr = free_local_addr();
    let base = format!("http://{gateway_addr}");
    let metrics_addr = free_local_addr();
    let answer_args = ["--embedder", "hashed", "--llm", "rules://"];
    let answer = run.spawn_role("answer", "answer", &answer_args);
    let group = format!("gateway-{}", run.id);
    // Keys found through the issuer's discovery document (no --jwks-file).
    let gateway = run.spawn_role(
        "gateway",
        "gateway",
        &[
            "--listen",
            &gateway_addr,
            "--oidc-issuer",
            &issuer,
            "--token-audience",
            &base,
            "--cohort-clients",
            "research-app",
            "--relationship-days",
            "0",
            "--gateway-group",
            &group,
            "--metrics-addr",
            &metrics_addr,
        ],
    );
    let client = Client {
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap(),
        base: base.clone(),
        metrics: format!("http://{metrics_addr}"),
        seen: Default::default(),
    };
    let started = Instant::now();
    loop {
        let ready = client
            .http
            .get(format!("{base}/readyz"))
            .send()
            .await
            .map(|r| r.status() == StatusCode::OK)
            .unwrap_or(false);
        if ready {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the gateway is not ready:\n{}",
            gateway.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    let clinician = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "dr-house"),
            ("scope", "openid fhirUser user/*.read"),
            ("fhir_user", PRACTITIONER),
        ],
    )
    .await;
    let researcher = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "study-7"),
            ("scope", "system/*.read"),
            ("client_id", "research-app"),
        ],
    )
    .await;
    let sybil_app = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "sybil-app"),
            ("scope", "launch/patient patient/*.read"),
            ("patient", SYBIL),
        ],
    )
    .await;

    // 1. No token, and forged or misaddressed tokens: 401, a challenge, and nothing else.
    let question = json!({"question": "Which medications is Ruben688 taking?"});
    let (status, headers, body) = client.ask(None, question.clone()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(headers.contains_key("www-authenticate"));
    assert_eq!(body, json!({"error": "invalid_token"}));
    let now = fhir_rag::auth::envelope::now_secs();
    let claims = |changes: &[(&str, Value)]| {
        let mut c = json!({
            "iss": issuer, "aud": base, "sub": "dr-house", "iat": now, "exp": now + 600,
            "scope": "user/*.read", "fhirUser": PRACTITIONER,
        });
        for (k, v) in changes {
            c[*k] = v.clone();
        }
        c
    };
    let eddsa = |key: &SigningKey| {
        let mut h = Header::new(Algorithm::EdDSA);
        h.kid = Some(key.kid().to_string());
        h
    };
    let good = forge(&idp_key, eddsa(&idp_key), &claims(&[]));
    let parts: Vec<&str> = good.split('.').collect();
    let attacks: Vec<(&str, String)> = vec![
        (
            "expired",
            forge(
                &idp_key,
                eddsa(&idp_key),
                &claims(&[("exp", json!(now - 120)), ("iat", json!(now - 900))]),
            ),
        ),
        (
            "wrong audience",
            forge(
                &idp_key,
                eddsa(&idp_key),
                &claims(&[("aud", json!("https://other.example"))]),
            ),
        ),
        (
            "wrong issuer",
            forge(
                &idp_key,
                eddsa(&idp_key),
                &claims(&[("iss", json!("https://evil.example"))]),
            ),
        ),
        ("unknown key", forge(&forger, eddsa(&forger), &claims(&[]))),
        (
            "issuer's kid, forger's key",
            forge(&forger, eddsa(&idp_key), &claims(&[])),
        ),
        (
            "alg none",
            format!(
                "{}.{}.",
                URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
                parts[1]
            ),
        ),
        (
            "tampered payload",
            format!(
                "{}.{}.{}",
                parts[0],
                URL_SAFE_NO_PAD.encode(
                    serde_json::to_vec(&claims(&[(
                        "fhirUser",
                        json!("Practitioner/someone-else")
                    )]))
                    .unwrap()
                ),
                parts[2]
            ),
        ),
        ("not a token", "hello".to_string()),
    ];
    let before: i64 = sqlx::query_scalar("SELECT count(*) FROM gateway_requests")
        .fetch_one(pool)
        .await
        .unwrap();
    for (name, token) in &attacks {
        let (status, headers, body) = client.ask(Some(token), question.clone()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{name}");
        assert!(
            headers["www-authenticate"]
                .to_str()
                .unwrap()
                .contains("invalid_token"),
            "{name}"
        );
        assert_eq!(body, json!({"error": "invalid_token"}), "{name}");
    }
    let (status, _, _) = client.ask(Some(&good), question.clone()).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the well-made token of the same claims passes"
    );
    let after: i64 = sqlx::query_scalar("SELECT count(*) FROM gateway_requests")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(after, before + 1, "no refused request reached the bus");

    // 2. The client cannot choose patients, roles or requester ids.
    for body in [
        json!({"question": "Which medications is Ruben688 taking?", "patients": [SYBIL]}),
        json!({"question": "x", "requester": {"id": "admin", "role": "researcher"}}),
        json!({"question": "x", "role": "researcher"}),
    ] {
        let (status, _, reply) = client.ask(Some(&clinician), body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    }
    // A scope that grants no question.
    let billing = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "billing"),
            ("scope", "system/*.read"),
            ("client_id", "billing-app"),
        ],
    )
    .await;
    let (status, headers, _) = client.ask(Some(&billing), question.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(headers["www-authenticate"]
        .to_str()
        .unwrap()
        .contains("insufficient_scope"));

    // 3. A clinician: the patients of their treatment relationships, as the raw bundles say.
    let (status, _, reply) = client.ask(Some(&clinician), question.clone()).await;
    assert_eq!(status, StatusCode::OK, "{reply}\n{}", gateway.log_tail());
    assert_eq!(reply["state"], "answered", "{reply}");
    let ruben_answer = &reply["answer"];
    assert_eq!(ruben_answer["status"], "answered", "{reply}");
    assert_eq!(ruben_answer["privacy"]["policy"], "care_team");
    let query_id = reply["query_id"].as_str().unwrap().to_string();
    let expected = oracle_patients(NPI);
    assert!(
        expected.contains(RUBEN) && !expected.contains(SYBIL),
        "{expected:?}"
    );
    let listed: i32 =
        sqlx::query_scalar("SELECT patients FROM gateway_requests WHERE query_id = $1")
            .bind(&query_id)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(listed as usize, expected.len(), "{expected:?}");
    // `fhir-rag ask` is a client of the gateway.
    let token_file = run.key_file("clinician.token");
    std::fs::write(&token_file, &clinician).unwrap();
    let asked = run
        .command(&[
            "ask",
            "--gateway",
            &base,
            "--token-file",
            token_file.to_str().unwrap(),
            "Which medications is Ruben688 taking?",
        ])
        .output()
        .unwrap();
    assert!(
        asked.status.success(),
        "{}",
        String::from_utf8_lossy(&asked.stderr)
    );
    let printed = first_json(&String::from_utf8_lossy(&asked.stdout));
    assert_eq!(printed["status"], "answered", "{printed}");
    assert_eq!(printed["answer"], ruben_answer["answer"]);
    // A patient they do not treat is answered exactly as a person who is not a patient here.
    let (_, _, sybil) = client
        .ask(
            Some(&clinician),
            json!({"question": "What was Sybil495's body weight?"}),
        )
        .await;
    let (_, _, nobody) = client
        .ask(
            Some(&clinician),
            json!({"question": "What was Quorra777's body weight?"}),
        )
        .await;
    assert_ne!(sybil["answer"]["status"], "answered", "{sybil}");
    assert_eq!(sybil["answer"]["status"], nobody["answer"]["status"]);
    assert_eq!(sybil["answer"]["answer"], nobody["answer"]["answer"]);
    // Breaking the glass: answered, flagged, counted.
    let (status, _, glass) = client
        .ask(
            Some(&clinician),
            json!({"question": "What was Sybil495's body weight?",
                   "break_glass": {"patient": SYBIL, "reason": "covering the emergency department tonight"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{glass}");
    assert_eq!(glass["answer"]["status"], "answered", "{glass}");
    let reason: Option<String> =
        sqlx::query_scalar("SELECT break_glass_reason FROM gateway_requests WHERE query_id = $1")
            .bind(glass["query_id"].as_str().unwrap())
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        reason.as_deref(),
        Some("covering the emergency department tonight")
    );
    assert_eq!(
        client.metric("fhir_rag_gateway_break_glass_total").await,
        1.0
    );
    let (status, _, _) = client
        .ask(
            Some(&sybil_app),
            json!({"question": "x", "break_glass": {"patient": RUBEN, "reason": "I would like to see"}}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "only clinicians break the glass"
    );

    let impostor = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "mallory"),
            ("scope", "user/*.read"),
            ("fhir_user", "Practitioner/impostor"),
        ],
    )
    .await;
    let (_, _, stolen) = client.ask(Some(&impostor), question.clone()).await;
    assert_ne!(stolen["answer"]["status"], "answered", "{stolen}");
    // A practitioner's patient launch is not a patient's access.
    let launched = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "dr-house"),
            ("scope", "launch/patient patient/*.read"),
            ("patient", SYBIL),
            ("fhir_user", PRACTITIONER),
        ],
    )
    .await;
    let (status, _, _) = client.ask(Some(&launched), question.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // 4. A patient-context app sees its patient, and nobody else.
    let (_, _, own) = client
        .ask(
            Some(&sybil_app),
            json!({"question": "What was Sybil495's body weight?"}),
        )
        .await;
    assert_eq!(own["answer"]["status"], "answered", "{own}");
    let (_, _, other) = client
        .ask(
            Some(&sybil_app),
            json!({"question": "Which medications is Ruben688 taking?"}),
        )
        .await;
    assert_ne!(other["answer"]["status"], "answered", "{other}");

    // 5. A research client: aggregates only.
    let (_, _, cohort) = client
        .ask(
            Some(&researcher),
            json!({"question": "How many patients have hypertension?"}),
        )
        .await;
    assert_eq!(cohort["answer"]["privacy"]["policy"], "cohort", "{cohort}");
    let (_, _, named) = client.ask(Some(&researcher), question.clone()).await;
    assert_ne!(named["answer"]["status"], "answered", "{named}");

    // 5b. Study cohorts: a researcher's group is an administrator's registered list, granted to
    //     named principals; never a list of the researcher's choosing.
    let pharyngitis = patients_with_condition("Acute viral pharyngitis");
    assert_eq!(pharyngitis.len(), 5, "the sample's own figure");
    let other = sample_patients()
        .into_iter()
        .find(|p| !pharyngitis.contains(p))
        .unwrap();
    let register = |name: &str, members: &[&String]| {
        let file = run.key_file(&format!("{name}.txt"));
        let listed: String = members.iter().map(|m| format!("{m}\n")).collect();
        std::fs::write(&file, format!("# approved 2026-11\n{listed}")).unwrap();
        run.command(&[
            "study",
            "register",
            name,
            "--patients-file",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap()
    };
    let mut whole: Vec<&String> = pharyngitis.iter().collect();
    whole.push(&other);
    let four: Vec<&String> = pharyngitis.iter().take(4).collect();
    for (name, members) in [("pharyngitis-all", &whole), ("pharyngitis-four", &four)] {
        let made = register(name, members);
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
    }
    // A study never changes under its name, and a file with a line that is not an id is refused.
    let again = register("pharyngitis-all", &four);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already registered"));
    let junk = run.key_file("junk.txt");
    std::fs::write(&junk, "abc\nRobert'); DROP TABLE studies;--\n").unwrap();
    let refused = run
        .command(&[
            "study",
            "register",
            "junk",
            "--patients-file",
            junk.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("line 2: not a FHIR Patient id"));
    for (study, principal) in [
        ("pharyngitis-all", "study-7"),
        ("pharyngitis-four", "study-8"),
    ] {
        let granted = run
            .command(&["study", "grant", study, principal])
            .output()
            .unwrap();
        assert!(
            granted.status.success(),
            "{}",
            String::from_utf8_lossy(&granted.stderr)
        );
    }
    let second_researcher = issued(
        &client.http,
        &issuer,
        &base,
        &[
            ("sub", "study-8"),
            ("scope", "system/*.read"),
            ("client_id", "research-app"),
        ],
    )
    .await;
    let asked = |study: &str| json!({"question": "How many patients have acute viral pharyngitis?", "study": study});
    let (status, _, over_study) = client
        .ask(Some(&researcher), asked("pharyngitis-all"))
        .await;
    assert_eq!(status, StatusCode::OK, "{over_study}");
    assert_eq!(over_study["answer"]["status"], "answered", "{over_study}");
    let text = over_study["answer"]["answer"].as_str().unwrap();
    assert!(text.contains('5') && !text.contains('6'), "{text}");
    // Four of the five: under k, nothing about them.
    let (_, _, small) = client
        .ask(Some(&second_researcher), asked("pharyngitis-four"))
        .await;
    assert_ne!(small["answer"]["status"], "answered", "{small}");
    assert!(
        small["answer"]["answer"]
            .as_str()
            .unwrap()
            .contains("smaller groups are never reported"),
        "{small}"
    );
    // Not granted, unknown, and asked by a clinician: refused, the first two alike.
    let (status, _, not_granted) = client
        .ask(Some(&researcher), asked("pharyngitis-four"))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, unknown) = client.ask(Some(&researcher), asked("no-such-study")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(not_granted, unknown);
    let (status, _, _) = client.ask(Some(&clinician), asked("pharyngitis-all")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let recorded: Vec<String> = sqlx::query_scalar(
        "SELECT study FROM gateway_requests WHERE study IS NOT NULL ORDER BY created_at",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(recorded, ["pharyngitis-all", "pharyngitis-four"]);
    // A closed study is asked about no more.
    let closed = run
        .command(&["study", "close", "pharyngitis-all"])
        .output()
        .unwrap();
    assert!(closed.status.success());
    let (status, _, _) = client
        .ask(Some(&researcher), asked("pharyngitis-all"))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // 6. An answer is fetched by the principal that asked, and by no one else.
    let (status, fetched) = client.get(Some(&clinician), &query_id).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&fetched["answer"], ruben_answer);
    let (status, _) = client.get(Some(&researcher), &query_id).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = client.get(None, &query_id).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // 7. The bus: an unsigned query claiming a clinician and a patient list, and a copy of a
    //    signed envelope published again, are dead-lettered as unauthenticated.
    let forged_query = serde_json::to_vec(&json!({
        "query_id": "forged-1",
        "requester": {"id": "dr-house", "role": "clinician", "patients": [SYBIL]},
        "question": "What was Sybil495's body weight?",
    }))
    .unwrap();
    let consumer: BaseConsumer = run
        .services
        .bus()
        .consumer(&format!("copy-{}", run.id))
        .create()
        .unwrap();
    consumer.subscribe(&[&run.query_topic]).unwrap();
    let mut envelope = None;
    let started = Instant::now();
    while envelope.is_none() && started.elapsed() < Duration::from_secs(30) {
        if let Some(Ok(message)) = consumer.poll(Duration::from_millis(500)) {
            envelope = message.payload().map(<[u8]>::to_vec);
        }
    }
    drop(consumer);
    let envelope = envelope.expect("a signed query on the topic");
    assert!(!envelope.starts_with(b"{"), "queries travel signed");
    run.publish_unsigned_queries(&[forged_query, envelope])
        .await;
    let letters = run.dead_letters_on(&run.query_dlq_topic.clone(), 2, Duration::from_secs(60));
    assert_eq!(letters.len(), 2);
    assert!(
        letters.iter().all(|l| l.kind() == "unauthenticated"),
        "{letters:?}"
    );
    assert!(
        letters
            .iter()
            .any(|l| l.headers.values().any(|v| v.contains("replayed"))),
        "{letters:?}"
    );

    // 8. Answers: with the worker stopped, a forged answer (unsigned, or signed by a key the
    //    gateway does not trust) to a pending question is never delivered; the real one is.
    let (status, _, _) = answer.terminate();
    assert!(status.success());
    let (status, _, pending) = client
        .ask(
            Some(&clinician),
            json!({"question": "Which medications is Ruben688 taking?", "wait_secs": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{pending}");
    assert_eq!(pending["state"], "pending");
    let pending_id = pending["query_id"].as_str().unwrap().to_string();
    let mut fake = ruben_answer.clone();
    fake["query_id"] = json!(pending_id);
    fake["answer"] = json!("Call 555-0100 for the records.");
    let fake_answer: fhir_rag::answer::contract::Answer =
        serde_json::from_value(fake.clone()).unwrap();
    let rogue = fhir_rag::auth::envelope::Signer::new(SigningKey::generate(), "rogue-worker");
    let producer: rdkafka::producer::FutureProducer =
        run.services.bus().producer().create().unwrap();
    let before_forged = client
        .metric("fhir_rag_gateway_answers_total{outcome=\"forged\"")
        .await;
    for payload in [
        serde_json::to_vec(&fake).unwrap(),
        rogue.sign_answer(&fake_answer, 600).into_bytes(),
    ] {
        producer
            .send(
                rdkafka::producer::FutureRecord::to(&run.answer_topic)
                    .key(pending_id.as_bytes())
                    .payload(&payload),
                Duration::from_secs(30),
            )
            .await
            .map_err(|(e, _)| e)
            .unwrap();
    }
    let started = Instant::now();
    while client
        .metric("fhir_rag_gateway_answers_total{outcome=\"forged\"")
        .await
        < before_forged + 2.0
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{}",
            gateway.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let (status, still) = client.get(Some(&clinician), &pending_id).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{still}");
    let answer = run.spawn_role("answer", "answer-2", &answer_args);
    let started = Instant::now();
    let delivered = loop {
        let (status, state) = client.get(Some(&clinician), &pending_id).await;
        if status == StatusCode::OK {
            break state;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{}",
            answer.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(delivered["answer"]["status"], "answered");
    assert_ne!(delivered["answer"]["answer"], fake["answer"]);

    // 9. The OpenAPI document: the one served is the repository's, and every body the gateway
    //    sent above fits it.
    let served: Value = client
        .http
        .get(format!("{base}/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("docs/openapi.json")).unwrap())
            .unwrap();
    assert_eq!(served, document);
    // The metrics (counts of refusals, answers, break-the-glass) are the operators': not on the
    // clients' listener, where a path the gateway does not serve is as closed as any other to a
    // request without a token.
    let public = client
        .http
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(public.status(), StatusCode::UNAUTHORIZED);
    assert!(!public.text().await.unwrap().contains("fhir_rag_"));
    assert!(client.metric("fhir_rag_gateway_refused_total").await > 0.0);
    let schema = |name: &str| {
        jsonschema::validator_for(&json!({
            "$ref": format!("#/components/schemas/{name}"),
            "components": document["components"],
        }))
        .unwrap()
    };
    let (state_schema, error_schema) = (schema("QuestionState"), schema("Error"));
    let seen = client.seen.lock().unwrap().clone();
    let mut checked: BTreeMap<u16, usize> = BTreeMap::new();
    for (status, body) in &seen {
        let validator = if *status < 300 {
            &state_schema
        } else {
            &error_schema
        };
        let errors: Vec<String> = validator.iter_errors(body).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{status} {body}: {errors:?}");
        *checked.entry(*status).or_default() += 1;
    }
    for status in [200, 202, 400, 401, 403, 404] {
        assert!(
            checked.contains_key(&status),
            "no {status} checked: {checked:?}"
        );
    }
    let statuses: BTreeSet<AnswerStatus> = seen
        .iter()
        .filter_map(|(_, b)| serde_json::from_value(b["answer"]["status"].clone()).ok())
        .collect();
    assert!(statuses.contains(&AnswerStatus::Answered));
    drop(answer);
    drop(gateway);
    run.cleanup().await;
}
