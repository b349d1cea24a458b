#!/usr/bin/env bash
# Docker set-up step: the test PKI (scripts/make-certs.sh) for the names the services have on the
# compose network, the Kafka broker's JAAS file with one SASL user per principal (passwords from
# the environment, see .env.example), and each file owned by the container user that reads it.
set -euo pipefail
command -v openssl >/dev/null || { apt-get update -qq && apt-get install -y -qq openssl >/dev/null; }
CERT_HOSTS=kafka,postgres,localhost bash /scripts/make-certs.sh /certs
chmod 755 /certs # the CA certificate is public; keys stay mode 600 below
# The pgvector image runs PostgreSQL as uid 999, apache/kafka as uid 1000.
install -d -m 700 -o 999 -g 999 /certs/pg
install -m 600 -o 999 -g 999 /certs/server.key /certs/pg/server.key
install -m 644 /certs/server.crt /certs/pg/server.crt
install -d -m 700 -o 1000 -g 1000 /certs/kafka
install -m 600 -o 1000 -g 1000 /certs/kafka-keystore.pem /certs/kafka/keystore.pem
umask 077
{
    echo 'KafkaServer {'
    echo '  org.apache.kafka.common.security.plain.PlainLoginModule required'
    echo "  username=\"admin\" password=\"$KAFKA_ADMIN_PASSWORD\""
    echo "  user_admin=\"$KAFKA_ADMIN_PASSWORD\""
    echo "  user_backfill=\"$KAFKA_BACKFILL_PASSWORD\""
    echo "  user_ingest=\"$KAFKA_INGEST_PASSWORD\""
    echo "  user_answer=\"$KAFKA_ANSWER_PASSWORD\""
    echo "  user_gateway=\"$KAFKA_GATEWAY_PASSWORD\""
    echo "  user_operations=\"$KAFKA_OPERATIONS_PASSWORD\";"
    echo '};'
} >/certs/kafka/jaas.conf
chown 1000:1000 /certs/kafka/jaas.conf
# The admin client's settings, for the ACL step.
{
    echo 'security.protocol=SASL_SSL'
    echo 'sasl.mechanism=PLAIN'
    echo "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"$KAFKA_ADMIN_PASSWORD\";"
    echo 'ssl.truststore.type=PEM'
    echo 'ssl.truststore.location=/certs/ca.crt'
} >/certs/kafka/admin.properties
chown 1000:1000 /certs/kafka/admin.properties
