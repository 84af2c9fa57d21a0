"""The generated-answer parser, on real-looking model outputs."""

from __future__ import annotations

import pytest

from pfungst.evaluate.scoring.answer_parser import ParsedAnswer, parse_answer

LABELS = ("A", "B", "C", "D")
OPTIONS = ("Rome", "Paris", "Oslo", "New York City")


@pytest.mark.parametrize(
    ("text", "position", "method"),
    [
        ("B", 1, "label"),
        (" B", 1, "label"),
        ("(B)", 1, "label"),
        ("B.", 1, "label"),
        ("B)", 1, "label"),
        ("[C]", 2, "label"),
        ("**D**", 3, "label"),
        ("B. Paris", 1, "label"),
        ("(B) Paris\n\nParis is the capital of France.", 1, "label"),
        ("The answer is B", 1, "explicit"),
        ("the answer is (B).", 1, "explicit"),
        ("Answer: B", 1, "explicit"),
        ("Answer:B", 1, "explicit"),
        ("The correct answer is: C. Oslo", 2, "explicit"),
        ("I think the correct option is D because it is the largest.", 3, "explicit"),
        ("Option A", 0, "explicit"),
        ("B is correct.", 1, "explicit"),
        ("The answer is Paris.", 1, "explicit"),
        ("Answer: new york city", 3, "explicit"),
        ("Paris", 1, "option-text"),
        ("paris.", 1, "option-text"),
        ("  PARIS  ", 1, "option-text"),
        ("The capital of France is Paris.", 1, "option-text"),
        ("It is New York City, the biggest one.", 3, "option-text"),
        ("I'm not completely sure, but the answer is B.", 1, "explicit"),
    ],
)
def test_parses_the_chosen_option(text: str, position: int, method: str) -> None:
    assert parse_answer(text, LABELS, OPTIONS) == ParsedAnswer("ok", position, method)  # type: ignore[arg-type]


def test_the_last_explicit_answer_line_wins() -> None:
    text = "Let me think. The answer is A.\nWait, Rome is in Italy.\nThe answer is B."
    assert parse_answer(text, LABELS, OPTIONS).position == 1


def test_the_first_answer_phrase_on_the_deciding_line_wins() -> None:
    assert parse_answer("The answer is B, not option C.", LABELS, OPTIONS).position == 1


def test_bare_label_lines_that_disagree_are_unparseable() -> None:
    assert parse_answer("A. Rome\nB. Paris\nC. Oslo", LABELS, OPTIONS).status == "unparseable"
    assert parse_answer("B\n\nB. Paris is the capital.", LABELS, OPTIONS).position == 1


@pytest.mark.parametrize(
    "text",
    [
        "A cat sat on the mat.",
        "Apple",
        "Absolutely, let me explain the geography.",
        "",
        "   \n  ",
        "Rome or Paris, both are nice.",
        "The answer is not obvious.",
        "Good question!",
        "ABCD",
    ],
)
def test_unreadable_answers_are_unparseable_not_guessed(text: str) -> None:
    assert parse_answer(text, LABELS, OPTIONS) == ParsedAnswer("unparseable", -1, "none")


@pytest.mark.parametrize(
    "text",
    [
        "I cannot answer that question.",
        "I can't help with this.",
        "I\u2019m sorry, but I don't have enough information.",
        "As an AI language model, I do not have opinions.",
        "I am unable to determine which is correct.",
        "I'm sorry, Paris or Rome, I can't tell.",
    ],
)
def test_refusals_are_counted_as_refused(text: str) -> None:
    assert parse_answer(text, LABELS, OPTIONS) == ParsedAnswer("refused", -1, "refusal")


def test_a_mention_inside_a_longer_option_does_not_count() -> None:
    options = ("York", "New York City", "Boston")
    assert parse_answer("I would say New York City.", ("A", "B", "C"), options).position == 1


def test_lowercase_labels_are_not_read_from_articles() -> None:
    labels = ("a", "b", "c", "d")
    assert parse_answer("The answer is a city in France.", labels, OPTIONS).status == "unparseable"
    assert parse_answer("The answer is b.", labels, OPTIONS).position == 1
    assert parse_answer("b", labels, OPTIONS).position == 1


def test_labels_match_case_sensitively() -> None:
    assert parse_answer("b", LABELS, OPTIONS).status == "unparseable"


def test_roman_and_numeric_labels() -> None:
    roman = ("I", "II", "III", "IV")
    assert parse_answer("The answer is II.", roman, OPTIONS).position == 1
    assert parse_answer("(IV)", roman, OPTIONS).position == 3
    assert parse_answer("Answer: I'm not sure", roman, OPTIONS).status == "unparseable"  # not label "I"
    assert parse_answer("3. Oslo", ("1", "2", "3", "4"), OPTIONS).position == 2
