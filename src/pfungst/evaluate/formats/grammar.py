"""A grammar of semantically equivalent prompt formats, after Sclar et al. 2024 ("Quantifying Language Models'
Sensitivity to Spurious Features in Prompt Design", the FormatSpread grammar).

Each dimension lists interchangeable choices (separators, spacing, casing, label styles and decorations, wrappers,
answer cues); a format is one choice per dimension applied to a base format, whose other fields (instruction,
few-shot examples, chat template) are kept. Every value is validated when the grammar is built, so every format it
yields is valid; formats that would render identically are yielded once.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats.prompt import Casing, PromptFormat

__all__ = ["FormatGrammar"]

# Dimension name -> the PromptFormat field it sets; the order fixes the enumeration order.
_DIMENSIONS = {
    "wrappers": "wrapper",
    "label_styles": "label_style",
    "label_templates": "label_template",
    "separators": "separator",
    "option_delimiters": "option_delimiter",
    "part_separators": "part_separator",
    "casings": "casing",
    "cues": "cue",
}

# Rendering this item tells formats apart: two formats are the same when their prompts are.
_PROBE = ArrangedItem.identity(Item(id="probe", text="Which is a fruit?", options=("apple", "stone", "rain"), gold=0))


@dataclass(frozen=True, kw_only=True)
class FormatGrammar:
    """The space of formats: one choice per dimension, applied to ``base``.

    Example:
        >>> grammar = FormatGrammar(separators=(". ", ": "), casings=("as-is",), cues=("Answer:",),
        ...                         wrappers=("{text}",), label_styles=("A",), label_templates=("{label}",),
        ...                         option_delimiters=("\\n",), part_separators=("\\n",))
        >>> [fmt.separator for fmt in grammar.enumerate()]
        ['. ', ': ']
    """

    base: PromptFormat = field(default_factory=PromptFormat)
    """Supplies every field the grammar does not vary (instruction, examples, chat template)."""
    wrappers: tuple[str, ...] = ("{text}", "Question: {text}", "Q: {text}", "Question:\n{text}")
    label_styles: tuple[str, ...] = ("A", "a", "1", "I")
    label_templates: tuple[str, ...] = ("{label}", "({label})", "[{label}]")
    separators: tuple[str, ...] = (". ", ") ", ": ", " - ", " ")
    option_delimiters: tuple[str, ...] = ("\n", "; ", " ")
    part_separators: tuple[str, ...] = ("\n", "\n\n", " ")
    casings: tuple[Casing, ...] = ("as-is", "upper", "lower")
    cues: tuple[str, ...] = ("Answer:", "Correct answer:", "The answer is")

    def __post_init__(self) -> None:
        for dimension, field_name in _DIMENSIONS.items():
            values = tuple(getattr(self, dimension))
            object.__setattr__(self, dimension, values)
            if not values:
                raise ConfigError(f"grammar dimension '{dimension}' is empty; give at least one choice")
            if len(set(values)) != len(values):
                raise ConfigError(f"grammar dimension '{dimension}' repeats a choice: {list(values)}")
            for value in values:
                try:
                    dataclasses.replace(self.base, **{field_name: value})
                except ConfigError as exc:
                    raise ConfigError(f"grammar dimension '{dimension}': {exc}") from exc

    @property
    def size(self) -> int:
        """Number of choice combinations (an upper bound on the number of distinct formats)."""
        size = 1
        for dimension in _DIMENSIONS:
            size *= len(getattr(self, dimension))
        return size

    def enumerate(self) -> Iterator[PromptFormat]:
        """Every distinct format, in a fixed order (the first choice of each dimension first)."""
        seen: set[str] = set()
        for combination in itertools.product(*(getattr(self, dimension) for dimension in _DIMENSIONS)):
            prompt_format = self._format(combination)
            if _remember(prompt_format, seen):
                yield prompt_format

    def sample(self, n: int, seed: int) -> tuple[PromptFormat, ...]:
        """``n`` distinct formats drawn uniformly without replacement; the same seed gives the same formats.

        Raises:
            ConfigError: ``n`` is not positive or the grammar has fewer than ``n`` distinct formats.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigError(f"n must be a positive number of formats, got {n!r}")
        rng = random.Random(seed)
        seen: set[str] = set()
        chosen: list[PromptFormat] = []
        for index in rng.sample(range(self.size), self.size):
            prompt_format = self._format(self._combination(index))
            if _remember(prompt_format, seen):
                chosen.append(prompt_format)
                if len(chosen) == n:
                    return tuple(chosen)
        raise ConfigError(
            f"the grammar has only {len(chosen)} distinct formats, fewer than the {n} requested. "
            "Add choices to its dimensions or ask for fewer."
        )

    def _combination(self, index: int) -> tuple[Any, ...]:
        """The choices at mixed-radix ``index`` (the last dimension varies fastest, as in enumerate)."""
        choices = []
        for dimension in reversed(_DIMENSIONS):
            values = getattr(self, dimension)
            index, digit = divmod(index, len(values))
            choices.append(values[digit])
        return tuple(reversed(choices))

    def _format(self, combination: tuple[Any, ...]) -> PromptFormat:
        return dataclasses.replace(self.base, **dict(zip(_DIMENSIONS.values(), combination, strict=True)))


def _remember(prompt_format: PromptFormat, seen: set[str]) -> bool:
    """Whether ``prompt_format`` renders differently from every format in ``seen`` (then it is added)."""
    signature = prompt_format.render(_PROBE).text
    if signature in seen:
        return False
    seen.add(signature)
    return True
