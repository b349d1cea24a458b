#!/usr/bin/env bash
# Assembles a CUDA toolkit for *building* `--features cuda` from NVIDIA's own PyPI wheels (nvcc,
# nvvm, runtime, CRT and CCCL headers), for machines without a system CUDA toolkit. Prints the environment
# to use:   eval "$(scripts/cuda-toolchain.sh)" && cargo build --features cuda
# Running on a GPU needs the NVIDIA driver (libcuda) and the CUDA 13 runtime libraries (cuBLAS, cuRAND, NVRTC) on the
# target machine, as any CUDA program does.
# Settings: FHIR_RAG_CUDA_DIR (default .services/cuda), CUDA_COMPUTE_CAP (default 80).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${FHIR_RAG_CUDA_DIR:-$repo_root/.services/cuda}
wheels=$dir/wheels
# CUDA 13.0, the version the NVIDIA 580 drivers of our GPU machines run (newer PTX would not load
# there). The CUDA 12 "-cu12" nvcc wheels ship ptxas only; the CUDA 13 packages carry nvcc, cicc
# (nvvm) and the headers.
version=13.0.88
root=$wheels/nvidia/cu13
if ! "$root/bin/nvcc" --version 2>/dev/null | grep -q "release ${version%.*}"; then
    rm -rf "$wheels"
    echo "[cuda] installing nvcc, nvvm and CUDA headers $version from PyPI" >&2
    python3 -m pip install -q --disable-pip-version-check --no-deps --target "$wheels" \
        "nvidia-cuda-nvcc==$version" "nvidia-nvvm==$version" "nvidia-cuda-crt==$version" \
        "nvidia-cuda-runtime==$version" "nvidia-cuda-cccl==13.0.85" >&2
    chmod +x "$root"/bin/* "$root"/nvvm/bin/* 2>/dev/null || true
fi
echo "export CUDA_HOME=$root CUDA_PATH=$root CUDA_ROOT=$root NVCC=$root/bin/nvcc"
echo "export PATH=$root/bin:\$PATH"
echo "export CUDA_COMPUTE_CAP=${CUDA_COMPUTE_CAP:-80} CUDARC_CUDA_VERSION=13000"
# CCCL (cub, thrust, libcu++) ships in include/cccl; nvcc only searches include/.
echo "export NVCC_APPEND_FLAGS=\"-I$root/include/cccl\""
