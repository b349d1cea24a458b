#!/usr/bin/env bash
# The throughput benchmarks on a GPU machine: builds `--features cuda` (with the system CUDA
# toolkit, or one assembled from NVIDIA's PyPI wheels by scripts/cuda-toolchain.sh, plus the
# cuBLAS, cuRAND and NVRTC wheels to link against; libcuda comes from the machine's driver), then
# runs `bench embed` (against sentence-transformers on the same GPU) and `bench ingest` on the
# 120-patient archive with `--device cuda`, writing docs/results/gpu/bench-embed.json and
# docs/results/gpu/bench-ingest.json. Needs the services (scripts/services.sh up) for the ingest.
#
# NOT YET RUN: no GPU was lent to the task that wrote it (see the README's GPU section).
#   CUDA_COMPUTE_CAP   the GPU's compute capability (default: read from nvidia-smi)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=docs/results/gpu
mkdir -p "$out"

if ! command -v nvcc >/dev/null; then
    eval "$(scripts/cuda-toolchain.sh)"
    libs=.services/cuda/link
    if [ ! -d "$libs/nvidia" ]; then
        python3 -m pip install -q --disable-pip-version-check --no-deps --target "$libs" \
            "nvidia-cublas==13.0.2.14" "nvidia-curand==10.4.0.35" "nvidia-cuda-nvrtc==13.0.88" >&2
    fi
    # The wheels ship versioned libraries only; the linker looks for the plain names.
    for lib in "$libs"/nvidia/cu13/lib/lib*.so.*; do
        plain=${lib%%.so.*}.so
        [ -e "$plain" ] || ln -s "$(basename "$lib")" "$plain"
    done
    export LIBRARY_PATH="$PWD/$libs/nvidia/cu13/lib:${LIBRARY_PATH:-}"
    export LD_LIBRARY_PATH="$PWD/$libs/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
fi
if [ -z "${CUDA_COMPUTE_CAP:-}" ] && command -v nvidia-smi >/dev/null; then
    CUDA_COMPUTE_CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
    export CUDA_COMPUTE_CAP
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >&2 || true
cargo build --release --features cuda

venv=${FHIR_RAG_ST_VENV:-.services/st-venv}
if ! "$venv/bin/python" -c "import sentence_transformers, torch" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check \
        "sentence-transformers==6.2.*" "torch==2.15.*" >&2
fi
model_dir=$(scripts/fetch-model.sh)
FHIR_RAG_ST_DEVICE=cuda target/release/fhir-rag bench embed --device cuda --model-dir "$model_dir" \
    --reference-python "$venv/bin/python" --output "$out/bench-embed.json" "$@"
eval "$(scripts/services.sh env)"
target/release/fhir-rag bench ingest --device cuda --model-dir "$model_dir" \
    --output "$out/bench-ingest.json"
