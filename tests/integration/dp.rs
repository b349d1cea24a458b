//! Differentially private answers against the real database, broker and local model: the
//! budget never overspends under concurrent spends, DP answers spend and stop at the budget,
//! and DP text answers come from the voters through the GGUF model.

use std::time::Duration;

use fhir_rag::answer::contract::{AnswerStatus, Mode, Query, QueryOptions, Requester};
use fhir_rag::dp::budget::{Budget, Limits, Period, Spend};
use fhir_rag::dp::PrivacyCost;

use crate::support::*;

fn cost(epsilon: f64) -> PrivacyCost {
    PrivacyCost {
        epsilon,
        delta: 1e-6,
    }
}

/// Forty concurrent spends of ε = 1 against a budget of 7.5: exactly seven are granted, the
/// ledger never passes the limit and keeps no noise seed; a repeated query id asking the same
/// thing gets its published answer back for free, one asking anything else is refused, one
/// whose answer was never published pays again (so ten concurrent deliveries of one query id are
/// decided one after the other, each paying); and a refund gives back at most the spend.
#[tokio::test(flavor = "multi_thread")]
async fn the_budget_never_overspends_under_concurrent_spends() {
    let run = TestRun::new("dpbudget").await;
    let store = fhir_rag::store::Store::connect(&fhir_rag::store::StoreConfig {
        database_url: run.database_url.clone(),
        database_connections: 16,
    })
    .await
    .unwrap();
    store.migrate().await.unwrap();
    let budget = Budget::new(
        store.pool().clone(),
        Limits {
            epsilon: 7.5,
            delta: 1e-3,
            period: Period::Month,
        },
    );
    let mut tasks = Vec::new();
    for i in 0..40u8 {
        let budget = budget.clone();
        tasks.push(tokio::spawn(async move {
            budget
                .spend("researcher-1", &format!("q{i}"), &[i; 32], cost(1.0))
                .await
                .unwrap()
        }));
    }
    let mut granted = 0;
    let mut exhausted = 0;
    for task in tasks {
        match task.await.unwrap() {
            Spend::Granted => granted += 1,
            Spend::Exhausted { .. } => exhausted += 1,
            other => panic!("distinct ids are not replays: {other:?}"),
        }
    }
    assert_eq!((granted, exhausted), (7, 33));
    let spent: f64 = sqlx::query_scalar(
        "SELECT epsilon_spent FROM dp_budget WHERE requester_id = 'researcher-1'",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert!((spent - 7.0).abs() < 1e-9, "{spent}");
    assert!((budget.epsilon_left("researcher-1").await.unwrap() - 0.5).abs() < 1e-9);
    let ledger: i64 =
        sqlx::query_scalar("SELECT count(*) FROM dp_spend WHERE requester_id = 'researcher-1'")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(ledger, 7);
    let seed_columns: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.columns
         WHERE table_name = 'dp_spend' AND column_name LIKE '%seed%'",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(seed_columns, 0, "no noise seed is kept");

    let (id, digest): (String, Vec<u8>) = sqlx::query_as(
        "SELECT query_id, request_digest FROM dp_spend WHERE requester_id = 'researcher-1'
         ORDER BY query_id LIMIT 1",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    // Asked again before its answer was published (a crash in between): charged again, even
    // past what a fresh query could spend (0.5 left, 1 asked): exhausted.
    assert!(matches!(
        budget
            .spend("researcher-1", &id, &digest, cost(1.0))
            .await
            .unwrap(),
        Spend::Exhausted { .. }
    ));
    let published = serde_json::json!({"status": "answered", "answer": "About 10 patients."});
    budget
        .publish("researcher-1", &id, &published)
        .await
        .unwrap();
    // Written once.
    budget
        .publish("researcher-1", &id, &serde_json::json!({"answer": "other"}))
        .await
        .unwrap();
    // The same request again: the published answer, free.
    assert_eq!(
        budget
            .spend("researcher-1", &id, &digest, cost(1.0))
            .await
            .unwrap(),
        Spend::Replay {
            published: published.clone()
        }
    );
    // The same query id asking anything else: refused, never free.
    assert_eq!(
        budget
            .spend("researcher-1", &id, &[0xee; 32], cost(0.1))
            .await
            .unwrap(),
        Spend::Conflict
    );
    assert!((budget.epsilon_left("researcher-1").await.unwrap() - 0.5).abs() < 1e-9);

    // Ten concurrent deliveries of one new query id by another requester, none published yet.
    let mut tasks = Vec::new();
    for _ in 0..10u8 {
        let budget = budget.clone();
        tasks.push(tokio::spawn(async move {
            budget
                .spend("researcher-2", "same", &[7; 32], cost(2.0))
                .await
                .unwrap()
        }));
    }
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    // Unpublished spends of the same request pay again each time, so the ten are decided one
    // after the other: three pay 2 each within 7.5, the rest are exhausted.
    let paid = outcomes.iter().filter(|o| **o == Spend::Granted).count();
    assert_eq!(paid, 3, "{outcomes:?}");
    assert!((budget.epsilon_left("researcher-2").await.unwrap() - 1.5).abs() < 1e-9);
    // Refund all but one spend's worth so the refund checks below start from 5.5 left.
    budget.refund("researcher-2", "same", 4.0).await.unwrap();
    assert!((budget.epsilon_left("researcher-2").await.unwrap() - 5.5).abs() < 1e-9);

    // A refund gives back at most what the query spent; the ledger never goes negative.
    budget.refund("researcher-2", "same", 1.5).await.unwrap();
    assert!((budget.epsilon_left("researcher-2").await.unwrap() - 7.0).abs() < 1e-9);
    budget.refund("researcher-2", "same", 100.0).await.unwrap();
    assert!((budget.epsilon_left("researcher-2").await.unwrap() - 7.5).abs() < 1e-9);
    let negative: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM dp_budget WHERE epsilon_spent < 0 OR delta_spent < 0",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(negative, 0);
    run.cleanup().await;
}

fn dp_query(id: &str, requester: &str, question: &str, epsilon: Option<f64>) -> Vec<u8> {
    serde_json::to_vec(&Query {
        query_id: id.into(),
        requester: Requester {
            id: requester.into(),
            role: "researcher".into(),
            patients: None,
        },
        question: question.into(),
        options: QueryOptions {
            mode: Mode::Dp,
            k: None,
            epsilon,
        },
    })
    .unwrap()
}

/// Through the answer worker with the local model: DP counts (figures carry "about"), a DP
/// text by votes, the budget stopping further answers with `budget_exhausted` (valid against
/// the published schema), a too-large epsilon refused without spending, and the audit row
/// recording each spend.
#[tokio::test(flavor = "multi_thread")]
async fn dp_answers_spend_from_the_budget_and_stop_when_it_is_spent() {
    let run = TestRun::new("dp").await;
    let dir = run.subset_dir(12);
    run.backfill(&dir);
    let mut ingest = run.spawn_worker("ingest", &["--embedder", "hashed"]);
    run.wait_committed(12, Duration::from_secs(900), &mut ingest)
        .await;
    let (status, _, log) = ingest.terminate();
    assert!(status.success(), "{log}");

    // The guarantee is per patient: a patient with many documents is one voter, holding at
    // most its --dp-documents-per-voter best, whatever the threshold lets through.
    let store = run.store().await;
    let patients: Vec<i64> = sqlx::query_scalar("SELECT DISTINCT patient_key FROM documents")
        .fetch_all(store.pool())
        .await
        .unwrap();
    let documents: i64 = sqlx::query_scalar("SELECT count(*) FROM documents")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert!(
        documents > 3 * patients.len() as i64,
        "{documents} documents"
    );
    let voters = fhir_rag::answer::search::threshold_voters(
        store.pool(),
        &[1.0; 384],
        &patients,
        -1.0,
        2,
        None,
    )
    .await
    .unwrap();
    let distinct: std::collections::BTreeSet<i64> = voters.iter().map(|v| v.patient_key).collect();
    assert_eq!(distinct.len(), voters.len(), "a patient voted twice");
    assert_eq!(voters.len(), patients.len());
    assert!(voters.iter().all(|v| (1..=2).contains(&v.texts.len())));
    // A vaccine question's voter reads its days with a vaccine first, however similar its
    // other days are; a patient with none still votes, on its most similar days.
    let preferring = fhir_rag::answer::search::threshold_voters(
        store.pool(),
        &[1.0; 384],
        &patients,
        -1.0,
        2,
        Some("Immunization is "),
    )
    .await
    .unwrap();
    assert_eq!(preferring.len(), patients.len());
    let vaccinated: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT patient_key FROM documents WHERE strpos(text, 'Immunization is ') > 0",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert!(!vaccinated.is_empty());
    for voter in &preferring {
        let first = voter.texts[0].contains("Immunization is ");
        assert_eq!(first, vaccinated.contains(&voter.patient_key), "{voter:?}");
    }

    let gguf = std::process::Command::new(repo().join("scripts/fetch-llm.sh"))
        .output()
        .unwrap();
    let gguf = String::from_utf8(gguf.stdout).unwrap().trim().to_string();
    let llm = format!("gguf://{gguf}");
    // The ledger is tested on its own, below the envelopes: with signed envelopes a query id
    // seen again never reaches it (the worker dead-letters the copy as a replay, see
    // gateway.rs), so this worker takes unsigned queries.
    let mut worker = run.spawn_role(
        "answer",
        "answer",
        &[
            "--insecure-unsigned-queries",
            "--embedder",
            "hashed",
            "--llm",
            &llm,
            "--cohort-min-patients",
            "2",
            "--dp-min-voters",
            "3",
            "--dp-max-voters",
            "8",
            "--dp-similarity",
            "0",
            "--dp-budget-epsilon",
            "21",
        ],
    );
    // One at a time: the query topic has four partitions, and the budget depends on order.
    let queries = [
        dp_query(
            "count-1",
            "r1",
            "How many patients take each medication?",
            Some(10.0),
        ),
        dp_query(
            "too-large",
            "r1",
            "How many patients take each medication?",
            Some(50.0),
        ),
        dp_query(
            "text-1",
            "r1",
            "What medication do the patients take?",
            Some(10.0),
        ),
        dp_query(
            "count-2",
            "r1",
            "How many patients have each condition?",
            Some(5.0),
        ),
        dp_query(
            "count-3",
            "r1",
            "How many patients have each condition?",
            Some(5.0),
        ),
    ];
    let mut answers = Default::default();
    for (n, query) in queries.iter().enumerate() {
        run.publish_unsigned_queries(std::slice::from_ref(query))
            .await;
        answers = run.answers(n + 1, Duration::from_secs(900), &mut worker);
    }
    // A query id sent again: with the same request, the answer first published, for nothing;
    // with another question, refused (before, both were free and replayed the stored noise).
    run.publish_unsigned_queries(&[queries[0].clone()]).await;
    let replay = run.answer_messages(
        |seen| seen.len() >= 6,
        Duration::from_secs(900),
        &mut worker,
    );
    run.publish_unsigned_queries(&[dp_query(
        "count-1",
        "R1\u{200b}",
        "How many patients have each condition?",
        Some(10.0),
    )])
    .await;
    let reuse = run.answer_messages(
        |seen| seen.len() >= 7,
        Duration::from_secs(900),
        &mut worker,
    );
    let (_, _, log) = worker.terminate();
    let replay = replay
        .iter()
        .filter(|a| a.query_id == "count-1")
        .collect::<Vec<_>>();
    assert_eq!(replay.len(), 2, "{log}");
    assert_eq!(replay[0].answer, replay[1].answer);
    assert_eq!(replay[1].privacy.dp.as_ref().unwrap().epsilon, 0.0);
    // One query id's answers share a key, so a partition: read in the order they were sent.
    let count_1: Vec<_> = reuse.iter().filter(|a| a.query_id == "count-1").collect();
    assert_eq!(count_1.len(), 3, "{log}");
    let reused = count_1[2];
    assert_eq!(reused.status, AnswerStatus::Refused, "{}", reused.answer);
    assert!(reused.answer.contains("already used"), "{}", reused.answer);
    let schema_text = std::fs::read_to_string(repo().join("topics/rag.answers.json")).unwrap();
    let contract: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let schema = jsonschema::validator_for(&contract["value_schema"]).unwrap();
    for answer in answers.values() {
        eprintln!("{}: {:?} {}", answer.query_id, answer.status, answer.answer);
        assert!(schema.is_valid(&serde_json::to_value(answer).unwrap()));
    }
    let count = &answers["count-1"];
    assert_eq!(count.status, AnswerStatus::Answered, "{log}");
    assert!(count.answer.contains("about"), "{}", count.answer);
    assert!(count.answer.contains("differential privacy"));
    assert_eq!(count.privacy.dp.as_ref().unwrap().epsilon, 10.0);
    let too_large = &answers["too-large"];
    assert_eq!(too_large.status, AnswerStatus::Refused);
    assert!(too_large.privacy.dp.is_none());
    // The count carries its 95 % interval.
    assert!(count.answer.contains("95 % interval"), "{}", count.answer);
    let text = &answers["text-1"];
    assert!(
        matches!(text.status, AnswerStatus::Answered | AnswerStatus::NotFound),
        "{text:?}"
    );
    // Keyword answers: every voter (at most --dp-max-voters, 8) answers in one batch, one
    // forward pass per voter for the prompt and one per token it is fed.
    assert!(text.llm_calls >= 1, "{}", text.llm_calls);
    if text.status == AnswerStatus::Answered {
        assert!(text.answer.starts_with("Private answer"), "{}", text.answer);
        assert!(
            text.answer.contains("public list of clinical words"),
            "{}",
            text.answer
        );
    } else {
        assert!(
            text.answer.contains("No answer stood out"),
            "{}",
            text.answer
        );
    }
    // A keyword answer is one exponential mechanism at the whole ε: always charged in full,
    // so 10 + 10 of 21 are spent and the ε = 5 answers do not fit.
    let charged = |id: &str| answers[id].privacy.dp.as_ref().unwrap().epsilon;
    assert_eq!(charged("text-1"), 10.0);
    let total: f64 = ["count-1", "text-1", "count-2", "count-3"]
        .iter()
        .map(|id| charged(id))
        .sum();
    assert!(total <= 21.0 + 1e-9, "{total}");
    assert_eq!(answers["count-2"].status, AnswerStatus::BudgetExhausted);
    assert_eq!(answers["count-3"].status, AnswerStatus::BudgetExhausted);
    let left = answers["count-3"].privacy.dp.as_ref().unwrap().epsilon_left;
    assert!((left - 1.0).abs() < 1e-9, "{left}");

    let store = run.store().await;
    let mut audited: Vec<(String, Option<f64>)> = sqlx::query_as(
        "SELECT query_id, (guard_report->'dp'->>'charged_epsilon')::float8 FROM answer_audit
         WHERE requester_id = 'r1' ORDER BY query_id, audit_id",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    audited.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(
        audited,
        // The audit is insert-only: count-1's redelivery (charged nothing, the ledger's answer
        // again) and its reuse for another question (refused) are rows of their own.
        vec![
            ("count-1".into(), None),
            ("count-1".into(), Some(0.0)),
            ("count-1".into(), Some(10.0)),
            ("count-2".into(), None),
            ("count-3".into(), None),
            ("text-1".into(), Some(10.0)),
            ("too-large".into(), None),
        ]
    );
    run.cleanup().await;
}
