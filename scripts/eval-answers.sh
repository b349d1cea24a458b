#!/usr/bin/env bash
# The answer-quality evaluation on a whole archive with the real embedding model, in one command:
# services up, a fresh database and fresh topics, the archive backfilled through Kafka and
# ingested with all-MiniLM-L6-v2, then
#   - `fhir-rag-harness eval questions`, `eval retrieval` and `eval utility` (the thesis's tables),
#   - `fhir-rag-harness eval answers` with the rules engine on every question and the local GGUF model on
#     a subset (answers.json / .md),
#   - the same answer questions in incremental mode (answers-incremental.json / .md),
# all under docs/results/ (or FHIR_RAG_RESULTS_DIR).
#
#   scripts/eval-answers.sh [PATH]       PATH: archive (default: the 120-patient Synthea archive)
#   FHIR_RAG_EVAL_DB=name ...            reuse (or keep) this database instead of a fresh one:
#                                        the archive is loaded only when it does not exist yet
#   FHIR_RAG_EVAL_MKL=1 ...              build with Intel MKL (scripts/fetch-mkl.sh); with our CPU
#                                        forward pass the embedder is as fast without it (docs/measurements.md)
#   FHIR_RAG_EVAL_MODEL_EVERY=20 ...     the GGUF model on every n-th answer question
#   FHIR_RAG_EVAL_NO_MODEL=1 ...         rules engine only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source_path=${1:-../shared/data/synthea/blaze-synthea-2.7.0-120p}
results=${FHIR_RAG_RESULTS_DIR:-docs/results}

scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR
if [ "${FHIR_RAG_EVAL_MKL:-0}" = 1 ]; then
    MKLROOT=$(scripts/fetch-mkl.sh) cargo build --quiet --features mkl
else
    cargo build --quiet
fi
bin=target/debug/fhir-rag # dev profile: dependencies are built with optimisations (Cargo.toml)
harness=target/debug/fhir-rag-harness # the evaluations (harness/)

base_url=$FHIR_RAG_DATABASE_URL
run=${FHIR_RAG_EVAL_DB:-answers_$(date +%Y%m%d%H%M%S)}
export FHIR_RAG_DATABASE_URL=${base_url%/*}/$run FHIR_RAG_EMBEDDER=bert
if [ -z "${FHIR_RAG_EVAL_DB:-}" ]; then
    trap 'psql "$base_url" -qc "DROP DATABASE IF EXISTS $run WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
fi
if ! psql "$base_url" -tAc "SELECT 1 FROM pg_database WHERE datname = '$run'" | grep -q 1; then
    psql "$base_url" -qc "CREATE DATABASE $run" >/dev/null
    source scripts/lib/load-archive.sh
    load_archive "$bin" "$source_path" "$run"
fi
"$bin" status

"$harness" eval questions
"$harness" eval retrieval --questions "$results/questions.json"
"$harness" eval utility --questions "$results/questions.json"

# The headline run uses the newest template file (eval/answer-paraphrases-fresh.json, the
# default); the older files, whose first runs informed changes, are re-run as regressions.
args=(eval answers --source "$source_path")
if [ "${FHIR_RAG_EVAL_NO_MODEL:-0}" != 1 ]; then
    gguf=$(scripts/fetch-llm.sh)
    args+=(--also-llm "gguf://$gguf" --also-every "${FHIR_RAG_EVAL_MODEL_EVERY:-20}")
fi
"$harness" "${args[@]}"
"$harness" "${args[@]}" --mode incremental --name answers-incremental
"$harness" eval answers --source "$source_path" --paraphrases eval/answer-paraphrases.json --name answers-dev
for set in heldout blind unseen; do
    "$harness" eval answers --source "$source_path" --paraphrases "eval/answer-paraphrases-$set.json" \
        --name "answers-$set"
done
