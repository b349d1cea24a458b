#!/usr/bin/env bash
# The privacy evaluation by category on a whole archive, in one command: services up, a fresh
# database and fresh topics, the archive backfilled through Kafka and ingested, then
# `fhir-rag-harness eval privacy` with the rules engine on every prompt and the local GGUF model on a
# subset. Writes docs/results/privacy.json and .md (or under FHIR_RAG_RESULTS_DIR).
#
#   scripts/eval-privacy.sh [PATH]        PATH: archive (default: the 120-patient Synthea archive)
#   FHIR_RAG_EVAL_EMBEDDER=bert ...       embed with the real model (default: hashed; this
#                                         measures privacy, not retrieval, and the model needs an
#                                         hour for 120 patients on 2 cores)
#   FHIR_RAG_EVAL_MODEL_EVERY=10 ...      the GGUF model on every n-th prompt of each category
#   FHIR_RAG_EVAL_NO_MODEL=1 ...          rules engine only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source_path=${1:-../shared/data/synthea/blaze-synthea-2.7.0-120p}
embedder=${FHIR_RAG_EVAL_EMBEDDER:-hashed}

scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR
cargo build --quiet
bin=target/debug/fhir-rag # dev profile: dependencies are built with optimisations (Cargo.toml)
harness=target/debug/fhir-rag-harness # the evaluations (harness/)

run=privacy_$(date +%Y%m%d%H%M%S)
base_url=$FHIR_RAG_DATABASE_URL
psql "$base_url" -qc "CREATE DATABASE $run" >/dev/null
export FHIR_RAG_DATABASE_URL=${base_url%/*}/$run
export FHIR_RAG_EMBEDDER=$embedder
trap 'psql "$base_url" -qc "DROP DATABASE IF EXISTS $run WITH (FORCE)" >/dev/null 2>&1 || true' EXIT

source scripts/lib/load-archive.sh
load_archive "$bin" "$source_path" "$run"
"$bin" status

args=(eval privacy --every 1 --front-door)
if [ "${FHIR_RAG_EVAL_NO_MODEL:-0}" != 1 ]; then
    gguf=$(scripts/fetch-llm.sh)
    args+=(--also-llm "gguf://$gguf" --also-every "${FHIR_RAG_EVAL_MODEL_EVERY:-10}")
fi
"$harness" "${args[@]}"
