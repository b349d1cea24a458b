#!/usr/bin/env bash
# Docker set-up step, run once by the pgvector image on an empty data directory: the roles of
# README.md ("Deploying it securely") with their passwords (passed as psql variables, quoted by
# psql, never pasted into SQL text), the database owned by the migration role, and the extension
# (which needs the superuser).
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v migrator="$FHIR_RAG_MIGRATOR_DB_PASSWORD" -v ingest="$FHIR_RAG_INGEST_DB_PASSWORD" \
    -v answer="$FHIR_RAG_ANSWER_DB_PASSWORD" -v gateway="$FHIR_RAG_GATEWAY_DB_PASSWORD" <<'SQL'
CREATE ROLE fhir_rag_migrator LOGIN PASSWORD :'migrator';
CREATE ROLE fhir_rag_ingest LOGIN PASSWORD :'ingest';
CREATE ROLE fhir_rag_answer LOGIN PASSWORD :'answer';
CREATE ROLE fhir_rag_gateway LOGIN PASSWORD :'gateway';
CREATE DATABASE fhir_rag OWNER fhir_rag_migrator;
REVOKE ALL ON DATABASE fhir_rag FROM PUBLIC;
GRANT CONNECT ON DATABASE fhir_rag TO fhir_rag_ingest, fhir_rag_answer, fhir_rag_gateway;
SQL
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname fhir_rag -c "CREATE EXTENSION IF NOT EXISTS vector"
