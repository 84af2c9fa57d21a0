"""Generate-then-parse scoring: let the model write its answer, then read it with
:func:`~pfungst.evaluate.scoring.answer_parser.parse_answer`; refusals and unreadable answers are counted as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import RenderedPrompt
from pfungst.evaluate.scoring.answer_parser import parse_answer
from pfungst.evaluate.scoring.base import Decision, check_rendered, check_results
from pfungst.models.requests import GenerateRequest, Generation, Request, Result

__all__ = ["GenerateRule"]


@dataclass(frozen=True)
class GenerateRule:
    """Generate after the prompt and parse the chosen option out of the text."""

    max_tokens: int = 32
    """Most tokens generated."""
    stop: tuple[str, ...] = ()
    """Strings that end generation."""
    temperature: float = 0.0
    """0 for greedy decoding."""
    seed: int = 0
    """Sampling seed (used when ``temperature`` > 0)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "stop", tuple(self.stop))
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be a positive integer, got {self.max_tokens!r}")
        if self.temperature < 0:
            raise ConfigError(f"temperature must be >= 0, got {self.temperature!r}")

    @property
    def name(self) -> str:
        """``generate``."""
        return "generate"

    def requests(self, arranged: ArrangedItem, rendered: RenderedPrompt) -> tuple[Request, ...]:
        """One generation request after the full prompt."""
        check_rendered(arranged, rendered)
        return (GenerateRequest(rendered.text, self.max_tokens, self.stop, self.temperature, self.seed),)

    def decide(self, arranged: ArrangedItem, rendered: RenderedPrompt, results: Sequence[Result]) -> Decision:
        """The parsed answer: the chosen option, or status ``refused`` / ``unparseable``."""
        (generation,) = check_results(results, Generation, 1, self.name)
        parsed = parse_answer(generation.text, rendered.labels, arranged.options)
        if parsed.status == "ok":
            return Decision.from_choice(arranged, parsed.position, generation.text)
        return Decision.no_choice(arranged, parsed.status, generation.text)
