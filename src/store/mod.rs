//! PostgreSQL with pgvector: the one store.
//!
//! [`Store::apply`] writes everything one message yields in a single transaction: patients, PHI
//! vault entries, facts, and the documents those facts change, re-embedded. A document whose text
//! hash did not change is neither rewritten nor re-embedded, so replaying a bundle changes nothing
//! and costs little. The caller commits the Kafka offset only after `apply` returns.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;
use pgvector::Vector;
use serde::Serialize;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{AssertSqlSafe, PgPool, Postgres, Row, Transaction};

use crate::embed::batcher::EmbeddingService;
use crate::embed::{EmbedError, ModelInfo};
use crate::ingest::documents::{self, Document, StoredFact};
use crate::ingest::flatten::Flattened;

/// How a failure should be handled by the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// The database cannot be reached (connection refused or lost, shutting down, starting
    /// up): nothing can be stored, so retry without limit while the offset is held.
    Unavailable,
    /// A known passing condition (serialization failure, deadlock, too many connections, out
    /// of resources, a busy or out-of-memory model): retry a bounded number of times, then
    /// dead-letter.
    Transient,
    /// Retrying cannot help (the data is refused): dead-letter the message.
    Permanent,
    /// The process cannot go on (the model thread died): stop without committing.
    Fatal,
}

/// Errors of the store layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// PostgreSQL said no, or could not be reached.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// Migrations failed.
    #[error("migrations: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// Embedding the changed documents failed.
    #[error("embedding: {0}")]
    Embedding(#[from] EmbedError),
    /// The schema is not the one this binary was built for; workers never migrate.
    #[error("the database schema is {found}; this binary needs {needed}: run `fhir-rag migrate` (as the migration role) with this version")]
    SchemaMismatch {
        /// What the database has applied.
        found: String,
        /// What this binary's migrations are.
        needed: String,
    },
    /// No embedding model recorded yet: `fhir-rag migrate` sizes the vectors.
    #[error("the store has no embedding model recorded: run `fhir-rag migrate` with the same --embedder and --model-dir first")]
    NoEmbeddingModel,
    /// The store was filled by a model of another dimension.
    #[error(
        "this database holds {stored_dimension}-d embeddings from model {stored_model}, but the configured model \
         {configured_model} gives {configured_dimension}-d vectors: use a fresh database (or the model it was built with)"
    )]
    ModelMismatch {
        /// Model recorded in the store.
        stored_model: String,
        /// Its dimension.
        stored_dimension: i32,
        /// Model configured now.
        configured_model: String,
        /// Its dimension.
        configured_dimension: usize,
    },
}

impl StoreError {
    /// Whether to retry, dead-letter, or stop.
    pub fn disposition(&self) -> Disposition {
        match self {
            StoreError::Database(e) => sqlx_disposition(e),
            StoreError::Migration(_)
            | StoreError::ModelMismatch { .. }
            | StoreError::SchemaMismatch { .. }
            | StoreError::NoEmbeddingModel => Disposition::Fatal,
            StoreError::Embedding(EmbedError::Stopped) => Disposition::Fatal,
            StoreError::Embedding(e) if e.is_out_of_memory() => Disposition::Transient,
            StoreError::Embedding(_) => Disposition::Permanent,
        }
    }
}

/// What a database client error means for the message that caused it.
pub fn sqlx_disposition(e: &sqlx::Error) -> Disposition {
    match e {
        sqlx::Error::Database(db) => sqlstate_disposition(db.code().as_deref().unwrap_or_default()),
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolTimedOut => {
            Disposition::Unavailable
        }
        // The pool was closed: the process is shutting down.
        sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => Disposition::Fatal,
        // Decoding, protocol and encoding errors: this data, every time.
        _ => Disposition::Permanent,
    }
}

/// What a PostgreSQL error code means for the message that caused it. Only the classes below
/// pass; every other code (a value too long, a NUL, a constraint, a tsvector over its limit) is
/// about the data and comes back on every retry.
pub fn sqlstate_disposition(code: &str) -> Disposition {
    match code {
        // connection exception; admin shutdown, crash shutdown, cannot connect now
        c if c.starts_with("08") => Disposition::Unavailable,
        "57P01" | "57P02" | "57P03" => Disposition::Unavailable,
        // serialization failure, deadlock, lock not available, insufficient resources (disk
        // full, out of memory, too many connections)
        "40001" | "40P01" | "55P03" => Disposition::Transient,
        c if c.starts_with("53") => Disposition::Transient,
        // system error (I/O) on the server
        c if c.starts_with("58") => Disposition::Unavailable,
        // a missing table or column, a privilege, an internal error: the schema, the role or
        // the server is wrong, for every message alike; stop rather than dead-letter them all
        c if c.starts_with("42") || c.starts_with("XX") => Disposition::Fatal,
        _ => Disposition::Permanent,
    }
}

/// What one `apply` did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ApplyOutcome {
    /// Facts inserted or changed.
    pub facts_written: u64,
    /// Documents (re)written and re-embedded.
    pub documents_written: u64,
    /// Documents whose text did not change.
    pub documents_unchanged: u64,
    /// Documents removed because no fact is left in them.
    pub documents_removed: u64,
    /// Facts removed by deletions, tombstones and entered-in-error statuses.
    pub facts_retracted: u64,
    /// Chunks embedded.
    pub chunks_embedded: u64,
    /// Tokens in those chunks.
    pub tokens_embedded: u64,
    /// Chunks of rewritten documents whose text had not changed: their vectors were kept, not
    /// computed again (not counted in `chunks_embedded`).
    pub chunks_reused: u64,
    /// Microseconds spent waiting for the embedder.
    pub embed_us: u64,
}

impl std::ops::AddAssign for ApplyOutcome {
    fn add_assign(&mut self, o: ApplyOutcome) {
        self.facts_written += o.facts_written;
        self.documents_written += o.documents_written;
        self.documents_unchanged += o.documents_unchanged;
        self.documents_removed += o.documents_removed;
        self.facts_retracted += o.facts_retracted;
        self.chunks_embedded += o.chunks_embedded;
        self.tokens_embedded += o.tokens_embedded;
        self.chunks_reused += o.chunks_reused;
        self.embed_us += o.embed_us;
    }
}

/// Row counts, for summaries, tests and benchmarks.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct StoreCounts {
    /// Patients known.
    pub patients: i64,
    /// Patients that have a Patient resource (vault entries).
    pub patients_with_demographics: i64,
    /// Vault rows.
    pub vault_entries: i64,
    /// Facts (flattened resources).
    pub facts: i64,
    /// Documents, all kinds.
    pub documents: i64,
    /// Of which per-patient summaries.
    pub summary_documents: i64,
    /// Chunks, each with one embedding.
    pub embeddings: i64,
}

/// Refuses a model of another dimension than the store's; warns about another model of the same
/// dimension.
fn check_model(model: String, dimension: i32, info: &ModelInfo) -> Result<(), StoreError> {
    if dimension as usize != info.dimension {
        return Err(StoreError::ModelMismatch {
            stored_model: model,
            stored_dimension: dimension,
            configured_model: info.name.clone(),
            configured_dimension: info.dimension,
        });
    }
    if model != info.name {
        tracing::warn!(stored = %model, configured = %info.name,
            "the store was filled by another model of the same dimension; similarities across the two are meaningless");
    }
    Ok(())
}

/// Connection settings.
#[derive(Clone, clap::Args)]
pub struct StoreConfig {
    /// PostgreSQL URL (the pgvector extension must be installable in that database).
    #[arg(
        long = "database-url",
        env = "FHIR_RAG_DATABASE_URL",
        // the value may hold a password: never show it in --help
        hide_env_values = true,
        default_value = "postgres://postgres@127.0.0.1:54329/fhir_rag"
    )]
    pub database_url: String,
    /// Connections in the pool.
    #[arg(long, env = "FHIR_RAG_DATABASE_CONNECTIONS", default_value_t = 8)]
    pub database_connections: u32,
}

impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password.
        let redacted = match self.database_url.split_once('@') {
            Some((_, host)) => format!("postgres://[redacted]@{host}"),
            None => self.database_url.clone(),
        };
        f.debug_struct("StoreConfig")
            .field("database_url", &redacted)
            .field("database_connections", &self.database_connections)
            .finish()
    }
}

/// The store.
#[derive(Clone)]
pub struct Store {
    pool: PgPool,
}

type DocKey = (i64, Option<NaiveDate>);

impl Store {
    /// Connects (lazily retried by the pool).
    pub async fn connect(config: &StoreConfig) -> Result<Self, StoreError> {
        let options: PgConnectOptions = config.database_url.parse()?;
        let pool = PgPoolOptions::new()
            .max_connections(config.database_connections)
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect_with(options)
            .await?;
        Ok(Store { pool })
    }

    /// The connection pool (for tests and reports).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Runs the migrations in `migrations/`, then fills the vault's lookup keys of a store
    /// filled before they existed (keys are computed by the crate's normalizer, not in SQL).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        sqlx::migrate!("./migrations").run(&self.pool).await?;
        let missing: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM vault.phi_vault) AND NOT EXISTS (SELECT 1 FROM vault.vault_keys)",
        )
        .fetch_one(&self.pool)
        .await?;
        if missing {
            let mut tx = self.pool.begin().await?;
            sqlx::query("LOCK TABLE vault.vault_keys IN EXCLUSIVE MODE")
                .execute(&mut *tx)
                .await?;
            let rows: Vec<(i64, String, String)> =
                sqlx::query_as("SELECT patient_key, kind, value FROM vault.phi_vault")
                    .fetch_all(&mut *tx)
                    .await?;
            let entries: Vec<(i64, crate::phi::PhiKind, &str)> = rows
                .iter()
                .filter_map(|(k, kind, v)| {
                    crate::phi::PhiKind::parse(kind).map(|kind| (*k, kind, v.as_str()))
                })
                .collect();
            insert_vault_keys(&mut tx, &entries, Owner::Patient).await?;
            tx.commit().await?;
            tracing::info!(vault_rows = rows.len(), "vault lookup keys filled");
        }
        Ok(())
    }

    /// Checks, without changing anything, that the database has exactly this binary's
    /// migrations applied (versions and checksums): what every worker does at start, since only
    /// `fhir-rag migrate` (the migration role) may change the schema.
    pub async fn check_schema(&self) -> Result<(), StoreError> {
        let migrator = sqlx::migrate!("./migrations");
        let needed: Vec<(i64, Vec<u8>)> = migrator
            .iter()
            .filter(|m| m.migration_type.is_up_migration())
            .map(|m| (m.version, m.checksum.to_vec()))
            .collect();
        let applied: Vec<(i64, Vec<u8>)> = match sqlx::query_as(
            "SELECT version, checksum FROM _sqlx_migrations WHERE success ORDER BY version",
        )
        .fetch_all(&self.pool)
        .await
        {
            Ok(rows) => rows,
            // 42P01: no migrations table at all.
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42P01") => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        if applied == needed {
            return Ok(());
        }
        let describe = |list: &[(i64, Vec<u8>)]| match list.last() {
            None => "empty (no migrations applied)".to_string(),
            Some((version, _)) => format!("at migration {version} ({} applied)", list.len()),
        };
        let mut found = describe(&applied);
        if applied.len() == needed.len() {
            found.push_str(", with other contents than this binary's migrations");
        }
        Err(StoreError::SchemaMismatch {
            found,
            needed: describe(&needed),
        })
    }

    /// Checks, without changing anything, that the store's vectors were sized for a model of
    /// this dimension (what `fhir-rag migrate` records); a worker's start.
    pub async fn check_embedding_model(&self, info: &ModelInfo) -> Result<(), StoreError> {
        let stored: Option<(String, i32)> =
            sqlx::query_as("SELECT embedding_model, embedding_dimension FROM store_settings")
                .fetch_optional(&self.pool)
                .await?;
        match stored {
            None => Err(StoreError::NoEmbeddingModel),
            Some((model, dimension)) => check_model(model, dimension, info),
        }
    }

    /// Records the embedding model on first use and sizes the vector column and its HNSW index
    /// to its dimension; refuses a model of another dimension than the one the store holds.
    /// Schema owner's work: `fhir-rag migrate`, evaluations and benchmarks.
    pub async fn ensure_embedding_model(&self, info: &ModelInfo) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        // Several workers may start at once: one of them sizes the column.
        sqlx::query("SELECT pg_advisory_xact_lock(7011207)")
            .execute(&mut *tx)
            .await?;
        let stored: Option<(String, i32)> =
            sqlx::query_as("SELECT embedding_model, embedding_dimension FROM store_settings")
                .fetch_optional(&mut *tx)
                .await?;
        match stored {
            Some((model, dimension)) => check_model(model, dimension, info)?,
            None => {
                sqlx::query("INSERT INTO store_settings (embedding_model, embedding_dimension) VALUES ($1, $2)")
                    .bind(&info.name)
                    .bind(info.dimension as i32)
                    .execute(&mut *tx)
                    .await?;
                // DDL cannot take bind parameters; the dimension is a number we computed.
                sqlx::query(AssertSqlSafe(format!(
                    "ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({})",
                    info.dimension
                )))
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops)",
                )
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Writes what one message yields, re-embedding the documents it changes, in one
    /// transaction.
    pub async fn apply(
        &self,
        flattened: &Flattened,
        embedder: &EmbeddingService,
    ) -> Result<ApplyOutcome, StoreError> {
        let mut outcome = ApplyOutcome::default();
        let ids: Vec<String> = flattened
            .patient_ids()
            .into_iter()
            .map(str::to_string)
            .collect();
        if ids.is_empty()
            && flattened.parties.is_empty()
            && flattened.retractions.is_empty()
            && flattened.aliases.is_empty()
        {
            return Ok(outcome);
        }
        let mut tx = self.pool.begin().await?;
        // Deletions first, as a FHIR transaction orders them.
        let mut affected = retract(&mut tx, flattened, &mut outcome).await?;
        let keys = upsert_patients(&mut tx, &flattened.source, &ids).await?;
        insert_vault(&mut tx, flattened, &keys).await?;
        let (written, touched) = upsert_facts(&mut tx, flattened, &keys).await?;
        affected.extend(touched);
        replace_links(&mut tx, flattened, &keys).await?;
        outcome.facts_written = written;
        if !affected.is_empty() {
            rebuild_documents(&mut tx, &affected, embedder, &mut outcome).await?;
            let mut patients: Vec<i64> = affected.iter().map(|k| k.0).collect();
            patients.dedup();
            refresh_patient_words(&mut tx, &patients).await?;
        }
        tx.commit().await?;
        Ok(outcome)
    }

    /// Row counts.
    pub async fn counts(&self) -> Result<StoreCounts, StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT count(*) FROM patients) AS patients,
                    v.patients_with_demographics AS with_demographics,
                    v.vault_rows AS vault,
                    (SELECT count(*) FROM facts) AS facts,
                    (SELECT count(*) FROM documents) AS documents,
                    (SELECT count(*) FROM documents WHERE day IS NULL) AS summaries,
                    (SELECT count(*) FROM chunks) AS chunks
             FROM vault.counts() v",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(StoreCounts {
            patients: row.get("patients"),
            patients_with_demographics: row.get("with_demographics"),
            vault_entries: row.get("vault"),
            facts: row.get("facts"),
            documents: row.get("documents"),
            summary_documents: row.get("summaries"),
            embeddings: row.get("chunks"),
        })
    }

    /// A digest of every document's identity and content hash, and of every chunk's text: equal
    /// fingerprints mean equal stores.
    pub async fn fingerprint(&self) -> Result<String, StoreError> {
        let row = sqlx::query(
            "SELECT coalesce(md5(string_agg(p.fhir_id || '|' || coalesce(d.day::text, 'summary') || '|'
                        || encode(d.content_hash, 'hex'), ',' ORDER BY p.fhir_id, d.day NULLS FIRST)), '') AS documents,
                    (SELECT coalesce(md5(string_agg(c.text, ',' ORDER BY c.text)), '') FROM chunks c) AS chunks
             FROM documents d JOIN patients p USING (patient_key)",
        )
        .fetch_one(&self.pool)
        .await?;
        let documents: String = row.get("documents");
        let chunks: String = row.get("chunks");
        Ok(format!("{documents}:{chunks}"))
    }
}

/// Removes the facts the message retracts; returns the documents they leave. A `Patient`
/// retraction removes every fact of that patient; the patient row and its vault stay, so that
/// the guard still recognises the name.
async fn retract(
    tx: &mut Transaction<'_, Postgres>,
    flattened: &Flattened,
    outcome: &mut ApplyOutcome,
) -> Result<BTreeSet<DocKey>, StoreError> {
    let mut affected = BTreeSet::new();
    for r in &flattened.retractions {
        let rows = if r.resource_type == "Patient" {
            sqlx::query(
                "DELETE FROM facts f USING patients p
                 WHERE f.patient_key = p.patient_key AND p.source = $1 AND p.fhir_id = $2
                 RETURNING f.patient_key, f.day",
            )
            .bind(&flattened.source)
            .bind(&r.resource_id)
            .fetch_all(&mut **tx)
            .await?
        } else {
            sqlx::query(
                "DELETE FROM facts WHERE source = $1 AND resource_type = $2 AND resource_id = $3
                 RETURNING patient_key, day",
            )
            .bind(&flattened.source)
            .bind(&r.resource_type)
            .bind(&r.resource_id)
            .fetch_all(&mut **tx)
            .await?
        };
        for row in &rows {
            affected.insert((row.get("patient_key"), row.get("day")));
        }
        // The links the resource carried (a care team has no fact, only links), and a retracted
        // practitioner's identifiers.
        if r.resource_type == "Practitioner" {
            sqlx::query("DELETE FROM practitioner_aliases WHERE source = $1 AND reference = $2")
                .bind(&flattened.source)
                .bind(format!("Practitioner/{}", r.resource_id))
                .execute(&mut **tx)
                .await?;
        }
        if r.resource_type == "Patient" {
            sqlx::query(
                "DELETE FROM care_relationships c USING patients p
                 WHERE c.patient_key = p.patient_key AND p.source = $1 AND p.fhir_id = $2",
            )
            .bind(&flattened.source)
            .bind(&r.resource_id)
            .execute(&mut **tx)
            .await?;
        } else {
            sqlx::query(
                "DELETE FROM care_relationships
                 WHERE source = $1 AND resource_type = $2 AND resource_id = $3",
            )
            .bind(&flattened.source)
            .bind(&r.resource_type)
            .bind(&r.resource_id)
            .execute(&mut **tx)
            .await?;
        }
        sqlx::query(
            "INSERT INTO retractions (source, resource_type, resource_id, reason, facts_removed)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&flattened.source)
        .bind(&r.resource_type)
        .bind(&r.resource_id)
        .bind(r.reason.as_str())
        .bind(rows.len() as i32)
        .execute(&mut **tx)
        .await?;
        outcome.facts_retracted += rows.len() as u64;
    }
    Ok(affected)
}

async fn upsert_patients(
    tx: &mut Transaction<'_, Postgres>,
    source: &str,
    ids: &[String],
) -> Result<HashMap<String, i64>, StoreError> {
    // `DO UPDATE` (a no-op change) so that RETURNING also yields rows that existed.
    let rows = sqlx::query(
        "INSERT INTO patients (source, fhir_id) SELECT $1, id FROM UNNEST($2::text[]) AS i(id)
         ON CONFLICT (source, fhir_id) DO UPDATE SET fhir_id = EXCLUDED.fhir_id
         RETURNING patient_key, fhir_id",
    )
    .bind(source)
    .bind(ids)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.get::<String, _>("fhir_id"),
                r.get::<i64, _>("patient_key"),
            )
        })
        .collect())
}

async fn insert_vault(
    tx: &mut Transaction<'_, Postgres>,
    flattened: &Flattened,
    keys: &HashMap<String, i64>,
) -> Result<(), StoreError> {
    let mut entries: Vec<(i64, crate::phi::PhiKind, &str)> = Vec::new();
    for patient in &flattened.patients {
        let key = keys[&patient.fhir_id];
        for entry in &patient.vault {
            entries.push((key, entry.kind, entry.value.expose()));
        }
    }
    if !entries.is_empty() {
        sqlx::query(
            "INSERT INTO vault.phi_vault (patient_key, kind, value)
             SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING",
        )
        .bind(entries.iter().map(|e| e.0).collect::<Vec<i64>>())
        .bind(entries.iter().map(|e| e.1.as_str()).collect::<Vec<&str>>())
        .bind(entries.iter().map(|e| e.2).collect::<Vec<&str>>())
        .execute(&mut **tx)
        .await?;
        insert_vault_keys(tx, &entries, Owner::Patient).await?;
    }
    insert_parties(tx, flattened).await
}

/// Whose vault keys these are.
#[derive(Clone, Copy)]
enum Owner {
    Patient,
    Party,
}

/// The lookup keys of vault entries (the guard's and name resolution's index).
async fn insert_vault_keys(
    tx: &mut Transaction<'_, Postgres>,
    entries: &[(i64, crate::phi::PhiKind, &str)],
    owner: Owner,
) -> Result<(), StoreError> {
    let mut owners = Vec::new();
    let mut kinds = Vec::new();
    let mut lookup = Vec::new();
    for (key, kind, value) in entries {
        for k in crate::privacy::guard::vault_keys(*kind, value) {
            owners.push(*key);
            kinds.push(kind.as_str());
            lookup.push(k);
        }
    }
    if lookup.is_empty() {
        return Ok(());
    }
    let column = match owner {
        Owner::Patient => "patient_key",
        Owner::Party => "party_key",
    };
    sqlx::query(AssertSqlSafe(format!(
        "INSERT INTO vault.vault_keys (key, kind, {column})
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::bigint[]) ON CONFLICT DO NOTHING"
    )))
    .bind(&lookup)
    .bind(&kinds)
    .bind(&owners)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Practitioners, related persons, organizations, locations and named references: their vault
/// rows and lookup keys (the guard knows them; documents never hold them).
async fn insert_parties(
    tx: &mut Transaction<'_, Postgres>,
    flattened: &Flattened,
) -> Result<(), StoreError> {
    if flattened.parties.is_empty() {
        return Ok(());
    }
    let mut types: Vec<&str> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    let mut seen = BTreeSet::new();
    for party in &flattened.parties {
        if seen.insert((party.resource_type.as_str(), party.fhir_id.as_str())) {
            types.push(&party.resource_type);
            ids.push(&party.fhir_id);
        }
    }
    let rows = sqlx::query(
        "INSERT INTO parties (resource_type, fhir_id) SELECT * FROM UNNEST($1::text[], $2::text[])
         ON CONFLICT (resource_type, fhir_id) DO UPDATE SET fhir_id = EXCLUDED.fhir_id
         RETURNING party_key, resource_type, fhir_id",
    )
    .bind(&types)
    .bind(&ids)
    .fetch_all(&mut **tx)
    .await?;
    let keys: HashMap<(String, String), i64> = rows
        .into_iter()
        .map(|r| {
            (
                (r.get("resource_type"), r.get("fhir_id")),
                r.get("party_key"),
            )
        })
        .collect();
    let mut entries: Vec<(i64, crate::phi::PhiKind, &str)> = Vec::new();
    for party in &flattened.parties {
        let key = keys[&(party.resource_type.clone(), party.fhir_id.clone())];
        for entry in &party.vault {
            entries.push((key, entry.kind, entry.value.expose()));
        }
    }
    entries.sort_unstable_by(|a, b| (a.0, a.1.as_str(), a.2).cmp(&(b.0, b.1.as_str(), b.2)));
    entries.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1 && a.2 == b.2);
    sqlx::query(
        "INSERT INTO vault.party_vault (party_key, kind, value)
         SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING",
    )
    .bind(entries.iter().map(|e| e.0).collect::<Vec<i64>>())
    .bind(entries.iter().map(|e| e.1.as_str()).collect::<Vec<&str>>())
    .bind(entries.iter().map(|e| e.2).collect::<Vec<&str>>())
    .execute(&mut **tx)
    .await?;
    insert_vault_keys(tx, &entries, Owner::Party).await
}

/// Upserts facts; returns how many changed and the documents they touch (old and new days).
async fn upsert_facts(
    tx: &mut Transaction<'_, Postgres>,
    flattened: &Flattened,
    keys: &HashMap<String, i64>,
) -> Result<(u64, BTreeSet<DocKey>), StoreError> {
    // One row per resource (a bundle may repeat a resource; the last one wins), so that the
    // upsert never touches a row twice.
    let mut unique: BTreeMap<(&str, &str), (i64, &crate::ingest::flatten::Fact)> = BTreeMap::new();
    for fact in &flattened.facts {
        unique.insert(
            (fact.resource_type, &fact.resource_id),
            (keys[&fact.patient], fact),
        );
    }
    let mut patient_keys = Vec::with_capacity(unique.len());
    let mut types = Vec::with_capacity(unique.len());
    let mut ids = Vec::with_capacity(unique.len());
    let mut days = Vec::with_capacity(unique.len());
    let mut event_dates = Vec::with_capacity(unique.len());
    let mut sentences = Vec::with_capacity(unique.len());
    let mut affected: BTreeSet<DocKey> = BTreeSet::new();
    for ((resource_type, resource_id), (key, fact)) in &unique {
        patient_keys.push(*key);
        types.push(*resource_type);
        ids.push(*resource_id);
        days.push(fact.day);
        event_dates.push(fact.event_date.as_deref());
        sentences.push(fact.sentences.as_str());
        affected.insert((*key, fact.day));
    }
    // A fact that moves to another day, or to another patient (a corrected subject), also
    // changes the document it leaves.
    let old = sqlx::query(
        "SELECT DISTINCT f.patient_key, f.day FROM facts f
         JOIN UNNEST($2::text[], $3::text[]) AS i(resource_type, resource_id)
           USING (resource_type, resource_id)
         WHERE f.source = $1",
    )
    .bind(&flattened.source)
    .bind(&types)
    .bind(&ids)
    .fetch_all(&mut **tx)
    .await?;
    for row in old {
        affected.insert((row.get("patient_key"), row.get("day")));
    }
    let written = sqlx::query(
        "INSERT INTO facts (source, patient_key, resource_type, resource_id, day, event_date, sentences)
         SELECT $1, * FROM UNNEST($2::bigint[], $3::text[], $4::text[], $5::date[], $6::text[], $7::text[])
         ON CONFLICT (source, resource_type, resource_id) DO UPDATE
           SET patient_key = EXCLUDED.patient_key, day = EXCLUDED.day,
               event_date = EXCLUDED.event_date, sentences = EXCLUDED.sentences
           WHERE (facts.patient_key, facts.day, facts.event_date, facts.sentences)
                 IS DISTINCT FROM (EXCLUDED.patient_key, EXCLUDED.day, EXCLUDED.event_date, EXCLUDED.sentences)",
    )
    .bind(&flattened.source)
    .bind(&patient_keys)
    .bind(&types)
    .bind(&ids)
    .bind(&days)
    .bind(&event_dates)
    .bind(&sentences)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok((written, affected))
}

/// Replaces the treatment links of every resource the message carries (a re-sent encounter
/// whose participants changed keeps only its new ones), and records practitioner aliases.
async fn replace_links(
    tx: &mut Transaction<'_, Postgres>,
    flattened: &Flattened,
    keys: &HashMap<String, i64>,
) -> Result<(), StoreError> {
    let mut resources: BTreeSet<(&str, &str)> = flattened
        .facts
        .iter()
        .map(|f| (f.resource_type, f.resource_id.as_str()))
        .collect();
    resources.extend(
        flattened
            .links
            .iter()
            .map(|l| (l.resource_type, l.resource_id.as_str())),
    );
    resources.extend(
        flattened
            .care_teams
            .iter()
            .map(|id| ("CareTeam", id.as_str())),
    );
    if !resources.is_empty() {
        let (types, ids): (Vec<&str>, Vec<&str>) = resources.into_iter().unzip();
        sqlx::query(
            "DELETE FROM care_relationships c
             USING UNNEST($2::text[], $3::text[]) AS i(resource_type, resource_id)
             WHERE c.source = $1 AND c.resource_type = i.resource_type
               AND c.resource_id = i.resource_id",
        )
        .bind(&flattened.source)
        .bind(&types)
        .bind(&ids)
        .execute(&mut **tx)
        .await?;
    }
    // One row per (resource, practitioner): the last one of the message wins.
    let mut unique: BTreeMap<(&str, &str, &str), &crate::ingest::relations::CareLink> =
        BTreeMap::new();
    for link in &flattened.links {
        unique.insert(
            (link.resource_type, &link.resource_id, &link.practitioner),
            link,
        );
    }
    if !unique.is_empty() {
        let links: Vec<_> = unique.into_values().collect();
        sqlx::query(
            "INSERT INTO care_relationships
                 (source, resource_type, resource_id, patient_key, practitioner, kind, last_day)
             SELECT $1, * FROM UNNEST($2::text[], $3::text[], $4::bigint[], $5::text[],
                                      $6::text[], $7::date[])",
        )
        .bind(&flattened.source)
        .bind(links.iter().map(|l| l.resource_type).collect::<Vec<_>>())
        .bind(
            links
                .iter()
                .map(|l| l.resource_id.as_str())
                .collect::<Vec<_>>(),
        )
        .bind(links.iter().map(|l| keys[&l.patient]).collect::<Vec<_>>())
        .bind(
            links
                .iter()
                .map(|l| l.practitioner.as_str())
                .collect::<Vec<_>>(),
        )
        .bind(links.iter().map(|l| l.kind).collect::<Vec<_>>())
        .bind(links.iter().map(|l| l.day).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
    }
    if !flattened.aliases.is_empty() {
        // A re-sent practitioner's identifiers replace its old ones.
        let references: BTreeSet<&str> = flattened
            .aliases
            .iter()
            .map(|a| a.reference.as_str())
            .collect();
        sqlx::query(
            "DELETE FROM practitioner_aliases WHERE source = $1 AND reference = ANY($2::text[])",
        )
        .bind(&flattened.source)
        .bind(references.into_iter().collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
        // An identifier another practitioner of the source already holds stays theirs.
        let claimed = sqlx::query(
            "INSERT INTO practitioner_aliases (source, reference, alias)
             SELECT $1, * FROM UNNEST($2::text[], $3::text[])
             ON CONFLICT (source, alias) DO NOTHING",
        )
        .bind(&flattened.source)
        .bind(
            flattened
                .aliases
                .iter()
                .map(|a| a.reference.as_str())
                .collect::<Vec<_>>(),
        )
        .bind(
            flattened
                .aliases
                .iter()
                .map(|a| a.alias.as_str())
                .collect::<Vec<_>>(),
        )
        .execute(&mut **tx)
        .await?
        .rows_affected();
        let refused = flattened.aliases.len() as u64 - claimed.min(flattened.aliases.len() as u64);
        if refused > 0 {
            tracing::warn!(
                refused,
                "practitioner identifiers already held by another practitioner were not taken"
            );
            crate::metrics::count(
                "fhir_rag_practitioner_identifier_conflicts_total",
                "Practitioner identifiers a second resource claimed (kept by the first).",
                &[],
                refused as f64,
            );
        }
    }
    Ok(())
}

/// The words (text-search lexemes) `patients`' chunks hold, recomputed after their documents
/// changed: what [`crate::answer::search::known_words`] counts patients by.
async fn refresh_patient_words(
    tx: &mut Transaction<'_, Postgres>,
    patients: &[i64],
) -> Result<(), StoreError> {
    // One writer per patient at a time (a moved fact makes two messages touch one patient):
    // else the second DELETE misses the first's rows and its INSERT collides. Taken in order.
    sqlx::query(
        "SELECT pg_advisory_xact_lock(hashtextextended('patient_words', k))
         FROM unnest($1::bigint[]) AS k ORDER BY k",
    )
    .bind(patients)
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM patient_words WHERE patient_key = ANY($1)")
        .bind(patients)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO patient_words (word, patient_key)
         SELECT DISTINCT w, d.patient_key
         FROM documents d
         JOIN chunks c USING (document_id)
         CROSS JOIN LATERAL unnest(tsvector_to_array(c.text_search)) AS w
         WHERE d.patient_key = ANY($1)",
    )
    .bind(patients)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn rebuild_documents(
    tx: &mut Transaction<'_, Postgres>,
    affected: &BTreeSet<DocKey>,
    embedder: &EmbeddingService,
    outcome: &mut ApplyOutcome,
) -> Result<(), StoreError> {
    let key_patients: Vec<i64> = affected.iter().map(|k| k.0).collect();
    let key_days: Vec<Option<NaiveDate>> = affected.iter().map(|k| k.1).collect();
    // Facts of the affected documents, in a stable order.
    let rows = sqlx::query(
        "SELECT f.patient_key, f.day, f.resource_type, f.sentences, f.event_date
         FROM facts f JOIN UNNEST($1::bigint[], $2::date[]) AS k(patient_key, day)
           ON f.patient_key = k.patient_key AND f.day IS NOT DISTINCT FROM k.day
         ORDER BY f.patient_key, f.day, f.resource_type, f.resource_id",
    )
    .bind(&key_patients)
    .bind(&key_days)
    .fetch_all(&mut **tx)
    .await?;
    let mut facts: BTreeMap<DocKey, Vec<StoredFact>> = BTreeMap::new();
    for row in rows {
        facts
            .entry((row.get("patient_key"), row.get("day")))
            .or_default()
            .push(StoredFact {
                resource_type: row.get("resource_type"),
                sentences: row.get("sentences"),
                event_date: row.get("event_date"),
            });
    }
    let existing = sqlx::query(
        "SELECT d.patient_key, d.day, d.document_id, d.content_hash
         FROM documents d JOIN UNNEST($1::bigint[], $2::date[]) AS k(patient_key, day)
           ON d.patient_key = k.patient_key AND d.day IS NOT DISTINCT FROM k.day",
    )
    .bind(&key_patients)
    .bind(&key_days)
    .fetch_all(&mut **tx)
    .await?;
    let existing: HashMap<DocKey, (i64, Vec<u8>)> = existing
        .into_iter()
        .map(|r| {
            (
                (r.get("patient_key"), r.get("day")),
                (r.get("document_id"), r.get("content_hash")),
            )
        })
        .collect();

    let mut removed = Vec::new();
    let mut changed: Vec<(DocKey, Document, Vec<u8>)> = Vec::new();
    for key in affected {
        let Some(key_facts) = facts.get(key) else {
            if let Some((id, _)) = existing.get(key) {
                removed.push(*id);
            }
            continue;
        };
        let document = match key.1 {
            Some(day) => documents::day_document(day, key_facts),
            None => documents::summary_document(key_facts),
        };
        let hash = document.content_hash();
        if existing.get(key).is_some_and(|(_, old)| *old == hash) {
            outcome.documents_unchanged += 1;
        } else {
            changed.push((*key, document, hash));
        }
    }
    if !removed.is_empty() {
        outcome.documents_removed =
            sqlx::query("DELETE FROM documents WHERE document_id = ANY($1)")
                .bind(&removed)
                .execute(&mut **tx)
                .await?
                .rows_affected();
    }
    if changed.is_empty() {
        return Ok(());
    }

    // Chunk and embed every changed document together, so that batches fill.
    let counter = embedder.token_counter();
    let budget = embedder.info().max_tokens.saturating_sub(2).max(16);
    let mut chunk_owner = Vec::new();
    let mut chunk_texts = Vec::new();
    for (index, (_, document, _)) in changed.iter().enumerate() {
        for text in documents::chunk(document, budget, |t| counter.count(t)) {
            chunk_owner.push(index);
            chunk_texts.push(text);
        }
    }
    let token_counts: Vec<i32> = chunk_texts
        .iter()
        .map(|t| (counter.count(t) + 2).min(embedder.info().max_tokens) as i32)
        .collect();
    // A rewritten document keeps the vectors of its chunks whose text is unchanged (a summary
    // that gains one fact re-embeds only the chunk of that fact's kind).
    let rewritten: Vec<i64> = changed
        .iter()
        .filter_map(|(key, _, _)| existing.get(key).map(|(id, _)| *id))
        .collect();
    let mut kept: HashMap<String, Vector> = HashMap::new();
    if !rewritten.is_empty() {
        let rows = sqlx::query("SELECT text, embedding FROM chunks WHERE document_id = ANY($1)")
            .bind(&rewritten)
            .fetch_all(&mut **tx)
            .await?;
        for row in rows {
            kept.insert(row.get("text"), row.get("embedding"));
        }
    }
    let fresh: Vec<String> = chunk_texts
        .iter()
        .filter(|t| !kept.contains_key(*t))
        .cloned()
        .collect();
    let embed_started = std::time::Instant::now();
    let mut computed = embedder.embed(fresh).await?.into_iter();
    outcome.embed_us += embed_started.elapsed().as_micros() as u64;
    let mut embeddings = Vec::with_capacity(chunk_texts.len());
    let mut reused = 0u64;
    for (text, tokens) in chunk_texts.iter().zip(&token_counts) {
        match kept.get(text) {
            Some(vector) => {
                embeddings.push(vector.clone());
                reused += 1;
            }
            None => {
                let vector = computed.next().ok_or_else(|| {
                    EmbedError::Model("the embedder returned too few vectors".into())
                })?;
                embeddings.push(Vector::from(vector));
                outcome.chunks_embedded += 1;
                outcome.tokens_embedded += *tokens as u64;
            }
        }
    }
    outcome.chunks_reused += reused;

    let doc_patients: Vec<i64> = changed.iter().map(|(k, _, _)| k.0).collect();
    let doc_days: Vec<Option<NaiveDate>> = changed.iter().map(|(k, _, _)| k.1).collect();
    let doc_texts: Vec<String> = changed.iter().map(|(_, d, _)| d.text()).collect();
    let doc_hashes: Vec<Vec<u8>> = changed.iter().map(|(_, _, h)| h.clone()).collect();
    let rows = sqlx::query(
        "INSERT INTO documents (patient_key, day, text, content_hash)
         SELECT * FROM UNNEST($1::bigint[], $2::date[], $3::text[], $4::bytea[])
         ON CONFLICT ON CONSTRAINT documents_one_per_patient_day DO UPDATE
           SET text = EXCLUDED.text, content_hash = EXCLUDED.content_hash, updated_at = now()
         RETURNING document_id, patient_key, day",
    )
    .bind(&doc_patients)
    .bind(&doc_days)
    .bind(&doc_texts)
    .bind(&doc_hashes)
    .fetch_all(&mut **tx)
    .await?;
    let ids: HashMap<DocKey, i64> = rows
        .into_iter()
        .map(|r| ((r.get("patient_key"), r.get("day")), r.get("document_id")))
        .collect();
    let document_ids: Vec<i64> = changed.iter().map(|(k, _, _)| ids[k]).collect();
    sqlx::query("DELETE FROM chunks WHERE document_id = ANY($1)")
        .bind(&document_ids)
        .execute(&mut **tx)
        .await?;

    let mut chunk_documents = Vec::with_capacity(chunk_texts.len());
    let mut ordinals = Vec::with_capacity(chunk_texts.len());
    let mut previous = usize::MAX;
    let mut ordinal = 0i32;
    for &owner in &chunk_owner {
        ordinal = if owner == previous { ordinal + 1 } else { 0 };
        previous = owner;
        chunk_documents.push(document_ids[owner]);
        ordinals.push(ordinal);
    }
    sqlx::query(
        "INSERT INTO chunks (document_id, ordinal, text, token_count, embedding)
         SELECT * FROM UNNEST($1::bigint[], $2::int[], $3::text[], $4::int[], $5::vector[])",
    )
    .bind(&chunk_documents)
    .bind(&ordinals)
    .bind(&chunk_texts)
    .bind(&token_counts)
    .bind(&embeddings)
    .execute(&mut **tx)
    .await?;
    outcome.documents_written += changed.len() as u64;
    Ok(())
}

/// `url` with its database name replaced by `name` (query parameters kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    let server = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{server}/{name}?{q}"),
        None => format!("{server}/{name}"),
    }
}

/// Database names are spliced into DDL (identifiers cannot be bound): allow only a safe alphabet.
fn check_database_name(name: &str) -> Result<(), StoreError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(StoreError::Database(sqlx::Error::Configuration(
            format!("database name {name:?} must be ASCII letters, digits and underscores").into(),
        )));
    }
    Ok(())
}

/// Creates an empty database `name` on the server of `url` (for benchmarks and tests, which
/// each want a fresh one) and returns its URL.
pub async fn create_database(url: &str, name: &str) -> Result<String, StoreError> {
    check_database_name(name)?;
    let pool = PgPoolOptions::new().max_connections(1).connect(url).await?;
    sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&pool)
        .await?;
    pool.close().await;
    Ok(with_database(url, name))
}

/// Drops database `name` on the server of `url`, closing its connections.
pub async fn drop_database(url: &str, name: &str) -> Result<(), StoreError> {
    check_database_name(name)?;
    let pool = PgPoolOptions::new().max_connections(1).connect(url).await?;
    sqlx::query(AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&pool)
    .await?;
    pool.close().await;
    Ok(())
}

pub mod retention;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_database_name_only() {
        assert_eq!(
            with_database("postgres://u:p@h:5432/app?sslmode=disable", "t1"),
            "postgres://u:p@h:5432/t1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "t2"), "postgres://h/t2");
    }

    #[test]
    fn failures_are_classified_for_the_pipeline() {
        assert_eq!(
            StoreError::Database(sqlx::Error::PoolTimedOut).disposition(),
            Disposition::Unavailable
        );
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
        assert_eq!(
            StoreError::Database(sqlx::Error::Io(io)).disposition(),
            Disposition::Unavailable
        );
        assert_eq!(
            StoreError::Database(sqlx::Error::RowNotFound).disposition(),
            Disposition::Permanent
        );
        assert_eq!(
            StoreError::Embedding(EmbedError::Model("CUDA_ERROR_OUT_OF_MEMORY".into()))
                .disposition(),
            Disposition::Transient
        );
        assert_eq!(
            StoreError::Embedding(EmbedError::Stopped).disposition(),
            Disposition::Fatal
        );
        assert_eq!(
            StoreError::Embedding(EmbedError::Tokenizer("bad".into())).disposition(),
            Disposition::Permanent
        );
    }

    #[test]
    fn debug_hides_the_password() {
        let config = StoreConfig {
            database_url: "postgres://user:secret@db/app".into(),
            database_connections: 1,
        };
        assert!(!format!("{config:?}").contains("secret"));
    }
}
