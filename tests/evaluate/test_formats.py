"""Prompt formats: golden renderings, label spans, validation, the format grammar and the built-in registry."""

from __future__ import annotations

import dataclasses

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import (
    BUILTIN_FORMATS,
    LABEL_STYLES,
    FormatGrammar,
    PromptFormat,
    get_format,
    make_labels,
    render_chatml,
)

ITEM = Item(id="q1", text="Capital of France?", options=("Rome", "Paris", "Oslo"), gold=1)
SHUFFLED = ArrangedItem(ITEM, (2, 1, 0))
EXAMPLE = Item(id="e1", text="2 + 2 =", options=("4", "5"), gold=0)


def test_mmlu_format_renders_the_lm_eval_layout() -> None:
    rendered = get_format("mmlu").render(SHUFFLED)
    assert rendered.text == "Capital of France?\nA. Oslo\nB. Paris\nC. Rome\nAnswer:"
    assert rendered.cloze_context == "Capital of France?\nAnswer:"
    assert rendered.labels == ("A", "B", "C")
    assert rendered.cue == "Answer:"


def test_chatml_letter_format_renders_one_user_turn_and_opens_the_assistant_turn() -> None:
    rendered = get_format("chatml-letter").render(SHUFFLED)
    assert rendered.text == (
        "<|im_start|>user\nAnswer the following multiple choice question with the letter of the correct option."
        "\n\nCapital of France?\nA. Oslo\nB. Paris\nC. Rome\nAnswer:<|im_end|>\n<|im_start|>assistant\n"
    )


@pytest.mark.parametrize("name", sorted(BUILTIN_FORMATS))
def test_spans_point_at_each_label_and_option_text(name: str) -> None:
    rendered = get_format(name).render(SHUFFLED)
    assert [rendered.text[start:end] for start, end in rendered.option_spans] == ["Oslo", "Paris", "Rome"]
    decorated = [rendered.text[start:end] for start, end in rendered.label_spans]
    assert [label.strip("()") for label in decorated] == ["A", "B", "C"]
    assert rendered.label_spans[0].end <= rendered.option_spans[0].start < rendered.label_spans[1].start


def test_plain_format_decorates_labels_and_wraps_the_question() -> None:
    rendered = get_format("plain").render(SHUFFLED)
    assert rendered.text == "Question: Capital of France?\n(A) Oslo\n(B) Paris\n(C) Rome\nAnswer:"
    assert [rendered.text[s:e] for s, e in rendered.label_spans] == ["(A)", "(B)", "(C)"]


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("A", ("A", "B", "C", "D")),
        ("a", ("a", "b", "c", "d")),
        ("1", ("1", "2", "3", "4")),
        ("I", ("I", "II", "III", "IV")),
        ("i", ("i", "ii", "iii", "iv")),
    ],
)
def test_every_label_style_renders_its_labels(style: str, expected: tuple[str, ...]) -> None:
    item = Item(id="q", text="Pick", options=("w", "x", "y", "z"), gold=0)
    rendered = PromptFormat(label_style=style, label_template="[{label}]").render(ArrangedItem.identity(item))
    assert rendered.labels == expected
    assert [rendered.text[s:e] for s, e in rendered.label_spans] == [f"[{label}]" for label in expected]
    assert set(LABEL_STYLES) == {"A", "a", "1", "I", "i"}


def test_custom_labels_are_used_in_order() -> None:
    rendered = PromptFormat(label_style=("yes", "no", "maybe")).render(SHUFFLED)
    assert "yes. Oslo\nno. Paris\nmaybe. Rome" in rendered.text


def test_inline_layout_puts_options_on_one_line() -> None:
    prompt_format = PromptFormat(wrapper="Q: {text}", separator=") ", option_delimiter="; ", part_separator=" ")
    assert prompt_format.render(SHUFFLED).text == "Q: Capital of France? A) Oslo; B) Paris; C) Rome Answer:"


def test_casing_changes_wrapper_and_cue_but_not_item_text() -> None:
    rendered = PromptFormat(wrapper="Question: {text}", casing="upper").render(SHUFFLED)
    assert rendered.text == "QUESTION: Capital of France?\nA. Oslo\nB. Paris\nC. Rome\nANSWER:"
    assert rendered.cue == "ANSWER:"


def test_few_shot_examples_show_their_answers() -> None:
    prompt_format = PromptFormat(instruction="Answer the questions.", examples=(EXAMPLE,))
    rendered = prompt_format.render(SHUFFLED)
    assert rendered.text == (
        "Answer the questions.\n\n2 + 2 =\nA. 4\nB. 5\nAnswer: A\n\n"
        "Capital of France?\nA. Oslo\nB. Paris\nC. Rome\nAnswer:"
    )
    assert rendered.cloze_context == "Answer the questions.\n\n2 + 2 =\nAnswer: 4\n\nCapital of France?\nAnswer:"
    assert [rendered.text[s:e] for s, e in rendered.option_spans] == ["Oslo", "Paris", "Rome"]


def test_chat_template_can_be_any_callable_and_spans_follow_the_content() -> None:
    def bracketed(messages):  # a backend-provided template
        return "".join(f"[{m['role']}] {m['content']} [/{m['role']}]" for m in messages) + " [assistant]"

    rendered = PromptFormat(chat_template=bracketed).render(SHUFFLED)
    assert rendered.text.startswith("[user] Capital of France?\nA. Oslo")
    assert [rendered.text[s:e] for s, e in rendered.option_spans] == ["Oslo", "Paris", "Rome"]


def test_chatml_renderer_matches_smollm2_turns() -> None:
    rendered = render_chatml([{"role": "user", "content": "Hi"}])
    assert rendered == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"


def test_rendering_is_deterministic() -> None:
    prompt_format = FormatGrammar().sample(1, seed=3)[0]
    assert prompt_format.render(SHUFFLED) == prompt_format.render(SHUFFLED)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"wrapper": "Question: {question}"},
            r"wrapper 'Question: \{question\}' must contain the placeholder \{text\}",
        ),
        ({"wrapper": "{text} {text}"}, r"exactly once"),
        ({"wrapper": "Question: {text"}, r"not a valid template"),
        ({"label_template": "({})"}, r"label_template .* must contain the placeholder \{label\}"),
        ({"label_style": "X"}, r"Unknown label style 'X'"),
        ({"label_style": ("A", "A")}, r"custom labels repeat \['A'\]"),
        ({"label_style": ("A", "")}, r"custom label '' must be a non-empty string"),
        ({"separator": ""}, r"separator must be a non-empty string"),
        ({"casing": "shout"}, r"casing 'shout' is not one of"),
        ({"chat_template": "chatmll"}, r"Unknown chat template 'chatmll'. Did you mean: chatml\?"),
    ],
)
def test_invalid_formats_are_rejected_at_construction(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        PromptFormat(**kwargs)


def test_too_few_labels_for_the_options_is_an_error_at_render() -> None:
    with pytest.raises(ConfigError, match=r"3 options but only 2 custom labels"):
        PromptFormat(label_style=("yes", "no")).render(SHUFFLED)
    with pytest.raises(ConfigError, match=r"26 letters, but the item has 27 options. Use label style '1'"):
        make_labels("A", 27)


def test_grammar_sample_is_seeded_valid_and_distinct(seed: int) -> None:
    grammar = FormatGrammar()
    first = grammar.sample(40, seed=seed)
    assert first == grammar.sample(40, seed=seed)
    assert first != grammar.sample(40, seed=seed + 1)
    texts = {prompt_format.render(SHUFFLED).text for prompt_format in first}
    assert len(texts) == 40
    for prompt_format in first:
        assert dataclasses.replace(prompt_format) == prompt_format  # re-validates
        rendered = prompt_format.render(SHUFFLED)
        assert [rendered.text[s:e] for s, e in rendered.option_spans] == ["Oslo", "Paris", "Rome"]


def test_grammar_enumerates_every_distinct_combination_once() -> None:
    grammar = FormatGrammar(
        wrappers=("{text}", "Q: {text}"),
        label_styles=("A", "1"),
        label_templates=("{label}",),
        separators=(". ", ") "),
        option_delimiters=("\n",),
        part_separators=("\n",),
        casings=("as-is", "lower"),
        cues=("Answer:",),
    )
    formats = list(grammar.enumerate())
    assert len(formats) == grammar.size == 16
    assert len({f.render(SHUFFLED).text for f in formats}) == 16
    assert formats[0] == PromptFormat()


def test_grammar_keeps_the_base_fields_it_does_not_vary() -> None:
    base = PromptFormat(instruction="Choose one.", examples=(EXAMPLE,), chat_template="chatml")
    for prompt_format in FormatGrammar(base=base).sample(5, seed=0):
        assert (prompt_format.instruction, prompt_format.examples, prompt_format.chat_template) == (
            "Choose one.",
            (EXAMPLE,),
            "chatml",
        )


def test_grammar_drops_formats_that_render_identically() -> None:
    grammar = FormatGrammar(
        wrappers=("{text}",),
        label_styles=("A",),
        label_templates=("{label}",),
        separators=(". ",),
        option_delimiters=("\n",),
        part_separators=("\n",),
        casings=("as-is", "title"),
        cues=("Answer:",),
    )
    assert len(list(grammar.enumerate())) == 1
    with pytest.raises(ConfigError, match="only 1 distinct formats, fewer than the 2 requested"):
        grammar.sample(2, seed=0)


def test_grammar_rejects_an_invalid_choice_when_built() -> None:
    with pytest.raises(ConfigError, match=r"grammar dimension 'wrappers': wrapper 'Q: \{q\}'"):
        FormatGrammar(wrappers=("{text}", "Q: {q}"))


def test_unknown_format_name_lists_close_matches() -> None:
    with pytest.raises(ConfigError, match=r"Unknown format 'mmluu'. Did you mean: mmlu\? Available: chatml-letter"):
        get_format("mmluu")
