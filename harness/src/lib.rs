//! fhir-rag's harness: the evaluations of the thesis's tables and the project's own question
//! sets ([`eval`]), and the benchmarks ([`bench`], [`scale`], [`overlap`]). It uses the service as a library
//! and through its topics and store; the service crate knows nothing of it.

pub mod bench;
pub mod eval;
pub mod overlap;
pub mod scale;
