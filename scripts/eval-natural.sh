#!/usr/bin/env bash
# The blind natural-question evaluation (issue 23), in one command: services up, the 120-patient
# archive loaded through Kafka with all-MiniLM-L6-v2 (or a kept database), every question of
# eval/natural/questions.json answered as its requester with the rules engine (each a dry run:
# no audit, no overlap memory), graded by eval/natural/grade.py (written apart from the answer
# path, strict), and the figures written to docs/results/answers-natural.json and .md.
#
#   scripts/eval-natural.sh [PATH]     PATH: archive (default: the 120-patient Synthea archive)
#   FHIR_RAG_EVAL_DB=name ...          reuse (or keep) this database instead of a fresh one
#   FHIR_RAG_NATURAL_QUESTIONS=FILE    another frozen question file (same format)
#   FHIR_RAG_NATURAL_NAME=name         results under docs/results/<name>.json (default
#                                      answers-natural)
#
# The first run of a question file is kept in the results as `first_run` (it is the estimate
# for wordings the code was not tuned to); later runs update the other figures only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source_path=${1:-../shared/data/synthea/blaze-synthea-2.7.0-120p}
results=${FHIR_RAG_RESULTS_DIR:-docs/results}
questions=${FHIR_RAG_NATURAL_QUESTIONS:-eval/natural/questions.json}
name=${FHIR_RAG_NATURAL_NAME:-answers-natural}

scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR
# FHIR_RAG_BIN_DIR=dir: binaries copied there (a long run then does not hold target/ still).
if [ -n "${FHIR_RAG_BIN_DIR:-}" ]; then
    bin=$FHIR_RAG_BIN_DIR/fhir-rag harness=$FHIR_RAG_BIN_DIR/fhir-rag-harness
else
    cargo build --quiet
    bin=target/debug/fhir-rag # dev profile: dependencies are built with optimisations (Cargo.toml)
    harness=target/debug/fhir-rag-harness # the evaluations (harness/)
fi

python3 eval/natural/oracle.py --check >/dev/null

base_url=$FHIR_RAG_DATABASE_URL
run=${FHIR_RAG_EVAL_DB:-natural_$(date +%Y%m%d%H%M%S)}
export FHIR_RAG_DATABASE_URL=${base_url%/*}/$run FHIR_RAG_EMBEDDER=bert
if [ -z "${FHIR_RAG_EVAL_DB:-}" ]; then
    trap 'psql "$base_url" -qc "DROP DATABASE IF EXISTS $run WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
fi
if ! psql "$base_url" -tAc "SELECT 1 FROM pg_database WHERE datname = '$run'" | grep -q 1; then
    psql "$base_url" -qc "CREATE DATABASE $run" >/dev/null
    source scripts/lib/load-archive.sh
    load_archive "$bin" "$source_path" "$run"
fi
"$bin" migrate >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"; if [ -z "${FHIR_RAG_EVAL_DB:-}" ]; then psql "$base_url" -qc "DROP DATABASE IF EXISTS $run WITH (FORCE)" >/dev/null 2>&1 || true; fi' EXIT
"$harness" eval natural --questions "$questions" --out "$work/answers.json" >"$work/log.txt"
python3 eval/natural/grade.py "$questions" "$work/answers.json" "$work/graded.json" >/dev/null
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src migrations || echo "+changes")
python3 scripts/lib/natural_results.py "$work/graded.json" "$work/answers.json" \
    "$results/$name.json" "$results/$name.md" "$commit" "$questions"
cat "$results/$name.md"
