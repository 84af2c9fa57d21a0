"""What the engine asks a language model, and what it answers: frozen, hashable request and result records.

Requests are plain values so that the engine can sort, de-duplicate, share prefixes and cache them (STYLE rule 9);
each result answers the request at the same position of a batch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "GenerateRequest",
    "Generation",
    "Loglikelihood",
    "LoglikelihoodRequest",
    "NextTokenLogprobs",
    "NextTokenRequest",
    "Request",
    "Result",
]


@dataclass(frozen=True)
class LoglikelihoodRequest:
    """The log-probability of ``continuation`` right after ``context`` (cloze scoring, PMI)."""

    context: str
    continuation: str
    capability: ClassVar[str] = "loglikelihood"
    """The :attr:`LanguageModel.capabilities` entry a model needs to answer this kind of request."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "loglikelihood", **asdict(self)}


@dataclass(frozen=True)
class Loglikelihood:
    """Answer to a :class:`LoglikelihoodRequest`."""

    logprob: float
    """Sum of the natural-log probabilities of the continuation's tokens given the context."""
    n_tokens: int
    """Number of continuation tokens (for per-token normalisation)."""
    n_bytes: int
    """UTF-8 bytes of the continuation (for per-byte normalisation)."""
    greedy: bool
    """Whether every continuation token was the most likely token at its position."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class NextTokenRequest:
    """The log-probability of each candidate string as the next text after ``context`` (letter scoring).

    Candidates are usually option labels with and without a leading space (``"A"``, ``" A"``); a multi-token
    candidate is scored as the log-probability of its whole token sequence.
    """

    context: str
    candidates: tuple[str, ...]
    capability: ClassVar[str] = "next_token"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "next_token", "context": self.context, "candidates": list(self.candidates)}


@dataclass(frozen=True)
class NextTokenLogprobs:
    """Answer to a :class:`NextTokenRequest`: one natural-log probability per candidate, in order."""

    logprobs: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"logprobs": list(self.logprobs)}


@dataclass(frozen=True)
class GenerateRequest:
    """Greedy (``temperature=0``) or seeded sampled generation after ``prompt`` (generate-then-parse scoring)."""

    prompt: str
    max_tokens: int = 32
    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    seed: int = 0
    capability: ClassVar[str] = "generate"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "generate", **asdict(self), "stop": list(self.stop)}

    def choose_token(self, logits: np.ndarray, rng: np.random.Generator) -> int:
        """The next token: the argmax at temperature 0, else a Gumbel-max draw from ``softmax(logits / T)``.

        Every backend picks tokens this way, so a seeded sampled generation means the same thing everywhere.
        """
        if self.temperature <= 0:
            return int(np.argmax(logits))
        return int(np.argmax(logits / self.temperature + rng.gumbel(size=np.shape(logits))))

    def stop_position(self, text: str) -> int | None:
        """Where the earliest of ``stop`` starts in generated ``text`` (to cut it there), or None.

        Example:
            >>> GenerateRequest("Q:", stop=(".", "?")).stop_position("B. because?")
            1
        """
        found = [position for stop in self.stop if stop and (position := text.find(stop)) >= 0]
        return min(found) if found else None


@dataclass(frozen=True)
class Generation:
    """Answer to a :class:`GenerateRequest`."""

    text: str
    finish_reason: str
    """``stop`` (a stop string or end of sequence) or ``length`` (``max_tokens`` reached)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Request = LoglikelihoodRequest | NextTokenRequest | GenerateRequest
Result = Loglikelihood | NextTokenLogprobs | Generation
