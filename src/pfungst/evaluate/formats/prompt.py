"""A prompt format and its deterministic rendering, with the place of every option label and text in the prompt.

Layout of a rendered prompt (``part_separator`` between the parts of one item, ``example_separator`` between
blocks)::

    instruction
    <example 1: wrapped text, options, cue + " " + gold label>
    ...
    wrapped text
    label_template(label) + separator + option text   (joined by option_delimiter)
    cue

The *cloze context* is the same without the options (lm-evaluation-harness's ``multiple_choice`` layout, e.g.
ARC: ``"Question: ...\\nAnswer:"`` then ``" " + option``); its few-shot examples end with the gold option's text.
With a chat template the whole text is one user message and the prompt ends where the assistant answers.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, fields
from typing import Any, Literal, NamedTuple, get_args

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats.chat import ChatTemplate, resolve_chat_template
from pfungst.evaluate.formats.labels import make_labels, validate_label_style

__all__ = ["Casing", "PromptFormat", "RenderedPrompt", "Span"]

Casing = Literal["as-is", "upper", "lower", "title"]


class Span(NamedTuple):
    """Character offsets ``[start, end)`` of a piece of the prompt: ``prompt.text[start:end]``."""

    start: int
    end: int


@dataclass(frozen=True)
class RenderedPrompt:
    """A rendered item: the prompt, the labels used and where each option sits in it."""

    text: str
    """The full multiple-choice prompt (chat template applied), ending with the answer cue."""
    labels: tuple[str, ...]
    """Bare label of each arranged position (``"A"``, ``"II"``), as a model would answer it."""
    label_spans: tuple[Span, ...]
    """Span of each position's decorated label (``"(A)"``) in ``text``."""
    option_spans: tuple[Span, ...]
    """Span of each position's option text in ``text``."""
    cloze_context: str
    """The prompt without the options (chat template applied), after which an option's text is scored."""
    cue: str
    """The answer cue as rendered (casing applied): the context of the unconditional term in PMI scoring."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "text": self.text,
            "labels": list(self.labels),
            "label_spans": [list(span) for span in self.label_spans],
            "option_spans": [list(span) for span in self.option_spans],
            "cloze_context": self.cloze_context,
            "cue": self.cue,
        }


@dataclass(frozen=True, kw_only=True)
class PromptFormat:
    """How an item is shown to a model; validated at construction (STYLE rule 14), rendered deterministically.

    Example:
        >>> item = Item(id="q", text="2 + 2 =", options=("3", "4"), gold=1)
        >>> print(PromptFormat(wrapper="Question: {text}").render(ArrangedItem.identity(item)).text)
        Question: 2 + 2 =
        A. 3
        B. 4
        Answer:
    """

    instruction: str = ""
    """Text before everything else (followed by ``example_separator``); empty for none."""
    wrapper: str = "{text}"
    """Template of the item text with exactly one ``{text}`` placeholder, e.g. ``"Question: {text}"``."""
    label_style: str | tuple[str, ...] = "A"
    """A style from :data:`~pfungst.evaluate.formats.labels.LABEL_STYLES` or a tuple of custom labels."""
    label_template: str = "{label}"
    """Decoration of a label with exactly one ``{label}`` placeholder: ``"({label})"``, ``"[{label}]"``."""
    separator: str = ". "
    """Between a decorated label and its option text: ``". "``, ``") "``, ``": "``, ``" - "``."""
    option_delimiter: str = "\n"
    """Between options: ``"\\n"`` for one per line, ``"; "`` or ``" "`` for one line."""
    part_separator: str = "\n"
    """Between the wrapped text, the options block and the cue."""
    cue: str = "Answer:"
    """Answer cue the prompt ends with; empty for none."""
    casing: Casing = "as-is"
    """Casing of the literal text of the wrapper and of the cue (never of item text or options)."""
    examples: tuple[Item, ...] = ()
    """Few-shot examples, shown in original order with their answers."""
    example_separator: str = "\n\n"
    """Between the instruction, each example and the item."""
    chat_template: str | ChatTemplate | None = None
    """``None`` for a plain completion prompt, a built-in template name (``"chatml"``) or a callable."""

    def __post_init__(self) -> None:
        _check_template("wrapper", self.wrapper, "text")
        _check_template("label_template", self.label_template, "label")
        object.__setattr__(self, "label_style", validate_label_style(self.label_style))
        object.__setattr__(self, "examples", tuple(self.examples))
        if self.casing not in get_args(Casing):
            raise ConfigError(f"casing {self.casing!r} is not one of {list(get_args(Casing))}")
        for name in ("separator", "option_delimiter", "part_separator"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{name} must be a non-empty string, got {value!r}")
        for example in self.examples:
            if not isinstance(example, Item):
                raise ConfigError(f"few-shot examples must be Items, got {type(example).__name__}")
        if self.chat_template is not None:
            resolve_chat_template(self.chat_template)

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-safe: custom labels as a list, few-shot examples by item id, a callable chat template by
        its ``repr``."""
        data: dict[str, Any] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, tuple):
                value = [getattr(element, "id", element) for element in value]
            elif value is not None and not isinstance(value, str):
                value = repr(value)
            data[field.name] = value
        return data

    @property
    def rendered_cue(self) -> str:
        """The answer cue with the format's casing."""
        return _case(self.cue, self.casing)

    def labels(self, n_options: int) -> tuple[str, ...]:
        """The bare labels for an item of ``n_options`` options.

        Raises:
            ConfigError: the label style has too few labels.
        """
        return make_labels(self.label_style, n_options)

    def render(self, arranged: ArrangedItem) -> RenderedPrompt:
        """Render an arranged item (options in arranged order) to a prompt.

        Raises:
            ConfigError: the label style has fewer labels than the item (or an example) has options, or the chat
                template does not contain the user message verbatim.
        """
        labels = self.labels(arranged.n_options)
        parts = [self.instruction] if self.instruction else []
        cloze_parts = list(parts)
        for example in self.examples:
            parts.append(self._example(example))
            cloze_parts.append(self._cloze_body(example.text) + " " + example.answer)
        head = self.example_separator.join(parts + [""]) if parts else ""
        body, label_spans, option_spans = self._body(arranged, labels, offset=len(head))
        text, shift = self._chat(head + body)
        cloze_head = self.example_separator.join(cloze_parts + [""]) if cloze_parts else ""
        cloze_context, _ = self._chat(cloze_head + self._cloze_body(arranged.item.text))
        return RenderedPrompt(
            text=text,
            labels=labels,
            label_spans=tuple(Span(start + shift, end + shift) for start, end in label_spans),
            option_spans=tuple(Span(start + shift, end + shift) for start, end in option_spans),
            cloze_context=cloze_context,
            cue=self.rendered_cue,
        )

    def _body(self, arranged: ArrangedItem, labels: tuple[str, ...], offset: int) -> tuple[str, list[Span], list[Span]]:
        text = _case_template(self.wrapper, self.casing).format(text=arranged.item.text) + self.part_separator
        label_spans, option_spans = [], []
        for position, (label, option) in enumerate(zip(labels, arranged.options, strict=True)):
            if position:
                text += self.option_delimiter
            decorated = self.label_template.format(label=label)
            label_spans.append(Span(offset + len(text), offset + len(text) + len(decorated)))
            text += decorated + self.separator
            option_spans.append(Span(offset + len(text), offset + len(text) + len(option)))
            text += option
        if self.cue:
            text += self.part_separator + self.rendered_cue
        return text, label_spans, option_spans

    def _example(self, example: Item) -> str:
        body, _, _ = self._body(ArrangedItem.identity(example), self.labels(example.n_options), offset=0)
        answer = self.labels(example.n_options)[example.gold]
        return body + (" " if self.cue else self.part_separator) + answer

    def _cloze_body(self, text: str) -> str:
        wrapped = _case_template(self.wrapper, self.casing).format(text=text)
        return wrapped + self.part_separator + self.rendered_cue if self.cue else wrapped

    def _chat(self, content: str) -> tuple[str, int]:
        """The prompt for ``content`` and the offset of ``content`` in it."""
        if self.chat_template is None:
            return content, 0
        rendered = resolve_chat_template(self.chat_template)([{"role": "user", "content": content}])
        offset = rendered.find(content)
        if offset < 0:
            raise ConfigError(
                "the chat template does not contain the user message verbatim, so option positions "
                "cannot be located; use a template that copies message content unchanged"
            )
        return rendered, offset


def _check_template(name: str, template: str, placeholder: str) -> None:
    """``template`` must contain ``{placeholder}`` exactly once and no other replacement field."""
    if not isinstance(template, str):
        raise ConfigError(f"{name} must be a string, got {type(template).__name__}")
    try:
        fields = [parsed[1:] for parsed in string.Formatter().parse(template) if parsed[1] is not None]
    except ValueError as exc:
        raise ConfigError(
            f"{name} {template!r} is not a valid template ({exc}). Write literal braces as {{{{ }}}}."
        ) from exc
    names = [field_name for field_name, _, _ in fields]
    if names != [placeholder] or any(spec or conversion for _, spec, conversion in fields):
        raise ConfigError(
            f"{name} {template!r} must contain the placeholder {{{placeholder}}} exactly once and "
            f"no other field; found {['{' + str(n) + '}' for n in names]}"
        )


def _case(text: str, casing: Casing) -> str:
    if casing == "upper":
        return text.upper()
    if casing == "lower":
        return text.lower()
    return text.title() if casing == "title" else text


def _case_template(template: str, casing: Casing) -> str:
    """Apply ``casing`` to the literal text of a template, leaving its placeholder intact."""
    if casing == "as-is":
        return template
    pieces = []
    for literal, field_name, _, _ in string.Formatter().parse(template):
        pieces.append(_case(literal, casing).replace("{", "{{").replace("}", "}}"))
        if field_name is not None:
            pieces.append("{" + field_name + "}")
    return "".join(pieces)
