//! The answer path: questions from `rag.queries`, anonymized answers to `rag.answers`.
//!
//! - [`policy`]: who may learn what about whom (care teams, cohort roles).
//! - [`cohort`]: cohort answers (counts and medians over at least k patients).
//! - [`population`]: who a cohort counts (living or dead, sex, age and birth or death years).
//! - [`contract`]: the query and answer messages; [`config`]: the answer path's settings.
//! - [`document`]: the synthetic document every agent passes on.
//! - [`question`]: reading a question (name candidates, dates, two-step conditions, terms);
//!   its word lists and clinical lexicon are data files apart (`question/words/*.txt`,
//!   `question/words/canonical.tsv`, `question/lexicon.tsv`), one entry per line.
//! - [`spelling`]: typos read against the records' own vocabulary.
//! - [`search`]: the Search agent (scope, name resolution, condition search, hybrid retrieval).
//! - [`synthesis`]: the Synthesis agent (generalized candidate facts, selection, ranges, query).
//! - [`review`]: the Review agent (rules, bounded corrections, refusal).
//! - [`trend`]: which way one reading of one patient went over the years.
//! - [`stay`]: how long a hospital stay lasted (its wards joined into one stay).
//! - [`respond`]: answering from the synthetic document (model prompt or template).
//! - [`engine`]: one query through all of the above (one file per disclosure path), the guard
//!   and the audit table.
//! - [`worker`]: the Kafka worker, the answer publisher and `ask`.

pub mod cohort;
pub mod config;
pub mod contract;
pub mod document;
pub mod engine;
pub mod policy;
pub mod population;
pub mod question;
pub mod reason;
pub mod respond;
pub mod review;
pub mod search;
pub mod spelling;
pub mod stay;
pub mod synthesis;
pub mod trend;
pub mod worker;
