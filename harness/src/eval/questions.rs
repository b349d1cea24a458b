//! Evaluation questions, generated deterministically from what the store holds, each with the
//! documents that answer it (thesis §4.1 generated its questions from the files, with the file as
//! the answer's source). Any JSON file of [`EvalQuestion`]s can be used instead.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use sqlx::{PgPool, Row};

use fhir_rag::store::StoreError;

/// What a question asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// A patient's reading (vital sign) on a date.
    ReadingOnDate,
    /// A patient's procedures on a date.
    ProceduresOnDate,
    /// A patient's conditions.
    Conditions,
    /// A patient's allergies.
    Allergies,
    /// A patient's medications.
    Medications,
    /// The medications of patients with a condition (two-step).
    ConditionMedications,
}

/// A document that answers a question: the patient's FHIR id and the document's day (None: the
/// patient's summary), so that a question file outlives the store's internal ids.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SourceDocument {
    /// FHIR Patient id.
    pub patient: String,
    /// Day of the document; None for the summary.
    pub day: Option<NaiveDate>,
}

/// One evaluation question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalQuestion {
    /// Stable id.
    pub id: String,
    /// What it asks.
    pub kind: QuestionKind,
    /// The question (names patients as the vault has them: synthetic data only).
    pub question: String,
    /// Documents holding the answer (any of them counts as a hit).
    pub sources: Vec<SourceDocument>,
}

/// The vital signs reading questions ask about (as Synthea codes them).
const READINGS: [&str; 3] = ["Body Weight", "Heart rate", "Blood Pressure"];

/// Generates the question set: per patient the latest day of each reading in [`READINGS`], the
/// latest day with a procedure, and its conditions, allergies and medications when it has any;
/// plus the medications of patients with each of the `conditions` most common conditions.
pub async fn generate(pool: &PgPool, conditions: usize) -> Result<Vec<EvalQuestion>, StoreError> {
    let patients = sqlx::query(
        "SELECT p.patient_key, p.fhir_id,
                (SELECT value FROM vault.phi_vault v WHERE v.patient_key = p.patient_key AND kind = 'given_name' ORDER BY value LIMIT 1) AS given,
                (SELECT value FROM vault.phi_vault v WHERE v.patient_key = p.patient_key AND kind = 'family_name' ORDER BY value LIMIT 1) AS family
         FROM patients p ORDER BY p.fhir_id",
    )
    .fetch_all(pool)
    .await?;
    let mut out = Vec::new();
    for row in patients {
        let key: i64 = row.get("patient_key");
        let fhir_id: String = row.get("fhir_id");
        let (Some(given), Some(family)) = (
            row.get::<Option<String>, _>("given"),
            row.get::<Option<String>, _>("family"),
        ) else {
            continue;
        };
        let name = format!("{given} {family}");
        let mut push = |kind: QuestionKind, question: String, day: Option<NaiveDate>| {
            out.push(EvalQuestion {
                id: format!("{}-{}", fhir_id, out.len()),
                kind,
                question,
                sources: vec![SourceDocument {
                    patient: fhir_id.clone(),
                    day,
                }],
            });
        };
        for reading in READINGS {
            let day: Option<NaiveDate> = sqlx::query_scalar(
                "SELECT max(day) FROM facts WHERE patient_key = $1 AND resource_type = 'Observation'
                   AND sentences LIKE $2",
            )
            .bind(key)
            .bind(format!("%Code is {reading}.%"))
            .fetch_one(pool)
            .await?;
            if let Some(day) = day {
                push(
                    QuestionKind::ReadingOnDate,
                    format!("What was {name}'s {} on {day}?", reading.to_lowercase()),
                    Some(day),
                );
            }
        }
        let procedure_day: Option<NaiveDate> = sqlx::query_scalar(
            "SELECT max(day) FROM facts WHERE patient_key = $1 AND resource_type = 'Procedure'",
        )
        .bind(key)
        .fetch_one(pool)
        .await?;
        if let Some(day) = procedure_day {
            push(
                QuestionKind::ProceduresOnDate,
                format!("Which procedures did {name} have on {day}?"),
                Some(day),
            );
        }
        let present: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT resource_type FROM facts WHERE patient_key = $1 AND day IS NULL",
        )
        .bind(key)
        .fetch_all(pool)
        .await?;
        for (resource_type, kind, question) in [
            (
                "Condition",
                QuestionKind::Conditions,
                format!("What conditions does {name} have?"),
            ),
            (
                "AllergyIntolerance",
                QuestionKind::Allergies,
                format!("What allergies does {name} have?"),
            ),
            (
                "MedicationRequest",
                QuestionKind::Medications,
                format!("Which medications is {name} taking?"),
            ),
        ] {
            if present.iter().any(|t| t == resource_type) {
                push(kind, question, None);
            }
        }
    }

    // Two-step questions: conditions of patients who have medications, most common first.
    let rows = sqlx::query(
        "SELECT lower(trim(substring(c.sentences FROM '^Condition is ([^.(]*)'))) AS condition,
                array_agg(DISTINCT p.fhir_id ORDER BY p.fhir_id) AS patients
         FROM facts c JOIN patients p USING (patient_key)
         WHERE c.resource_type = 'Condition'
           AND EXISTS (SELECT 1 FROM facts m WHERE m.patient_key = c.patient_key
                       AND m.resource_type = 'MedicationRequest')
         GROUP BY 1
         HAVING lower(trim(substring(c.sentences FROM '^Condition is ([^.(]*)'))) <> ''
         ORDER BY count(DISTINCT p.fhir_id) DESC, 1
         LIMIT $1",
    )
    .bind(conditions as i64)
    .fetch_all(pool)
    .await?;
    for row in rows {
        let condition: String = row.get("condition");
        let patients: Vec<String> = row.get("patients");
        out.push(EvalQuestion {
            id: format!("condition-{}", out.len()),
            kind: QuestionKind::ConditionMedications,
            question: format!("What medications are patients with {condition} on?"),
            sources: patients
                .into_iter()
                .map(|patient| SourceDocument { patient, day: None })
                .collect(),
        });
    }
    Ok(out)
}

/// Reads a question file.
pub fn read(path: &std::path::Path) -> Result<Vec<EvalQuestion>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
