#!/usr/bin/env bash
# Makes a test PKI with openssl in DIR (once: an existing set is kept): a CA, a server certificate
# for the names in CERT_HOSTS (default: localhost, 127.0.0.1), a client certificate for mutual TLS,
# a PEM keystore for Kafka (key and certificate in one file), and a second, untrusted CA with its
# own server and client certificates (what a wrongly-certified peer presents). Private keys are
# readable by their owner only. For tests and the Docker example: a hospital uses its own CA.
#
#   scripts/make-certs.sh DIR
#   CERT_HOSTS="localhost,kafka,postgres" scripts/make-certs.sh DIR
set -euo pipefail
dir=${1:?usage: make-certs.sh DIR}
hosts=${CERT_HOSTS:-localhost,127.0.0.1}

sans() {
    local out="" h
    IFS=, read -ra names <<<"$hosts"
    for h in "${names[@]}"; do
        if [[ $h =~ ^[0-9.]+$ || $h == *:* ]]; then out+="IP:$h,"; else out+="DNS:$h,"; fi
    done
    echo "${out%,}"
}

make_key() { (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null); }

make_ca() { # name subject
    make_key "$dir/$1.key"
    openssl req -x509 -new -key "$dir/$1.key" -subj "$2" -days 825 -sha256 \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
        -out "$dir/$1.crt" 2>/dev/null
}

make_cert() { # name subject ca server|client
    local name=$1 subject=$2 ca=$3 kind=$4 ext=$dir/$1.ext
    make_key "$dir/$name.key"
    openssl req -new -key "$dir/$name.key" -subj "$subject" -out "$dir/$name.csr" 2>/dev/null
    if [ "$kind" = server ]; then
        printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n' "$(sans)" >"$ext"
    else
        printf 'extendedKeyUsage=clientAuth\nbasicConstraints=critical,CA:FALSE\n' >"$ext"
    fi
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.crt" -CAkey "$dir/$ca.key" \
        -CAcreateserial -days 825 -sha256 -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null
    rm -f "$dir/$name.csr" "$ext"
}

if [ -s "$dir/server.crt" ] && [ -s "$dir/rogue-client.crt" ] && [ -s "$dir/kafka-keystore.pem" ]; then
    exit 0
fi
mkdir -p "$dir"
chmod 700 "$dir"
make_ca ca "/CN=fhir-rag test CA"
make_cert server "/CN=${hosts%%,*}" ca server
make_cert client "/CN=fhir-rag-worker" ca client
make_ca rogue-ca "/CN=untrusted test CA"
make_cert rogue-server "/CN=${hosts%%,*}" rogue-ca server
make_cert rogue-client "/CN=fhir-rag-worker" rogue-ca client
(umask 077 && cat "$dir/server.key" "$dir/server.crt" >"$dir/kafka-keystore.pem")
echo "test certificates in $dir" >&2
