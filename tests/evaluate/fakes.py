"""A scripted, deterministic LanguageModel for testing pure scoring logic (STYLE rule 35: fakes only for logic).

Log-probabilities come from small functions of the request (or fixed defaults), so a test states exactly which
option the "model" prefers; every batch is recorded so tests can check what was asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pfungst.models.protocol import Capability
from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
)

__all__ = ["ScriptedModel", "by_continuation"]

LoglikelihoodScript = Callable[[str, str], "float | tuple[float, int]"]


def by_continuation(scores: Mapping[str, float | tuple[float, int]], default: float = -50.0) -> LoglikelihoodScript:
    """A script that looks up the continuation (leading space stripped) whatever the context."""
    return lambda context, continuation: scores.get(continuation.lstrip(" "), default)


@dataclass
class ScriptedModel:
    """Answers from scripts: ``loglikelihood(context, continuation)`` gives a log-prob or ``(log-prob, n_tokens)``
    (n_tokens defaults to the number of words); ``next_token(context, candidate)`` a log-prob;
    ``generate(prompt)`` the text."""

    loglikelihood_script: LoglikelihoodScript = lambda context, continuation: -50.0
    next_token_script: Callable[[str, str], float] = lambda context, candidate: -50.0
    generate_script: Callable[[str], str] = lambda prompt: ""
    capabilities: frozenset[Capability] = frozenset({"loglikelihood", "next_token", "generate"})
    batches: list[tuple[str, list[object]]] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        return "scripted"

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[Loglikelihood]:
        self.batches.append(("loglikelihood", list(requests)))
        results = []
        for request in requests:
            scripted = self.loglikelihood_script(request.context, request.continuation)
            words = len(request.continuation.split())
            logprob, n_tokens = scripted if isinstance(scripted, tuple) else (scripted, words)
            results.append(Loglikelihood(logprob, n_tokens, len(request.continuation.encode()), False))
        return results

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        self.batches.append(("next_token", list(requests)))
        return [
            NextTokenLogprobs(tuple(self.next_token_script(request.context, c) for c in request.candidates))
            for request in requests
        ]

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        self.batches.append(("generate", list(requests)))
        return [Generation(self.generate_script(request.prompt), "stop") for request in requests]
