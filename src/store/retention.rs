//! How long the answer path's and the gateway's records stay (`fhir-rag prune`), and the check
//! of the audit's hash chain (`fhir-rag audit verify`).
//!
//! Both run as the migration role (the tables' owner): no worker may delete an audit row.

use futures::TryStreamExt;
use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::{PgPool, Row};

use super::StoreError;

/// Retention periods, in days.
#[derive(Debug, Clone, clap::Args)]
pub struct Retention {
    /// Keep answer audit rows this long (six years: HIPAA's retention of security records).
    #[arg(long, env = "FHIR_RAG_AUDIT_RETENTION_DAYS", default_value_t = 2190)]
    pub audit_days: u32,
    /// Keep DP ledger rows (spends and per-period budgets) this long after their period; longer
    /// than the budget period, or a requester's spending would be forgotten within it.
    #[arg(long, env = "FHIR_RAG_LEDGER_RETENTION_DAYS", default_value_t = 400)]
    pub ledger_days: u32,
    /// Keep cohort answers (the overlap control's memory) this long; at least the overlap window.
    #[arg(long, env = "FHIR_RAG_COHORT_RETENTION_DAYS", default_value_t = 365)]
    pub cohort_days: u32,
    /// Keep the gateway's requests (and the answers they hold) this long after they expire.
    #[arg(long, env = "FHIR_RAG_GATEWAY_RETENTION_DAYS", default_value_t = 1)]
    pub gateway_days: u32,
}

/// Rows removed, per table.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Pruned {
    /// Answer audit rows older than the audit retention.
    pub answer_audit: u64,
    /// DP spends older than the ledger retention.
    pub dp_spend: u64,
    /// DP budgets of periods that started before the ledger retention.
    pub dp_budget: u64,
    /// Cohort answers older than the cohort retention.
    pub cohort_history: u64,
    /// Envelopes past their expiry (a verifier refuses them anyway, so the replay table need not
    /// remember them).
    pub envelopes_seen: u64,
    /// Gateway requests past their expiry plus the gateway retention.
    pub gateway_requests: u64,
}

/// Deletes what is older than its retention, table by table, in one transaction whose search
/// path is the system catalog only (so that nothing planted in a schema can run as the owner).
pub async fn prune(pool: &PgPool, retention: &Retention) -> Result<Pruned, StoreError> {
    let days = |d: u32| d.min(i32::MAX as u32) as i32;
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL search_path = pg_catalog, pg_temp")
        .execute(&mut *tx)
        .await?;
    let (audit, ledger) = (days(retention.audit_days), days(retention.ledger_days));
    let pruned = Pruned {
        // Only the oldest run of rows: everything before the first row still within the
        // retention, so that the chain stays whole from its new start.
        answer_audit: delete(
            &mut tx,
            "DELETE FROM public.answer_audit WHERE audit_id < coalesce(
                 (SELECT min(audit_id) FROM public.answer_audit
                  WHERE answered_at >= now() - make_interval(days => $1)),
                 (SELECT max(audit_id) + 1 FROM public.answer_audit))",
            &[audit],
        )
        .await?,
        dp_spend: delete(
            &mut tx,
            "DELETE FROM public.dp_spend WHERE spent_at < now() - make_interval(days => $1)",
            &[ledger],
        )
        .await?,
        dp_budget: delete(
            &mut tx,
            "DELETE FROM public.dp_budget WHERE period_start < now() - make_interval(days => $1)",
            &[ledger],
        )
        .await?,
        cohort_history: delete(
            &mut tx,
            "DELETE FROM public.cohort_history
             WHERE answered_at < now() - make_interval(days => $1)",
            &[days(retention.cohort_days)],
        )
        .await?,
        envelopes_seen: delete(
            &mut tx,
            "DELETE FROM public.envelopes_seen WHERE expires_at < now()",
            &[],
        )
        .await?,
        // A break-the-glass request is an access record: it stays as long as the audit.
        gateway_requests: delete(
            &mut tx,
            "DELETE FROM public.gateway_requests
             WHERE expires_at < now() - make_interval(days => $1)
               AND (break_glass_reason IS NULL
                    OR created_at < now() - make_interval(days => $2))",
            &[days(retention.gateway_days), audit],
        )
        .await?,
    };
    tx.commit().await?;
    Ok(pruned)
}

/// Runs one DELETE with its day counts; the rows removed.
async fn delete(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    sql: &'static str,
    days: &[i32],
) -> Result<u64, StoreError> {
    let mut query = sqlx::query(sql);
    for d in days {
        query = query.bind(*d);
    }
    Ok(query.execute(&mut **tx).await?.rows_affected())
}

/// What `audit verify` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditCheck {
    /// Rows read.
    pub rows: u64,
    /// The first row's id, and whether the chain starts after rows that were pruned (its
    /// `prev_hash` names a row no longer there).
    pub first_id: Option<i64>,
    /// Whether the first row follows a pruned one.
    pub starts_after_prune: bool,
    /// The last row's hash, hex: write it down elsewhere (a ticket, a log server) to detect a
    /// later removal of the newest rows, which no chain can show by itself.
    pub head: Option<String>,
    /// Rows whose contents do not give their hash, or whose link to the row before is broken.
    pub broken: Vec<BrokenLink>,
}

/// One break in the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenLink {
    /// The row.
    pub audit_id: i64,
    /// What is wrong.
    pub reason: &'static str,
}

impl AuditCheck {
    /// Whether the chain is whole.
    pub fn intact(&self) -> bool {
        self.broken.is_empty()
    }
}

/// Walks the audit in id order and recomputes every row's hash here (from the row's canonical
/// text, which is written out in this query rather than read from a function in the database, so
/// that a replaced function cannot vouch for edited rows).
pub async fn verify_audit(pool: &PgPool) -> Result<AuditCheck, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL search_path = pg_catalog, pg_temp")
        .execute(&mut *tx)
        .await?;
    let mut rows = sqlx::query(
        "SELECT audit_id, prev_hash, row_hash,
                convert_to(concat_ws(chr(31),
                    a.audit_id::text, a.query_id, a.requester_id, a.requester_role, a.status,
                    a.backend, encode(a.request_digest, 'hex'), a.document_ids::text,
                    a.patient_keys::text, a.llm_calls::text, a.guard_report::text,
                    a.total_ms::text,
                    to_char(a.answered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US'),
                    a.times_answered::text), 'UTF8') AS canonical
         FROM public.answer_audit a ORDER BY audit_id",
    )
    .fetch(&mut *tx);
    let mut check = AuditCheck {
        rows: 0,
        first_id: None,
        starts_after_prune: false,
        head: None,
        broken: Vec::new(),
    };
    let mut previous: Option<Vec<u8>> = None;
    while let Some(row) = rows.try_next().await? {
        let audit_id: i64 = row.get("audit_id");
        let prev: Option<Vec<u8>> = row.get("prev_hash");
        let stored: Option<Vec<u8>> = row.get("row_hash");
        let canonical: Vec<u8> = row.get("canonical");
        check.rows += 1;
        let (Some(prev), Some(stored)) = (prev, stored) else {
            check.broken.push(BrokenLink {
                audit_id,
                reason: "the row has no hash",
            });
            previous = None;
            continue;
        };
        match &previous {
            None if check.first_id.is_none() => {
                check.first_id = Some(audit_id);
                check.starts_after_prune = !prev.is_empty();
            }
            Some(before) if *before != prev => check.broken.push(BrokenLink {
                audit_id,
                reason: "the row does not follow the row before it (one was removed, inserted or edited)",
            }),
            _ => {}
        }
        let mut hasher = Sha256::new();
        hasher.update(&prev);
        hasher.update(&canonical);
        if hasher.finalize().as_slice() != stored.as_slice() {
            check.broken.push(BrokenLink {
                audit_id,
                reason: "the row's contents do not give its hash (it was edited)",
            });
        }
        check.head = Some(hex::encode(&stored));
        previous = Some(stored);
    }
    drop(rows);
    tx.commit().await?;
    Ok(check)
}
