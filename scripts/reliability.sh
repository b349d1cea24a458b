#!/usr/bin/env bash
# The fault and correction campaign: kill -9 of an ingest worker, PostgreSQL and broker restarts,
# DELETE entries, tombstones, a patient reassignment, entered-in-error, a permanent database error
# on one entry, poison queries, and a rebalance between two workers, each counted against the
# in-memory oracle (lost, duplicated, stale). Writes docs/results/reliability.json (or under
# FHIR_RAG_RESULTS_DIR).
#
#   scripts/reliability.sh                       with the memory broker (restart_broker fails:
#                                                it keeps nothing across a restart)
#   FHIR_RAG_BROKER=durable scripts/reliability.sh   with tansu's libSQL storage (built on first use)
#
# It restarts the services it runs against: do not point it at anything else.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR
cargo test --test integration -- --ignored --test-threads=1 --nocapture reliability_campaign
