#!/usr/bin/env bash
# `fhir-rag-harness bench scale` in one command: the services, a release build, the population grown from
# the 120-patient archive size by size (default 1000,10000,100000 patients; the hashed embedder,
# since the real model cannot embed 100k patients on a CPU in a session), then the plot.
# Writes docs/results/bench-scale.json and docs/results/bench-scale.png. Extra arguments go to
# `bench scale` (e.g. --sizes 1000,10000 --output /tmp/scale.json).
#
# Disk: about 0.6 MB of database per patient (measured), so 100k patients need about 60 GB free
# under .services/pg.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/services.sh up
eval "$(scripts/services.sh env)"
cargo build --release --quiet
output=docs/results/bench-scale.json
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[$i]}" = "--output" ]; then output=${args[$((i + 1))]}; fi
done
target/release/fhir-rag-harness bench scale --embedder hashed "$@"
scripts/plot-scale.sh "$output"
