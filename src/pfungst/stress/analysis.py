"""One analysis of a stress run: a typed result, keyed by the perturbation, rule, variant and grouping it rests on.

Each result type says what it is (``KIND``, a stable string written to JSON, so renaming a class breaks no file),
how it is headed (``TITLE``), how it is written and read (``to_dict``, ``from_dict``) and how it renders
(``blocks()``: :mod:`pfungst.blocks` blocks that HTML, Markdown and the console lay out alike). Kinds are looked up
in :data:`pfungst.results.RESULTS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from pfungst.blocks import Block, generic_blocks
from pfungst.errors import ReaderError
from pfungst.results import result_class
from pfungst.schema import Fields

__all__ = ["Analysis", "AnalysisResult", "UnknownResult", "result_type"]


@runtime_checkable
class AnalysisResult(Protocol):
    """What an analysis found; its class also has ``from_dict(data, source="<dict>")``, the inverse of ``to_dict``
    (reading through :class:`~pfungst.schema.Fields`), and gives ``KIND`` and ``TITLE`` as class constants."""

    @property
    def KIND(self) -> str:  # noqa: N802 - a constant of the result's class
        """A stable name for the JSON (``"selection-bias"``); a plugin prefixes its own package name."""
        ...

    @property
    def TITLE(self) -> str:  # noqa: N802 - a constant of the result's class
        """The heading in reports (``"Selection bias"``)."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        ...

    def blocks(self) -> tuple[Block, ...]:
        """How the result renders: tables, facts, plots and text, every figure read from the result."""
        ...


@dataclass(frozen=True)
class UnknownResult:
    """A result whose kind no installed package registers (a file from a plugin that is not installed): its dict
    kept as written, shown field by field."""

    kind: str
    """The kind the file gave."""
    data: Mapping[str, Any]
    """The result as written."""
    TITLE: ClassVar[str] = ""

    @property
    def KIND(self) -> str:  # noqa: N802 - the protocol's name for the kind
        """The kind the file gave."""
        return self.kind

    def to_dict(self) -> dict[str, Any]:
        """The dict as read."""
        return dict(self.data)

    def blocks(self) -> tuple[Block, ...]:
        """Every field, as :func:`~pfungst.blocks.generic_blocks` shows it."""
        return generic_blocks(self.data)


def result_type(kind: str) -> type[Any] | None:
    """The result class of ``kind`` in :data:`pfungst.results.RESULTS` (built-in, or an installed package's
    ``pfungst.results`` entry point); None when no installed package registers it."""
    return result_class(kind)


@dataclass(frozen=True)
class Analysis:
    """One analysis: what was found, and the outcomes it rests on as typed keys (perturbation, rule, variant, and
    the result's ``by`` grouping where it has one)."""

    perturbation: str
    """The perturbation whose outcomes it rests on (``identity``, ``ids-shuffled``, ``pride``, ``rules``, ...)."""
    rule: str
    """The scoring rule of those outcomes."""
    result: AnalysisResult
    """What was found (:class:`~pfungst.stress.metrics.SelectionBias`, :class:`PrideResult`,
    ...)."""
    variant: str = ""
    """The one variant of the perturbation it rests on (``debiased``); empty when it rests on all of them."""
    subject: str = ""
    """The same keys in words, for headings (``letter, ids shuffled, by label``)."""

    @property
    def kind(self) -> str:
        """The result's kind (``selection-bias``; the class name of a result that has no ``KIND``)."""
        return str(getattr(self.result, "KIND", type(self.result).__name__))

    @property
    def name(self) -> str:
        """The result's kind, as headings and ``describe`` name it (``selection-bias``)."""
        return self.kind

    @property
    def by(self) -> str:
        """What the result groups answers by (``position`` or ``label``); empty when it does not group."""
        return str(getattr(self.result, "by", ""))

    @property
    def title(self) -> str:
        """A heading: the result's title and the subject (``Selection bias (letter, identity, by position)``)."""
        title = getattr(self.result, "TITLE", "") or self.name
        return f"{title} ({self.subject})" if self.subject else title

    def matches(self, kind: str | type[Any] | None = None, subject: str | None = None, **keys: str | None) -> bool:
        """Whether this analysis is of ``kind`` (a kind, its short name or a result class), about ``subject``, and
        has every key given (``perturbation``, ``rule``, ``variant``, ``by``); None matches anything."""
        if isinstance(kind, type) and not isinstance(self.result, kind):
            return False
        if isinstance(kind, str) and kind not in (self.kind, self.name):
            return False
        if subject is not None and subject != self.subject:
            return False
        return all(value is None or getattr(self, key) == value for key, value in keys.items())

    def blocks(self) -> tuple[Block, ...]:
        """The result's blocks (a result without ``blocks()`` is shown field by field)."""
        render = getattr(self.result, "blocks", None)
        return tuple(render()) if callable(render) else generic_blocks(self.result.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the keys, the heading's subject, the result's kind and its ``to_dict()``."""
        return {
            "name": self.name,
            "subject": self.subject,
            "kind": self.kind,
            "perturbation": self.perturbation,
            "rule": self.rule,
            "variant": self.variant,
            "by": self.by,
            "result": self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>", path: str = "") -> Analysis:
        """The analysis that :meth:`to_dict` wrote; a result of a kind no installed package reads is kept as an
        :class:`UnknownResult`.

        Raises:
            ReaderError: a key missing or of the wrong type, named by its path (``analyses[3].perturbation``).
        """
        fields = Fields(data, source, path)
        kind = fields.string("kind")
        raw = fields.mapping("result") if fields.has("result") else {}
        found = result_type(kind)
        try:
            result = found.from_dict(raw, source) if found is not None else UnknownResult(kind, dict(raw))
        except ReaderError as error:  # a value inside the result, named by its path in this file
            raise fields.error(f"result.{error.field}" if error.field else "result", error.reason) from None
        keys = [fields.string(key) if fields.has(key) else "" for key in ("variant", "subject")]
        return cls(fields.string("perturbation"), fields.string("rule"), result, *keys)

    def describe(self) -> str:
        """The kind and keys in one line: ``selection-bias (perturbation=ids-shuffled, rule=letter, by=label)``."""
        keys = {"perturbation": self.perturbation, "rule": self.rule, "variant": self.variant, "by": self.by}
        return f"{self.name} ({', '.join(f'{key}={value}' for key, value in keys.items() if value)})"

    def __repr__(self) -> str:
        return f"Analysis({self.describe()})"
