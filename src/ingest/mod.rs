//! The ingest path, one module per stage: [`parse`] → [`flatten`] → [`documents`], driven by the
//! Kafka consumer loop in [`worker`].

pub mod documents;
pub mod flatten;
pub mod parse;
pub mod relations;
pub mod upgrade;
pub mod worker;
