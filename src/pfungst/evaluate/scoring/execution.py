"""Send requests to a model: :func:`answer_requests` is the one place that dispatches each kind of request to the
model method that answers it (the engine, :mod:`pfungst.evaluate.engine`, asks every run's questions through it).

:func:`score` is the engine's smallest use: one rule over prompts already rendered, no cache and no progress, for
the Python API's simple calls and tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from pfungst.errors import ConfigError, ResponseInvalid
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import RenderedPrompt
from pfungst.evaluate.scoring.base import Decision, ScoringRule
from pfungst.models.protocol import LanguageModel
from pfungst.models.requests import LoglikelihoodRequest, NextTokenRequest, Request, Result

__all__ = ["answer_requests", "score"]


def answer_requests(model: LanguageModel, requests: Sequence[Request]) -> dict[Request, Result]:
    """Each distinct request's result, asking the model one batch per request kind.

    Raises:
        ConfigError: the model lacks a capability the requests need.
        ResponseInvalid: the model answered a batch with the wrong number of results.
    """
    by_kind: dict[type, list[Request]] = {}
    for request in dict.fromkeys(requests):
        by_kind.setdefault(type(request), []).append(request)
    answers: dict[Request, Result] = {}
    for kind, batch in by_kind.items():
        capability = batch[0].capability
        if capability not in model.capabilities:
            raise ConfigError(
                f"the model cannot serve {capability} requests (it offers "
                f"{sorted(model.capabilities)}); choose a scoring rule it supports"
            )
        results: Sequence[Result]
        if kind is LoglikelihoodRequest:
            results = model.loglikelihood(batch)  # type: ignore[arg-type]
        elif kind is NextTokenRequest:
            results = model.next_token_logprobs(batch)  # type: ignore[arg-type]
        else:
            results = model.generate(batch)  # type: ignore[arg-type]
        if len(results) != len(batch):
            raise ResponseInvalid(f"the model answered {len(results)} of {len(batch)} {capability} requests")
        answers.update(zip(batch, results, strict=True))
    return answers


def score(
    model: LanguageModel, rule: ScoringRule, prompts: Sequence[tuple[ArrangedItem, RenderedPrompt]]
) -> list[Decision]:
    """One decision per (arranged item, rendered prompt), in order.

    Example:
        >>> import types
        >>> from pfungst.data.item import Item
        >>> from pfungst.models.requests import NextTokenLogprobs
        >>> from pfungst.evaluate.formats import get_format
        >>> from pfungst.evaluate.scoring.letter import LetterRule
        >>> model = types.SimpleNamespace(capabilities=frozenset({"next_token"}),
        ...     next_token_logprobs=lambda batch: [NextTokenLogprobs((-5.0, -3.0, -4.0, -0.1))] * len(batch))
        >>> arranged = ArrangedItem(Item(id="q", text="2 + 2 =", options=("4", "5"), gold=0), (1, 0))
        >>> [d.original for d in score(model, LetterRule(), [(arranged, get_format("mmlu").render(arranged))])]
        [0]
    """
    plans = [rule.requests(arranged, rendered) for arranged, rendered in prompts]
    answers = answer_requests(model, [request for plan in plans for request in plan])
    return [
        rule.decide(arranged, rendered, [answers[request] for request in plan])
        for (arranged, rendered), plan in zip(prompts, plans, strict=True)
    ]
