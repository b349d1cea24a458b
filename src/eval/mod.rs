//! Evaluation: the thesis's protocols, run against any store.
//!
//! - [`attack`]: the PII-extraction attack protocol (thesis §4.3).

pub mod attack;
