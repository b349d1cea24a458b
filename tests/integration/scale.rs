//! What `bench scale` measures must stay true at any size: cohort answers over a population grown
//! from the archive (`fhir-rag generate`, ingested by a worker from the broker) equal the exact
//! count computed from the generated bundles themselves, and the set-based `vault.ages` reads
//! dates as they are written, the malformed ones included.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use chrono::{Datelike, NaiveDate};
use fhir_rag::answer::contract::{AnswerStatus, Query, QueryOptions, Requester};
use regex::Regex;
use sqlx::Row;

use crate::support::*;

/// Patients whose generated bundle holds a resource of `resource_type` whose code (any coding's
/// display, or its text) matches `pattern`, dated in `year` when one is given: the oracle, read
/// from the files, not from the store.
fn exact_patients(dir: &Path, resource_type: &str, pattern: &Regex, year: Option<i32>) -> usize {
    let mut patients = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("patient-")
        {
            continue;
        }
        let bundle: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let resources: Vec<&serde_json::Value> = bundle["entry"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| &e["resource"])
            .collect();
        let patient = resources
            .iter()
            .find(|r| r["resourceType"] == "Patient")
            .and_then(|r| r["id"].as_str())
            .unwrap()
            .to_string();
        let holds = resources.iter().any(|r| {
            if r["resourceType"] != resource_type {
                return false;
            }
            let code = if resource_type == "Immunization" {
                &r["vaccineCode"]
            } else {
                &r["code"]
            };
            let mut names: Vec<&str> = code["coding"]
                .as_array()
                .map(|c| c.iter().filter_map(|c| c["display"].as_str()).collect())
                .unwrap_or_default();
            names.extend(code["text"].as_str());
            let dated = year.is_none_or(|year| {
                ["occurrenceDateTime", "onsetDateTime", "performedDateTime"]
                    .iter()
                    .filter_map(|field| r[*field].as_str())
                    .any(|d| d.starts_with(&format!("{year}-")))
            });
            dated && names.iter().any(|n| pattern.is_match(n))
        });
        if holds {
            patients.insert(patient);
        }
    }
    patients.len()
}

/// "Cohort: 57 patients with hypertension." or "63 patients have a record of influenza from
/// …" → the count.
fn cohort_size(answer: &str) -> Option<usize> {
    let line = Regex::new(r"Cohort: (\d+) |(?:^|: )(\d+) patients have a record of").unwrap();
    line.captures(answer)
        .and_then(|c| c.get(1).or(c.get(2)))
        .map(|n| n.as_str().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn cohort_counts_on_a_grown_population_equal_the_exact_count() {
    let run = TestRun::new("scale").await;
    let population = tempfile::tempdir().unwrap();
    let patients = 200;
    let generated = run
        .command(&[
            "generate",
            "--patients",
            &patients.to_string(),
            "--seed",
            "7",
            "--out",
            population.path().to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let bundles = std::fs::read_dir(population.path()).unwrap().count() as i64;
    assert!(
        bundles > patients,
        "the shared bundles and {patients} patients"
    );
    run.backfill(population.path());
    let mut worker = run.spawn_worker("ingest", &["--embedder", "hashed"]);
    run.wait_committed(bundles, Duration::from_secs(1800), &mut worker)
        .await;
    let (status, _, log) = worker.terminate();
    assert!(status.success(), "{log}");
    let store = run.store().await;
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM patients")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(stored, patients);

    let word = |w: &str| Regex::new(&format!(r"(?i)\b{w}")).unwrap();
    let asked = [
        (
            "How many patients have hypertension?",
            exact_patients(population.path(), "Condition", &word("hypertension"), None),
        ),
        (
            "How many patients have anemia?",
            exact_patients(population.path(), "Condition", &word("anemia"), None),
        ),
        (
            "How many patients have had sinusitis?",
            exact_patients(population.path(), "Condition", &word("sinusitis"), None),
        ),
        (
            "How many patients have prediabetes?",
            exact_patients(population.path(), "Condition", &word("prediabetes"), None),
        ),
        (
            "How many patients received an influenza vaccine in 2019?",
            exact_patients(
                population.path(),
                "Immunization",
                &word("influenza"),
                Some(2019),
            ),
        ),
    ];
    let payloads: Vec<Vec<u8>> = asked
        .iter()
        .enumerate()
        .map(|(i, (question, _))| {
            serde_json::to_vec(&Query {
                query_id: format!("scale-{i}"),
                requester: Requester {
                    id: format!("researcher-{i}"),
                    role: "researcher".into(),
                    patients: None,
                },
                question: question.to_string(),
                options: QueryOptions::default(),
            })
            .unwrap()
        })
        .collect();
    let mut answer = run.spawn_role(
        "answer",
        "answer",
        &["--embedder", "hashed", "--llm", "rules://"],
    );
    run.publish_queries(&payloads).await;
    let answers = run.answers(payloads.len(), Duration::from_secs(600), &mut answer);
    for (i, (question, exact)) in asked.iter().enumerate() {
        let answer = &answers[&format!("scale-{i}")];
        assert!(
            *exact >= 10,
            "{question}: the oracle finds {exact} patients"
        );
        assert_eq!(
            answer.status,
            AnswerStatus::Answered,
            "{question}: {answer:?}"
        );
        assert_eq!(
            cohort_size(&answer.answer),
            Some(*exact),
            "{question}: {}",
            answer.answer
        );
    }
    drop(answer);
    run.cleanup().await;
}

/// An age and a birth year, as `vault.ages` gives them.
type Age = (i32, Option<i32>);

/// Full years from `birth` to `on`.
fn years(birth: NaiveDate, on: NaiveDate) -> i32 {
    let mut years = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        years -= 1;
    }
    years
}

#[tokio::test(flavor = "multi_thread")]
async fn ages_are_read_from_dates_as_written() {
    let run = TestRun::new("ages").await;
    let store = run.store().await;
    let pool = store.pool();
    let today = chrono::Utc::now().date_naive();
    let date = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    // (birth dates in the vault, the Patient fact's sentences, the expected (age, birth year)).
    let alive = years(date("1980-06-15"), today);
    let cases: Vec<(&[&str], &str, Option<Age>)> = vec![
        (
            &["1980-06-15"],
            "Gender is female.",
            Some((alive, Some(1980))),
        ),
        // 90 and over: 90, the birth year withheld.
        (&["1930-01-01"], "Gender is male.", Some((90, None))),
        // Not a day of the calendar, or not a date: left out.
        (&["2021-02-30"], "Gender is male.", None),
        (&["unknown"], "Gender is male.", None),
        // The earliest written; a timestamp reads as its day.
        (
            &["1990-05-01T08:00:00Z", "1991-01-01"],
            "Gender is female.",
            Some((years(date("1990-05-01"), today), Some(1990))),
        ),
        // The age at death.
        (
            &["1950-03-10"],
            "Gender is male. The patient died on 2000-03-09.",
            Some((49, Some(1950))),
        ),
        // A death written but not a date: left out.
        (
            &["1950-03-10"],
            "Gender is male. The patient died on 2000-02-30.",
            None,
        ),
        // Not in the list asked about: never read.
        (&["1960-01-01"], "Gender is female.", None),
    ];
    let mut keys = Vec::new();
    let mut expected = std::collections::BTreeMap::new();
    for (i, (births, sentences, age)) in cases.iter().enumerate() {
        let key: i64 = sqlx::query_scalar(
            "INSERT INTO patients (fhir_id, source) VALUES ($1, 'test') RETURNING patient_key",
        )
        .bind(format!("ages-{i}"))
        .fetch_one(pool)
        .await
        .unwrap();
        for birth in *births {
            sqlx::query(
                "INSERT INTO vault.phi_vault (patient_key, kind, value) VALUES ($1, 'birth_date', $2)",
            )
            .bind(key)
            .bind(birth)
            .execute(pool)
            .await
            .unwrap();
        }
        sqlx::query(
            "INSERT INTO facts (patient_key, resource_type, resource_id, sentences, source)
             VALUES ($1, 'Patient', $2, $3, 'test')",
        )
        .bind(key)
        .bind(format!("ages-{i}"))
        .bind(sentences)
        .execute(pool)
        .await
        .unwrap();
        if i + 1 < cases.len() {
            keys.push(key);
        }
        if let Some(age) = age {
            expected.insert(key, *age);
        }
    }
    let rows = sqlx::query("SELECT patient_key, age, birth_year FROM vault.ages($1)")
        .bind(&keys)
        .fetch_all(pool)
        .await
        .unwrap();
    let got: std::collections::BTreeMap<i64, Age> = rows
        .iter()
        .map(|r| (r.get("patient_key"), (r.get("age"), r.get("birth_year"))))
        .collect();
    assert_eq!(got, expected);
    run.cleanup().await;
}

/// The cohort queries find facts through `fact_words` and `fact_words_unindexed`: each must be
/// served by its index (a query that drifts from its index by a character scans every fact, as
/// the condition search did for a while), whatever the planner thinks of a small table.
#[tokio::test(flavor = "multi_thread")]
async fn the_words_indexes_serve_their_queries() {
    let run = TestRun::new("words_index").await;
    let store = run.store().await;
    let mut tx = store.pool().begin().await.unwrap();
    sqlx::query("SET LOCAL enable_seqscan = off")
        .execute(&mut *tx)
        .await
        .unwrap();
    for (condition, index) in [
        (
            "fact_words(sentences) @@ to_tsquery('simple', 'hypertension:*')",
            "facts_words",
        ),
        ("fact_words_unindexed(sentences)", "facts_unspaced"),
    ] {
        let plan: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "EXPLAIN SELECT patient_key FROM facts WHERE {condition}"
        )))
        .fetch_all(&mut *tx)
        .await
        .unwrap();
        let plan = plan.join("\n");
        assert!(plan.contains(index), "{condition}:\n{plan}");
    }
    tx.rollback().await.unwrap();
    run.cleanup().await;
}

/// One remembered cohort of the reference below.
struct Remembered {
    list: Option<BTreeSet<i64>>,
    condition: String,
    patients: BTreeSet<i64>,
}

/// The overlap control's rules written out over plain sets, independently of its SQL: the
/// reference the indexed control must agree with, answer by answer.
fn reference_refuses(history: &[Remembered], asked: &Remembered, k: usize) -> bool {
    let differ = |a: &BTreeSet<i64>, b: &BTreeSet<i64>| a.symmetric_difference(b).count();
    history.iter().any(|h| {
        let lists = match (&h.list, &asked.list) {
            (Some(a), Some(b)) => a.len().abs_diff(b.len()) < k && (1..k).contains(&differ(a, b)),
            _ => false,
        };
        let same = h.list == asked.list && h.condition == asked.condition;
        let identical = same && h.patients == asked.patients;
        let lowest = if same { 1 } else { 0 };
        let groups = h.patients.len().abs_diff(asked.patients.len()) < k
            && !identical
            && (lowest..k).contains(&differ(&h.patients, &asked.patients));
        lists || groups
    })
}

/// The overlap control looks up only the remembered cohorts that share a part digest with the
/// asked one (its cost no longer grows with a requester's history); it must refuse exactly what
/// the rules say. Several hundred random asks around a few groups (differences of 0 to k+2
/// patients, lists and conditions mixed, rows remembered before the parts existed and under
/// another k) are checked against [`reference_refuses`].
#[tokio::test(flavor = "multi_thread")]
async fn the_indexed_overlap_control_refuses_exactly_what_the_rules_say() {
    use fhir_rag::answer::cohort::{overlap, AskedCohort};
    use rand::{Rng, SeedableRng};
    let run = TestRun::new("overlap_parts").await;
    let store = run.store().await;
    let pool = store.pool();
    let k = 5;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
    let bases: Vec<BTreeSet<i64>> = [8usize, 40, 300]
        .iter()
        .map(|n| (0..*n).map(|_| rng.random_range(1..2_000i64)).collect())
        .collect();
    let conditions = ["", "diabetes", "concept:influenza in 2019"];
    let mut history: Vec<Remembered> = Vec::new();
    // Rows from before migration 0021 (no parts) and from a time k was 3: compared in full.
    for (i, parts) in [(0usize, None), (1, Some(3i16))] {
        let patients: Vec<i64> = bases[i].iter().copied().collect();
        sqlx::query(
            "INSERT INTO cohort_history (requester_id, list, condition, size, patients, digest, parts)
             VALUES ('r', NULL, 'legacy', $1, $2, $3, $4)",
        )
        .bind(patients.len() as i32)
        .bind(&patients)
        .bind(vec![i as u8; 32])
        .bind(parts)
        .execute(pool)
        .await
        .unwrap();
        history.push(Remembered {
            list: None,
            condition: "legacy".into(),
            patients: bases[i].clone(),
        });
    }
    let (mut refusals, mut answers) = (0, 0);
    for round in 0..400 {
        let base = &bases[rng.random_range(0..bases.len())];
        let mut patients = base.clone();
        for _ in 0..rng.random_range(0..k + 3) {
            if rng.random_bool(0.5) && !patients.is_empty() {
                let drop = *patients
                    .iter()
                    .nth(rng.random_range(0..patients.len()))
                    .unwrap();
                patients.remove(&drop);
            } else {
                patients.insert(rng.random_range(1..2_000i64));
            }
        }
        // Half the asks send a patient list: the group itself, or it with a few others.
        let list = rng.random_bool(0.5).then(|| {
            let mut list = patients.clone();
            for _ in 0..rng.random_range(0..3) {
                list.insert(rng.random_range(1..2_000i64));
            }
            list
        });
        let asked = Remembered {
            list,
            condition: conditions[rng.random_range(0..conditions.len())].into(),
            patients,
        };
        let expected = reference_refuses(&history, &asked, k);
        let keys: Vec<i64> = asked.patients.iter().copied().collect();
        let refused = overlap(
            pool,
            &AskedCohort {
                requester: "r".into(),
                list: asked.list.as_ref().map(|l| l.iter().copied().collect()),
                condition: &asked.condition,
                patients: &keys,
            },
            k,
            30,
        )
        .await
        .unwrap();
        assert_eq!(refused, expected, "ask {round}: {} patients", keys.len());
        if refused {
            refusals += 1;
        } else {
            answers += 1;
            let known = history.iter().position(|h| {
                h.list == asked.list
                    && h.condition == asked.condition
                    && h.patients == asked.patients
            });
            if known.is_none() {
                history.push(asked);
            }
        }
    }
    // The same history read with another k (4): every row was remembered under 5 parts, so
    // each is compared in full, and the answers still follow the rules.
    for round in 0..40 {
        let base = &bases[round % bases.len()];
        let mut patients = base.clone();
        for _ in 0..rng.random_range(0..6) {
            patients.insert(rng.random_range(1..2_000i64));
        }
        let asked = Remembered {
            list: None,
            condition: "another k".into(),
            patients,
        };
        let expected = reference_refuses(&history, &asked, 4);
        let keys: Vec<i64> = asked.patients.iter().copied().collect();
        let refused = overlap(
            pool,
            &AskedCohort {
                requester: "r".into(),
                list: None,
                condition: &asked.condition,
                patients: &keys,
            },
            4,
            30,
        )
        .await
        .unwrap();
        assert_eq!(refused, expected, "k = 4, ask {round}");
        if !refused {
            history.push(asked);
        }
    }
    // The list rule alone: two lists one patient apart, over groups with nothing in common
    // and other conditions; and keys sent unsorted and repeated are the same group.
    let ask = |list: Vec<i64>, condition: &'static str, patients: Vec<i64>| {
        let pool = pool.clone();
        async move {
            overlap(
                &pool,
                &AskedCohort {
                    requester: "lists".into(),
                    list: Some(list),
                    condition,
                    patients: &patients,
                },
                k,
                30,
            )
            .await
            .unwrap()
        }
    };
    let list: Vec<i64> = (5_000..5_040).collect();
    assert!(!ask(list.clone(), "diabetes", (6_000..6_020).collect()).await);
    let mut longer = list.clone();
    longer.push(5_999);
    assert!(ask(longer, "asthma", (7_000..7_030).collect()).await);
    let group: Vec<i64> = (8_000..8_050).collect();
    assert!(!ask(vec![1, 2, 3], "gout", group.clone()).await);
    let mut shuffled: Vec<i64> = group.iter().rev().copied().collect();
    shuffled.push(group[3]);
    assert!(ask(vec![3, 2, 1, 1], "anemia", shuffled).await);
    // Both outcomes are exercised, and the lookup saw many rows.
    assert!(
        refusals > 50 && answers > 50,
        "{refusals} refused, {answers} answered"
    );
    let parts: i64 = sqlx::query_scalar("SELECT count(*) FROM cohort_history_parts")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(parts >= 5 * 50, "{parts} part digests");
    run.cleanup().await;
}
