#!/usr/bin/env bash
# The embedding benchmarks on a GPU machine that has PyTorch, sentence-transformers and the CUDA
# 13 libraries but no Rust toolchain and no network (the machines our device tool lends):
#
#   here:      scripts/gpu-payload.sh            builds `--features cuda` (scripts/cuda-build.sh)
#                                                and packs it with the model and archive in .gpu/
#   GPU side:  scripts/bench-gpu.sh [PAYLOAD]    unpacks, then `bench embed --device cuda` against
#                                                sentence-transformers on the same GPU, same texts,
#                                                same precision, alternating rounds
#
# Runs all-MiniLM-L6-v2 (weights rounded to f16 for transport, see scripts/gpu_payload.py) in
# f32, f16 and bf16, and a random-weight model of bge-base-en-v1.5's shape in f16, bf16 and f32,
# over every chunk text of the 120-patient archive. Writes one JSON per run and log.txt to
# FHIR_RAG_GPU_OUT (default docs/results/gpu); FHIR_RAG_GPU_RUNS picks runs (MODEL-PRECISION),
# FHIR_RAG_GPU_ROUNDS the rounds of each side (default 2). `bench ingest --device cuda` is not run: it needs
# PostgreSQL and a Kafka broker, which such a machine has not and cannot fetch.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
payload=${1:-.gpu}
out=${FHIR_RAG_GPU_OUT:-docs/results/gpu}
work=${FHIR_RAG_GPU_WORK:-/tmp/fhir-rag-gpu}
rounds=${FHIR_RAG_GPU_ROUNDS:-2}
mkdir -p "$out"
log=$out/log.txt
say() { echo "[bench-gpu] $*" | tee -a "$log" >&2; }

nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap,clocks.max.sm \
    --format=csv 2>&1 | tee -a "$log" >&2 || true
started=$SECONDS
python3 scripts/gpu_payload.py unpack "$payload" "$work"
say "unpacked in $((SECONDS - started)) s"

# cuBLAS, cuRAND, NVRTC and the CUDA runtime of the machine's PyTorch; libcuda from the driver.
nvidia_libs=$(python3 -c '
import glob, importlib.util, os
spec = importlib.util.find_spec("nvidia")
roots = spec.submodule_search_locations if spec else []
print(":".join(sorted({os.path.dirname(p) for r in roots for p in glob.glob(r + "/**/lib*.so*", recursive=True)})))')
export LD_LIBRARY_PATH="$nvidia_libs:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
if ldd "$work/fhir-rag-harness" | grep "not found" | tee -a "$log" >&2; then
    say "libraries missing (above)"
    exit 1
fi

run() {
    local name=$1
    shift
    say "$name: $*"
    "$work/fhir-rag-harness" bench embed --device cuda --embed-engine candle \
        --data "$work/archive" --texts 1000000 --rounds "$rounds" \
        --reference-python python3 --reference-batch 512 \
        --max-batch-tokens 65536 --max-batch-items 1024 --embed-queue 16384 \
        --output "$out/$name.json" "$@" 2>&1 | tee -a "$log" >&2 || say "$name failed"
}
# sentence-transformers on the same GPU, in the same precision (st_reference.py).
export FHIR_RAG_ST_DEVICE=cuda
for name in ${FHIR_RAG_GPU_RUNS:-minilm-f32 bge-shaped-bf16 minilm-bf16 bge-shaped-f16 minilm-f16 bge-shaped-f32}; do
    case $name in
    minilm-*) model=minilm ;;
    *) model=bge-shaped ;;
    esac
    run "$name" --model-dir "$work/$model" --embed-precision "${name##*-}"
done
say "done in $((SECONDS - started)) s"
