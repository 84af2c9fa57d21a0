"""A scripted fake LanguageModel for pure-logic tests (cache, contract): one token per character, fixed scores."""

from __future__ import annotations

from collections.abc import Sequence

from pfungst.models.protocol import Capability
from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
)

__all__ = ["ScriptedModel"]


def _char_logprob(context: str, char: str) -> float:
    """A deterministic, strictly negative score that depends on the context and the character."""
    return -0.1 * (1 + (len(context) * 31 + ord(char)) % 13)


class ScriptedModel:
    """Answers every request from a fixed formula and records each call it receives.

    Attributes:
        calls: ``(method, requests)`` for every call, in order.
    """

    def __init__(self, fingerprint: str = "scripted:v1") -> None:
        self._fingerprint = fingerprint
        self.calls: list[tuple[str, list[object]]] = []

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @property
    def capabilities(self) -> frozenset[Capability]:
        return frozenset({"loglikelihood", "next_token", "generate"})

    def _logprob(self, context: str, continuation: str) -> float:
        return sum(_char_logprob(context + continuation[:i], c) for i, c in enumerate(continuation))

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[Loglikelihood]:
        self.calls.append(("loglikelihood", list(requests)))
        return [
            Loglikelihood(
                logprob=self._logprob(r.context, r.continuation),
                n_tokens=len(r.continuation),
                n_bytes=len(r.continuation.encode("utf-8")),
                greedy=False,
            )
            for r in requests
        ]

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        self.calls.append(("next_token", list(requests)))
        return [NextTokenLogprobs(tuple(self._logprob(r.context, c) for c in r.candidates)) for r in requests]

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        self.calls.append(("generate", list(requests)))
        results = []
        for r in requests:
            shift = len(r.prompt) + (r.seed if r.temperature > 0 else 0)
            text = "".join("abc"[(shift + i) % 3] for i in range(r.max_tokens))
            cuts = [text.find(s) for s in r.stop if s and s in text]
            if cuts:
                results.append(Generation(text[: min(cuts)], "stop"))
            else:
                results.append(Generation(text, "length"))
        return results

    @property
    def requests_seen(self) -> int:
        """How many requests reached this model, over all calls."""
        return sum(len(batch) for _, batch in self.calls)
