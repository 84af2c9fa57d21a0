"""Why the embedded model's cloze path runs at the speed it does: llama.cpp decode throughput by weight type.

The embedded SmolLM2 file stores its layers as Q4_1. ggml's CPU backend has batched matrix kernels (llamafile's
tinyBLAS, the repacked layouts) for float32, float16, bfloat16, Q8_0 and Q4_0 but not for Q4_1, which it multiplies
one dot product at a time. This script writes copies of the file with other weight types (``llama_model_quantize``
into a temporary folder; float32 is the exact dequantisation of the Q4_1 weights), then times one decode of
``--tokens`` tokens at several batch sizes with each, with logits at every position (``logits_all``; the backend asks
for them only where a continuation token is predicted), and reports tokens per
second and the floating-point work done as a share of the float32 matrix-multiply throughput measured in the same
run (:mod:`matmul_limit`, which needs torch). Small batches show the other limit: every decode call reads all the
weights (540 MB as float32), so a call of a dozen tokens (one option after its shared prompt) is bound by memory, not
arithmetic. Usage::

    python benchmarks/llamacpp_kernels.py [--tokens 256] [--threads 2] [--batches 16 64 256]
"""

from __future__ import annotations

import argparse
import ctypes
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from matmul_limit import Work, matmul_gflops
from results_file import add_record_option, recording

from pfungst.models.embedded import embedded_model_path

TITLE = "llama.cpp decode throughput by weight type"
"""This script's section title in benchmarks/RESULTS.md."""

TYPES = ("MOSTLY_Q8_0", "MOSTLY_F16", "MOSTLY_BF16", "ALL_F32")
"""The copies written beside the shipped Q4_1 file (llama.cpp's ``LLAMA_FTYPE_`` names)."""


def requantize(llama_cpp: Any, source: Path, folder: Path, name: str) -> Path:
    """A copy of ``source`` with weight type ``name``, written into ``folder``."""
    target = folder / f"{source.stem}.{name}.gguf"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_{name}")
    params.allow_requantize = True
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise RuntimeError(f"llama.cpp could not write {name} weights from {source}")
    return target


def decode_rate(llama_cpp: Any, path: Path, tokens: int, batch: int, threads: int, repeats: int) -> float:
    """Tokens per second of the best of ``repeats`` decodes of ``tokens`` tokens in calls of ``batch`` tokens."""
    model = llama_cpp.Llama(
        model_path=str(path), n_ctx=2048, n_batch=batch, n_threads=threads, n_threads_batch=threads,
        logits_all=True, verbose=False,
    )  # fmt: skip
    feed = list(range(1000, 1000 + tokens))
    model.eval(feed[: min(batch, 32)])  # warm-up
    best = float("inf")
    for _ in range(repeats):
        model.reset()
        started = time.perf_counter()
        model.eval(feed)
        best = min(best, time.perf_counter() - started)
    model.close()
    return tokens / best


def model_config(llama_cpp: Any, path: Path) -> SimpleNamespace:
    """The layer sizes of a GGUF model, under transformers' config names (for :class:`~matmul_limit.Work`)."""
    model = llama_cpp.Llama(model_path=str(path), n_ctx=64, vocab_only=True, verbose=False)
    meta = model.metadata
    arch = meta["general.architecture"]
    config = SimpleNamespace(
        hidden_size=int(meta[f"{arch}.embedding_length"]),
        intermediate_size=int(meta[f"{arch}.feed_forward_length"]),
        num_hidden_layers=int(meta[f"{arch}.block_count"]),
        num_attention_heads=int(meta[f"{arch}.attention.head_count"]),
        num_key_value_heads=int(meta.get(f"{arch}.attention.head_count_kv", meta[f"{arch}.attention.head_count"])),
        vocab_size=model.n_vocab(),
    )
    model.close()
    return config


def main() -> None:
    """Parse arguments, write the copies, time every weight type and batch size, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tokens", type=int, default=256, help="tokens per timed decode")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=int, nargs="+", default=[16, 64, 256], help="tokens per decode call")
    parser.add_argument("--repeats", type=int, default=3)
    add_record_option(parser)
    args = parser.parse_args()
    with recording("llamacpp_kernels", TITLE, enabled=not args.no_record):
        import llama_cpp

        source = embedded_model_path()
        config = model_config(llama_cpp, source)
        work, (peak, shape) = Work.of(config), matmul_gflops(config, args.threads)
        with tempfile.TemporaryDirectory(prefix="pfungst-kernels-") as folder:
            files = {"Q4_1 (shipped)": source}
            files.update({name: requantize(llama_cpp, source, Path(folder), name) for name in TYPES})
            rows = {
                (name, batch): decode_rate(llama_cpp, path, args.tokens, batch, args.threads, args.repeats)
                for name, path in files.items()
                for batch in args.batches
            }
        per_token = work.per_token + work.per_projection  # logits_all: every position is projected
        print(
            f"llama-cpp-python {llama_cpp.__version__}, {args.threads} threads; one decode of {args.tokens} tokens "
            f"in calls of the given size, best of {args.repeats}; float32 matrix multiply measured at {peak:.1f} "
            f"GFLOP/s (torch, {shape}); {per_token / 1e6:.0f} MFLOP per token (logits at every position)\n"
        )
        print(f"{'weights':<16} {'tokens/call':>11} {'tokens/s':>9} {'GFLOP/s':>8} {'of peak':>8}")
        for (name, batch), rate in rows.items():
            print(
                f"{name:<16} {batch:>11} {rate:>9.0f} {rate * per_token / 1e9:>8.1f} "
                f"{rate * per_token / 1e9 / peak:>8.0%}"
            )


if __name__ == "__main__":
    main()
