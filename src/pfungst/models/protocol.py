"""The one protocol every backend satisfies: batched log-likelihoods, next-token log-probabilities, generation.

Backends translate these calls to their engine and nothing else; caching, de-duplication, retries and progress
live in one wrapper (:mod:`pfungst.models.cache`), as httpx's ``Client`` wraps a transport.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
)

__all__ = ["Capability", "LanguageModel"]

Capability = Literal["loglikelihood", "next_token", "generate"]


@runtime_checkable
class LanguageModel(Protocol):
    """A language model seen through three batched calls; results come back in request order."""

    @property
    def fingerprint(self) -> str:
        """Identifies the exact model (file path, size and hash; or server model id and base URL): the cache key."""
        ...

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Which of the three calls this backend can serve (a server without echo log-probs has no loglikelihood)."""
        ...

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[Loglikelihood]:
        """Log-probability of each continuation given its context."""
        ...

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        """Log-probability of each candidate as the text right after the context."""
        ...

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        """Generated text for each prompt."""
        ...
