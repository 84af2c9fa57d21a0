from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pfungst
from pfungst.data import Benchmark, Item
from pfungst.data.item_checks import check_items
from pfungst.data.item_findings import FINDING_CODES, ItemFindings
from pfungst.errors import ConfigError, ReaderError

SAID = "the chief told the counselor that {} took the whole day off and then went home early to rest"


def _item(item_id: str, text: str, options: tuple[str, ...], gold: int = 0, **metadata: str) -> Item:
    return Item(item_id, text, options, gold, metadata={"subject": "geo", "split": "test", **metadata})


def _planted() -> Benchmark:
    items = [
        _item("e1", "Capital of France?", ("Paris", "Rome", "Oslo")),
        _item("f1", "Largest ocean on Earth?", ("Pacific", "Atlantic", "Indian")),
        _item("e2", "  capital of  france ", ("rome", "Paris.", "oslo"), 1),
        _item("c1", "Which gas do plants absorb?", ("CO2", "O2", "N2"), subject="bio"),
        _item("c2", "which gas do plants absorb", ("O2", "CO2", "N2"), 0, subject="chem"),
        _item("n1", SAID.format("he"), ("yes", "no")),
        _item("n2", SAID.format("she"), ("yes", "no")),
        _item("x1", "Boiling point of water at sea level?", ("100 C", "90 C"), split="dev"),
        _item("x2", "Boiling point of water at sea level?", ("100 C", "90 C")),
        _item("k1", "City on the Seine?", ("Paris", "Lyon", "paris.")),
        _item("d1", "Pick one.", ("red", "red", "blue"), 2),
        _item("m1", "Pick another.", ("red", " ", "blue"), 2),
        _item("u1", "Agree?", ("Yes", "yes!", "No"), 2),
        _item("a1", "Which are mammals?", ("Whale", "Bat", "None of these", "All of the above"), 3),
        _item("o1", "A key past the options.", ("one", "two"), 5),
    ]
    return Benchmark("planted", items)


def test_every_finding_kind_is_listed_in_order_even_when_nothing_is_found() -> None:
    findings = check_items(Benchmark("one", [_item("q", "A lone question?", ("a", "b"))]))
    assert findings.codes == FINDING_CODES
    assert not findings.found() and findings["exact-duplicate"].count == 0


def test_planted_duplicates_are_found_with_their_groups_and_split_by_subject() -> None:
    findings = check_items(_planted())
    exact = findings["exact-duplicate"]
    assert exact.groups == (("e1", "e2"), ("c1", "c2"), ("x1", "x2"))
    assert exact.item_ids == ("e1", "e2", "c1", "c2", "x1", "x2")
    assert exact.breakdown["within subject"] == 4 and exact.breakdown["across subjects"] == 2
    assert exact.breakdown["across splits"] == 2
    assert exact.count == 6 and exact.n == 15 and exact.share.ci is not None and exact.share.ci.low > 0


def test_a_one_word_change_is_a_near_duplicate_and_a_conflicting_key_is_flagged() -> None:
    findings = check_items(_planted())
    assert findings["near-duplicate"].groups == (("n1", "n2"),)
    assert findings["conflicting-keys"].groups == (("c1", "c2"),)  # CO2 keyed in one copy, O2 in the other


def test_a_copy_in_dev_and_in_test_is_a_cross_split_overlap() -> None:
    overlap = check_items(_planted())["cross-split-overlap"]
    assert overlap.groups == (("x1", "x2"),) and dict(overlap.breakdown) == {"dev and test": 2}


def test_each_broken_item_kind_finds_its_planted_item() -> None:
    findings = check_items(_planted())
    assert findings["key-at-two-positions"].item_ids == ("k1",)
    assert findings["duplicate-options"].item_ids == ("d1",)
    assert findings["empty-option"].item_ids == ("m1",)
    assert findings["options-equal-up-to-case"].item_ids == ("k1", "u1")
    assert findings["answer-outside-options"].item_ids == ("o1",)
    catch_all = findings["all-or-none-of-the-above"]
    assert catch_all.item_ids == ("a1",)
    expected = {"none of ...": 1, "option C": 1, "all of ...": 1, "last option": 1, "keyed": 1}
    assert dict(catch_all.breakdown) == expected


def test_rows_a_reader_rejected_for_an_empty_option_are_counted_without_ids(tmp_path: Path) -> None:
    rows = [
        {"question": "Fine?", "choices": ["a", "b"], "answer": 0},
        {"question": "Empty?", "choices": ["a", ""], "answer": 0},
        {"question": "Past?", "choices": ["a", "b"], "answer": 7},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    benchmark = pfungst.load(path, reader="jsonl", on_error="skip")
    findings = check_items(benchmark)
    empty, outside = findings["empty-option"], findings["answer-outside-options"]
    assert (empty.count, empty.item_ids, dict(empty.breakdown)) == (1, (), {"items": 0, "rejected rows": 1})
    assert (outside.count, outside.n) == (1, 3)


def test_findings_round_trip_through_json_and_form_a_tidy_frame() -> None:
    findings = check_items(_planted())
    again = ItemFindings.from_dict(json.loads(json.dumps(findings.to_dict())))
    assert again == findings
    frame = findings.to_frame()
    exact = frame[frame["code"] == "exact-duplicate"]
    assert exact["item_id"].tolist() == ["e1", "e2", "c1", "c2", "x1", "x2"]
    assert exact["group"].tolist() == [1, 1, 2, 2, 3, 3]
    assert len(frame) == sum(finding.count for finding in findings)


def test_a_tampered_finding_names_its_field() -> None:
    data = check_items(_planted()).to_dict()
    data["findings"][0]["item_ids"] = "e1"
    with pytest.raises(ReaderError, match=r"findings\[0\]\.item_ids"):
        ItemFindings.from_dict(data, "audit.json")


def test_a_threshold_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(ConfigError, match="near-duplicate threshold"):
        check_items(_planted(), near_duplicate_threshold=1.5)


def _normalised(column: pd.Series) -> pd.Series:
    return column.str.casefold().str.replace(r"\s+", " ", regex=True).str.strip(".,;:!?\"'`\u2018\u2019\u201c\u201d ")


def test_mmlu_test_exact_duplicates_and_keys_at_two_positions_match_a_pandas_count(shared_data: Path) -> None:
    files = sorted((shared_data / "mmlu" / "test").glob("*.csv"))
    frame = pd.concat(
        [
            pd.read_csv(
                f, header=None, names=["q", "A", "B", "C", "D", "key"], dtype=str, keep_default_na=False
            ).assign(subject=re.sub(r"_test$", "", f.stem))
            for f in files
        ]
    )
    options = pd.DataFrame({letter: _normalised(frame[letter]) for letter in "ABCD"})
    sorted_options = options.apply(lambda row: "\x1f".join(sorted(row)), axis=1)
    frame = frame.assign(exact=_normalised(frame["q"]) + "\x1e" + sorted_options)
    sizes = frame.groupby("exact")["subject"].transform("size")
    subjects = frame.groupby("exact")["subject"].transform("nunique")
    keyed = options.to_numpy()[range(len(frame)), frame["key"].map("ABCD".index).to_numpy()]
    two = (options.to_numpy() == keyed[:, None]).sum(axis=1) > 1

    findings = check_items(pfungst.load(shared_data / "mmlu" / "test"))
    exact = findings["exact-duplicate"]
    assert exact.count == int((sizes > 1).sum())
    assert exact.breakdown["across subjects"] == int(((sizes > 1) & (subjects > 1)).sum())
    assert exact.breakdown["within subject"] == int(((sizes > 1) & (subjects == 1)).sum())
    assert len(exact.groups) == frame.loc[sizes > 1, "exact"].nunique()
    found = findings["key-at-two-positions"].item_ids
    assert sorted(i.split("/")[0] for i in found) == sorted(frame.loc[two, "subject"])
    assert findings["near-duplicate"].count > 0


def test_mmlu_dev_and_test_read_together_overlap(shared_data: Path) -> None:
    findings = check_items(pfungst.load(shared_data / "mmlu"))
    overlap = findings["cross-split-overlap"]
    assert overlap.count > 0 and all({i.split("/")[1] for i in group} == {"dev", "test"} for group in overlap.groups)


def test_the_summary_carries_the_findings_in_its_json_and_prints_one_line_per_kind_found() -> None:
    import io

    from rich.console import Console

    from pfungst.data.summary import BenchmarkSummary, summarize
    from pfungst.report.console_blocks import render_to_console

    summary = summarize(_planted())
    saved = json.loads(json.dumps(summary.to_dict()))
    assert saved["schema_version"] == "pfungst.summary/2"
    assert BenchmarkSummary.from_dict(saved).item_findings == summary.item_findings
    console = Console(file=io.StringIO(), width=200)
    render_to_console(summary, console)
    printed = console.file.getvalue()
    assert "exact duplicates: 6 of 15 items in 3 groups (4 within subject, 2 across subjects" in printed
    assert "keyed answer at two positions: 1 of 15 items; ids: k1" in printed


def test_cross_fitting_keeps_every_duplicate_group_the_findings_report_in_one_group() -> None:
    from pfungst.audit.item_groups import group_items

    benchmark = _planted()
    ids = dict(zip([item.id for item in benchmark], group_items(benchmark).ids, strict=True))
    findings = check_items(benchmark)
    for code in ("exact-duplicate", "near-duplicate"):
        for group in findings[code].groups:
            assert len({ids[item_id] for item_id in group}) == 1, (code, group)


def test_near_duplicate_components_asked_twice_for_the_same_texts_are_the_same_and_independent() -> None:
    """An audit asks for the same texts' components twice (sibling groups, item findings): the second answer is
    the first, and changing one answer changes neither the other nor a later one."""
    from pfungst.data.near_duplicates import near_duplicate_components

    said = "the chief told the counselor that he took the day off and went home early"
    texts = [said, said.replace(" he ", " she "), "a cat sat on the mat", said]
    first = near_duplicate_components(texts, 0.6)
    second = near_duplicate_components(list(texts), 0.6)
    assert first.tolist() == second.tolist() == [0, 0, 1, 0]
    first[:] = 7
    assert near_duplicate_components(texts, 0.6).tolist() == [0, 0, 1, 0]
    assert near_duplicate_components(texts, 0.99).tolist() == [0, 1, 2, 0]  # another threshold: computed again


def test_near_duplicates_found_chunk_by_chunk_are_those_found_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts are hashed a chunk at a time to bound memory: any chunk size joins the same texts, across chunk
    boundaries too, and texts without words (which have no entries) stay components of their own."""
    from pfungst.data import near_duplicates

    rng = np.random.default_rng(3)
    vocabulary = [f"w{k}" for k in range(400)]
    texts: list[str] = []
    for position in range(600):
        if position % 97 == 5:
            texts.append("")
        elif texts and rng.random() < 0.3:  # an earlier text with one word changed: a near duplicate
            words = (texts[int(rng.integers(0, len(texts)))] or "w1").split()
            words[int(rng.integers(0, len(words)))] = vocabulary[int(rng.integers(0, 400))]
            texts.append(" ".join(words))
        else:
            texts.append(" ".join(rng.choice(vocabulary, size=int(rng.integers(8, 25)))))
    whole = near_duplicates._components(texts, 0.6, 8, 4, 0)
    assert 100 < int(whole.max()) + 1 < 550  # planted pairs joined
    assert len(set(whole[[5, 102, 199]].tolist())) == 3  # the empty texts: each its own
    monkeypatch.setattr(near_duplicates, "CHUNK_TEXTS", 37)
    assert np.array_equal(near_duplicates._components(texts, 0.6, 8, 4, 0), whole)
    assert near_duplicates.word_sets(texts).shape == (600, 1 << 22)
