"""Read the chosen option out of a generated answer, or say that there is none; never guess.

The parser tries, in order (the first that finds something decides):

1. **Explicit answers**: ``"the answer is B"``, ``"Answer: (B)"``, ``"correct option: B"``, ``"Option B"``,
   ``"B is correct"``, or an option's text after such a phrase (``"The answer is Paris."``). When several lines
   hold one, the **last such line wins** (a model that revises itself ends with its final answer); within a line
   the first phrase counts.
2. **Refusals**: ``"I cannot"``, ``"I can't"``, ``"I'm sorry"``, ``"As an AI"``, ``"I am unable"``, ``"I won't"``
   ... give status ``refused``. An explicit answer beats a refusal phrase (``"I'm not sure, but the answer is B"``).
3. **A bare label line**: a line that is only a label, possibly decorated (``"B"``, ``"(B)"``, ``"B."``,
   ``"**B**"``), or a label with punctuation then text (``"B. Paris"``, ``"(B) Paris"``). Lines naming different
   labels (an echoed option list) make the answer ``unparseable``. A label inside a word or a sentence does not
   count (``"A cat"``, ``"Apple"``).
4. **An option's text**: the whole answer equal to one option (ignoring case, spaces and surrounding
   punctuation), else exactly one option mentioned as whole words (mentions inside a longer mentioned option do
   not count). Two options mentioned -> ``unparseable``.

Anything else is ``unparseable``. Labels match case-sensitively (``"a"`` is not label ``"A"``); a lower-case
single-letter label (``"a"``, ``"i"``) followed by a lower-case word is read as an English word, not a label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

__all__ = ["ParsedAnswer", "parse_answer"]

Method = Literal["explicit", "refusal", "label", "option-text", "none"]

_APOSTROPHE = "['\u2019]"
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:cannot|can\s+not|can" + _APOSTROPHE + r"?t|won" + _APOSTROPHE + r"?t|will\s+not|"
    r"am\s+(?:unable|not\s+able|sorry)|do\s+not\s+know|don" + _APOSTROPHE + r"?t\s+know)|"
    r"i" + _APOSTROPHE + r"m\s+(?:unable|not\s+able|sorry|afraid)|as\s+an\s+ai\b|sorry,\s+but)",
    re.IGNORECASE,
)
# A keyword that announces an answer; the rest of the line is read for a label or an option's text.
_ANNOUNCE = re.compile(
    r"\b(?:answer|option|choice)(?:\s+(?:is|would\s+be|will\s+be|should\s+be))?(?:\s*[:=\-]\s*|\s+)",
    re.IGNORECASE,
)
_OPENERS = "([*\"'`"
_CLOSERS = ")]*\"'`.:,;!?"


class ParsedAnswer(NamedTuple):
    """What a generated text answers."""

    status: Literal["ok", "refused", "unparseable"]
    """``ok`` when an option was read, ``refused`` for a refusal, ``unparseable`` otherwise."""
    position: int
    """The arranged position chosen; -1 unless ``status`` is ``ok``."""
    method: Method
    """Which rule decided (see the module documentation)."""


def parse_answer(text: str, labels: Sequence[str], options: Sequence[str]) -> ParsedAnswer:
    """The option a generated ``text`` chooses among ``labels`` / ``options`` (both in arranged order).

    Example:
        >>> parse_answer("I think the answer is (B).", ["A", "B"], ["Rome", "Paris"])
        ParsedAnswer(status='ok', position=1, method='explicit')
        >>> parse_answer("I'm sorry, I cannot help with that.", ["A", "B"], ["Rome", "Paris"]).status
        'refused'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        position = _explicit(line, labels, options)
        if position >= 0:
            return ParsedAnswer("ok", position, "explicit")
    if _REFUSAL.search(text):
        return ParsedAnswer("refused", -1, "refusal")
    named = {position for position in (_bare_label(line, labels) for line in lines) if position >= 0}
    if len(named) > 1:
        return ParsedAnswer("unparseable", -1, "none")  # e.g. the option list echoed back
    if named:
        return ParsedAnswer("ok", named.pop(), "label")
    position = _option_text(text, options)
    if position >= 0:
        return ParsedAnswer("ok", position, "option-text")
    return ParsedAnswer("unparseable", -1, "none")


def _explicit(line: str, labels: Sequence[str], options: Sequence[str]) -> int:
    """The position an announcing phrase in ``line`` names (the first that names one), else -1."""
    for match in _ANNOUNCE.finditer(line):
        rest = line[match.end() :]
        position = _label_at_start(rest, labels)
        if position < 0:
            position = _option_at_start(rest, options)
        if position >= 0:
            return position
    for position, label in enumerate(labels):
        opened = rf"(?<!\w)[{re.escape(_OPENERS)}]*{re.escape(label)}[)\]*]*"
        if re.search(opened + r"\s+(?i:is\s+(?:the\s+)?(?:correct|right|best))\b", line):
            return position
    return -1


def _label_at_start(rest: str, labels: Sequence[str]) -> int:
    """The label ``rest`` starts with (after opening brackets or quotes), if it ends there as a word."""
    stripped = rest.lstrip(_OPENERS + " ")
    for position in sorted(range(len(labels)), key=lambda p: -len(labels[p])):
        label = labels[position]
        if not stripped.startswith(label):
            continue
        after = stripped[len(label) :]
        if after[:1].isalnum() or after[:1] in ("_", "'", "\u2019"):
            continue
        if len(label) == 1 and label.islower() and re.match(r"\s+[a-z]", after):
            continue  # "the answer is a cat": an article, not label "a"
        return position
    return -1


def _option_at_start(rest: str, options: Sequence[str]) -> int:
    """The longest option ``rest`` starts with as whole words, ignoring case and opening punctuation."""
    normalized = _normalize(rest)
    best, best_length = -1, 0
    for position, option in enumerate(options):
        target = _normalize(option)
        whole_words = target and normalized.startswith(target) and not normalized[len(target) :][:1].isalnum()
        if whole_words and len(target) > best_length:
            best, best_length = position, len(target)
    return best


def _bare_label(line: str, labels: Sequence[str]) -> int:
    """The label ``line`` consists of (decorated), or starts with before punctuation and text; else -1."""
    core = line.strip(_OPENERS + _CLOSERS + " ")
    for position, label in enumerate(labels):
        if core == label:
            return position
    for position in sorted(range(len(labels)), key=lambda p: -len(labels[p])):
        pattern = rf"[{re.escape(_OPENERS)}]*{re.escape(labels[position])}[)\].:*]+\s+\S"
        if re.match(pattern, line):
            return position
    return -1


def _option_text(text: str, options: Sequence[str]) -> int:
    """The one option ``text`` is, or the one option it mentions; -1 for none or several."""
    whole = _normalize(text)
    exact = [position for position, option in enumerate(options) if _normalize(option) == whole and whole]
    if len(exact) == 1:
        return exact[0]
    spans: dict[int, list[tuple[int, int]]] = {}
    lowered = text.casefold()
    for position, option in enumerate(options):
        target = " ".join(option.casefold().split())
        if target:
            pattern = r"(?<!\w)" + r"\s+".join(re.escape(word) for word in target.split(" ")) + r"(?!\w)"
            found = [match.span() for match in re.finditer(pattern, lowered)]
            if found:
                spans[position] = found
    mentioned = [
        position for position, found in spans.items() if any(not _inside(span, spans, position) for span in found)
    ]
    return mentioned[0] if len(mentioned) == 1 else -1


def _inside(span: tuple[int, int], spans: dict[int, list[tuple[int, int]]], own: int) -> bool:
    """Whether ``span`` lies inside a longer mention of another option."""
    start, end = span
    return any(
        other != own and s <= start and end <= e and (e - s) > (end - start)
        for other, found in spans.items()
        for s, e in found
    )


def _normalize(text: str) -> str:
    """Case-folded, whitespace-collapsed, without surrounding quotes, brackets and punctuation."""
    return " ".join(text.casefold().split()).strip(_OPENERS + _CLOSERS + " ")
