//! Deployment security against the real servers: each process's database role holds only its
//! rights, connections to PostgreSQL and Kafka are encrypted and authenticated with certificates
//! `scripts/services.sh` made, workers refuse a schema they were not built for, the audit's hash
//! chain shows tampering, and retention removes what is old.

use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

use crate::support::*;

async fn connect(url: &str) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .connect(url)
        .await
}

/// Runs `sql` and returns PostgreSQL's error code, or None when it succeeded.
async fn code_of(pool: &PgPool, sql: &str) -> Option<String> {
    match sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(pool)
        .await
    {
        Ok(_) => None,
        Err(sqlx::Error::Database(e)) => Some(e.code().unwrap_or_default().to_string()),
        Err(e) => Some(format!("other: {e}")),
    }
}

const DENIED: &str = "42501";

/// Every statement of `sqls` is refused to `role` for want of a privilege.
async fn assert_denied(pool: &PgPool, role: &str, sqls: &[&str]) {
    for sql in sqls {
        assert_eq!(
            code_of(pool, sql).await.as_deref(),
            Some(DENIED),
            "{role} role: {sql}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_role_holds_only_its_rights_over_tls() {
    let run = TestRun::new("roles").await;
    // Some rows to be denied: a patient, a vault entry, a fact, written by the superuser.
    let admin = run.store().await;
    sqlx::query(
        "WITH p AS (INSERT INTO patients (fhir_id) VALUES ('p1') RETURNING patient_key)
         INSERT INTO vault.phi_vault (patient_key, kind, value)
         SELECT patient_key, 'family_name', 'Zyxwv' FROM p
         UNION ALL SELECT patient_key, 'birth_date', '1990-05-17' FROM p",
    )
    .execute(admin.pool())
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO vault.vault_keys (key, kind, patient_key)
         SELECT 't:zyxwv', 'family_name', patient_key FROM patients",
    )
    .execute(admin.pool())
    .await
    .unwrap();

    // Every role connects over TLS with the server's certificate verified…
    let answer = connect(&run.role_url("answer")).await.unwrap();
    let ingest = connect(&run.role_url("ingest")).await.unwrap();
    let gateway = connect(&run.role_url("gateway")).await.unwrap();
    for pool in [&answer, &ingest, &gateway] {
        let ssl: bool =
            sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                .fetch_one(pool)
                .await
                .unwrap();
        assert!(ssl, "the connection is encrypted");
    }
    // …and cannot connect otherwise: plaintext is refused by the server, a server certificate
    // from another CA by the client.
    let plaintext = run
        .role_url("answer")
        .replace("sslmode=verify-full", "sslmode=disable");
    let refused = connect(&plaintext).await.expect_err("plaintext refused");
    assert!(refused.to_string().contains("no encryption"), "{refused}");
    let wrong_ca = run.role_url("answer").replace("/ca.crt", "/rogue-ca.crt");
    let refused = connect(&wrong_ca).await.expect_err("unknown CA refused");
    assert!(
        refused.to_string().to_lowercase().contains("certificate"),
        "{refused}"
    );

    // The answer role: no vault, no writes to what ingest owns, an insert-only audit, no DDL.
    assert_denied(
        &answer,
        "answer",
        &[
            "SELECT * FROM vault.phi_vault",
            "SELECT * FROM vault.vault_keys",
            "SELECT * FROM vault.party_vault",
            "INSERT INTO facts (patient_key, resource_type, resource_id, sentences)
         SELECT patient_key, 'Condition', 'c1', 'x' FROM patients",
            "DELETE FROM documents",
            "UPDATE chunks SET text = ''",
            "UPDATE answer_audit SET status = 'answered'",
            "DELETE FROM answer_audit",
            "TRUNCATE answer_audit",
            "SELECT * FROM care_relationships",
            "SELECT * FROM gateway_requests",
            "CREATE TABLE stolen (x text)",
            "ALTER TABLE chunks ADD COLUMN x text",
        ],
    )
    .await;
    // What it may do: read documents, and reach the vault through its functions only, which
    // answer about the words it already has and give no name, no birth date, back.
    assert_eq!(code_of(&answer, "SELECT count(*) FROM chunks").await, None);
    let matched: Vec<(i64, String, String, bool)> =
        sqlx::query_as("SELECT patient_key, kind, word, exact FROM vault.match_names($1, NULL)")
            .bind(vec!["t:zyxwv".to_string(), "t:smith".to_string()])
            .fetch_all(&answer)
            .await
            .unwrap();
    assert_eq!(matched.len(), 1, "{matched:?}");
    assert_eq!(
        (matched[0].1.as_str(), matched[0].2.as_str(), matched[0].3),
        ("family_name", "zyxwv", true)
    );
    let out_of_scope: i64 =
        sqlx::query_scalar("SELECT count(*) FROM vault.match_names($1, ARRAY[-1]::bigint[])")
            .bind(vec!["t:zyxwv".to_string()])
            .fetch_one(&answer)
            .await
            .unwrap();
    assert_eq!(out_of_scope, 0, "a scope is honoured");
    // No dictionary attack in one call.
    let many: Vec<String> = (0..600).map(|i| format!("t:name{i}")).collect();
    assert!(sqlx::query("SELECT * FROM vault.match_names($1, NULL)")
        .bind(&many)
        .fetch_all(&answer)
        .await
        .is_err());
    // A family name's initial: which of the given patients match, nothing of the name; one
    // letter, a few patients a call.
    let keys: Vec<i64> = sqlx::query_scalar("SELECT patient_key FROM patients")
        .fetch_all(&answer)
        .await
        .unwrap();
    for (initial, expected) in [("z", keys.clone()), ("s", Vec::new())] {
        let matched: Vec<i64> =
            sqlx::query_scalar("SELECT vault.match_family_initial($1::bigint[], $2)")
                .bind(&keys)
                .bind(initial)
                .fetch_all(&answer)
                .await
                .unwrap();
        assert_eq!(matched, expected, "initial {initial}");
    }
    for (patients, initial) in [
        (keys.clone(), "zy"),
        (keys.clone(), "%"),
        (vec![1; 65], "z"),
    ] {
        assert!(
            sqlx::query("SELECT vault.match_family_initial($1::bigint[], $2)")
                .bind(&patients)
                .bind(initial)
                .fetch_all(&answer)
                .await
                .is_err(),
            "{initial} over {} patients",
            patients.len()
        );
    }
    let kinds: Vec<(String, String)> =
        sqlx::query_as("SELECT key, kind FROM vault.guard_kinds($1)")
            .bind(vec!["t:zyxwv".to_string(), "t:aspirin".to_string()])
            .fetch_all(&answer)
            .await
            .unwrap();
    assert_eq!(kinds, vec![("t:zyxwv".into(), "family_name".into())]);
    let decade: Option<i32> =
        sqlx::query_scalar("SELECT vault.age_decade(patient_key) FROM patients")
            .fetch_one(&answer)
            .await
            .unwrap();
    assert_eq!(decade, Some(30), "born 1990-05-17: thirties, never the day");
    // Whole years, counted to the birthday: the day before the 40th is still the thirties.
    sqlx::query(
        "WITH p AS (INSERT INTO patients (fhir_id) VALUES ('p39'), ('p40')
                    RETURNING patient_key, fhir_id)
         INSERT INTO vault.phi_vault (patient_key, kind, value)
         SELECT patient_key, 'birth_date', to_char((now() AT TIME ZONE 'UTC')::date
                - interval '40 years' + CASE fhir_id WHEN 'p39' THEN 1 ELSE 0 END * interval '1 day',
                'YYYY-MM-DD')
         FROM p",
    )
    .execute(admin.pool())
    .await
    .unwrap();
    let decades: Vec<(String, Option<i32>)> = sqlx::query_as(
        "SELECT fhir_id, vault.age_decade(patient_key) FROM patients
         WHERE fhir_id IN ('p39', 'p40') ORDER BY fhir_id",
    )
    .fetch_all(&answer)
    .await
    .unwrap();
    assert_eq!(
        decades,
        vec![("p39".into(), Some(30)), ("p40".into(), Some(40))]
    );
    // The audit: its number, time and chain are the trigger's, not the inserter's; what others
    // asked about is not the answer role's to read.
    assert_denied(
        &answer,
        "answer",
        &[
        "INSERT INTO answer_audit (audit_id, query_id, requester_id, requester_role, status, backend,
             request_digest, document_ids, patient_keys, llm_calls, guard_report, total_ms)
         VALUES (999999, 'q', 'r', 'c', 'answered', 'rules', '\\x', '{}', '{}', 0, '{}', 1)",
        "INSERT INTO answer_audit (query_id, requester_id, requester_role, status, backend,
             request_digest, document_ids, patient_keys, llm_calls, guard_report, total_ms, answered_at)
         VALUES ('q', 'r', 'c', 'answered', 'rules', '\\x', '{}', '{}', 0, '{}', 1, now() - interval '9 years')",
        "SELECT patient_keys, guard_report FROM answer_audit",
        "CREATE TEMP TABLE answer_audit (audit_id bigint, row_hash bytea)",
        "UPDATE answer_audit_head SET last_id = 0",
        ],
    )
    .await;

    // The gateway role: relationships and its own requests only.
    assert_denied(
        &gateway,
        "gateway",
        &[
        "SELECT * FROM facts",
        "SELECT * FROM chunks",
        "SELECT * FROM vault.phi_vault",
        "SELECT vault.guard_kinds(ARRAY['t:zyxwv'])",
        "SELECT * FROM answer_audit",
        "INSERT INTO care_relationships (source, resource_type, resource_id, patient_key, practitioner, kind)
         SELECT 't', 'Encounter', 'e1', patient_key, 'Practitioner/x', 'participant' FROM patients",
        "UPDATE gateway_requests SET principal = 'someone-else'",
        "DELETE FROM gateway_requests",
        ],
    )
    .await;
    assert_eq!(
        code_of(&gateway, "SELECT count(*) FROM care_relationships").await,
        None
    );

    // The ingest role: the vault is append-only, and the answer path's records are not its own.
    assert_denied(
        &ingest,
        "ingest",
        &[
            "UPDATE vault.phi_vault SET value = 'x'",
            "DELETE FROM vault.phi_vault",
            "SELECT * FROM vault.phi_vault",
            "SELECT vault.age_decade(1)",
            "SELECT vault.match_family_initial(ARRAY[1]::bigint[], 'a')",
            "DELETE FROM patients",
            "DELETE FROM retractions",
            "SELECT * FROM answer_audit",
            "SELECT * FROM dp_spend",
            "SELECT * FROM gateway_requests",
            "DROP TABLE facts",
        ],
    )
    .await;
    assert_eq!(code_of(&ingest, "SELECT * FROM vault.counts()").await, None);
    for pool in [answer, ingest, gateway] {
        pool.close().await;
    }
    admin.pool().close().await;

    // A worker's role cannot migrate, and a worker refuses a database that is not migrated.
    let bare = format!("{}_bare", run.database);
    let bare_url = fhir_rag::store::create_database(&run.services.database_url, &bare)
        .await
        .unwrap();
    let setup = connect(&bare_url).await.unwrap();
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS vector".to_string(),
        format!("GRANT CONNECT ON DATABASE {bare} TO fhir_rag_ingest"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&setup)
            .await
            .unwrap();
    }
    setup.close().await;
    let ingest_on_bare = fhir_rag::store::with_database(&run.role_url("ingest"), &bare);
    let migrate = run
        .command(&["migrate", "--embedder", "hashed"])
        .env("FHIR_RAG_DATABASE_URL", &ingest_on_bare)
        .output()
        .unwrap();
    assert!(!migrate.status.success(), "the ingest role cannot migrate");
    let worker = run
        .command(&[
            "ingest",
            "--embedder",
            "hashed",
            "--stop-after-messages",
            "1",
        ])
        .env("FHIR_RAG_DATABASE_URL", &ingest_on_bare)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&worker.stderr);
    assert!(!worker.status.success());
    assert!(stderr.contains("fhir-rag migrate"), "{stderr}");
    fhir_rag::store::drop_database(&run.services.database_url, &bare)
        .await
        .unwrap();
    run.cleanup().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_chain_shows_tampering_and_retention_prunes() {
    let run = TestRun::new("audit").await;
    let answer = connect(&run.role_url("answer")).await.unwrap();
    // Rows as the answer worker writes them (it may only insert; the trigger numbers, times and
    // chains them).
    for i in 0..4 {
        sqlx::query(
            "INSERT INTO answer_audit (query_id, requester_id, requester_role, status, backend,
                 request_digest, document_ids, patient_keys, llm_calls, guard_report, total_ms)
             VALUES ($1, 'r', 'clinician', 'answered', 'rules', '\\x01', '{1,2}', '{3}', 0,
                 '{\"guard\": {\"b\": 1, \"a\": [2]}}', 5)",
        )
        .bind(format!("q{i}"))
        .execute(&answer)
        .await
        .unwrap();
    }
    // DP ledger, cohort history, envelopes and gateway requests, old and new.
    let admin = run.store().await;
    let pool = admin.pool();
    for sql in [
        "INSERT INTO dp_spend (requester_id, query_id, period_start, epsilon, delta, spent_at, request_digest)
         VALUES ('r', 'old', now() - interval '500 days', 1, 0, now() - interval '500 days', '\\x'),
                ('r', 'new', now(), 1, 0, now(), '\\x')",
        "INSERT INTO cohort_history (requester_id, answered_at, condition, size, patients, digest)
         VALUES ('r', now() - interval '400 days', 'c', 12, '{1}', '\\x01'),
                ('r', now(), 'c', 12, '{1}', '\\x02')",
        "INSERT INTO envelopes_seen (query_id, topic, partition, \"offset\", expires_at)
         VALUES ('old', 't', 0, 1, now() - interval '1 hour'), ('new', 't', 0, 2, now() + interval '1 hour')",
        "INSERT INTO gateway_requests (query_id, principal, role, access, patients, expires_at)
         VALUES ('old', 'p', 'clinician', 'clinician', 1, now() - interval '3 days'),
                ('new', 'p', 'clinician', 'clinician', 1, now() + interval '1 hour')",
        // A break-the-glass request is kept as long as the audit.
        "INSERT INTO gateway_requests (query_id, principal, role, access, patients, expires_at,
             break_glass_patient, break_glass_reason)
         VALUES ('glass', 'p', 'clinician', 'clinician', 1, now() - interval '3 days', 'x', 'emergency')",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
            .execute(pool)
            .await
            .unwrap();
    }

    let as_owner = |args: &[&str]| {
        let mut command = run.command(args);
        command.env("FHIR_RAG_DATABASE_URL", run.role_url("migrator"));
        command.output().unwrap()
    };
    let verified = as_owner(&["audit", "verify"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let report = first_json(&String::from_utf8_lossy(&verified.stdout));
    assert_eq!(report["rows"], 4);
    assert_eq!(report["starts_after_prune"], false);
    // Seven years pass for the first row (the superuser moves its time, which the chain shows,
    // until the prune takes the row away).
    sqlx::query(
        "UPDATE answer_audit SET answered_at = now() - interval '7 years' WHERE query_id = 'q0'",
    )
    .execute(pool)
    .await
    .unwrap();

    let pruned = as_owner(&["prune"]);
    assert!(
        pruned.status.success(),
        "{}",
        String::from_utf8_lossy(&pruned.stderr)
    );
    let pruned = first_json(&String::from_utf8_lossy(&pruned.stdout));
    for (table, removed) in [
        ("answer_audit", 1),
        ("dp_spend", 1),
        ("cohort_history", 1),
        ("envelopes_seen", 1),
        ("gateway_requests", 1),
    ] {
        assert_eq!(pruned[table], removed, "{table}: {pruned}");
    }
    let left: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM answer_audit) + (SELECT count(*) FROM dp_spend)
              + (SELECT count(*) FROM cohort_history) + (SELECT count(*) FROM envelopes_seen)
              + (SELECT count(*) FROM gateway_requests)",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        left,
        3 + 5,
        "the recent rows stay, and the break-the-glass request"
    );
    // The chain still holds after pruning its oldest row, and says it starts after one.
    let verified = as_owner(&["audit", "verify"]);
    assert!(verified.status.success());
    let report = first_json(&String::from_utf8_lossy(&verified.stdout));
    assert_eq!(report["rows"], 3);
    assert_eq!(report["starts_after_prune"], true);

    // Someone with the owner's rights edits a row, then removes one from the middle: both show.
    let edited: i64 = sqlx::query_scalar(
        "UPDATE answer_audit SET status = 'refused' WHERE query_id = 'q2' RETURNING audit_id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    let verified = as_owner(&["audit", "verify"]);
    assert!(!verified.status.success(), "an edited row is found");
    let report = first_json(&String::from_utf8_lossy(&verified.stdout));
    assert_eq!(report["broken"][0]["audit_id"], edited, "{report}");
    sqlx::query("UPDATE answer_audit SET status = 'answered' WHERE query_id = 'q2'")
        .execute(pool)
        .await
        .unwrap();
    assert!(as_owner(&["audit", "verify"]).status.success(), "restored");
    sqlx::query("DELETE FROM answer_audit WHERE query_id = 'q2'")
        .execute(pool)
        .await
        .unwrap();
    let verified = as_owner(&["audit", "verify"]);
    assert!(!verified.status.success(), "a removed row is found");
    let report = first_json(&String::from_utf8_lossy(&verified.stdout));
    let q3: i64 = sqlx::query_scalar("SELECT audit_id FROM answer_audit WHERE query_id = 'q3'")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(report["broken"][0]["audit_id"], q3, "{report}");
    answer.close().await;
    pool.close().await;
    run.cleanup().await;
}

/// Whether a client with `options` can read the TLS broker's metadata.
fn can_reach(brokers: &str, options: &[String]) -> Result<(), String> {
    let mut config = rdkafka::ClientConfig::new();
    config
        .set("bootstrap.servers", brokers)
        .set("socket.timeout.ms", "3000")
        .set("group.id", "probe");
    for option in options {
        let (key, value) = option.split_once('=').unwrap();
        config.set(key, value);
    }
    let consumer: BaseConsumer = config.create().map_err(|e| e.to_string())?;
    let result = consumer
        .fetch_metadata(None, Duration::from_secs(5))
        .map(|_| ())
        .map_err(|e| e.to_string());
    drop(consumer);
    result
}

#[tokio::test(flavor = "multi_thread")]
async fn workers_use_kafka_over_mutual_tls_and_others_are_refused() {
    let run = TestRun::over_tls("kafka_tls").await;
    let brokers = run.services.brokers.clone();
    // Who is refused: a plaintext client, a client whose certificate another CA signed, and a
    // client that does not trust the broker's certificate.
    assert!(can_reach(&brokers, &tls_options("ca", "client")).is_ok());
    for (who, options) in [
        ("plaintext", Vec::new()),
        (
            "a client certificate from another CA",
            tls_options("ca", "rogue-client"),
        ),
        (
            "a broker certificate it cannot verify",
            tls_options("rogue-ca", "client"),
        ),
    ] {
        assert!(
            can_reach(&brokers, &options).is_err(),
            "{who} must not reach the broker"
        );
    }
    // The ingest worker over TLS (and PostgreSQL over TLS as its role): two bundles in, the
    // documents they yield out, the offsets committed.
    let published = run.backfill(&run.subset_dir(2))["published"]
        .as_i64()
        .unwrap();
    assert_eq!(published, 2);
    let mut ingest = run.spawn_worker("ingest", &["--embedder", "hashed"]);
    run.wait_committed(2, Duration::from_secs(300), &mut ingest)
        .await;
    let store = run.store().await;
    let documents: i64 = sqlx::query_scalar("SELECT count(*) FROM documents")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert!(documents > 0);
    let (status, _, _) = ingest.terminate();
    assert!(status.success(), "the worker stops cleanly");
    store.pool().close().await;
    run.cleanup().await;
}
