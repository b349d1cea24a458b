#!/usr/bin/env bash
# DP-RAG evaluation in one command: services up, a fresh database and fresh topics, the archive
# backfilled through Kafka and ingested, then `fhir-rag-harness eval dp` with the local GGUF model.
# Writes docs/results/dp.json and .md (or under FHIR_RAG_RESULTS_DIR). Extra arguments go to
# `eval dp` (e.g. --questions 20).
#
#   FHIR_RAG_EVAL_EMBEDDER=bert ...   embed with the real model (default: hashed, see below)
#   FHIR_RAG_EVAL_DB=name ...         reuse (or keep) this database instead of a fresh one
#
# The default embedder is the deterministic hashed one: the real MiniLM model needs about an
# hour to embed 120 patients on 2 cores (see the throughput issue). The similarity threshold is
# then a threshold on hashed bag-of-words cosine; the DP mechanism does not depend on it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source_path=${FHIR_RAG_EVAL_SOURCE:-../shared/data/synthea/blaze-synthea-2.7.0-120p}
embedder=${FHIR_RAG_EVAL_EMBEDDER:-hashed}

scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR
gguf=$(scripts/fetch-llm.sh)
# FHIR_RAG_BIN_DIR=dir: binaries copied there (a long run then does not hold target/ still).
if [ -n "${FHIR_RAG_BIN_DIR:-}" ]; then
    bin=$FHIR_RAG_BIN_DIR/fhir-rag harness=$FHIR_RAG_BIN_DIR/fhir-rag-harness
else
    cargo build --quiet
    bin=target/debug/fhir-rag # dev profile: dependencies are built with optimisations (Cargo.toml)
    harness=target/debug/fhir-rag-harness # the evaluations (harness/)
fi

base_url=$FHIR_RAG_DATABASE_URL
run=${FHIR_RAG_EVAL_DB:-dp_$(date +%Y%m%d%H%M%S)}
export FHIR_RAG_DATABASE_URL=${base_url%/*}/$run FHIR_RAG_EMBEDDER=$embedder
if [ -z "${FHIR_RAG_EVAL_DB:-}" ]; then
    trap 'psql "$base_url" -qc "DROP DATABASE IF EXISTS $run WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
fi
if ! psql "$base_url" -tAc "SELECT 1 FROM pg_database WHERE datname = '$run'" | grep -q 1; then
    psql "$base_url" -qc "CREATE DATABASE $run" >/dev/null
    source scripts/lib/load-archive.sh
    load_archive "$bin" "$source_path" "$run"
fi
"$bin" status
# Hashed bag-of-words cosines are low (the best document of a patient scores about 0.1 to 0.25):
# the threshold is set for that embedder; 24 voters keep one question (standard RAG, votes
# without noise, three epsilons) near half a minute on 2 cores.
similarity=${FHIR_RAG_DP_SIMILARITY:-0.05}
"$harness" eval dp --llm "gguf://$gguf" --source "$source_path" --dp-similarity "$similarity" \
    --dp-max-voters "${FHIR_RAG_DP_MAX_VOTERS:-24}" "$@"
