"""Cloze scoring: the log-likelihood of each option's text as the continuation of the prompt.

The context is the prompt *without* the options (``RenderedPrompt.cloze_context``), as in lm-evaluation-harness's
``multiple_choice`` tasks (ARC: ``"Question: ...\\nAnswer:"``), and the continuation is ``" " + option`` (no space
when the context ends in whitespace, e.g. after a chat template's ``"assistant\\n"``). ``with_options=True`` scores
after the full multiple-choice prompt instead. Normalisations:

* ``raw`` (``cloze-raw``): the summed log-probability; lm-eval's ``acc``. Favours short options.
* ``token`` (``cloze-token``): divided by the number of continuation tokens; depends on the tokenizer.
* ``byte`` (``cloze-byte``): divided by the UTF-8 length in bytes of the option text (without the leading space);
  lm-eval's ``acc_bytes``, and its ``acc_norm`` (which divides by ``len(choice)`` in characters, ``api/task.py``
  ``ConfigurableTask.process_results``) wherever options are ASCII.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from pfungst.errors import ConfigError, ResponseInvalid
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import RenderedPrompt
from pfungst.evaluate.scoring.base import Decision, check_rendered, check_results
from pfungst.models.requests import Loglikelihood, LoglikelihoodRequest, Request, Result

__all__ = [
    "ClozeByteRule",
    "ClozeRawRule",
    "ClozeRule",
    "ClozeTokenRule",
    "Normalization",
    "continuation",
    "option_requests",
]

Normalization = Literal["raw", "token", "byte"]


def continuation(context: str, option: str) -> str:
    """The string scored after ``context``: ``" " + option``, without the space after whitespace or nothing."""
    return option if not context or context[-1].isspace() else " " + option


def option_requests(arranged: ArrangedItem, context: str) -> tuple[LoglikelihoodRequest, ...]:
    """One log-likelihood request per arranged option after ``context``.

    Raises:
        ConfigError: an option is empty (there is no text to score).
    """
    if any(not option for option in arranged.options):
        raise ConfigError(f"item '{arranged.item.id}' has an empty option; cloze scoring needs option text")
    return tuple(LoglikelihoodRequest(context, continuation(context, option)) for option in arranged.options)


@dataclass(frozen=True)
class ClozeRule:
    """Choose the option whose text the model finds most likely after the prompt."""

    normalization: Normalization = "raw"
    """``raw``, ``token`` or ``byte`` (see the module documentation)."""
    with_options: bool = False
    """Score after the full prompt with the options listed, instead of after the prompt without them."""

    def __post_init__(self) -> None:
        if self.normalization not in get_args(Normalization):
            raise ConfigError(f"normalization {self.normalization!r} is not one of {list(get_args(Normalization))}")

    @property
    def name(self) -> str:
        """``cloze-raw``, ``cloze-token`` or ``cloze-byte``."""
        return f"cloze-{self.normalization}"

    def context(self, rendered: RenderedPrompt) -> str:
        """The text the options are scored after."""
        return rendered.text if self.with_options else rendered.cloze_context

    def requests(self, arranged: ArrangedItem, rendered: RenderedPrompt) -> tuple[Request, ...]:
        """One log-likelihood request per option, in arranged order."""
        check_rendered(arranged, rendered)
        return option_requests(arranged, self.context(rendered))

    def decide(self, arranged: ArrangedItem, rendered: RenderedPrompt, results: Sequence[Result]) -> Decision:
        """The normalised log-likelihoods; the highest wins.

        Raises:
            ResponseInvalid: a result reports no tokens for per-token normalisation.
        """
        answers = check_results(results, Loglikelihood, arranged.n_options, self.name)
        scores = [self._normalize(answer, option) for answer, option in zip(answers, arranged.options, strict=True)]
        return Decision.from_scores(arranged, scores)

    def _normalize(self, answer: Loglikelihood, option: str) -> float:
        if self.normalization == "token":
            if answer.n_tokens < 1:
                raise ResponseInvalid(f"a log-likelihood result for {option!r} reports {answer.n_tokens} tokens")
            return answer.logprob / answer.n_tokens
        if self.normalization == "byte":
            return answer.logprob / len(option.encode("utf-8"))
        return answer.logprob


@dataclass(frozen=True)
class ClozeRawRule(ClozeRule):
    """Cloze scoring by the summed log-probability (``cloze-raw``)."""

    normalization: Normalization = "raw"


@dataclass(frozen=True)
class ClozeTokenRule(ClozeRule):
    """Cloze scoring by the mean log-probability per token (``cloze-token``)."""

    normalization: Normalization = "token"


@dataclass(frozen=True)
class ClozeByteRule(ClozeRule):
    """Cloze scoring by the log-probability per UTF-8 byte of the option (``cloze-byte``, lm-eval's acc_bytes)."""

    normalization: Normalization = "byte"
