//! Privacy: the deterministic code that every answer goes through, whatever the LLM did.
//!
//! - [`guard`]: the last gate. Looks the normalized words, digit windows and dates of outgoing
//!   text up in the vault's index, and matches generic PII patterns (phones of any spelling,
//!   e-mail, URLs, IP addresses, IBANs, identifiers, days). Only its output type can be
//!   published.
//! - [`deid`]: de-identification of record free text at ingest.
//! - [`generalize`]: rounding, date and age generalization, folding readings into ranges.
//! - [`pseudonym`]: per-answer pseudonyms ("Patient A"), never stable across answers.
//! - [`digest`]: keyed digests of requests for the audit table and the DP ledger.

pub mod deid;
pub mod digest;
pub mod generalize;
pub mod guard;
pub mod pseudonym;

pub use guard::{GuardReport, Guarded, PrivacyGuard};
