#!/usr/bin/env bash
# Docker set-up step: the Kafka ACL profile of README.md ("Deploying it securely"), applied with
# the admin principal on a broker that denies whatever no ACL allows.
set -euo pipefail
acl() { /opt/kafka/bin/kafka-acls.sh --bootstrap-server kafka:9092 --command-config /certs/kafka/admin.properties --add "$@" >/dev/null; }
allow() { # principal operation... -- resource options
    local principal=$1; shift
    local ops=()
    while [ "$1" != -- ]; do ops+=(--operation "$1"); shift; done
    shift
    acl --allow-principal "User:$principal" "${ops[@]}" "$@"
}
allow backfill Write Describe -- --topic fhir.bundles
allow backfill Write Describe -- --topic fhir.bundles.dlq
allow ingest Read Describe -- --topic fhir.bundles
allow ingest Read -- --group fhir-rag-ingest
allow ingest Write Describe -- --topic fhir.bundles.dlq
allow gateway Write Describe -- --topic rag.queries
allow gateway Read Describe -- --topic rag.answers
allow gateway Read -- --group fhir-rag-gateway
allow answer Read Describe -- --topic rag.queries
allow answer Read -- --group fhir-rag-answer
allow answer Write Describe -- --topic rag.answers
allow answer Write Describe -- --topic rag.queries.dlq
allow operations Read Describe -- --topic fhir.bundles.dlq
allow operations Read Describe -- --topic rag.queries.dlq
allow operations Read -- --group fhir-rag-operations
# Idempotent producers need IdempotentWrite on the cluster (Kafka 3.x grants it with Write on a
# topic; older brokers need it explicitly).
for p in backfill ingest gateway answer; do
    allow "$p" IdempotentWrite -- --cluster
done
echo "ACLs applied"
