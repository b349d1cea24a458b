#!/usr/bin/env bash
# Fetches Intel MKL (static libraries, headers and the OpenMP runtime) from PyPI for the `mkl`
# build feature, and prints the directory to use as MKLROOT:
#
#   MKLROOT=$(scripts/fetch-mkl.sh) cargo build --release --features mkl
#
# With it, candle sends the embedder's matrix products to MKL's AVX-512 kernels instead of the
# `gemm` crate's AVX2 ones (see docs/measurements.md for the figures). The
# default build does not need it. MKL is under the Intel Simplified Software License; it is
# linked statically into the binary.
# Settings: FHIR_RAG_MKL_DIR (default: .services/mkl in the repository).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${FHIR_RAG_MKL_DIR:-$repo_root/.services/mkl}
version=2025.2.0
packages=("mkl-static==$version" "mkl-include==$version" "intel-openmp==$version")

ready() {
    [ -f "$target/.version" ] && [ "$(cat "$target/.version")" = "$version" ] &&
        [ -n "$(find "$target" -name libmkl_core.a -print -quit)" ] &&
        [ -n "$(find "$target" -name mkl.h -print -quit)" ] &&
        [ -n "$(find "$target" -name 'libiomp5.*' -print -quit)" ]
}

if ! ready; then
    echo "[mkl] fetching ${packages[*]} from PyPI (about 250 MB)" >&2
    rm -rf "$target"
    mkdir -p "$target"
    python3 -m pip download -q --disable-pip-version-check --no-deps \
        --only-binary=:all: --platform manylinux_2_28_x86_64 -d "$target/wheels" "${packages[@]}" >&2
    # The libraries and headers are the wheels' data files (<name>.data/data/{lib,include}):
    # unpacked as they are, they form an MKLROOT that intel-mkl-src can walk.
    for wheel in "$target"/wheels/*.whl; do
        python3 -m zipfile -e "$wheel" "$target/unpacked" >&2
    done
    mkdir -p "$target/lib" "$target/include"
    for data in "$target"/unpacked/*.data/data; do
        [ -d "$data/lib" ] && cp -a "$data/lib/." "$target/lib/"
        [ -d "$data/include" ] && cp -a "$data/include/." "$target/include/"
    done
    # Only what a static link needs: intel-mkl-src would also pick up the shared objects.
    rm -rf "$target/unpacked" "$target/wheels"
    find "$target/lib" -name '*.so*' -delete
    find "$target/lib" -name '*.dbg' -delete
    echo "$version" >"$target/.version"
    ready || {
        echo "[mkl] the packages did not provide libmkl_core.a, mkl.h and libiomp5" >&2
        exit 1
    }
fi
echo "$target"
