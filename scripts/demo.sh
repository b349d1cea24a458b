#!/usr/bin/env bash
# The main job on a fresh machine: services up, model fetched, the sample Synthea archive
# backfilled through Kafka and ingested into PostgreSQL + pgvector, a summary printed.
#
#   scripts/demo.sh [PATH]   PATH: another archive or bulk export (default: sample/synthea)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source_path=${1:-sample/synthea}

scripts/services.sh up
eval "$(scripts/services.sh env)"
FHIR_RAG_MODEL_DIR=$(scripts/fetch-model.sh)
export FHIR_RAG_MODEL_DIR

cargo build --quiet
bin=target/debug/fhir-rag # dev profile: dependencies are built with optimisations (Cargo.toml)

"$bin" topics apply
"$bin" migrate
published=$("$bin" backfill "$source_path" | python3 -c 'import json,sys; print(json.load(sys.stdin)["published"])')
echo "published $published bundles to fhir.bundles; ingesting…"
"$bin" ingest --stop-after-messages "$published" >/tmp/fhir-rag-demo-ingest.json
echo "--- what this run did"
cat /tmp/fhir-rag-demo-ingest.json
echo "--- the store (counts only: the store never prints PHI)"
"$bin" status
