//! Privacy: the deterministic code that every answer goes through, whatever the LLM did.
//!
//! - [`guard`]: the last gate. Matches text against every string of the PHI vault (and the
//!   variants a model might write: digit-stripped names, name parts, birth dates in common
//!   formats, phone numbers with other separators) with one multi-pattern automaton, and against
//!   generic PII patterns (phone, e-mail, SSN, dates of birth, URLs, UUIDs). Only its output type
//!   can be published.
//! - [`generalize`]: rounding, date and age generalization, folding readings into ranges.
//! - [`pseudonym`]: stable, keyed pseudonyms for patients.

pub mod generalize;
pub mod guard;
pub mod pseudonym;

pub use guard::{GuardReport, Guarded, PrivacyGuard};
