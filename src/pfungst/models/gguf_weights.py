"""A GGUF model's weights in another type, for llama.cpp's faster CPU kernels: a copy written once and reused.

llama.cpp's CPU backend multiplies some quantised types (Q4_1, the embedded SmolLM2's) one dot product at a time,
while float16 and float32 weights go through batched matrix kernels: the same model then scores several times as many
tokens a second on the same cores (``benchmarks/llamacpp_kernels.py``). ``f32`` is the exact dequantisation of the
stored weights (the numbers transformers computes with after loading the GGUF); ``f16`` rounds each dequantised
weight to 11 significant bits, at half the size. Either changes the log-likelihoods slightly (they are those of the
dequantised model rather than of llama.cpp's integer kernels), so the model's fingerprint names the type.

The copy goes into ``$PFUNGST_MODELS`` (default ``$XDG_CACHE_HOME/pfungst/models`` or ``~/.cache/pfungst/models``),
named after the source file and its SHA-256, written to a temporary file and renamed: processes that convert the same
file at once each write their own and never read a partial one.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from pathlib import Path
from typing import Any

from pfungst.errors import BackendUnavailable, ConfigError
from pfungst.path_checks import create_beside

__all__ = ["WEIGHTS", "check_weights", "converted_copy", "weights_folder"]

WEIGHTS = {"stored": "", "f16": "LLAMA_FTYPE_MOSTLY_F16", "f32": "LLAMA_FTYPE_ALL_F32"}
"""Weight types a llama.cpp model can compute with, and llama.cpp's name for each (``stored``: the file as it is)."""


def check_weights(weights: str, name: str = "weights") -> str:
    """``weights`` if it names a type of :data:`WEIGHTS`; ``name`` is the setting, for the message.

    Raises:
        ConfigError: It does not, naming those that do.
    """
    if weights not in WEIGHTS:
        raise ConfigError(f"Unknown {name} {weights!r} for a llama.cpp model. Available: {', '.join(WEIGHTS)}")
    return weights


def weights_folder() -> Path:
    """Where converted copies live: ``$PFUNGST_MODELS``, else the user's cache folder (see the module docstring)."""
    configured = os.environ.get("PFUNGST_MODELS")
    if configured:
        return Path(configured).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pfungst" / "models"


def converted_copy(llama_cpp: Any, source: Path, sha256: str, weights: str, threads: int) -> Path:
    """The copy of ``source`` (whose SHA-256 is ``sha256``) with ``weights`` weights, written on first use.

    Raises:
        BackendUnavailable: The folder cannot be written or llama.cpp cannot convert the file.
    """
    folder = weights_folder()
    target = folder / f"{source.stem}.{sha256[:16]}.{weights}.gguf"
    if target.is_file():
        return target
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, WEIGHTS[weights])
    params.allow_requantize = True
    params.nthread = threads
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary, descriptor = create_beside(target)
        os.close(descriptor)
    except OSError as exc:
        raise BackendUnavailable(
            f"Cannot write the {weights} copy of {source.name} into {folder}: {exc.strerror or exc}. "
            "Set PFUNGST_MODELS to a writable folder, or load the model with weights='stored'."
        ) from exc
    try:
        with _quiet():
            status = llama_cpp.llama_model_quantize(str(source).encode(), str(temporary).encode(), ctypes.byref(params))
        if status != 0:
            raise BackendUnavailable(f"llama.cpp could not write {weights} weights of {source} (status {status}).")
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target


def _quiet() -> contextlib.AbstractContextManager[Any]:
    """Keep llama.cpp's per-tensor log of the conversion off stderr (as ``Llama(verbose=False)`` does for loading)."""
    try:
        from llama_cpp._utils import suppress_stdout_stderr
    except ImportError:
        return contextlib.nullcontext()
    return suppress_stdout_stderr(disable=False)
