"""The reference side of `fhir-rag-harness bench embed`: sentence-transformers (PyTorch, CPU) embedding the
same texts as fhir-rag, with the same number of threads. Run by the benchmark between its own
rounds (never on its own); it prints one JSON line with its timing and writes the vectors it
computed as little-endian float32 rows, for the cosine check.

    python st_reference.py TEXTS_JSONL MODEL_DIR THREADS BATCH VECTORS_OUT

The device is FHIR_RAG_ST_DEVICE (default cpu; scripts/bench-gpu.sh sets cuda), and the number
format FHIR_RAG_ST_DTYPE (f32, f16 or bf16: the one fhir-rag's side computes in).
"""

import json
import os
import sys
import time


def main() -> None:
    texts_path, model_dir, threads, batch, vectors_out = sys.argv[1:6]
    threads, batch = int(threads), int(batch)
    import torch

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    from sentence_transformers import SentenceTransformer

    with open(texts_path, encoding="utf-8") as f:
        texts = [json.loads(line) for line in f if line.strip()]
    started = time.perf_counter()
    device = os.environ.get("FHIR_RAG_ST_DEVICE", "cpu")
    model = SentenceTransformer(model_dir, device=device, local_files_only=True)
    dtype = os.environ.get("FHIR_RAG_ST_DTYPE", "f32")
    if dtype == "f16":
        model.half()
    elif dtype == "bf16":
        model.to(torch.bfloat16)
    load_s = time.perf_counter() - started
    # One small warm-up batch, as fhir-rag's model is warm when its round is timed.
    model.encode(texts[:batch], batch_size=batch)
    started = time.perf_counter()
    # As tensors, then f32 on the host (numpy has no bfloat16): the vectors' trip to the host
    # is timed, as fhir-rag's is.
    vectors = model.encode(texts, batch_size=batch, convert_to_tensor=True)
    vectors = vectors.float().cpu().numpy()
    seconds = time.perf_counter() - started
    vectors.astype("<f4").tofile(vectors_out)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "load_s": load_s,
                "texts": len(texts),
                "dimension": int(vectors.shape[1]),
                "torch": torch.__version__,
                "dtype": dtype,
                "batch": batch,
                "device": device,
                "threads": torch.get_num_threads(),
                "max_seq_length": model.max_seq_length,
            }
        )
    )


if __name__ == "__main__":
    main()
