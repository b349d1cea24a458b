//! Integration tests against the real Kafka-protocol broker and PostgreSQL with pgvector that
//! `scripts/services.sh up` starts (see `scripts/test.sh`). One binary, one module per scenario.

mod answer;
mod corrections;
mod crash;
mod dp;
mod eval;
mod gateway;
mod hostile;
mod ingest;
mod model;
mod openai_fixture;
mod privacy;
mod reliability;
mod scale;
mod security;
mod support;
mod watchdog;
