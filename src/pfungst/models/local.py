"""What the in-process backends (llama.cpp, transformers) share: the token boundary, scoring, and generation.

A local backend only says how to tokenize, how to score token sequences and how to get next-token logits; this
module turns those into the protocol's three calls, so both backends split, count and generate alike.

Token boundary (as lm-evaluation-harness's ``_encode_pair``): trailing whitespace of the context moves to the
front of the continuation; then ``context + continuation`` is tokenized as one string, and the continuation is
every token after those it shares with the tokenization of ``context`` alone, so the sequence scored is exactly the
tokenization of the whole text. Where no token spans the boundary (the usual case: ``"Answer:"`` + ``" B"``) this
is lm-evaluation-harness's split at the context's token count; where one does (``" x"`` + ``"y"`` -> ``" xy"``), the
spanning token counts as the continuation's, where lm-evaluation-harness would score a truncated continuation. An
empty context is replaced by the model's beginning-of-sequence token (or its end-of-sequence token when it has
none), so that the first continuation token is conditioned on something.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pfungst.models.packing import Scoring
from pfungst.models.protocol import Capability
from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
)

__all__ = ["EvaluationStats", "LocalModel", "Score", "generate_tokens", "split_tokens"]


@dataclass
class EvaluationStats:
    """What a local model has evaluated so far (compare with the minimum a batch needs)."""

    tokens_evaluated: int = 0
    """Tokens fed through the network (a forward pass over each); tokens reused from the KV cache are not counted."""
    calls: int = 0
    """Evaluation calls (a llama.cpp decode call, a transformers forward pass), each over one or more new tokens."""
    sequences: int = 0
    """Token sequences scored or generated from (one per continuation, candidate or prompt)."""


class Score(NamedTuple):
    """A scored continuation: the sum of its tokens' log-probabilities, and whether each was the argmax."""

    logprob: float
    greedy: bool


def split_tokens(
    tokenize: Callable[[str], Sequence[int]], prefix_token: int, context: str, continuation: str
) -> Scoring:
    """Tokens of ``context + continuation`` and where the continuation starts (see the module docstring).

    Example:
        >>> split_tokens(list, 0, "ab ", "c")  # one token per character
        Scoring(tokens=('a', 'b', ' ', 'c'), start=2)
    """
    stripped = context.rstrip()
    continuation, context = context[len(stripped) :] + continuation, stripped
    whole, alone = list(tokenize(context + continuation)), list(tokenize(context))
    start = next((i for i, (a, b) in enumerate(zip(whole, alone, strict=False)) if a != b), min(len(whole), len(alone)))
    if start == 0:
        return Scoring((prefix_token, *whole), 1)
    return Scoring(tuple(whole), start)


def generate_tokens(
    request: GenerateRequest,
    budget: int,
    next_logits: Callable[[Sequence[int]], np.ndarray],
    is_end: Callable[[int], bool],
    text_of: Callable[[Sequence[int]], str],
) -> Generation:
    """Generate up to ``budget`` tokens: greedy or seeded Gumbel-max, cut at an end token or a stop string.

    Args:
        request: Prompt, ``max_tokens``, stop strings, temperature and seed.
        budget: Most tokens to generate (``max_tokens`` or what the context window leaves).
        next_logits: Next-token logits (float64) after the prompt and the tokens generated so far.
        is_end: Whether a token ends generation (end of sequence or of turn).
        text_of: The text of the tokens generated so far.

    Returns:
        ``finish_reason="stop"`` at an end token or a stop string (the stop string is not part of the text),
        else ``"length"``.
    """
    rng = np.random.default_rng(request.seed)
    generated: list[int] = []
    text = ""
    for _ in range(budget):
        token = request.choose_token(next_logits(generated), rng)
        if is_end(token):
            return Generation(text=text, finish_reason="stop")
        generated.append(token)
        text = text_of(generated)
        cut = request.stop_position(text)
        if cut is not None:
            return Generation(text=text[:cut], finish_reason="stop")
    return Generation(text=text, finish_reason="length")


class LocalModel:
    """The scoring half of an in-process backend, given its tokenizer and a batch scorer.

    Subclasses set ``self._lock`` and ``self.stats``, and define :meth:`tokenize`, :meth:`_prefix_token` and
    :meth:`_score_all`; requests are scored as :func:`split_tokens` cuts them.
    """

    _lock: threading.RLock
    stats: EvaluationStats

    @property
    def capabilities(self) -> frozenset[Capability]:
        """All three calls."""
        return frozenset({"loglikelihood", "next_token", "generate"})

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as this backend feeds it."""
        raise NotImplementedError

    def _prefix_token(self) -> int:
        raise NotImplementedError

    def _score_all(self, scorings: Sequence[Scoring], groups: Sequence[str]) -> list[Score]:
        """Scores in the order given; ``groups[i]`` is scoring ``i``'s context (scorings that may share a row)."""
        raise NotImplementedError

    def _split(self, context: str, continuation: str) -> Scoring:
        return split_tokens(self.tokenize, self._prefix_token(), context, continuation)

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[Loglikelihood]:
        """Log-probability of each continuation given its context; shared contexts are evaluated once.

        Raises:
            RequestFailed: A context plus continuation does not fit the model, or the evaluation failed.
        """
        with self._lock:
            scorings = [self._split(request.context, request.continuation) for request in requests]
            scores = self._score_all(scorings, [request.context.rstrip() for request in requests])
        return [
            Loglikelihood(
                logprob=score.logprob,
                n_tokens=len(scoring.tokens) - scoring.start,
                n_bytes=len(request.continuation.encode("utf-8")),
                greedy=score.greedy,
            )
            for request, scoring, score in zip(requests, scorings, scores, strict=True)
        ]

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        """Log-probability of each candidate's whole token sequence right after the context.

        A single-token candidate costs nothing beyond the context's forward pass; a candidate is scored exactly as
        ``loglikelihood(LoglikelihoodRequest(context, candidate))``.

        Raises:
            RequestFailed: A context plus candidate does not fit the model, or the evaluation failed.
        """
        with self._lock:
            pairs = [(r.context, candidate) for r in requests for candidate in r.candidates]
            scorings = [self._split(context, candidate) for context, candidate in pairs]
            flat = iter(self._score_all(scorings, [context.rstrip() for context, _ in pairs]))
            return [NextTokenLogprobs(tuple(next(flat).logprob for _ in r.candidates)) for r in requests]
