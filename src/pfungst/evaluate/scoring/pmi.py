"""PMI scoring: how much the question raises each option's likelihood over the answer cue alone.

``score = log P(option | prompt) - log P(option | cue)``: the domain-conditional PMI of Holtzman et al. 2021
("Surface Form Competition"), whose unconditional context is the answer cue (``"Answer:"``), so that an option is
not preferred merely for being a likely string. lm-evaluation-harness's ``acc_mutual_info`` is the same difference
with an empty unconditional context. The conditional term is the cloze request (prompt without options unless
``with_options``); both terms score the identical continuation string, so they are comparable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import RenderedPrompt
from pfungst.evaluate.scoring.base import Decision, check_rendered, check_results
from pfungst.evaluate.scoring.cloze import option_requests
from pfungst.models.requests import Loglikelihood, LoglikelihoodRequest, Request, Result

__all__ = ["PMIRule"]


@dataclass(frozen=True)
class PMIRule:
    """Choose the option with the highest pointwise mutual information with the prompt."""

    with_options: bool = False
    """Condition on the full prompt with the options listed, instead of the prompt without them."""

    @property
    def name(self) -> str:
        """``pmi``."""
        return "pmi"

    def requests(self, arranged: ArrangedItem, rendered: RenderedPrompt) -> tuple[Request, ...]:
        """Per option, in arranged order: every conditional request, then every cue-only request.

        Raises:
            ConfigError: the format has no answer cue, so there is no unconditional context.
        """
        check_rendered(arranged, rendered)
        if not rendered.cue.strip():
            raise ConfigError(
                "PMI scoring needs an answer cue (the unconditional context); the format has none. "
                "Set PromptFormat(cue='Answer:') or use another scoring rule."
            )
        conditional = option_requests(arranged, rendered.text if self.with_options else rendered.cloze_context)
        unconditional = tuple(LoglikelihoodRequest(rendered.cue, request.continuation) for request in conditional)
        return conditional + unconditional

    def decide(self, arranged: ArrangedItem, rendered: RenderedPrompt, results: Sequence[Result]) -> Decision:
        """Conditional minus unconditional log-likelihood; the highest wins."""
        answers = check_results(results, Loglikelihood, 2 * arranged.n_options, self.name)
        n = arranged.n_options
        scores = [answers[p].logprob - answers[n + p].logprob for p in range(n)]
        return Decision.from_scores(arranged, scores)
