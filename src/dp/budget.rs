//! The privacy budget per requester, kept in PostgreSQL (`dp_budget`, `dp_spend`).
//!
//! A DP answer first *spends*: one transaction that either adds its (ε, δ) to the requester's
//! row for the current period, if that stays within the budget, and writes the ledger row with
//! a keyed digest of the request (role, question, patient list, mode, ε), or changes nothing and
//! reports the budget exhausted. The guarded `UPDATE … WHERE spent + cost <= limit` takes the row
//! lock and re-reads the row under it, so concurrent workers never overspend. No noise seed is
//! kept (anyone who could read it could strip the noise). A query id already in the ledger:
//!
//! - with the same digest and a published answer gets that answer back, unchanged and free
//!   ([`Spend::Replay`]): it tells nothing the first did not;
//! - with the same digest and no published answer (a crash before publishing) is charged again
//!   and draws fresh noise;
//! - with another digest is refused ([`Spend::Conflict`]): a replay is never a free re-ask.
//!
//! Answers refused before any noise is drawn spend nothing; a DP text answer refused on its
//! noisy voter count gives back what it did not use ([`Budget::refund`]).

use sqlx::{PgPool, Row};

use super::PrivacyCost;

/// The period a budget covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Period {
    /// A calendar day (UTC).
    Day,
    /// A week starting on Monday (UTC).
    Week,
    /// A calendar month (UTC).
    Month,
    /// A calendar year (UTC).
    Year,
}

impl Period {
    fn sql(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
            Period::Year => "year",
        }
    }
}

/// A requester's budget per period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// ε a requester may spend per period.
    pub epsilon: f64,
    /// δ a requester may spend per period.
    pub delta: f64,
    /// The period.
    pub period: Period,
}

/// The result of asking to spend.
#[derive(Clone, Debug, PartialEq)]
pub enum Spend {
    /// Charged now: draw fresh noise (its seed is never stored).
    Granted,
    /// This query id was answered before for the same request: its published answer, to be sent
    /// again unchanged (nothing was charged; the same answer tells nothing new).
    Replay {
        /// The answer as first published.
        published: serde_json::Value,
    },
    /// This query id was spent before for another request (another question, patient list,
    /// mode or ε): refused, never free.
    Conflict,
    /// The period's budget cannot pay for this answer: nothing was charged.
    Exhausted {
        /// ε left in the period.
        epsilon_left: f64,
    },
}

/// The budget ledger.
#[derive(Clone)]
pub struct Budget {
    pool: PgPool,
    limits: Limits,
}

const TOLERANCE: f64 = 1e-12;

impl Budget {
    /// The ledger in `pool` with these limits.
    pub fn new(pool: PgPool, limits: Limits) -> Budget {
        Budget { pool, limits }
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Spends `cost` for one answer of `requester` to `query_id` asking what `digest` binds
    /// (a keyed digest of the request), atomically. The ledger row is locked while it is read,
    /// so two deliveries of one query id are decided one after the other.
    pub async fn spend(
        &self,
        requester: &str,
        query_id: &str,
        digest: &[u8],
        cost: PrivacyCost,
    ) -> Result<Spend, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        // Serializes the spends of one (requester, query id), the first one included (no row
        // to lock yet).
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1 || chr(31) || $2, 7))")
            .bind(requester)
            .bind(query_id)
            .execute(&mut *tx)
            .await?;
        let previous = sqlx::query(
            "SELECT request_digest, published FROM dp_spend
             WHERE requester_id = $1 AND query_id = $2",
        )
        .bind(requester)
        .bind(query_id)
        .fetch_optional(&mut *tx)
        .await?;
        let unpublished = match previous {
            Some(row) => {
                let stored: Vec<u8> = row.get("request_digest");
                let published: Option<serde_json::Value> = row.get("published");
                if stored.as_slice() != digest {
                    tx.rollback().await?;
                    return Ok(Spend::Conflict);
                }
                if let Some(published) = published {
                    tx.rollback().await?;
                    return Ok(Spend::Replay { published });
                }
                // Spent, never published (a crash in between): fresh noise, paid again.
                true
            }
            None => false,
        };
        let period = self.limits.period.sql();
        sqlx::query(
            "INSERT INTO dp_budget (requester_id, period_start)
             VALUES ($1, date_trunc($2, now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
             ON CONFLICT DO NOTHING",
        )
        .bind(requester)
        .bind(period)
        .execute(&mut *tx)
        .await?;
        let updated = sqlx::query(
            "UPDATE dp_budget SET epsilon_spent = epsilon_spent + $3,
                 delta_spent = delta_spent + $4, answers = answers + 1
             WHERE requester_id = $1
               AND period_start = date_trunc($2, now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
               AND epsilon_spent + $3 <= $5 AND delta_spent + $4 <= $6
             RETURNING period_start",
        )
        .bind(requester)
        .bind(period)
        .bind(cost.epsilon)
        .bind(cost.delta)
        .bind(self.limits.epsilon + TOLERANCE)
        .bind(self.limits.delta * (1.0 + 1e-9))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(updated) = updated else {
            tx.rollback().await?;
            let left = self.epsilon_left(requester).await?;
            return Ok(Spend::Exhausted { epsilon_left: left });
        };
        let period_start: chrono::DateTime<chrono::Utc> = updated.get("period_start");
        if unpublished {
            // The row moves to the period of this spend, so a refund goes back where the last
            // charge went.
            sqlx::query(
                "UPDATE dp_spend SET epsilon = epsilon + $3, delta = delta + $4,
                     period_start = $5, spent_at = now()
                 WHERE requester_id = $1 AND query_id = $2",
            )
            .bind(requester)
            .bind(query_id)
            .bind(cost.epsilon)
            .bind(cost.delta)
            .bind(period_start)
            .execute(&mut *tx)
            .await?;
        } else {
            sqlx::query(
                "INSERT INTO dp_spend (requester_id, query_id, period_start, epsilon, delta,
                     request_digest)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(requester)
            .bind(query_id)
            .bind(period_start)
            .bind(cost.epsilon)
            .bind(cost.delta)
            .bind(digest)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Spend::Granted)
    }

    /// Keeps the answer published for a spend, so that a repeated query id gets it back instead
    /// of fresh noise. Written once: a later call for the same spend changes nothing.
    pub async fn publish(
        &self,
        requester: &str,
        query_id: &str,
        published: &serde_json::Value,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE dp_spend SET published = $3
             WHERE requester_id = $1 AND query_id = $2 AND published IS NULL",
        )
        .bind(requester)
        .bind(query_id)
        .bind(published)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Gives back `epsilon` of a query's spend that was not used (never more than it spent).
    pub async fn refund(
        &self,
        requester: &str,
        query_id: &str,
        epsilon: f64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "SELECT epsilon, period_start FROM dp_spend
             WHERE requester_id = $1 AND query_id = $2 FOR UPDATE",
        )
        .bind(requester)
        .bind(query_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(row) = row {
            let spent: f64 = row.get("epsilon");
            let period_start: chrono::DateTime<chrono::Utc> = row.get("period_start");
            let given = spent.min(epsilon.max(0.0));
            sqlx::query(
                "UPDATE dp_spend SET epsilon = epsilon - $3 WHERE requester_id = $1 AND query_id = $2",
            )
            .bind(requester)
            .bind(query_id)
            .bind(given)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE dp_budget SET epsilon_spent = greatest(0, epsilon_spent - $3)
                 WHERE requester_id = $1 AND period_start = $2",
            )
            .bind(requester)
            .bind(period_start)
            .bind(given)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await
    }

    /// ε the requester has left in the current period.
    pub async fn epsilon_left(&self, requester: &str) -> Result<f64, sqlx::Error> {
        let spent: Option<f64> = sqlx::query_scalar(
            "SELECT epsilon_spent FROM dp_budget WHERE requester_id = $1
               AND period_start = date_trunc($2, now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
        )
        .bind(requester)
        .bind(self.limits.period.sql())
        .fetch_optional(&self.pool)
        .await?;
        Ok((self.limits.epsilon - spent.unwrap_or(0.0)).max(0.0))
    }
}
