"""Letter scoring: the next-token probability of each option's label after the full multiple-choice prompt.

Each label is a candidate with and without a leading space (``"A"``, ``" A"``): after ``"Answer:"`` a model
writes ``" A"``, after a chat template's ``"assistant\\n"`` it writes ``"A"``. The two are different token
sequences, so their probabilities add (log-sum-exp) to the option's score. Candidates are whole strings, so a label
that is several tokens (``"III"``, a custom ``"yes"``) is scored as its full token sequence. One limitation: when
one label is a string prefix of another (``"I"`` and ``"II"``, ``"1"`` and ``"10"``) and the tokenizer splits the
longer one, the shorter label's probability includes the longer one's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pfungst.errors import ResponseInvalid
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import RenderedPrompt
from pfungst.evaluate.scoring.base import Decision, check_rendered, check_results
from pfungst.models.requests import NextTokenLogprobs, NextTokenRequest, Request, Result

__all__ = ["LetterRule", "label_candidates"]


def label_candidates(labels: Sequence[str]) -> tuple[str, ...]:
    """Each label without, then with, a leading space: ``("A", " A", "B", " B", ...)``."""
    return tuple(candidate for label in labels for candidate in (label, " " + label))


@dataclass(frozen=True)
class LetterRule:
    """Choose the option whose label is the most likely next text after the prompt.

    Scores are log-probabilities (not renormalised over the labels).
    """

    @property
    def name(self) -> str:
        """``letter``."""
        return "letter"

    def requests(self, arranged: ArrangedItem, rendered: RenderedPrompt) -> tuple[Request, ...]:
        """One next-token request over every label's two spellings."""
        check_rendered(arranged, rendered)
        return (NextTokenRequest(rendered.text, label_candidates(rendered.labels)),)

    def decide(self, arranged: ArrangedItem, rendered: RenderedPrompt, results: Sequence[Result]) -> Decision:
        """Log-sum-exp of each label's two spellings; the highest wins.

        Raises:
            ResponseInvalid: the result does not hold one log-probability per candidate.
        """
        (result,) = check_results(results, NextTokenLogprobs, 1, self.name)
        logprobs = result.logprobs
        if len(logprobs) != 2 * arranged.n_options:
            raise ResponseInvalid(
                f"scoring rule 'letter' expected {2 * arranged.n_options} candidate "
                f"log-probabilities, got {len(logprobs)}"
            )
        scores = [_logsumexp(logprobs[2 * p], logprobs[2 * p + 1]) for p in range(arranged.n_options)]
        return Decision.from_scores(arranged, scores)


def _logsumexp(first: float, second: float) -> float:
    high = max(first, second)
    if high == -math.inf:
        return -math.inf
    return high + math.log(math.exp(first - high) + math.exp(second - high))
