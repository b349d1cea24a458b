#!/usr/bin/env bash
# `fhir-rag-harness bench embed` in one command: the test model, a virtual environment with
# sentence-transformers (the tool a user would pick instead; from PyPI, about 6 GB because PyPI's
# torch brings its CUDA libraries), Intel MKL from PyPI, a release build with `--features mkl`,
# then both embedders on the same chunk texts of the 120-patient archive, alternating rounds.
# Writes docs/results/bench-embed.json. Extra arguments go to `bench embed` (e.g. --rounds 5).
#
#   FHIR_RAG_BENCH_FEATURES=""         measure the default build (the gemm crate's kernels) instead
#   FHIR_RAG_BENCH_APPROXIMATE_GELU=1  the tanh formula instead of the model's exact (erf) GELU
#   (add --embed-engine candle to measure candle's BERT instead of our CPU forward pass)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=${FHIR_RAG_ST_VENV:-.services/st-venv}
if ! "$venv/bin/python" -c "import sentence_transformers, torch" 2>/dev/null; then
    echo "[bench embed] installing sentence-transformers into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check \
        "sentence-transformers==6.2.*" "torch==2.15.*" >&2
fi
model_dir=$(scripts/fetch-model.sh)
features=${FHIR_RAG_BENCH_FEATURES-mkl}
if [ "$features" = "mkl" ]; then
    MKLROOT=$(scripts/fetch-mkl.sh)
    export MKLROOT
fi
cargo build --release --quiet ${features:+--features "$features"}
# An OpenMP runtime that spins after each product would take the core from candle's own threads.
export KMP_BLOCKTIME=${KMP_BLOCKTIME:-0}
gelu=()
if [ -n "${FHIR_RAG_BENCH_APPROXIMATE_GELU:-}" ]; then
    gelu=(--approximate-gelu)
fi
target/release/fhir-rag-harness bench embed --model-dir "$model_dir" "${gelu[@]}" \
    --reference-python "$venv/bin/python" "$@"
