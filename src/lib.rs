//! fhir-rag: a streaming FHIR patient-record store with privacy-preserving question answering.
//!
//! ```text
//! INGEST  topic fhir.bundles ─▶ parse (bounded, panic-safe, time-bounded, entry by entry)
//!         ─▶ flatten to sentences ─▶ facts per resource ─▶ documents per (patient, local date)
//!            plus one summary document per patient
//!         ─▶ PHI vault (demographics and identifiers, never in document text)
//!         ─▶ embed changed documents in micro-batches (dedicated model thread)
//!         ─▶ one PostgreSQL transaction (pgvector + full text) ─▶ commit the Kafka offset
//!         (a bundle that can never succeed ─▶ topic fhir.bundles.dlq with the reason, then commit)
//!
//! ANSWER  topic rag.queries ─▶ limits (per requester, per worker) ─▶ policy by role and scope
//!         ─▶ Search (vault name resolution, condition search, hybrid pgvector + full text, RRF)
//!         ─▶ Synthesis (per-answer labels, generalized dates/ages, rounded values, ranges; select)
//!         ─▶ Review (rules; bounded corrections; refuse) ─▶ model or template sees only that
//!         ─▶ privacy guard (indexed vault keys + PII patterns) ─▶ audit row
//!         ─▶ topic rag.answers ─▶ commit the offset   (unreadable query ─▶ rag.queries.dlq)
//! ```
//!
//! # Layout
//!
//! - [`config`]: command line and environment (clap), one struct per role.
//! - [`ingest`]: the ingest path's stages: [`ingest::parse`] (untrusted bytes to typed FHIR),
//!   [`ingest::flatten`] (resources to sentences and vault entries), [`ingest::documents`]
//!   (facts to documents and chunks), [`ingest::worker`] (the Kafka consumer loop).
//! - [`embed`]: the [`embed::Embedder`] trait, the BERT model ([`embed::bert`]), the batching
//!   queue in front of it ([`embed::batcher`]) and a deterministic embedder for unit tests.
//! - [`store`]: PostgreSQL: migrations, the PHI vault, facts, documents and chunks.
//! - [`answer`]: the answer path's agents ([`answer::search`], [`answer::synthesis`],
//!   [`answer::review`]), the pipeline that runs them, and the Kafka worker.
//! - [`privacy`]: the deterministic privacy code: the guard, generalization, pseudonyms.
//! - [`llm`]: chat models behind one trait (OpenAI-compatible HTTP, local GGUF) or none (rules).
//! - [`bus`]: Kafka clients and the topic contracts in `topics/`.
//! - [`backfill`]: reads Synthea archives and bulk exports and publishes them as bundles.
//! - [`auth`]: who is asking: access tokens, the access they grant, signed envelopes, keys.
//! - [`gateway`]: the authenticating HTTP front door, the only way questions enter.
//! - [`dp`]: differential privacy for cohort answers: accounting, noise, DP-RAG votes, budget.
//! - [`phi`]: types that hold protected health information and never print it.
//! - [`text`]: the one text normalization (Unicode folding, words) and the one date grammar.
//!
//! The evaluations and benchmarks are another crate of the workspace (`harness/`, the
//! `fhir-rag-harness` binary): they use this one, and this one knows nothing of them.

pub mod answer;
pub mod auth;
pub mod backfill;
pub mod bus;
pub mod config;
pub mod dp;
pub mod embed;
pub mod gateway;
pub mod generate;
pub mod ingest;
pub mod llm;
pub mod metrics;
pub mod phi;
pub mod privacy;
pub mod store;
pub mod telemetry;
pub mod text;
