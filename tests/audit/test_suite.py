"""A suite in one command: discovery, the position / content split, the ranked leaderboard, the resume cache."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

import pfungst
from pfungst.audit.run import AuditConfig
from pfungst.audit.suite import SuiteConfig, SuiteResult, audit_suite, discover
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import DataError
from pfungst.report.html import render_html
from pfungst.serialization import write_jsonl

QUICK = AuditConfig(
    n_bootstrap=100,
    n_permutations=50,
    n_repeats=1,
    n_splits=3,
    feature_sets=("options", "options_no_position", "1-grams_presence"),
)
"""Small settings: one repeat of 3 folds, 100 resamples, three feature sets."""


def _write_per_item(path: Path, name: str, n_items: int, seed: int) -> Path:
    items = make_synthetic(name, n_items, seed=seed)
    return write_jsonl(path, [{"question": i.text, "choices": list(i.options), "answer": i.gold} for i in items])


def _write_shared(path: Path, n_items: int, seed: int) -> Path:
    items = make_synthetic("cue-word", n_items, seed=seed)
    return write_jsonl(path, [{**item.fields, "label": item.answer} for item in items])


def _make_folder(folder: Path, seed: int, n_items: int = 300) -> Path:
    """Four planted benchmarks (a content cue, a layout artifact, nothing, a shared-label cue) and a stray file."""
    _write_per_item(folder / "longest.jsonl", "longest-option", n_items, seed)
    _write_per_item(folder / "position.jsonl", "gold-position", n_items, seed)
    _write_per_item(folder / "control.jsonl", "control", n_items, seed)
    _write_shared(folder / "nli.jsonl", n_items, seed)
    (folder / "notes.csv").write_text("this,is\nnot,a benchmark\n")
    (folder / "README.md").write_text("# documentation is not a benchmark\n")
    return folder


@pytest.fixture(scope="module")
def suite_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of one suite run shared by the read-only tests (seed from PFUNGST_TEST_SEED)."""
    root = tmp_path_factory.mktemp("suite")
    folder = _make_folder(root / "suite", int(os.environ.get("PFUNGST_TEST_SEED", "0")))
    audit_suite([folder], root / "out", SuiteConfig(audit=QUICK))
    return root / "out"


@pytest.fixture
def suite(suite_out: Path) -> SuiteResult:
    result = pfungst.read_result(suite_out / "suite.json")
    assert isinstance(result, SuiteResult)
    return result


def test_discover_names_every_bigbench_task_and_subtask(shared_data: Path) -> None:
    names = [source.name for source in discover([shared_data / "bigbench"])]
    assert len(names) == 10
    assert "logical_deduction/three_objects" in names and "logical_deduction/five_objects" in names
    assert names == sorted(names)


def test_discover_refuses_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nothing-here: no such file or directory"):
        discover([tmp_path / "nothing-here"])


def test_a_content_cue_ranks_first_and_a_layout_artifact_is_flagged_not_ranked(suite: SuiteResult) -> None:
    by_name = {entry.name: entry for entry in suite.entries}
    assert set(by_name) == {"longest.jsonl", "position.jsonl", "control.jsonl", "nli.jsonl"}
    longest, position, control = by_name["longest.jsonl"], by_name["position.jsonl"], by_name["control.jsonl"]
    assert longest.content.label == "predictable" and not longest.position_flagged
    # The gold sits first in 66% of items: the overall verdict says predictable, the content verdict does not.
    assert position.verdict.label == "predictable"
    assert position.position_flagged and position.content.label == "no evidence"
    assert control.content.label == "no evidence" and not control.position_flagged
    ranks = [entry.name for entry in suite.entries]
    assert ranks.index("longest.jsonl") < ranks.index("position.jsonl")
    assert ranks.index("longest.jsonl") < ranks.index("control.jsonl")
    risks = [entry.risk for entry in suite.entries if not entry.expected]
    assert risks == sorted(risks, reverse=True)


def test_an_undeclared_full_input_finding_on_shared_labels_ranks_by_size_with_the_others(suite: SuiteResult) -> None:
    by_name = {entry.name: entry for entry in suite.entries}
    nli, longest = by_name["nli.jsonl"], by_name["longest.jsonl"]
    assert not nli.expected and nli.content.kind == "shortcut" and nli.content.evidence.input == "full"
    assert nli.headline.explains == "content" and nli.headline.findings == ("content",)
    assert longest.content.kind == "shortcut" and longest.content.evidence.input == "options"
    ranks = [entry.name for entry in suite.entries]
    assert nli.risk > by_name["control.jsonl"].risk and ranks.index("nli.jsonl") < ranks.index("control.jsonl")
    frame = suite.leaderboard().set_index("benchmark")
    assert frame.loc["nli.jsonl", "ranking"] == "by size" and frame.loc["longest.jsonl", "ranking"] == "by size"
    assert frame.loc["longest.jsonl", "evidence_input"] == "options"
    assert frame.loc["nli.jsonl", "headline"] == nli.headline.sentence


def test_a_declared_full_input_finding_ranks_apart_after_the_others(suite: SuiteResult) -> None:
    from dataclasses import replace

    from pfungst.report.card import render_suite_card

    nli = next(entry for entry in suite.entries if entry.name == "nli.jsonl")
    declared = replace(nli.headline, explains="expected", findings=("expected",), declared="--lexical-task")
    entries = [replace(e, headline=declared) if e is nli else e for e in suite.entries]
    rebuilt = SuiteResult.build(entries, suite.skipped, suite.provenance, n_reused=0, seconds=0.0)
    assert rebuilt.entries[-1].name == "nli.jsonl" and rebuilt.entries[-1].expected
    assert rebuilt.leaderboard().set_index("benchmark").loc["nli.jsonl", "ranking"] == "expected"
    declared_table = render_suite_card(rebuilt).split("Declared to be answered from the words", 1)[1]
    assert "nli.jsonl" in declared_table and "longest.jsonl" not in declared_table


def test_each_entry_carries_its_controls_into_the_suite_json_and_card(suite: SuiteResult) -> None:
    from pfungst.report.card import render_suite_card

    longest = next(entry for entry in suite.entries if entry.name == "longest.jsonl")
    assert longest.controls is not None and longest.controls.constant_answer is not None
    again = SuiteResult.from_dict(suite.to_dict())
    assert [e.controls for e in again.entries] == [e.controls for e in suite.entries]
    card = render_suite_card(suite)
    assert f"label prior {longest.controls.label_only.prior_score.value:.3f}" in card
    assert "Declared to be answered from the words" not in card  # nothing was declared
    assert "nli.jsonl | 300 | **finding**: Predictable from the full input" in card


def test_shared_labels_have_no_position_finding_and_keep_only_item_level_sets(suite: SuiteResult) -> None:
    nli = next(entry for entry in suite.entries if entry.name == "nli.jsonl")
    assert nli.position is None and nli.content == nli.verdict
    assert nli.content.label == "predictable"  # 'never' marks contradictions
    assert nli.content.n_feature_sets == 1  # the option-level sets do not apply to shared labels


def test_benjamini_hochberg_runs_across_the_benchmarks(suite: SuiteResult) -> None:
    tests = suite.content_tests
    assert len(tests.qvalues) == len(suite.entries)
    assert all(q >= p for p, q in zip(tests.pvalues, tests.qvalues, strict=True))
    frame = suite.leaderboard()
    assert frame["rank"].tolist() == [1, 2, 3, 4]
    flagged = frame.set_index("benchmark")["position_flagged"]
    assert flagged["position.jsonl"] and not flagged["control.jsonl"]
    assert math.isnan(suite.position_tests.qvalues[frame.index[frame["benchmark"] == "nli.jsonl"][0]])


def test_a_stray_file_is_skipped_with_its_reason_and_documentation_is_ignored(suite: SuiteResult) -> None:
    assert [skipped.name for skipped in suite.skipped] == ["notes.csv"]
    assert "notes.csv" in suite.skipped[0].reason


def test_each_benchmark_gets_its_audit_json_and_the_suite_json_reads_back(suite: SuiteResult, suite_out: Path) -> None:
    for entry in suite.entries:
        audited = pfungst.read_result(suite_out / entry.audit_json)
        assert audited.verdict == entry.verdict
    again = SuiteResult.from_dict(suite.to_dict())
    assert [e.name for e in again.entries] == [e.name for e in suite.entries]
    assert again.leaderboard().equals(suite.leaderboard())


def test_each_entry_holds_its_audits_split_and_the_suite_card_names_the_slot(
    suite: SuiteResult, suite_out: Path
) -> None:
    from pfungst.report.card import render_suite_card

    for entry in suite.entries:
        parts = pfungst.read_result(suite_out / entry.audit_json).position_content
        assert parts is not None and parts.content == entry.content and parts.position == entry.position
    position = next(entry for entry in suite.entries if entry.name == "position.jsonl")
    assert position.position is not None
    assert position.position.slot_pattern.startswith("gold is the first option (A) in ")
    assert f"**artifact**: {position.position.slot_pattern}" in render_suite_card(suite)


def test_the_html_report_links_each_leaderboard_row_to_its_section(suite: SuiteResult) -> None:
    html = render_html([suite], plots=False)
    for entry in suite.entries:
        assert f">{entry.name}</a>" in html
    assert "Suite benchmark: longest.jsonl" in html
    notebook = suite._repr_html_()  # Jupyter shows the same sections, links included
    assert '<a href="#' in notebook and "<script" not in notebook.lower()
    figures = suite.to_frame()
    assert "entries[name=longest.jsonl].content.estimate" in figures["name"].tolist()


SMALL = 150
"""Items per planted benchmark in the tests that rerun a suite."""


def test_a_rerun_reuses_everything_and_a_changed_file_is_audited_again(tmp_path: Path, seed: int) -> None:
    folder, config = _make_folder(tmp_path / "suite", seed, SMALL), SuiteConfig(audit=QUICK)
    first = audit_suite([folder], tmp_path / "out", config)
    assert first.n_reused == 0
    again = audit_suite([folder], tmp_path / "out", config)
    assert again.n_reused == 5  # four audits and the skipped file
    assert again.leaderboard().equals(first.leaderboard())
    _write_per_item(folder / "control.jsonl", "control", SMALL, seed + 1)
    assert audit_suite([folder], tmp_path / "out", config).n_reused == 4
    other_seed = SuiteConfig(audit=AuditConfig(**{**QUICK.__dict__, "seed": seed + 1}))
    assert audit_suite([folder / "notes.csv"], tmp_path / "out", other_seed).n_reused == 0


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path, seed: int) -> None:
    folder = _make_folder(tmp_path / "suite", seed, SMALL)

    def stop_after_two(step: str, done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        audit_suite([folder], tmp_path / "out", SuiteConfig(audit=QUICK), progress=stop_after_two)
    resumed = audit_suite([folder], tmp_path / "out", SuiteConfig(audit=QUICK))
    assert resumed.n_reused == 2
    assert len(resumed.entries) + len(resumed.skipped) == 5
    entry = tmp_path / "out" / "benchmarks" / "control.jsonl.entry.json"
    entry.write_text("{not json")  # a corrupt cache entry is a miss, not an error
    assert audit_suite([folder], tmp_path / "out", SuiteConfig(audit=QUICK)).n_reused == 4
    assert json.loads(entry.read_text())["entry"]["name"] == "control.jsonl"


def test_real_bigbench_date_understanding_is_a_layout_artifact_not_a_content_cue(
    shared_data: Path, tmp_path: Path
) -> None:
    """Its target_scores list the gold first in 99% of examples; its options alone say nothing."""
    config = SuiteConfig(audit=QUICK)
    result = audit_suite([shared_data / "bigbench" / "date_understanding"], tmp_path / "out", config)
    (entry,) = result.entries
    assert entry.position is not None and entry.position.flagged and entry.position.most_common == "A"
    assert entry.verdict.label == "predictable"
    assert entry.content.label == "no evidence"


def test_a_generative_bigbench_task_is_skipped_saying_why(tmp_path: Path) -> None:
    task = tmp_path / "checkout" / "story_generation" / "task.json"
    task.parent.mkdir(parents=True)
    task.write_text('{"name": "story_generation", "examples": [{"input": "Once", "target": "upon a time"}]}')
    result = audit_suite([tmp_path / "checkout"], tmp_path / "out", SuiteConfig(audit=QUICK))
    assert result.entries == () and [s.name for s in result.skipped] == ["story_generation"]
    assert "field 'target_scores': missing. Only multiple-choice examples" in result.skipped[0].reason


@pytest.mark.slow
def test_a_suite_on_a_local_dask_cluster_matches_the_serial_run_and_shares_its_cache(tmp_path: Path, seed: int) -> None:
    pytest.importorskip("distributed", reason="--cluster needs the extra pfungst[dask]")
    folder = _make_folder(tmp_path / "suite", seed, SMALL)
    serial = audit_suite([folder], tmp_path / "serial", SuiteConfig(audit=QUICK))
    on_dask = SuiteConfig(audit=AuditConfig(**{**QUICK.__dict__, "cluster": "local", "n_jobs": 2}))
    distributed_run = audit_suite([folder], tmp_path / "dask", on_dask)
    assert distributed_run.n_reused == 0
    assert distributed_run.leaderboard().equals(serial.leaderboard())
    assert audit_suite([folder], tmp_path / "serial", on_dask).n_reused == 5  # the address is not in the cache key


def test_a_label_set_written_as_per_item_options_keeps_only_item_level_sets(tmp_path: Path) -> None:
    words = ("sunny", "rainy")
    rows = [
        {"question": f"is it {words[i % 2]} on day {i}?", "choices": ["Yes", "No"], "answer": i % 2} for i in range(60)
    ]
    write_jsonl(tmp_path / "suite" / "weather.jsonl", rows)
    with pytest.warns(UserWarning, match="fixed label set detected"):
        result = audit_suite([tmp_path / "suite"], tmp_path / "out", SuiteConfig(audit=QUICK))
    assert not result.skipped
    (entry,) = result.entries
    assert entry.option_kind == "shared_labels" and entry.position is None
    assert entry.content.n_feature_sets == 1  # 1-grams_presence: the option-level sets do not apply to labels
