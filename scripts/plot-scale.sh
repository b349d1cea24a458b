#!/usr/bin/env bash
# Plots a `bench scale` result (default docs/results/bench-scale.json) beside it as .png:
# answer latency (p50, p95) per question kind and ingest throughput against patients.
# matplotlib comes from PyPI into a virtual environment under .services.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
input=${1:-docs/results/bench-scale.json}
venv=${FHIR_RAG_PLOT_VENV:-.services/plot-venv}
if ! "$venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    echo "[plot] installing matplotlib into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "matplotlib==3.*" >&2
fi
"$venv/bin/python" scripts/plot_scale.py "$input" "${input%.json}.png"
