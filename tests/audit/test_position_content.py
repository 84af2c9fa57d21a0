"""The content verdict and the gold-position finding apart, in the audit result itself and everywhere it is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pfungst.audit import audit
from pfungst.audit.position_content import PositionArtifact
from pfungst.audit.result import AuditResult
from pfungst.data.synthetic import make_synthetic
from pfungst.report.card import render_card
from pfungst.report.html import render_html
from pfungst.report.markdown import render_markdown
from pfungst.stats import Estimate

QUICK = {"n_bootstrap": 100, "n_permutations": 30, "n_repeats": 1, "cues": False}


@pytest.fixture(scope="module")
def planted() -> AuditResult:
    """The demo's planted gold-position benchmark (gold in slot A for most items), audited."""
    return audit(make_synthetic("gold-position", 200, seed=3), **QUICK)


@pytest.fixture(scope="module")
def longest() -> AuditResult:
    """A content cue: the gold option is the longest; its slot is uniform."""
    return audit(make_synthetic("longest-option", 300, seed=3), **QUICK)


def _slot_sentence(n_items: int, seed: int) -> str:
    """The sentence the audit should write, counted from the items themselves."""
    items = list(make_synthetic("gold-position", n_items, seed=seed))
    in_a = sum(item.gold == 0 for item in items)
    return f"gold is the first option (A) in {in_a} of {n_items} items (uniform: {n_items / 4:g})"


def test_a_planted_gold_position_is_a_position_finding_of_the_result_not_content(planted: AuditResult) -> None:
    parts = planted.position_content
    assert parts is not None and parts.position is not None
    assert planted.verdict.label == "predictable"
    assert parts.position.flagged
    assert parts.content.label == "no evidence"
    assert parts.position.slot_pattern == _slot_sentence(200, 3)
    assert set(parts.content_feature_sets) == {"options_no_position", "options_1-grams_presence"}


def test_the_split_survives_the_json_round_trip_with_its_slot_sentence(planted: AuditResult, tmp_path: Path) -> None:
    path = planted.save_json(tmp_path / "audit.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["position_content"]["position"]["slot_pattern"] == _slot_sentence(200, 3)
    assert data["position_content"]["position"]["flagged"] is True
    back = AuditResult.from_dict(data, str(path))
    assert back.position_content == planted.position_content


def test_a_result_file_without_the_split_reads_back_without_it(planted: AuditResult) -> None:
    data = planted.to_dict()
    del data["position_content"]
    assert AuditResult.from_dict(data).position_content is None


def test_a_malformed_split_is_refused_naming_the_field(planted: AuditResult) -> None:
    data = planted.to_dict()
    data["position_content"]["position"]["position_counts"] = "many"
    with pytest.raises(Exception, match="position_content.position.position_counts"):
        AuditResult.from_dict(data, "audit.json")


def test_the_html_report_markdown_card_and_board_show_the_position_finding(planted: AuditResult) -> None:
    sentence = _slot_sentence(200, 3)
    html = render_html([planted], plots=False)
    assert "Position and content, apart" in html and sentence in html
    markdown = render_markdown([planted]).replace("\\", "")
    assert "Position and content, apart" in markdown and sentence in markdown
    card = render_card(planted)
    assert f"**Gold position:** POSITION ARTIFACT: {sentence}" in card
    assert "**Content** (probes that cannot see positions" in card
    (row,) = planted.overview().rows
    assert row[2].startswith(f"Position artifact: {sentence}; guessing that slot scores") and row[4] == "bad"
    assert "Besides, no evidence of a content cue" in row[2] and f"**Headline:** Position artifact: {sentence}" in card


def test_a_content_cue_gives_the_content_verdict_and_no_position_artifact(longest: AuditResult) -> None:
    parts = longest.position_content
    assert parts is not None and parts.position is not None
    assert parts.content.label == "predictable"
    assert not parts.position.flagged
    assert "POSITION ARTIFACT" not in render_card(longest)
    (row,) = longest.overview().rows
    assert row[2].startswith("Predictable from the") and "the longest option is gold in" in row[2]
    assert "Position artifact" not in row[2] and row[4] == "bad"


def test_shared_labels_have_the_verdict_as_content_and_no_position_finding() -> None:
    result = audit(make_synthetic("cue-word", 200), feature_sets=("1-grams_presence",), heuristics=False, **QUICK)
    parts = result.position_content
    assert parts is not None
    assert parts.position is None and parts.content == result.verdict
    assert "Position and content, apart" not in render_html([result], plots=False)


def test_a_per_item_audit_without_a_position_blind_probe_has_no_split() -> None:
    result = audit(make_synthetic("gold-position", 120), feature_sets=("options",), **QUICK)
    assert result.position_content is None


def _artifact(counts: tuple[int, ...], expected: tuple[float, ...], letter: str) -> PositionArtifact:
    total = sum(counts)
    return PositionArtifact(
        counts, expected, letter, max(counts) / total, Estimate(0.0, "chi2", total), Estimate(1.0, "cca", total), 0.2
    )


def test_the_slot_pattern_names_the_last_option_and_a_middle_one_by_its_letter() -> None:
    assert _artifact((0, 0, 0, 1000), (250.0,) * 4, "D").slot_pattern == (
        "gold is the last option (D) in 1000 of 1000 items (uniform: 250)"
    )
    assert _artifact((200, 612, 100, 88), (250.0,) * 4, "B").slot_pattern == (
        "gold is option B in 612 of 1000 items (uniform: 250)"
    )


def test_with_mixed_option_counts_the_slot_pattern_names_the_letter_only() -> None:
    # 60 items with 3 options, 40 with 4: the fourth slot is last for the 4-option items only.
    found = _artifact((5, 5, 10, 80), (30.0, 30.0, 30.0, 10.0), "D")
    assert found.slot_pattern == "gold is option D in 80 of 100 items (uniform: 10)"
