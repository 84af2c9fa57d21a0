"""Every verdict names the input its evidence needed (options alone, partial input, full input, file position);
a full-input finding on a shared-label task is a content finding unless the task is declared to be answered from
its words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pfungst import load
from pfungst.audit import audit
from pfungst.audit.result import AuditResult
from pfungst.audit.verdict import Evidence
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ReaderError

QUICK = {"n_bootstrap": 100, "n_permutations": 20, "n_repeats": 1, "n_splits": 3, "cues": False}
BLIND = ("options_no_position", "options_1-grams_presence")
_NAMES = ("Ana", "Ben", "Carla", "Dev", "Eun", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kira", "Lars")
_UNKNOWN = ("Unknown", "Cannot be determined", "Not enough information", "Can't answer")


def _bbq_like(n_items: int, seed: int) -> Benchmark:
    """BBQ-style items: two people and an 'unknown' option, which is always the gold, in a random slot."""
    rng = np.random.default_rng(seed)
    items = []
    for index in range(n_items):
        first, second = rng.choice(_NAMES, size=2, replace=False)
        options = [str(first), str(second)]
        gold = int(rng.integers(0, 3))
        options.insert(gold, str(rng.choice(_UNKNOWN)))
        question = f"{first} and {second} met at the {rng.choice(['cafe', 'bank', 'park'])}. Who was late?"
        items.append(Item(f"bbq-{index}", question, tuple(options), gold))
    return Benchmark("bbq-like", tuple(items), "per_item")


def _sentiment(n_items: int, seed: int) -> Benchmark:
    """A sentiment task: the review's words give its label, which is what the task asks."""
    rng = np.random.default_rng(seed)
    words = {0: ["awful", "boring", "dull", "terrible"], 1: ["great", "lovely", "superb", "moving"]}
    filler = ["the", "film", "plot", "cast", "music", "ending", "story", "acting", "scenes", "director"]
    items = []
    for index in range(n_items):
        label = int(rng.integers(0, 2))
        text = " ".join([*rng.choice(filler, size=6), str(rng.choice(words[label])), *rng.choice(filler, size=3)])
        items.append(Item(f"review-{index}", text, ("negative", "positive"), label))
    return Benchmark("sentiment", tuple(items), "shared_labels", ("negative", "positive"))


@pytest.fixture(scope="module")
def bbq_result() -> AuditResult:
    return audit(_bbq_like(200, 0), feature_sets=("options", *BLIND), heuristics=True, **QUICK)


@pytest.fixture(scope="module")
def sentiment_result() -> AuditResult:
    return audit(_sentiment(200, 0), feature_sets=("1-grams_presence",), **QUICK)


def test_an_always_unknown_answer_is_a_shortcut_from_the_options_alone(bbq_result: AuditResult) -> None:
    assert bbq_result.position_content is not None
    content = bbq_result.position_content.content
    assert content.label == "predictable" and content.kind == "shortcut"
    assert content.evidence == Evidence("options", (), shared_labels=False)
    assert content.explanation.startswith("predictable (options alone, no question): ")


def test_an_undeclared_sentiment_task_is_a_content_finding_without_an_excuse(sentiment_result: AuditResult) -> None:
    verdict = sentiment_result.verdict
    assert verdict.label == "predictable" and verdict.kind == "shortcut" and verdict.lexical
    assert verdict.evidence == Evidence("full", (), shared_labels=True)
    assert "expected" not in verdict.explanation
    assert sentiment_result.headline.explains == "content" and sentiment_result.headline.declared == ""


def test_a_declared_sentiment_task_reads_as_expected_and_records_the_declaration() -> None:
    result = audit(_sentiment(200, 0), feature_sets=("1-grams_presence",), lexical_task=True, **QUICK)
    assert result.provenance.settings["lexical_task"] is True
    headline = result.headline
    assert headline.explains == "expected" and headline.declared == "declared with --lexical-task"
    assert headline.status == "warn" and headline.findings == ("expected",)
    assert headline.sentence.startswith("Predictable from the full input, as this task expects (declared with")


def test_a_partial_input_finding_names_its_fields_and_is_a_shortcut() -> None:
    result = audit(make_synthetic("cue-word", 200), feature_sets=("1-grams_presence",), fields=("hypothesis",), **QUICK)
    assert result.verdict.evidence == Evidence("partial", ("hypothesis",), shared_labels=True)
    assert result.verdict.kind == "shortcut"
    assert result.verdict.explanation.startswith("predictable (partial input: hypothesis): ")


def test_a_verdict_reached_only_through_the_gold_slot_needs_the_position() -> None:
    result = audit(make_synthetic("gold-position", 200), feature_sets=("options", *BLIND), **QUICK)
    assert result.verdict.kind == "position" and result.verdict.evidence.input == "position"
    assert result.verdict.explanation.startswith("predictable (gold position in the file): ")
    assert result.position_content is not None and result.position_content.content.kind == "none"


def test_the_evidence_reads_back_from_json(bbq_result: AuditResult) -> None:
    again = AuditResult.from_dict(bbq_result.to_dict())
    assert again.verdict.evidence == bbq_result.verdict.evidence
    assert again.position_content is not None and bbq_result.position_content is not None
    assert again.position_content.content.evidence == bbq_result.position_content.content.evidence
    data = bbq_result.to_dict()
    assert data["verdict"]["evidence"]["input"] == bbq_result.verdict.evidence.input
    data["verdict"]["evidence"]["input"] = "vibes"
    with pytest.raises(ReaderError, match=r"audit\.json: field 'verdict\.evidence\.input': expected one of options"):
        AuditResult.from_dict(data, source="audit.json")


def test_real_truthfulqa_is_answerable_from_its_options_and_real_navigate_from_its_words(shared_data: Path) -> None:
    truthful = audit(load(shared_data / "truthfulqa" / "mc_task.json"), feature_sets=BLIND, heuristics=False, **QUICK)
    navigate = audit(load(shared_data / "bigbench" / "navigate" / "task.json"), feature_sets=("1-grams_presence",),
                     heuristics=False, **QUICK)  # fmt: skip
    assert truthful.verdict.kind == "shortcut" and truthful.verdict.evidence.input == "options"
    assert navigate.verdict.kind == "shortcut" and navigate.verdict.evidence.input == "full"
    # navigate's keywords (logical reasoning, mathematics, arithmetic) do not declare it answered from its words
    assert navigate.headline.explains == "content" and navigate.headline.declared == ""
