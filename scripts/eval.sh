#!/usr/bin/env bash
# The thesis's tables on any FHIR data, in one command: services up, the archive backfilled
# through Kafka and ingested, then `fhir-rag-harness eval questions | retrieval | privacy | utility`, each
# writing Markdown and JSON under docs/results/ (or FHIR_RAG_RESULTS_DIR).
#
#   scripts/eval.sh [PATH]                 PATH: archive or bulk export (default: sample/synthea)
#   FHIR_RAG_LLM=gguf://$(scripts/fetch-llm.sh) scripts/eval.sh   privacy and utility with the
#                                                                  local model (default: rules://)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source_path=${1:-sample/synthea}

scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR

cargo build --quiet
bin=target/debug/fhir-rag
harness=target/debug/fhir-rag-harness # the evaluations (harness/)

"$bin" topics apply
"$bin" migrate
published=$("$bin" backfill --no-progress "$source_path" | python3 -c 'import json,sys; print(json.load(sys.stdin)["published"])')
echo "published $published bundles; ingesting…" >&2
"$bin" ingest --stop-after-messages "$published" >/dev/null
"$bin" status

"$harness" eval questions
"$harness" eval retrieval --questions "${FHIR_RAG_RESULTS_DIR:-docs/results}/questions.json"
# The privacy evaluation by category has its own script (scripts/eval-privacy.sh): it plants
# notes in the store it evaluates and needs the whole archive.
"$harness" eval utility --questions "${FHIR_RAG_RESULTS_DIR:-docs/results}/questions.json"
