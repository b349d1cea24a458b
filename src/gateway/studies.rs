//! Study cohorts: the patient groups an administrator registers for research, and who may ask
//! about each. A cohort requester's group is the whole store, or a study it was granted that its
//! request names (`"study": "name"`); no requester ever chooses a patient list.
//!
//! A study is fixed once registered: a changed list under the same name would let two answers,
//! subtracted, describe the patients that changed. To change a group, close the study and
//! register another (the answer workers' overlap control still refuses a group that differs from
//! one the same requester asked about recently by fewer than k patients).

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::Serialize;
use sqlx::PgPool;

use crate::answer::contract::MAX_REQUESTER_PATIENTS;

/// What `fhir-rag study` does (with the owner's or an administrator's database credentials).
#[derive(Debug, clap::Subcommand)]
pub enum StudyAction {
    /// Register a study: its name and its patients, one FHIR Patient id per line (`#` comments
    /// and blank lines skipped).
    Register {
        /// Lower-case letters, digits, `.`, `_`, `-`; at most 64 characters.
        name: String,
        /// The members' ids.
        #[arg(long)]
        patients_file: PathBuf,
        /// The feed the ids belong to (the ingest workers' `--source`; empty: the default).
        #[arg(long, default_value = "")]
        source: String,
        /// What the study is (protocol number, approval), for the operators.
        #[arg(long, default_value = "")]
        description: String,
    },
    /// Let a principal (a token's exact `sub`) ask about a study.
    Grant {
        /// The study.
        name: String,
        /// The token subject.
        principal: String,
    },
    /// Withdraw a principal's grant.
    Revoke {
        /// The study.
        name: String,
        /// The token subject.
        principal: String,
    },
    /// Close a study: nobody may ask about it any more (its record stays).
    Close {
        /// The study.
        name: String,
    },
    /// List the studies, their sizes and grants.
    List,
}

/// Why a study command failed.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The request itself is wrong (name, file, ids, size).
    #[error("{0}")]
    Invalid(String),
    /// The database.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// One study as `study list` prints it.
#[derive(Debug, Serialize)]
pub struct StudyRow {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Members registered.
    pub members: i64,
    /// Principals granted.
    pub principals: Vec<String>,
    /// Whether it is closed.
    pub closed: bool,
}

/// Whether `name` may name a study.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 64
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
}

/// The member ids of a patients file: every line an id, `#` comments and blanks skipped;
/// duplicates folded. Fails on the first line that is not an id, naming its number.
pub fn read_members(text: &str) -> Result<BTreeSet<String>, StudyError> {
    let mut ids = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let id = line.strip_prefix("Patient/").unwrap_or(line);
        if !crate::ingest::flatten::is_fhir_id(id) {
            return Err(StudyError::Invalid(format!(
                "line {}: not a FHIR Patient id",
                n + 1
            )));
        }
        ids.insert(id.to_string());
    }
    if ids.is_empty() {
        return Err(StudyError::Invalid("the patients file lists nobody".into()));
    }
    if ids.len() > MAX_REQUESTER_PATIENTS {
        return Err(StudyError::Invalid(format!(
            "{} patients: a study holds at most {MAX_REQUESTER_PATIENTS}",
            ids.len()
        )));
    }
    Ok(ids)
}

/// Runs one study command and says what it did.
pub async fn run(pool: &PgPool, action: &StudyAction) -> Result<serde_json::Value, StudyError> {
    match action {
        StudyAction::Register {
            name,
            patients_file,
            source,
            description,
        } => {
            if !valid_name(name) {
                return Err(StudyError::Invalid(format!(
                    "{name:?}: a study name has lower-case letters, digits, '.', '_' and '-' (at most 64)"
                )));
            }
            let text = std::fs::read_to_string(patients_file)
                .map_err(|e| StudyError::Invalid(format!("{}: {e}", patients_file.display())))?;
            let ids: Vec<String> = read_members(&text)?.into_iter().collect();
            let mut tx = pool.begin().await?;
            let created = sqlx::query(
                "INSERT INTO studies (name, description) VALUES ($1, $2)
                 ON CONFLICT (name) DO NOTHING",
            )
            .bind(name)
            .bind(description)
            .execute(&mut *tx)
            .await?;
            if created.rows_affected() == 0 {
                return Err(StudyError::Invalid(format!(
                    "study {name:?} is already registered: a study never changes; close it and register another name"
                )));
            }
            sqlx::query(
                "INSERT INTO study_members (study, source, fhir_id)
                 SELECT $1, $2, unnest($3::text[])",
            )
            .bind(name)
            .bind(source)
            .bind(&ids)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(serde_json::json!({"registered": name, "members": ids.len()}))
        }
        StudyAction::Grant { name, principal } => {
            let principal = principal.trim();
            if principal.is_empty() || principal.chars().any(char::is_control) {
                return Err(StudyError::Invalid(
                    "an empty or unprintable principal".into(),
                ));
            }
            let open: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM studies WHERE name = $1 AND closed_at IS NULL)",
            )
            .bind(name)
            .fetch_one(pool)
            .await?;
            if !open {
                return Err(StudyError::Invalid(format!("no open study {name:?}")));
            }
            let granted = sqlx::query(
                "INSERT INTO study_grants (study, principal) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .bind(name)
            .bind(principal)
            .execute(pool)
            .await?;
            Ok(
                serde_json::json!({"study": name, "granted": principal, "new": granted.rows_affected() == 1}),
            )
        }
        StudyAction::Revoke { name, principal } => {
            let revoked =
                sqlx::query("DELETE FROM study_grants WHERE study = $1 AND principal = $2")
                    .bind(name)
                    .bind(principal.trim())
                    .execute(pool)
                    .await?;
            Ok(
                serde_json::json!({"study": name, "revoked": principal.trim(), "was_granted": revoked.rows_affected() == 1}),
            )
        }
        StudyAction::Close { name } => {
            let closed = sqlx::query(
                "UPDATE studies SET closed_at = now() WHERE name = $1 AND closed_at IS NULL",
            )
            .bind(name)
            .execute(pool)
            .await?;
            if closed.rows_affected() == 0 {
                return Err(StudyError::Invalid(format!("no open study {name:?}")));
            }
            Ok(serde_json::json!({"closed": name}))
        }
        StudyAction::List => {
            let rows: Vec<(String, String, i64, Vec<String>, bool)> = sqlx::query_as(
                "SELECT s.name, s.description,
                        (SELECT count(*) FROM study_members m WHERE m.study = s.name),
                        ARRAY(SELECT principal FROM study_grants g WHERE g.study = s.name
                              ORDER BY principal),
                        s.closed_at IS NOT NULL
                 FROM studies s ORDER BY s.name",
            )
            .fetch_all(pool)
            .await?;
            let rows: Vec<StudyRow> = rows
                .into_iter()
                .map(
                    |(name, description, members, principals, closed)| StudyRow {
                        name,
                        description,
                        members,
                        principals,
                        closed,
                    },
                )
                .collect();
            Ok(serde_json::to_value(rows).expect("plain rows"))
        }
    }
}

/// The members of an open study that `principal` (a token's exact subject) is granted, as
/// queries name patients (`source|id` outside the default source); `None` when the study is
/// unknown, closed or not granted to it (one answer for the three, so that a requester cannot
/// learn which studies exist). One query: a registered study has at least one member, so no
/// rows means no grant.
pub async fn granted_members(
    pool: &PgPool,
    study: &str,
    principal: &str,
) -> Result<Option<Vec<String>>, sqlx::Error> {
    let members: Vec<String> = sqlx::query_scalar(
        "SELECT CASE WHEN m.source = '' THEN m.fhir_id ELSE m.source || '|' || m.fhir_id END
         FROM studies s
         JOIN study_grants g ON g.study = s.name AND g.principal = $2
         JOIN study_members m ON m.study = s.name
         WHERE s.name = $1 AND s.closed_at IS NULL
         ORDER BY m.source, m.fhir_id LIMIT $3",
    )
    .bind(study)
    .bind(principal)
    .bind(MAX_REQUESTER_PATIENTS as i64)
    .fetch_all(pool)
    .await?;
    Ok((!members.is_empty()).then_some(members))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn study_names_and_member_files_are_checked() {
        assert!(valid_name("copd-2026.a_1"));
        for bad in ["", "Upper", "-lead", "has space", "a/b", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad:?}");
        }
        let ids =
            read_members("# approved list\nabc-1\n\nPatient/def.2  # second\nabc-1\n").unwrap();
        assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["abc-1", "def.2"]);
        let bad = read_members("abc\nnot an id\n").unwrap_err().to_string();
        assert_eq!(bad, "line 2: not a FHIR Patient id");
        assert!(read_members("# nobody\n\n").is_err());
        let too_many: String = (0..=MAX_REQUESTER_PATIENTS)
            .map(|i| format!("p{i}\n"))
            .collect();
        assert!(read_members(&too_many).is_err());
    }
}
