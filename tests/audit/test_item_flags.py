"""Per-item shortcut flags: a planted benchmark marks exactly the planted items, with evidence and base rates."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from pfungst.audit.item_flags import FlagColumn, ItemFlags, flag_share
from pfungst.audit.result import AuditResult
from pfungst.audit.run import audit
from pfungst.data.loading import load
from pfungst.errors import ReaderError
from tests.audit.planted import longest_in_half, no_cue, nonsense_word

CHEAP = {"n_bootstrap": 50, "n_permutations": 20, "n_repeats": 2, "n_refits": 0, "cues": False}


def _audit(path: Path, **settings: object) -> AuditResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small planted data: convergence and size notes are not what is tested
        return audit(load(path), **{**CHEAP, **settings})


def _evidence(column: FlagColumn) -> tuple[list[str], list[str]]:
    """The evidence of the flagged items, and of the others."""
    rows = list(zip(column.evidence, column.flagged, strict=True))
    return [why for why, hit in rows if hit], [why for why, hit in rows if not hit]


@pytest.fixture(scope="module")
def half(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    """An audit of 200 items whose gold option is the unique longest in the odd rows only."""
    return _audit(longest_in_half(tmp_path_factory.mktemp("half") / "half.jsonl", 200, 0))


def test_the_heuristic_flag_marks_exactly_the_items_whose_longest_option_is_gold(half: AuditResult) -> None:
    flags = half.item_flags
    assert flags is not None
    planted = tuple(f"half.jsonl:{row}" for row in range(1, 201, 2))
    assert flags.flagged_ids("heuristic") == planted
    column = flags["heuristic"]
    assert column.source == "longest_option" and column.count == 100 and column.n == 200
    flagged, unflagged = _evidence(column)
    assert all(why.startswith("longest_option picks ") for why in flagged)
    assert not any(unflagged)


def test_each_flag_reads_its_count_against_the_count_chance_would_give(half: AuditResult) -> None:
    flags = half.item_flags
    assert flags is not None
    assert flags.codes == ("options-only", "heuristic", "gold-position")
    heuristic = flags["heuristic"]
    assert heuristic.expected == pytest.approx(50.0)  # 1 in 4 options, 200 items
    assert heuristic.share.ci is not None and heuristic.share.ci.low < 0.5 < heuristic.share.ci.high
    assert heuristic.certainty == "predictable"  # 100 of 200 against 50, picked from 2 heuristics
    position = flags["gold-position"]
    assert position.certainty in ("no evidence", "inconclusive")  # slots are shuffled
    options = flags["options-only"]
    assert options.source in ("options_no_position", "options_1-grams_presence")
    assert all(
        re.search(r"out of fold \(gold probability 0\.\d\d; right in \d of 2 repeats\)", why)
        for why in _evidence(options)[0]
    )


def test_the_options_probe_keeps_each_items_out_of_fold_gold_probability(half: AuditResult) -> None:
    assert half.item_flags is not None
    column = half.item_flags["options-only"]
    probability = half.probe(column.source).gold_probability
    assert probability is not None and not np.isnan(probability).any()
    assert ((probability > 0) & (probability < 1)).all()
    flagged = np.array(column.flagged)
    assert probability[flagged].mean() > probability[~flagged].mean()  # the probe is surer where it is right
    back = AuditResult.from_dict(json.loads(json.dumps(half.to_dict(items=True)))).probe(column.source)
    assert back.gold_probability is not None and np.allclose(back.gold_probability, probability)


def test_the_table_has_one_row_per_item_and_survives_the_result_json(half: AuditResult) -> None:
    flags = half.item_flags
    assert flags is not None
    frame = flags.to_frame()
    assert len(frame) == 200 and frame["item_id"].is_unique
    assert list(frame.columns[:2]) == ["item_id", "n_flags"]
    assert (frame["n_flags"] == frame[["options-only", "heuristic", "gold-position"]].sum(axis=1)).all()
    data = json.loads(json.dumps(half.to_dict(items=True)))
    assert data["schema_version"] == "pfungst.audit/3"
    back = AuditResult.from_dict(data)
    assert back.item_flags is not None
    assert back.item_flags.to_frame().equals(frame)
    assert back.item_flags["heuristic"].share == flags["heuristic"].share


def test_a_benchmark_without_a_cue_is_flagged_about_as_often_as_chance(tmp_path: Path) -> None:
    result = _audit(no_cue(tmp_path / "none.jsonl", 300, 0), feature_sets=("options_no_position",))
    assert result.item_flags is not None
    column = result.item_flags["options-only"]
    assert column.expected == pytest.approx(150.0)  # 2 options each
    assert column.certainty == "no evidence"


def test_shared_labels_get_the_probe_flag_and_no_position_flag(tmp_path: Path) -> None:
    result = _audit(nonsense_word(tmp_path / "nli.jsonl", 240, 0), feature_sets=("1-grams_presence",))
    assert result.item_flags is not None
    assert "probe" in result.item_flags.codes and "gold-position" not in result.item_flags.codes
    probe = result.item_flags["probe"]
    assert probe.source == "1-grams_presence"
    assert 0 < probe.expected < probe.n  # from the label and prediction marginals


def test_a_flagged_id_that_is_no_item_is_named_with_its_field() -> None:
    column = FlagColumn("heuristic", "t", "s", (True, False), ("why", ""), flag_share(1, 2, 0.5), 0.2, "m", "f")
    data = ItemFlags(("q1", "q2"), (column,)).to_dict()
    data["columns"][0]["flagged"][0]["item_id"] = "q9"
    with pytest.raises(ReaderError, match=r"flags\.json.*columns\[0\]\.flagged\[0\]\.item_id.*'q9' is not an item"):
        ItemFlags.from_dict(data, "flags.json")


def test_the_audit_chapter_shows_each_flag_against_chance(half: AuditResult) -> None:
    section = next(section for section in half.sections() if section.title == "Per-item shortcut flags")
    table = section.blocks[0].to_dict()
    assert table["columns"][:3] == ["flag", "raised by", "items"]
    heuristic = next(row for row in table["rows"] if row[1] == "longest_option")
    assert heuristic[2] == "100 of 200" and heuristic[4] == "50.0" and heuristic[5] == "predictable"
