#!/usr/bin/env bash
# Builds `target/release/fhir-rag-harness` (the benchmarks, with the service inside) with `--features cuda` on a machine with or without a GPU, so
# that a GPU machine with no Rust toolchain and no network (ours) only has to run it.
#
# Needs nvcc (the system's, or the one scripts/cuda-toolchain.sh assembles from PyPI) and, to link,
# the CUDA 13 libraries cudarc links against: cuBLAS, cuRAND, NVRTC from their PyPI wheels, and the
# driver's libcuda. Where no driver is installed (a build machine), the link uses a stub libcuda
# that only names the driver API's functions (every `cu*` function cudarc declares); at run time
# the GPU machine's real driver library is loaded in its place (same soname, libcuda.so.1).
#
#   CUDA_COMPUTE_CAP   compute capability the kernels are built for (default: the local GPU's,
#                      else 90, the H100/H200)
# Prints the binary's path. Takes about 45 minutes on 2 cores, nearly all of it nvcc.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
libs=$PWD/.services/cuda/link

if ! command -v nvcc >/dev/null; then
    eval "$(scripts/cuda-toolchain.sh)"
fi
if [ -z "${CUDA_COMPUTE_CAP:-}" ] && command -v nvidia-smi >/dev/null; then
    CUDA_COMPUTE_CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
fi
export CUDA_COMPUTE_CAP=${CUDA_COMPUTE_CAP:-90}

if [ ! -d "$libs/nvidia/cu13/lib" ]; then
    python3 -m pip install -q --disable-pip-version-check --no-deps --target "$libs" \
        "nvidia-cublas==13.0.2.14" "nvidia-curand==10.4.0.35" "nvidia-cuda-nvrtc==13.0.88" >&2
fi
# The wheels ship versioned libraries only; the linker looks for the plain names.
for lib in "$libs"/nvidia/cu13/lib/lib*.so.* "$CUDA_HOME"/lib/libcudart.so.*; do
    [ -e "$lib" ] || continue
    plain=${lib%%.so.*}.so
    [ -e "$plain" ] || ln -s "$(basename "$lib")" "$plain"
done
search="$libs/nvidia/cu13/lib:$CUDA_HOME/lib"

if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\b'; then
    stub=$libs/stub
    mkdir -p "$stub"
    if [ ! -e "$stub/libcuda.so" ]; then
        cudarc=$(cargo metadata --format-version 1 --features cuda 2>/dev/null |
            python3 -c 'import json,sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"]=="cudarc"))')
        grep -ohE 'pub unsafe fn cu[A-Za-z0-9_]+' "$(dirname "$cudarc")/src/driver/sys/mod.rs" |
            sed 's/pub unsafe fn //' | sort -u | sed 's/.*/void &(void) {}/' >"$stub/libcuda.c"
        gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub/libcuda.so" "$stub/libcuda.c"
        echo "[cuda] linking against a stub libcuda ($(wc -l <"$stub/libcuda.c") functions)" >&2
    fi
    search="$search:$stub"
fi
export LIBRARY_PATH="$search:${LIBRARY_PATH:-}"
cargo build --release -p fhir-rag-harness --features cuda >&2
echo "$PWD/target/release/fhir-rag-harness"
