#!/usr/bin/env bash
# Runs every test on a fresh machine: installs and starts the real services (Kafka-protocol broker,
# PostgreSQL + pgvector), fetches the test model, then formatting, lints, unit tests and the
# integration tests against those services.
#
#   FHIR_RAG_FULL_TEST=1 scripts/test.sh   the whole 120-patient archive instead of the default
#                                          10-patient subset (≈1 hour of embedding on 2 CPU cores),
#                                          and all 460 attack prompts through the local model
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export FHIR_RAG_PG_FAST=1 # fsync off for the test cluster only
# A clean checkout gains nothing from incremental builds, and their caches doubled the target
# folder (a CI run once ran out of disk): build without them.
export CARGO_INCREMENTAL=0
scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR
scripts/fetch-llm.sh >/dev/null # SmolLM2 GGUF for the local-model tests (sha256-checked)

# The workspace: the service (`src/`) and its harness (`harness/`: evaluations, benchmarks).
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# Bounded, so that a test that hangs fails the run with its name (cargo prints a test running
# for over 60 s) instead of eating CI's whole allowance. `timeout` signals the process group,
# so the test binary goes with cargo. Typical: 1 min of unit tests, 6 of integration on 2 cores.
cargo test --workspace --lib --bins --no-run
timeout -k 30 900 cargo test --workspace --lib --bins
# One scenario at a time: each runs real workers that embed on every core. The evaluation
# scenario runs the harness binary, which `cargo build --workspace` builds beside `fhir-rag`.
cargo build --workspace
cargo test -p fhir-rag --test integration --no-run
timeout -k 30 2400 cargo test -p fhir-rag --test integration -- --test-threads=1
