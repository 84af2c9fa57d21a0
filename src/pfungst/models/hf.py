"""Transformers causal language models from a local folder, with each context computed once per batch.

Prefix sharing by packing (:mod:`pfungst.models.packing`): the requests that share a context string form one row,
the prefix trie of their tokens, fed in one forward pass with a tree attention mask and depth position ids, so each
continuation sees exactly ``context + continuation`` while the context (and any leading tokens that options share)
is evaluated once. Short tries merge into rows up to the longest one's length (less padding); rows are left-padded
and batched ``batch_size`` at a time; only positions that predict a scored token are projected onto the vocabulary
(the trailing ones, ``logits_to_keep``, where the model transforms its logits after the projection). A prefix shared
by different context strings (few-shot examples) is evaluated once per row that holds them.

Some architectures ignore or rewrite custom 4D masks. At load, the backend scores a short probe both packed and as
plain forward passes; where they disagree it warns and scores every sequence in its own row with an ordinary padding
mask (correct, without prefix sharing). A sliding-window model (Gemma 2 and 3, Mistral) sees full attention in the
custom mask, which differs from its own only for sequences longer than its window.

Token boundary, scoring calls and generation loop as the llama.cpp backend (:mod:`pfungst.models.local`).
Special-token markers in the text (``<|im_start|>``) become special tokens.

Fingerprint: ``hf:<folder name>:<dtype>:<sha256>`` (the name, never the path), the hash over the full contents of
``config.json``, the generation config and the tokenizer files, and over the name, size and modification time of each
weight file
(weights are gigabytes; a checkpoint overwritten in place has the same size, so the time is part of the key).
"""

from __future__ import annotations

import hashlib
import inspect
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pfungst.errors import BackendUnavailable, ConfigError, ContextOverflow, MissingDependency, RequestFailed
from pfungst.models.local import EvaluationStats, LocalModel, Score, generate_tokens
from pfungst.models.packing import PackedBatch, PackedRow, Scoring, pack_batch, pack_row
from pfungst.models.requests import GenerateRequest, Generation

__all__ = ["HFEvaluationStats", "HFModel", "folder_fingerprint"]

INSTALL_HINT = "The 'hf' backend needs: pip install 'pfungst[hf]'"
DTYPES = ("float32", "bfloat16", "float16", "auto")
_CONTENT_FILES = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "merges.txt",
    "tokenizer.model",
    "vocab.txt",
)
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".index.json")
_PROBE = ("The quick brown fox", (" jumps over the lazy dog", " jumps high", " sleeps"))


@dataclass
class HFEvaluationStats(EvaluationStats):
    """What an :class:`HFModel` has evaluated so far; ``tokens_evaluated`` counts real tokens, not padding."""

    tokens_padded: int = 0
    """Padding positions fed alongside (rows of a batch are padded to the longest)."""


def folder_fingerprint(path: str | Path, dtype: str) -> str:
    """Identify a model folder and precision: ``hf:<folder name>:<dtype>:<sha256>`` (see the module docstring); the
    folder's name, never its path, which results and reports would carry.

    Raises:
        BackendUnavailable: A file of the folder cannot be read.
    """
    folder = Path(path).resolve()
    digest = hashlib.sha256()
    try:
        for file in sorted(folder.iterdir()):
            if file.name in _CONTENT_FILES:
                digest.update(f"{file.name}\0".encode() + hashlib.sha256(file.read_bytes()).digest())
            elif file.name.endswith(_WEIGHT_SUFFIXES):
                stat = file.stat()
                digest.update(f"{file.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    except OSError as exc:
        raise BackendUnavailable(f"Cannot read the model folder {folder}: {exc}") from exc
    return f"hf:{folder.name}:{dtype}:{digest.hexdigest()}"


def _import_backend() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise MissingDependency(INSTALL_HINT) from exc
    return torch, transformers


def _check_folder(path: Path) -> None:
    if not path.is_dir():
        raise BackendUnavailable(f"Cannot open the model folder {path}: it is not a folder.")
    if not (path / "config.json").is_file():
        raise BackendUnavailable(
            f"{path} is not a transformers model folder (it has no config.json). Save one "
            "with save_pretrained(), or pass a .gguf file to run it with llama.cpp."
        )


class HFModel(LocalModel):
    """A transformers causal LM from a local folder; satisfies :class:`~pfungst.models.protocol.LanguageModel`.

    Args:
        path: A folder written by ``save_pretrained`` (``config.json``, weights, tokenizer). Nothing is downloaded.
        batch_size: Rows per forward pass; a row is one or more contexts, each with all its continuations.
        dtype: ``float32`` (default; exact log-probabilities on a CPU), ``bfloat16``, ``float16`` or ``auto``
            (the folder's own).
        device: A torch device (``cpu``, ``cuda``, ``cuda:1``, ``mps``).
        max_length: Longest sequence in tokens; default the model's ``max_position_embeddings``.
        n_threads: If given, ``torch.set_num_threads(n_threads)``: process-wide, for every torch model.

    Raises:
        BackendUnavailable: The folder is missing, is not a model folder, or transformers cannot load it.
        ConfigError: ``batch_size`` or ``dtype`` is invalid.
        MissingDependency: torch or transformers is not installed.

    Attributes:
        stats: Tokens and calls evaluated so far (:class:`HFEvaluationStats`).
        prefix_sharing: Whether rows pack shared prefixes (``False`` after a failed probe; see the module docstring).
    """

    stats: HFEvaluationStats

    def __init__(
        self,
        path: str | Path,
        *,
        batch_size: int = 8,
        dtype: str = "float32",
        device: str = "cpu",
        max_length: int | None = None,
        n_threads: int | None = None,
    ) -> None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, not {batch_size!r}.")
        if dtype not in DTYPES:
            raise ConfigError(f"Unknown dtype {dtype!r}. Available: {', '.join(DTYPES)}")
        self.path = Path(path).expanduser()
        _check_folder(self.path)
        self._torch, transformers = _import_backend()
        if n_threads is not None:
            self._torch.set_num_threads(n_threads)
        self.batch_size, self.dtype, self.device = batch_size, dtype, device
        self._model, self._tokenizer = self._load(transformers)
        config = self._model.config
        self.max_length = max_length or int(getattr(config, "max_position_embeddings", 0) or 2048)
        accepted = inspect.signature(self._model.forward).parameters  # names differ across transformers versions
        self._keep_arg = next((n for n in ("logits_to_keep", "num_logits_to_keep") if n in accepted), None)
        self._cache_arg = "cache" if "cache" in accepted else "past_key_values"
        self._eog = {t for t in (self._tokenizer.eos_token_id, *_as_ids(config.eos_token_id)) if t is not None}
        self._eog |= set(_as_ids(getattr(self._model.generation_config, "eos_token_id", None)))
        self.stats = HFEvaluationStats()
        self._lock = threading.RLock()
        self._fingerprint: str | None = None
        self._head = self._split_head()
        self.prefix_sharing = True
        self.prefix_sharing = self._probe_prefix_sharing()
        self.stats = HFEvaluationStats()

    def __repr__(self) -> str:
        return f"HFModel({str(self.path)!r}, dtype={self.dtype!r}, device={self.device!r})"

    def _load(self, transformers: Any) -> tuple[Any, Any]:
        major, minor = (int(part) for part in transformers.__version__.split(".")[:2])
        dtype_arg = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
        load = {dtype_arg: self.dtype if self.dtype == "auto" else getattr(self._torch, self.dtype)}
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, local_files_only=True)
            model = transformers.AutoModelForCausalLM.from_pretrained(self.path, local_files_only=True, **load)
            model.to(self.device).eval()
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise BackendUnavailable(f"transformers could not load {self.path}: {exc}") from exc
        return model, tokenizer

    @property
    def fingerprint(self) -> str:
        """``hf:<folder name>:<dtype>:<sha256>`` (see :func:`folder_fingerprint`)."""
        if self._fingerprint is None:
            self._fingerprint = folder_fingerprint(self.path, self.dtype)
        return self._fingerprint

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as this backend feeds it (beginning-of-sequence token if the model adds one)."""
        return list(self._tokenizer.encode(text))

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        """Greedy (``temperature == 0``) or seeded Gumbel-max sampled continuation of each prompt, one at a time.

        Generation stops at an end-of-sequence token or a stop string (``finish_reason="stop"``; the stop string
        is not part of the text) or after ``max_tokens`` tokens or at ``max_length`` (``"length"``).

        Raises:
            RequestFailed: A prompt does not fit in ``max_length`` tokens, or the forward failed.
        """
        with self._lock:
            return [self._generate_one(request) for request in requests]

    # -- tokenization ---------------------------------------------------------------------------------------------

    def _prefix_token(self) -> int:
        bos = self._tokenizer.bos_token_id
        return int(bos if bos is not None else self._tokenizer.eos_token_id)

    # -- evaluation -----------------------------------------------------------------------------------------------

    def _score_all(self, scorings: Sequence[Scoring], groups: Sequence[str]) -> list[Score]:
        """Pack scorings into rows (one per context, or one per scoring without prefix sharing) and batch them."""
        results: list[Score] = [Score(0.0, True)] * len(scorings)
        self.stats.sequences += len(scorings)
        members: dict[Any, list[int]] = {}
        for index, scoring in enumerate(scorings):
            if len(scoring.tokens) > self.max_length:
                raise ContextOverflow(
                    f"A sequence of {len(scoring.tokens)} tokens does not fit the maximum length of "
                    f"{self.max_length} tokens; shorten the prompt."
                )
            if scoring.start < len(scoring.tokens):
                members.setdefault(groups[index] if self.prefix_sharing else index, []).append(index)
        rows = sorted((pack_row(group, scorings) for group in members.values()), key=lambda r: -len(r.tokens))
        rows = _merge_rows(rows, scorings) if self.prefix_sharing and rows else rows
        for first in range(0, len(rows), self.batch_size):
            for index, score in self._score_batch(rows[first : first + self.batch_size]).items():
                results[index] = score
        return results

    def _score_batch(self, rows: Sequence[PackedRow]) -> dict[int, Score]:
        torch = self._torch
        batch = pack_batch(rows, self._prefix_token())
        reads = torch.from_numpy(batch.reads).to(self.device)
        chosen = self._forward(batch, reads)  # float32 like lm-eval: log-softmax in double costs 5% of the time
        logprobs = (chosen.gather(1, reads[:, 2:3])[:, 0] - torch.logsumexp(chosen, dim=-1)).double().cpu().numpy()
        hits = (chosen.argmax(dim=-1) == reads[:, 2]).cpu().numpy()
        scores: dict[int, Score] = {}
        for owner, logprob, hit in zip(batch.reads[:, 3].tolist(), logprobs.tolist(), hits.tolist(), strict=True):
            total, greedy = scores.get(owner, Score(0.0, True))
            scores[owner] = Score(total + logprob, greedy and hit)
        return scores

    def _forward(self, batch: PackedBatch, reads: Any) -> Any:
        """Logits ``(len(reads), vocabulary)`` where a continuation token is predicted (see :meth:`_split_head`)."""
        torch = self._torch
        (rows, width), keep = batch.ids.shape, batch.keep
        if self.prefix_sharing:
            floor = torch.finfo(self._model.dtype).min
            blocked = torch.from_numpy(~batch.allowed[:, None])
            mask = torch.zeros(blocked.shape, dtype=self._model.dtype).masked_fill_(blocked, floor)
        else:  # every row is one sequence: an ordinary padding mask, the model applies causality itself
            mask = torch.from_numpy(np.arange(width)[None, :] >= width - batch.lengths[:, None]).long()
        inputs = {
            "input_ids": torch.from_numpy(batch.ids).to(self.device),
            "attention_mask": mask.to(self.device),
            "position_ids": torch.from_numpy(batch.positions).to(self.device),
            "use_cache": False,
        }
        try:
            with torch.inference_mode():
                if self._head is not None:
                    hidden = self._head[0](**inputs).last_hidden_state
                    logits = self._head[1](hidden[reads[:, 0], reads[:, 1] + (width - keep)])
                else:
                    options = {self._keep_arg: keep} if self._keep_arg else {}
                    logits = self._model(**inputs, **options).logits[:, -keep:][reads[:, 0], reads[:, 1]]
        except (RuntimeError, ValueError, IndexError) as exc:
            raise RequestFailed(f"The forward pass over {rows} rows of {width} tokens failed: {exc}") from exc
        self.stats.tokens_evaluated += int(batch.lengths.sum())
        self.stats.tokens_padded += rows * width - int(batch.lengths.sum())
        self.stats.calls += 1
        return logits

    def _split_head(self) -> tuple[Any, Any] | None:
        """The decoder and the vocabulary projection, if together they give the model's logits (no soft-capping)."""
        base, head = getattr(self._model, "base_model", None), self._model.get_output_embeddings()
        if base is None or base is self._model or head is None:
            return None
        ids = self._torch.tensor([self.tokenize("".join((_PROBE[0], _PROBE[1][0])))], device=self.device)
        try:
            with self._torch.inference_mode():
                split, whole = head(base(input_ids=ids).last_hidden_state), self._model(input_ids=ids).logits
        except (RuntimeError, ValueError, TypeError, AttributeError):
            return None
        tolerance = 1e-3 if self._model.dtype == self._torch.float32 else 0.1
        return (base, head) if split.shape == whole.shape and float((split - whole).abs().max()) <= tolerance else None

    def _probe_prefix_sharing(self) -> bool:
        """Whether packed rows give the plain forward pass's numbers on a probe (some models ignore 4D masks)."""
        context, continuations = _PROBE
        scorings = [self._split(context, continuation) for continuation in continuations]
        packed = [score for score, _ in self._score_all(scorings, [context] * len(scorings))]
        self.prefix_sharing = False
        plain = [self._score_all([scoring], [context])[0][0] for scoring in scorings]
        tolerance = 1e-3 if self._model.dtype == self._torch.float32 else 0.1
        if max(abs(a - b) for a, b in zip(packed, plain, strict=True)) <= tolerance:
            return True
        warnings.warn(
            f"{self.path}: the model does not honour custom attention masks ({packed} packed, {plain} plain); "
            "scoring every sequence separately (correct but slower, no prefix sharing).",
            RuntimeWarning,
            stacklevel=3,
        )
        return False

    # -- generation -----------------------------------------------------------------------------------------------

    def _generate_one(self, request: GenerateRequest) -> Generation:
        prompt = self.tokenize(request.prompt) or [self._prefix_token()]
        self.stats.sequences += 1
        if len(prompt) >= self.max_length:
            raise ContextOverflow(
                f"A prompt of {len(prompt)} tokens leaves no room to generate within the maximum length of "
                f"{self.max_length} tokens; shorten the prompt."
            )
        prompt_text = self._tokenizer.decode(prompt)
        past: list[Any] = [None]

        def next_logits(generated: Sequence[int]) -> np.ndarray:
            logits, past[0] = self._step(list(generated[-1:]) if generated else prompt, past[0])
            return logits

        def text_of(generated: Sequence[int]) -> str:
            full = self._tokenizer.decode(prompt + list(generated))
            return full[len(prompt_text) :] if full.startswith(prompt_text) else self._tokenizer.decode(generated)

        budget = min(request.max_tokens, self.max_length - len(prompt))
        return generate_tokens(request, budget, next_logits, self._eog.__contains__, text_of)

    def _step(self, feed: list[int], past: Any) -> tuple[np.ndarray, Any]:
        """Next-token logits (float64) after feeding ``feed`` on top of the cached ``past``."""
        torch = self._torch
        try:
            with torch.inference_mode():
                output = self._model(
                    input_ids=torch.tensor([feed], device=self.device), use_cache=True, **{self._cache_arg: past}
                )
        except (RuntimeError, ValueError, IndexError) as exc:
            raise RequestFailed(f"Generation failed after {len(feed)} tokens: {exc}") from exc
        self.stats.tokens_evaluated += len(feed)
        self.stats.calls += 1
        return output.logits[0, -1].double().cpu().numpy(), getattr(output, self._cache_arg)


def _merge_rows(rows: Sequence[PackedRow], scorings: Sequence[Scoring]) -> list[PackedRow]:
    """Rows (longest first) merged first-fit into tries of several contexts no longer than the longest row."""
    bins: list[tuple[list[int], list[int]]] = []  # ([tokens at most], scoring indices) per merged row
    for row in rows:
        target = next((b for b in bins[-64:] if b[0][0] + len(row.tokens) <= len(rows[0].tokens)), None)
        if target is None:
            bins.append(target := ([0], []))
        target[0][0] += len(row.tokens)
        target[1].extend(row.targets)
    return sorted((pack_row(members, scorings) for _, members in bins), key=lambda r: -len(r.tokens))


def _as_ids(value: Any) -> list[int]:
    """A config's token id field (an int, a list of ints or None) as a list."""
    return [] if value is None else [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]
