"""The machine's float32 matrix-multiply throughput and a transformer's floating-point work per token: the yardstick
against which the model benchmarks report their speed (tokens per second as a share of what the machine can do)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Work:
    """Floating-point work per token of a decoder-only transformer, from its config (attention scores ignored)."""

    per_token: float
    """2 flops per weight of the layers (embeddings excluded)."""
    per_projection: float
    """2 flops per weight of the vocabulary projection, paid at each position whose logits are computed."""

    @classmethod
    def of(cls, config: Any) -> Work:
        """From a transformers config (or anything with its attribute names)."""
        hidden, inner, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
        heads = config.num_attention_heads
        head_size = getattr(config, "head_dim", None) or hidden // heads
        kv = getattr(config, "num_key_value_heads", None) or heads
        attention = hidden * head_size * (2 * heads + 2 * kv)  # q, o and k, v projections
        return cls(2.0 * layers * (attention + 3 * hidden * inner), 2.0 * hidden * config.vocab_size)

    def flops(self, tokens: int, projected: int) -> float:
        """The work of feeding ``tokens`` tokens and projecting ``projected`` positions onto the vocabulary."""
        return tokens * self.per_token + projected * self.per_projection


def matmul_gflops(config: Any, threads: int, rows: int = 512, repeats: int = 25) -> tuple[float, str]:
    """The best float32 matrix-multiply throughput in GFLOP/s over the model's layer shapes, and that shape.

    The best of ``repeats`` products per shape (a few milliseconds each): timing noise on a shared machine only ever
    slows a product down, so the best is the closest to what the machine can do. Measure before loading models.
    """
    import torch

    torch.set_num_threads(threads)
    hidden, inner = config.hidden_size, config.intermediate_size
    best, shape = 0.0, ""
    for k, n in ((hidden, inner), (inner, hidden), (hidden, hidden), (hidden, config.vocab_size)):
        a, b = torch.randn(rows, k), torch.randn(k, n)
        a @ b  # warm-up
        seconds = min(_timed(lambda a=a, b=b: a @ b) for _ in range(repeats))
        if (rate := 2.0 * rows * k * n / seconds / 1e9) > best:
            best, shape = rate, f"{rows}x{k} @ {k}x{n}"
    return best, shape


def _timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started
