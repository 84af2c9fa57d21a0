"""An audit's headline: one sentence that names what explains the score, from which input, how sure, and what to do.

Computed once in the audit stage (:func:`pfungst.audit.headline_rules.headline_of`) and stored in the result's
``headline``; the console, the HTML board and chapter, the Markdown card, the suite and the release gate read it and
compute nothing. :class:`Headline` holds the parts, :attr:`Headline.sentence` joins them:

- ``Position artifact: gold is the last option (C) in 2550 of 2550 items; guessing that slot scores 1.000
  [0.998, 1.000] (chance-corrected accuracy; lower bound 0.998 is above the threshold 0.2). Besides, the options
  alone predict 0.333 [0.30, 0.37]. Next: shuffle each item's options ...``
- ``Predictable from the options alone, no question: the longest option is gold in 60 of 60 items; Cohen's kappa
  0.930 [0.810, 1.000] (lower bound 0.810 is above the threshold 0.2). Next: ...``
- ``Inconclusive: no cue found; too few items to rule out a cue of 0.2: about 240 items would (best probe 0.144
  [-0.042, 0.322]). Next: audit more items ...``
- ``No evidence of a surface cue: chance-corrected accuracy 0.030 [-0.050, 0.110] rules out a cue of 0.2 or more
  (smallest detectable at 80% power: 0.120).``
- ``Label prior: 'blue' is gold in 40 of 40 items; always answering it scores ...``
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pfungst.blocks import format_estimate
from pfungst.schema import Fields, read_dataclass
from pfungst.serialization import to_jsonable
from pfungst.stats import Estimate

__all__ = ["CERTAINTIES", "EXPLAINS", "Certainty", "Explains", "Headline", "NamedCue", "statistic_words"]

Certainty = Literal["predictable", "inconclusive", "no evidence"]
"""How sure: the deciding interval is above the threshold, spans it, or lies below it."""
Explains = Literal["position", "label prior", "content", "expected", "none"]
"""What explains the score: the gold slot, a label prior, content, content the task declares it is answered from
(``expected``), or nothing."""
CERTAINTIES: tuple[str, ...] = get_args(Certainty)
EXPLAINS: tuple[str, ...] = get_args(Explains)

_STATISTIC_WORDS = {"kappa": "Cohen's kappa", "chance_corrected_accuracy": "chance-corrected accuracy"}


def statistic_words(statistic: str) -> str:
    """A verdict's statistic in words (``kappa`` -> ``Cohen's kappa``), for every sentence that names it.

    Example:
        >>> statistic_words("chance_corrected_accuracy"), statistic_words("accuracy")
        ('chance-corrected accuracy', 'accuracy')
    """
    return _STATISTIC_WORDS.get(statistic, statistic.replace("_", " "))


@dataclass(frozen=True)
class NamedCue:
    """A cue in words, with its coverage and productivity and a test that survived multiple-testing correction."""

    text: str
    """The cue in words: ``the longest option is gold``; ``'never' in the hypothesis gives contradiction``."""
    sentence: str
    """The cue with its counts: ``the longest option is gold in 60 of 60 items``."""
    source: str
    """Where it comes from: ``heuristic``, ``cue word``, ``position`` or ``label prior``."""
    hits: int
    """Items where the cue applies and points at the gold answer."""
    applicable: int
    """Items where the cue applies (its coverage is ``applicable / n_items``)."""
    n_items: int
    """Items audited."""
    qvalue: float
    """Its adjusted p-value (Benjamini-Hochberg over the cues considered); NaN where no test applies."""

    @property
    def coverage(self) -> float:
        """Share of the items the cue applies to."""
        return self.applicable / self.n_items if self.n_items else math.nan

    @property
    def productivity(self) -> float:
        """Share of the items it applies to where it points at the gold answer."""
        return self.hits / self.applicable if self.applicable else math.nan

    @classmethod
    def from_fields(cls, fields: Fields) -> NamedCue:
        """Read :meth:`to_dict` back (coverage and productivity are recomputed).

        Raises:
            ReaderError: a value of the wrong type or a missing key.
        """
        return read_dataclass(cls, fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "sentence": self.sentence,
            "source": self.source,
            "hits": self.hits,
            "applicable": self.applicable,
            "n_items": self.n_items,
            "qvalue": to_jsonable(self.qvalue),
            "coverage": to_jsonable(self.coverage),
            "productivity": to_jsonable(self.productivity),
        }


@dataclass(frozen=True)
class Headline:
    """What explains an audit's score, in one sentence: the finding, its input, how sure, and what to do next."""

    certainty: Certainty
    """``predictable`` (lower bound above the threshold), ``no evidence`` (upper bound below it) or
    ``inconclusive`` (the interval spans it)."""
    explains: Explains
    """What explains the score (see :data:`Explains`)."""
    input: str
    """The input the deciding evidence needed, in words (``options alone, no question``, ``full input``, ``gold
    position in the file``, ``gold labels alone``)."""
    cue: NamedCue | None
    """The cue named (a heuristic or cue word whose test survives correction, the gold slot, or the majority
    answer); None where none is."""
    statistic: str
    """``kappa`` or ``chance_corrected_accuracy``: the scale of :attr:`estimate`."""
    estimate: Estimate
    """The deciding figure with its interval."""
    threshold: float
    """The verdict threshold the interval is read against."""
    resolution: str
    """How sure, in words (``lower bound 0.810 is above the threshold 0.2``; ``rules out a cue of 0.2 or more
    (smallest detectable at 80% power: 0.120)``; ``too few items to rule out a cue of 0.2: about 240 items
    would``)."""
    detectable: float
    """The smallest effect the audit detects at 80% power (see :func:`pfungst.audit.headline_rules.detectable`);
    NaN where it does not apply."""
    items_needed: int | None
    """Inconclusive only: about how many items would settle it (see
    :func:`pfungst.audit.headline_rules.items_needed`); else None."""
    besides: tuple[str, ...]
    """Other findings, one clause each (``besides, the options alone predict 0.333 [0.300, 0.370]``)."""
    action: str
    """What to do next, imperative; empty where nothing needs doing."""
    declared: str
    """Where word-level answering was declared (``declared with --lexical-task``, ``BIG-bench keywords:
    sentiment``); empty when not declared."""
    findings: tuple[Explains, ...] = ()
    """Every finding whose lower bound clears the threshold, the leading one first (``("position", "content")``: a
    gold-position artifact, and the content predictable besides); what the release gate reads."""

    @property
    def status(self) -> Literal["bad", "warn", "good"]:
        """``bad`` for a finding that is not expected, ``warn`` for an inconclusive or expected one, ``good`` for no
        evidence."""
        if self.certainty == "predictable":
            return "warn" if self.explains == "expected" else "bad"
        return "warn" if self.certainty == "inconclusive" else "good"

    @property
    def sentence(self) -> str:
        """The headline in one sentence (see the module docstring for examples)."""
        text = f"{self._lead()}: {self._body()}."
        for clause in self.besides:
            text += f" {clause[:1].upper()}{clause[1:]}."
        return f"{text} Next: {self.action}" if self.action else text

    def _lead(self) -> str:
        if self.explains == "position":
            return "Position artifact"
        if self.explains == "label prior":
            return "Label prior"
        where = _input_words(self.input)
        if self.certainty == "inconclusive":
            return f"Inconclusive ({where})"
        if self.certainty == "no evidence":
            return "No evidence of a surface cue"
        if self.explains == "expected":
            return f"Predictable from the {where}, as this task expects ({self.declared})"
        return f"Predictable from the {where}"

    def _body(self) -> str:
        figure = f"{self._figure_words()} {format_estimate(self.estimate)}"
        if self.certainty == "no evidence":
            return f"{figure} {self.resolution}"
        if self.certainty == "inconclusive":
            found = self.cue.sentence if self.cue is not None else "no cue found"
            return f"{found}; {self.resolution} (best probe: {figure})"
        found = f"{self.cue.sentence}; " if self.cue is not None else "no single cue named; "
        return f"{found}{figure} ({self.resolution})"

    def _figure_words(self) -> str:
        words = statistic_words(self.statistic)
        if self.explains == "position":
            return f"guessing that slot scores {words}"
        if self.explains == "label prior":
            return f"always answering it scores {words}"
        return words

    @classmethod
    def from_fields(cls, fields: Fields) -> Headline:
        """Read :meth:`to_dict` back (sentence and status are recomputed).

        Raises:
            ReaderError: a value of the wrong type, a missing key, or a certainty or kind that is none of the kinds.
        """
        return cls(
            certainty=fields.typed("certainty", Certainty),
            explains=fields.typed("explains", Explains),
            input=fields.string("input"),
            cue=NamedCue.from_fields(fields.sub("cue")) if fields.has("cue") else None,
            statistic=fields.string("statistic"),
            estimate=fields.estimate("estimate"),
            threshold=fields.number("threshold"),
            resolution=fields.string("resolution"),
            detectable=fields.number("detectable"),
            items_needed=fields.integer("items_needed") if fields.has("items_needed") else None,
            besides=fields.typed("besides", tuple[str, ...]),
            action=fields.string("action"),
            declared=fields.string("declared"),
            findings=fields.typed("findings", tuple[Explains, ...]) if fields.has("findings") else (),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys, the :attr:`sentence` and :attr:`status` included."""
        return {
            "certainty": self.certainty,
            "explains": self.explains,
            "input": self.input,
            "cue": self.cue.to_dict() if self.cue is not None else None,
            "statistic": self.statistic,
            "estimate": self.estimate.to_dict(),
            "threshold": self.threshold,
            "resolution": self.resolution,
            "detectable": to_jsonable(self.detectable),
            "items_needed": self.items_needed,
            "besides": list(self.besides),
            "action": self.action,
            "declared": self.declared,
            "findings": list(self.findings),
            "sentence": self.sentence,
            "status": self.status,
        }

    def __repr__(self) -> str:
        return f"Headline({self.sentence!r})"


def _input_words(text: str) -> str:
    """``partial input: hypothesis`` as ``partial input (hypothesis)``, so that the lead holds one colon."""
    head, _, fields = text.partition(": ")
    return f"{head} ({fields})" if fields else text
