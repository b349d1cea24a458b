"""What a GPU machine with no network and no Rust toolchain needs to run `scripts/bench-gpu.sh`,
packed under 64 MiB (what the project's device tool carries), and unpacked there.

    python3 scripts/gpu_payload.py pack BINARY MODEL_DIR ARCHIVE OUT_DIR
    python3 scripts/gpu_payload.py unpack OUT_DIR WORK_DIR

pack:   the cuda build of fhir-rag-harness (xz), the archive's bundles (tar.xz), and the model with its
        weights rounded to float16, and the rows of its word-embedding table that no word of the
        archive, of the flattener's sentence templates, or of any number can use set to zero
        (they compress to nothing): 24 MB of xz instead of 85 MB. Both sides of the benchmark
        run the same weights, so the cosine check between them is unaffected, and the archive's
        texts meet the rows they use unchanged (but for the float16 rounding).
unpack: WORK_DIR/fhir-rag-harness, WORK_DIR/archive/, WORK_DIR/minilm/ (weights back to float32), and
        WORK_DIR/bge-shaped/: a model of bge-base-en-v1.5's shape (12 layers, 768 wide, 3072 inner,
        CLS pooling) with random weights (seeded; N(0, 0.02) as BERT initializes, unit layer
        norms), the tokenizer of MiniLM (the same 30522-word vocabulary). Its vectors mean
        nothing; it measures throughput at that size, and both sides run the same weights.

Needs the Python standard library and the tokenizers package to pack, numpy to unpack.
"""

import json
import lzma
import os
import shutil
import stat
import struct
import sys
import tarfile

SIDE_FILES = [
    "config.json",
    "config_sentence_transformers.json",
    "modules.json",
    "sentence_bert_config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "1_Pooling/config.json",
]


def read_safetensors(path):
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
        data = f.read()
    metadata = header.pop("__metadata__", None)
    return header, data, metadata


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> (dtype, shape, bytes), written in name order."""
    header, offset = {}, 0
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in sorted(tensors):
            f.write(tensors[name][2])


def xz(source, target):
    with open(source, "rb") as f, lzma.open(target, "wb", preset=6) as out:
        shutil.copyfileobj(f, out, 1 << 20)


def unxz(source, target):
    with lzma.open(source, "rb") as f, open(target, "wb") as out:
        shutil.copyfileobj(f, out, 1 << 20)


def used_token_ids(model_dir, archive, templates):
    """Ids of the tokens any text of the archive's flattened documents can hold: every string of
    its bundles, every word of the flattener's source (its sentence templates), every token of
    digits and punctuation alone (numbers and dates), the special tokens and single characters."""
    import bz2
    import gzip

    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    # Word pieces never cross whitespace: the distinct words of all texts are enough.
    words = set()

    def strings(value):
        if isinstance(value, str):
            words.update(value.split())
        elif isinstance(value, dict):
            for key, item in value.items():
                words.add(key)
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    for name in sorted(os.listdir(archive)):
        if not name.endswith((".json", ".ndjson", ".bz2", ".gz")):
            continue
        path = os.path.join(archive, name)
        opener = bz2.open if name.endswith(".bz2") else gzip.open if name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f.read().splitlines() if name.endswith(".ndjson") else [f.read()]:
                if line.strip():
                    strings(json.loads(line))
    for root, _, files in os.walk(templates):
        for name in files:
            if name.endswith((".rs", ".tsv")):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    words.update(f.read().split())
    # Long words (attachments in base64, ids) are one [UNK] or digit pieces either way.
    words = sorted(w for w in words if len(w) <= 100)
    ids = set()
    for encoding in tokenizer.encode_batch(words, add_special_tokens=True):
        ids.update(encoding.ids)
    for token, index in tokenizer.get_vocab().items():
        bare = token[2:] if token.startswith("##") else token
        if len(bare) <= 1 or token.startswith("[") or not any(c.isalpha() for c in bare):
            ids.add(index)
    return ids


def pack(binary, model_dir, archive, out):
    os.makedirs(out, exist_ok=True)
    xz(binary, os.path.join(out, "fhir-rag-harness.xz"))
    with tarfile.open(os.path.join(out, "archive.tar.xz"), "w:xz") as tar:
        tar.add(archive, arcname="archive")
    model_out = os.path.join(out, "minilm")
    os.makedirs(os.path.join(model_out, "1_Pooling"), exist_ok=True)
    for name in SIDE_FILES:
        if os.path.exists(os.path.join(model_dir, name)):
            shutil.copy(os.path.join(model_dir, name), os.path.join(model_out, name))
    keep = used_token_ids(model_dir, archive, os.path.join(os.path.dirname(__file__), "../src"))
    print(f"[payload] {len(keep)} word-embedding rows kept", file=sys.stderr)
    header, data, metadata = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        raw = data[begin:end]
        if entry["dtype"] == "F32":
            floats = list(struct.unpack(f"<{len(raw) // 4}f", raw))
            if name.endswith("word_embeddings.weight"):
                width = entry["shape"][1]
                for row in range(entry["shape"][0]):
                    if row not in keep:
                        floats[row * width:(row + 1) * width] = [0.0] * width
            raw = struct.pack(f"<{len(floats)}e", *floats)
            tensors[name] = ("F16", entry["shape"], raw)
        else:
            tensors[name] = (entry["dtype"], entry["shape"], raw)
    rounded = os.path.join(out, "minilm-f16.safetensors")
    write_safetensors(rounded, tensors, metadata)
    xz(rounded, rounded + ".xz")
    os.remove(rounded)


def to_f32(source, target):
    import numpy as np

    header, data, metadata = read_safetensors(source)
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        raw = data[begin:end]
        if entry["dtype"] == "F16":
            raw = np.frombuffer(raw, dtype="<f2").astype("<f4").tobytes()
            tensors[name] = ("F32", entry["shape"], raw)
        else:
            tensors[name] = (entry["dtype"], entry["shape"], raw)
    write_safetensors(target, tensors, metadata)


def bge_shaped(minilm, target, seed=20261126):
    import numpy as np

    hidden, inner, layers, heads, vocab, positions = 768, 3072, 12, 12, 30522, 512
    os.makedirs(os.path.join(target, "1_Pooling"), exist_ok=True)
    for name in SIDE_FILES:
        if os.path.exists(os.path.join(minilm, name)):
            shutil.copy(os.path.join(minilm, name), os.path.join(target, name))
    with open(os.path.join(minilm, "config.json")) as f:
        config = json.load(f)
    config.update(
        hidden_size=hidden,
        intermediate_size=inner,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        max_position_embeddings=positions,
        _name_or_path="random weights of bge-base-en-v1.5's shape",
    )
    with open(os.path.join(target, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(target, "1_Pooling/config.json"), "w") as f:
        json.dump({"word_embedding_dimension": hidden, "pooling_mode_cls_token": True,
                   "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False}, f)
    with open(os.path.join(target, "sentence_bert_config.json"), "w") as f:
        json.dump({"max_seq_length": 512, "do_lower_case": True}, f)
    rng = np.random.default_rng(seed)
    tensors = {}

    def normal(name, shape):
        values = (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype("<f4")
        tensors[name] = ("F32", list(shape), values.tobytes())

    def constant(name, shape, value):
        tensors[name] = ("F32", list(shape), np.full(shape, value, dtype="<f4").tobytes())

    def dense(prefix, outputs, inputs):
        normal(prefix + ".weight", (outputs, inputs))
        constant(prefix + ".bias", (outputs,), 0.0)

    def norm(prefix):
        constant(prefix + ".weight", (hidden,), 1.0)
        constant(prefix + ".bias", (hidden,), 0.0)

    normal("embeddings.word_embeddings.weight", (vocab, hidden))
    normal("embeddings.position_embeddings.weight", (positions, hidden))
    normal("embeddings.token_type_embeddings.weight", (2, hidden))
    norm("embeddings.LayerNorm")
    for i in range(layers):
        p = f"encoder.layer.{i}"
        for part in ("query", "key", "value"):
            dense(f"{p}.attention.self.{part}", hidden, hidden)
        dense(f"{p}.attention.output.dense", hidden, hidden)
        norm(f"{p}.attention.output.LayerNorm")
        dense(f"{p}.intermediate.dense", inner, hidden)
        dense(f"{p}.output.dense", hidden, inner)
        norm(f"{p}.output.LayerNorm")
    write_safetensors(os.path.join(target, "model.safetensors"), tensors, {"format": "pt"})


def unpack(payload, work):
    os.makedirs(work, exist_ok=True)
    binary = os.path.join(work, "fhir-rag-harness")
    unxz(os.path.join(payload, "fhir-rag-harness.xz"), binary)
    os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    with tarfile.open(os.path.join(payload, "archive.tar.xz")) as tar:
        tar.extractall(work, filter="data")
    minilm = os.path.join(work, "minilm")
    shutil.copytree(os.path.join(payload, "minilm"), minilm, dirs_exist_ok=True)
    rounded = os.path.join(work, "minilm-f16.safetensors")
    unxz(os.path.join(payload, "minilm-f16.safetensors.xz"), rounded)
    to_f32(rounded, os.path.join(minilm, "model.safetensors"))
    bge_shaped(minilm, os.path.join(work, "bge-shaped"))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"pack": pack, "unpack": unpack}[command](*args)
