# Sourced by the evaluation scripts: loads an archive into the current database through Kafka.
#
#   load_archive BIN SOURCE RUN
#
# Creates the topics suffixed `.RUN` (and points the FHIR_RAG_*_TOPIC and ingest group variables
# at them), migrates the database FHIR_RAG_DATABASE_URL names, backfills SOURCE and ingests every
# published bundle with FHIR_RAG_EMBEDDER.
load_archive() {
    local bin=$1 source_path=$2 run=$3 published
    export FHIR_RAG_BUNDLE_TOPIC=fhir.bundles.$run FHIR_RAG_DLQ_TOPIC=fhir.bundles.dlq.$run
    export FHIR_RAG_INGEST_GROUP=ingest-$run
    "$bin" topics apply --name-suffix ".$run" >/dev/null
    "$bin" migrate
    published=$("$bin" backfill --no-progress "$source_path" | python3 -c 'import json,sys; print(json.load(sys.stdin)["published"])')
    echo "published $published bundles; ingesting with the ${FHIR_RAG_EMBEDDER:-default} embedder…" >&2
    "$bin" ingest --stop-after-messages "$published" >/dev/null
}
