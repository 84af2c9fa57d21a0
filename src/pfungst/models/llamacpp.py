"""GGUF models in-process through llama-cpp-python, each shared prefix evaluated once.

Scorings are decoded in lexicographic order of their tokens, each context's together
(:mod:`~pfungst.models.trie_chunks`, :mod:`~pfungst.models.llamacpp_trie`), with logits only where a continuation
token is predicted. The prefix that a scoring shares with the one before (its item's context, an instruction,
few-shot examples) stays in the key-value cache and is evaluated once.

Numerical identity: llama.cpp's CPU kernels give different logits (by up to about one nat for SmolLM2 Q4_1) when a
decode call holds a single token than when it holds two or more, while every split of a sequence into calls of two
or more tokens gives bit-identical logits to one call over the whole sequence. The backend therefore never decodes a
lone token after a prefix: it re-evaluates the previous token with it. Where a sequence's cells lie among other
sequences' cells does change its attention sums, so with the stored (quantized) weights each continuation is decoded
in a call of its own, right after its context's cells, exactly as if it were alone: a result does not depend on batch
order, on other requests, on what was evaluated before, or on a run having been interrupted and resumed, and it
equals evaluating the whole text at once, as lm-evaluation-harness does. Decoding a context's continuations together
as one prefix trie instead (each shared token once, one call) moved 58 of 400 SmolLM2 Q4_1 cloze scores of 100
ARC-Easy items, by up to 0.46 nat (no choice changed; ``benchmarks/llamacpp_prefix_trie.py``), so the stored weights
do not. Converted float weights
(``weights="f16"`` or ``"f32"``) do (``prefix_trie=None``): there a context's continuations share one call, and a
continuation decoded beside its siblings differs from it decoded alone by rounding (up to 0.015 nat in the same
measurement). ``prefix_trie=True`` asks for the shared call with the stored weights too, ``prefix_trie=False`` for one
call per continuation with float weights; the fingerprint then says so (``+trie``, ``+no-trie``).

All of this was measured on SmolLM2's Q4_1 file, whose kernels compute each token alike whatever the call holds (two
tokens or more). Weight types that llama.cpp's CPU backend repacks into other kernels (Gemma-3-270m's Q4_K_M) do not:
there an option scored alone differs from it scored after its siblings, and from the whole text evaluated at once, by
up to 0.054 nat on one ARC-style question; loading the model without the repacked buffers (llama.cpp's
``use_extra_bufts=False``, which llama-cpp-python's ``Llama`` does not expose) made alone and after-siblings identical.

The token boundary of a continuation, the scoring calls and the generation loop are shared with the transformers
backend (:mod:`pfungst.models.local`). Prompts are tokenized with special tokens parsed (as the llama.cpp server
does), so chat-template markers such as ``<|im_start|>`` become special tokens.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pfungst.errors import BackendUnavailable, ContextOverflow, MissingDependency, RequestFailed
from pfungst.models.gguf_weights import check_weights, converted_copy
from pfungst.models.llamacpp_trie import TrieContext
from pfungst.models.local import EvaluationStats, LocalModel, Score, generate_tokens
from pfungst.models.packing import Scoring
from pfungst.models.requests import GenerateRequest, Generation
from pfungst.models.threads import choose_threads
from pfungst.models.trie_chunks import plan_chunks

__all__ = ["EvaluationStats", "LlamaCppModel", "file_fingerprint", "trie_by_default"]

INSTALL_HINT = (
    "The 'llamacpp' backend (and the embedded default model) needs the llama extra: pip install 'pfungst[llama]' "
    "(llama-cpp-python compiles: about 9 minutes on 2 cores)"
)
_GGUF_MAGIC = b"GGUF"
_HASH_BLOCK = 1 << 20
_HASHES: dict[tuple[str, int, int], str] = {}
_HASHES_LOCK = threading.Lock()
_OWN_CONTEXT = 64
"""Tokens of the ``Llama`` object's own context, which only loads the model and tokenizes (scoring and generation
use a :class:`~pfungst.models.llamacpp_trie.TrieContext`)."""
_SEQUENCES = 64
"""Sequences a decode call holds with float weights: the resident prefix and up to 63 continuations of one context
(with the stored weights: the resident prefix and one continuation; see the module docstring)."""


def trie_by_default(weights: str) -> bool:
    """Whether a model computing with ``weights`` decodes a context's continuations in one call unless told: with
    converted float weights only (see the module docstring)."""
    return weights != "stored"


def file_fingerprint(path: str | Path, weights: str = "stored", prefix_trie: bool | None = None) -> str:
    """Identify a model file by name, size and the SHA-256 of the whole file: ``llamacpp:<name>:<size>:<sha256>``,
    with ``@<weights>`` after the name when it is computed with converted weights (:mod:`~pfungst.models.gguf_weights`)
    and ``+trie`` (or ``+no-trie``) when a context's continuations are decoded in one call (or each alone) against
    the weight type's default (:func:`trie_by_default`; other scores, see the module docstring). ``prefix_trie=None``
    is the default.

    Never by its path: the fingerprint is the cache key's model part and is recorded in every result and report, which
    must not carry a local folder (a user name, a home directory). The same file anywhere is the same model. The hash
    is computed once per (resolved path, modification time, size) in a process (about 1 s per GB).

    Raises:
        BackendUnavailable: The file cannot be read.
    """
    resolved = Path(path).resolve()
    size, digest = _file_sha256(resolved)
    tag = "" if weights == "stored" else f"@{weights}"
    if prefix_trie is not None and prefix_trie != trie_by_default(weights):
        tag += "+trie" if prefix_trie else "+no-trie"
    return f"llamacpp:{resolved.name}{tag}:{size}:{digest}"


def _file_sha256(path: Path) -> tuple[int, str]:
    """The size and SHA-256 of a model file, hashed once per (resolved path, modification time, size) in a process.

    Raises:
        BackendUnavailable: The file cannot be read.
    """
    resolved = path.resolve()
    try:
        stat = resolved.stat()
        key = (str(resolved), stat.st_mtime_ns, stat.st_size)
        with _HASHES_LOCK:
            digest = _HASHES.get(key)
            if digest is None:
                digest = _sha256(resolved)
                _HASHES[key] = digest
    except OSError as exc:
        raise BackendUnavailable(f"Cannot read the model file {resolved}: {exc}") from exc
    return stat.st_size, digest


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _check_gguf(path: Path) -> None:
    """Fail early, naming the path, on a missing file or one that is not GGUF."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(_GGUF_MAGIC))
    except OSError as exc:
        raise BackendUnavailable(f"Cannot open the model file {path}: {exc.strerror or exc}") from exc
    if magic != _GGUF_MAGIC:
        raise BackendUnavailable(
            f"{path} is not a GGUF model file (it starts with {magic!r}, not {_GGUF_MAGIC!r}). "
            "Convert it with llama.cpp's convert_hf_to_gguf.py, or pass a .gguf file."
        )


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise MissingDependency(INSTALL_HINT) from exc
    return llama_cpp


class LlamaCppModel(LocalModel):
    """A GGUF model evaluated in-process by llama.cpp; satisfies :class:`~pfungst.models.protocol.LanguageModel`.

    Args:
        path: A GGUF model file.
        n_ctx: Context window in tokens; a sequence longer than this fails with :class:`RequestFailed`.
        n_threads: CPU threads for every evaluation; ``None`` chooses from the free cores (the cores less the
            other tasks running when it loads, at least 1; :func:`~pfungst.models.threads.choose_threads`) and says
            so on stderr.
        seed: llama.cpp's own seed (sampled generation uses each request's ``seed`` instead).
        n_batch: Most tokens per llama.cpp decode call (a longer trie is fed in several calls).
        weights: ``stored`` computes with the file's own weight types; ``f16`` or ``f32`` with a converted copy,
            written once into a cache folder (:mod:`~pfungst.models.gguf_weights`): faster where llama.cpp's CPU
            backend has no batched kernel for the stored type (Q4_1), at 2x or 4x the size of a 4-bit file.
        prefix_trie: Decode the continuations of one context together, as a prefix trie in one call (faster; scores
            then differ from evaluating each text alone by llama.cpp's rounding, see the module docstring); ``None``
            does so with float weights only.

    Raises:
        BackendUnavailable: The file is missing, is not GGUF, or llama.cpp cannot load or convert it.
        ConfigError: ``weights`` is not one of ``stored``, ``f16``, ``f32``.
        MissingDependency: llama-cpp-python is not installed.

    Attributes:
        stats: Tokens and calls evaluated so far (:class:`EvaluationStats`).
        weights_path: The file llama.cpp loads: ``path``, or its converted copy.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 0,
        n_batch: int = 512,
        weights: str = "stored",
        prefix_trie: bool | None = None,
    ) -> None:
        self.path = Path(path).expanduser()
        self.weights = check_weights(weights)
        _check_gguf(self.path)
        llama_cpp = _import_llama_cpp()
        if n_threads is None:
            choice = choose_threads()
            n_threads = choice.threads
            print(f"llama.cpp: {choice.describe('--threads N (n_threads=N)')}", file=sys.stderr)
        self._fingerprint: str | None = None
        source = self.path
        if weights != "stored":
            source = converted_copy(llama_cpp, self.path, _file_sha256(self.path)[1], weights, n_threads)
        self.weights_path = source
        self.stats = EvaluationStats()
        try:
            self._llama = llama_cpp.Llama(
                model_path=str(source),
                n_ctx=_OWN_CONTEXT,
                n_batch=_OWN_CONTEXT,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise BackendUnavailable(f"llama.cpp could not load {self.path}: {exc}") from exc
        n_batch = min(n_batch, n_ctx)
        self.prefix_trie = trie_by_default(weights) if prefix_trie is None else prefix_trie
        sequences = 2  # the resident prefix and one continuation: exact (see the module docstring)
        if self.prefix_trie:
            sequences = min(_SEQUENCES, int(llama_cpp.llama_max_parallel_sequences()), n_batch)
        self._trie = TrieContext(
            llama_cpp, self._llama, n_ctx=n_ctx, n_batch=n_batch, sequences=sequences, stats=self.stats
        )
        self._llama_cpp = llama_cpp
        self.n_ctx = n_ctx
        self.n_batch = n_batch
        self.n_threads = n_threads
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        weights = "" if self.weights == "stored" else f", weights={self.weights!r}"
        trie = "" if self.prefix_trie == trie_by_default(self.weights) else f", prefix_trie={self.prefix_trie}"
        return f"LlamaCppModel({str(self.path)!r}, n_ctx={self.n_ctx}{weights}{trie})"

    @property
    def fingerprint(self) -> str:
        """``llamacpp:<name>[@<weights>]:<size>:<sha256>`` of the model file (:func:`file_fingerprint`)."""
        if self._fingerprint is None:
            self._fingerprint = file_fingerprint(self.path, self.weights, self.prefix_trie)
        return self._fingerprint

    def close(self) -> None:
        """Free llama.cpp's contexts and model."""
        self._trie.close()
        self._llama.close()

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as this backend feeds it (beginning-of-sequence token if the model adds one).

        Raises:
            RequestFailed: llama.cpp cannot tokenize it (longer than the model's training context).
        """
        try:
            return list(self._llama.tokenize(text.encode("utf-8"), add_bos=True, special=True))
        except RuntimeError as exc:
            raise RequestFailed(f"llama.cpp could not tokenize a text of {len(text)} characters: {exc}") from exc

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        """Greedy (``temperature == 0``) or seeded Gumbel-max sampled continuation of each prompt.

        Generation stops at an end-of-generation token or a stop string (``finish_reason="stop"``; the stop string
        is not part of the text) or after ``max_tokens`` tokens or at the context window (``"length"``).

        Raises:
            RequestFailed: A prompt does not fit in ``n_ctx`` tokens, or llama.cpp failed.
        """
        with self._lock:
            prompts = [self._prompt_tokens(request.prompt) for request in requests]
            results: dict[int, Generation] = {}
            for index in sorted(range(len(requests)), key=lambda i: prompts[i]):
                results[index] = self._generate_one(requests[index], prompts[index])
        return [results[index] for index in range(len(requests))]

    # -- tokenization ---------------------------------------------------------------------------------------------

    def _prefix_token(self) -> int:
        bos = int(self._llama.token_bos())
        return bos if bos >= 0 else int(self._llama.token_eos())

    def _prompt_tokens(self, text: str) -> tuple[int, ...]:
        tokens = self.tokenize(text)
        return tuple(tokens) if tokens else (self._prefix_token(),)

    # -- evaluation -----------------------------------------------------------------------------------------------

    def _check_fits(self, tokens: Sequence[int]) -> None:
        if len(tokens) > self.n_ctx:
            raise ContextOverflow(
                f"A sequence of {len(tokens)} tokens does not fit the context window of {self.n_ctx} tokens; "
                "load the model with a larger n_ctx or shorten the prompt."
            )

    def _score_all(self, scorings: Sequence[Scoring], groups: Sequence[str]) -> list[Score]:
        """Score each group's scorings (``groups[i]`` is scoring ``i``'s context) as one trie; answer in the given
        order."""
        for tokens, _ in scorings:
            self._check_fits(tokens[:-1])
        self.stats.sequences += len(scorings)
        results = {index: Score(0.0, True) for index, (tokens, start) in enumerate(scorings) if start >= len(tokens)}
        chunks = plan_chunks(scorings, groups, max_cells=self.n_ctx, max_sequences=self._trie.sequences - 1)
        for chunk in chunks:
            results.update(self._trie.score(scorings, chunk))
        return [results[index] for index in range(len(scorings))]

    # -- generation -----------------------------------------------------------------------------------------------

    def _is_end_of_generation(self, token: int) -> bool:
        model = getattr(self._llama, "_model", None)
        if model is not None and hasattr(self._llama_cpp, "llama_vocab_is_eog"):
            return bool(self._llama_cpp.llama_vocab_is_eog(model.vocab, token))
        return token == self._llama.token_eos()

    def _detokenize(self, tokens: Sequence[int], prompt: tuple[int, ...]) -> str:
        return bytes(self._llama.detokenize(list(tokens), prev_tokens=list(prompt))).decode("utf-8", errors="replace")

    def _generate_one(self, request: GenerateRequest, prompt: tuple[int, ...]) -> Generation:
        self.stats.sequences += 1
        if len(prompt) >= self.n_ctx:
            raise ContextOverflow(
                f"A prompt of {len(prompt)} tokens leaves no room to generate in the context window of "
                f"{self.n_ctx} tokens; load the model with a larger n_ctx or shorten the prompt."
            )

        def next_logits(generated: Sequence[int]) -> np.ndarray:
            return self._trie.next_logits(prompt + tuple(generated))

        return generate_tokens(
            request,
            min(request.max_tokens, self.n_ctx - len(prompt)),
            next_logits,
            self._is_end_of_generation,
            lambda generated: self._detokenize(generated, prompt),
        )
