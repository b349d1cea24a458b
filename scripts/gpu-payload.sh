#!/usr/bin/env bash
# Builds `--features cuda` here (scripts/cuda-build.sh; no GPU needed) and packs what
# scripts/bench-gpu.sh needs on a GPU machine without network or Rust into PAYLOAD (default
# .gpu/, ignored by git): the stripped binary, the 120-patient archive and the model
# (scripts/gpu_payload.py says how it stays under the device tool's 64 MiB).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
payload=${1:-.gpu}
binary=$(scripts/cuda-build.sh)
stripped=$(mktemp)
trap 'rm -f "$stripped"' EXIT
strip -o "$stripped" "$binary"
# The tokenizer package, to find the word-embedding rows the archive's texts can use.
helpers=.services/py-payload
if ! PYTHONPATH=$helpers python3 -c "import tokenizers" 2>/dev/null; then
    python3 -m pip install -q --disable-pip-version-check --target "$helpers" "tokenizers==0.23.*" >&2
fi
model_dir=$(scripts/fetch-model.sh)
rm -rf "$payload"
PYTHONPATH=$helpers python3 scripts/gpu_payload.py pack "$stripped" "$model_dir" \
    ../shared/data/synthea/blaze-synthea-2.7.0-120p "$payload"
du -sh "$payload"/* >&2
