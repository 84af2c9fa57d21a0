"""COPA (Roemmele et al. 2011) XML, including Balanced COPA (Kavumba et al. 2019).

Each ``<item id asks-for="cause|effect" most-plausible-alternative="1|2">`` holds a premise ``<p>`` and two
alternatives ``<a1>``, ``<a2>``. The text is the premise followed by the question it asks: "What was the CAUSE
of this?" or "What happened as a RESULT?"; the fields ``premise`` and ``asks_for`` keep the parts apart. Element
text is stripped of surrounding white space (one alternative in Balanced COPA starts with a stray space).

Balanced COPA marks a mirrored item by its id: item ``1000 + k`` mirrors original item ``k`` (same alternatives,
a new premise that makes the other alternative right). ``metadata["mirrored"]`` says whether an item is one, and
``metadata["pair_id"]`` names the original item of its pair (its own id for an original). In plain COPA files
(ids 1-1000) no item is mirrored.

The XML is parsed with ``defusedxml`` (no entity declarations; the external DTD is skipped, never fetched).
Malformed XML and items with a missing part are reported with the file, the line and the element or attribute.
"""

from __future__ import annotations

import io
import xml.sax
import xml.sax.handler
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import defusedxml
from defusedxml.expatreader import DefusedExpatParser

from pfungst.data.answers import AnswerError, resolve_answer
from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.layout_catalog import COPA_QUESTIONS
from pfungst.data.readers.sniffing import head_text
from pfungst.errors import ReaderError

__all__ = ["CopaReader"]

_QUESTIONS = COPA_QUESTIONS
_PARTS = ("p", "a1", "a2")
_MIRROR_OFFSET = 1000


@dataclass
class _RawItem:
    """An ``<item>`` as parsed: the line of its start tag, its attributes and the text of its parts."""

    line: int
    attributes: dict[str, str]
    parts: dict[str, str] = field(default_factory=dict)


class _CopaHandler(xml.sax.handler.ContentHandler):
    """Collects ``<item>`` elements with the line each starts on."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[_RawItem] = []
        self._locator: Any = None
        self._item: _RawItem | None = None
        self._part = ""
        self._text: list[str] = []

    @property
    def line(self) -> int:
        return self._locator.getLineNumber() if self._locator is not None else 0

    def setDocumentLocator(self, locator: Any) -> None:  # noqa: N802 (SAX API name)
        self._locator = locator

    def startElement(self, name: str, attrs: Any) -> None:  # noqa: N802
        if name == "item":
            self._item = _RawItem(self.line, dict(attrs))
        elif self._item is not None and name in _PARTS:
            self._part, self._text = name, []

    def characters(self, content: str) -> None:
        if self._part:
            self._text.append(content)

    def endElement(self, name: str) -> None:  # noqa: N802
        if self._item is not None and name == self._part:
            self._item.parts[name] = "".join(self._text).strip()
            self._part = ""
        elif name == "item" and self._item is not None:
            self.items.append(self._item)
            self._item = None


class CopaReader:
    """COPA and Balanced COPA XML files (``copa-dev.xml``, ``balacopa-dev-all.xml``, ...)."""

    name = "copa"
    description = "COPA XML <item id asks-for most-plausible-alternative> with <p>, <a1>, <a2>; Balanced COPA"

    def sniff(self, path: Path) -> bool:
        if path.suffix != ".xml":
            return False
        head = head_text(path, 4096)
        return "<copa-corpus" in head or ("asks-for=" in head and "most-plausible-alternative=" in head)

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options)
        for raw in _parse(path):
            with builder.row(raw.line):
                _add(builder, raw)
        return builder.build(path.stem)


def _parse(path: Path) -> list[_RawItem]:
    """Every ``<item>`` in the file, in order.

    Raises:
        ReaderError: the file cannot be read, is not well-formed XML, or uses entities or external references.
    """
    handler = _CopaHandler()
    # COPA files name an external DTD (copa.dtd); it is skipped, never fetched: external entities stay off,
    # and defusedxml still refuses entity declarations.
    parser = DefusedExpatParser(forbid_entities=True, forbid_external=False)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    parser.setFeature(xml.sax.handler.feature_external_pes, False)
    parser.setContentHandler(handler)
    try:
        parser.parse(io.BytesIO(path.read_bytes()))
    except OSError as error:
        raise ReaderError(path, 0, "", f"cannot read the file ({error.strerror or error})") from error
    except xml.sax.SAXParseException as error:
        reason = f"malformed XML ({error.getMessage()} at column {(error.getColumnNumber() or 0) + 1})"
        raise ReaderError(path, error.getLineNumber() or 0, "(xml)", reason) from None
    except defusedxml.DefusedXmlException as error:
        raise ReaderError(
            path,
            handler.line,
            "(xml)",
            f"refused unsafe XML ({error})",
            "COPA files need no entities or external references",
        ) from None
    return handler.items


def _add(builder: BenchmarkBuilder, raw: _RawItem) -> None:
    line, attributes = raw.line, raw.attributes
    for name in ("id", "asks-for", "most-plausible-alternative"):
        if not attributes.get(name, "").strip():
            raise builder.error(line, name, f"the <item> has no '{name}' attribute")
    for part in _PARTS:
        if part not in raw.parts:
            raise builder.error(
                line,
                part,
                f"the <item> has no <{part}> element",
                "Each item needs a premise <p> and alternatives <a1> and <a2>",
            )
    asks_for = attributes["asks-for"].strip()
    if asks_for not in _QUESTIONS:
        raise builder.error(line, "asks-for", f"{asks_for!r} is not 'cause' or 'effect'")
    options = [raw.parts["a1"], raw.parts["a2"]]
    try:
        gold = resolve_answer(attributes["most-plausible-alternative"], options, "index1")
    except AnswerError as error:
        hint = "COPA answers are 1 or 2"
        raise builder.error(line, "most-plausible-alternative", error.reason, hint) from None
    item_id = attributes["id"].strip()
    premise = raw.parts["p"]
    builder.add(
        line=line,
        id=item_id,
        text=f"{premise} {_QUESTIONS[asks_for]}",
        options=options,
        gold=gold,
        fields={"premise": premise, "asks_for": asks_for},
        metadata={"asks_for": asks_for, **_pairing(item_id)},
        text_field="p",
        options_field="a1, a2",
    )


def _pairing(item_id: str) -> dict[str, Any]:
    """Whether the item is a Balanced COPA mirror (id above 1000) and the id of the original it pairs with."""
    number = int(item_id) if item_id.isdigit() else 0
    mirrored = number > _MIRROR_OFFSET
    return {"mirrored": mirrored, "pair_id": str(number - _MIRROR_OFFSET) if mirrored else item_id}
