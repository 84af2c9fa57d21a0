"""The perturbation registry and protocol: every built-in runs through it, a plugin's perturbation works end to end
through the same path, and a stress result read back from its JSON is the result that was written."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError
from pfungst.report.console_blocks import render_to_console
from pfungst.stress.comparison import StressComparison, compare
from pfungst.stress.metrics import MovedAnswerAccuracy, PairedDifference, SelectionBias
from pfungst.stress.perturbations import PERTURBATIONS, get_perturbation
from pfungst.stress.perturbations.base import Perturbation
from pfungst.stress.perturbations.pride.result import PrideResult
from pfungst.stress.perturbations.spread_search.metric import SpreadSearch
from pfungst.stress.rank_result import RankStability
from pfungst.stress.sections import stress_sections
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.stress_result import StressResult
from tests.evaluate.fakes import ScriptedModel

BUILTIN = (
    "identity",
    "cyclic",
    "permutations",
    "answer-moved",
    "ids-shuffled",
    "top2",
    "pride",
    "rules",
    "formats",
    "spread-search",
    "instructions",
    "choices-only",
    "none-of-the-above",
    "letter-text",
)
SMALL = {"cache": False, "n_bootstrap": 50}
SMALL_PARAMS = {"formats": "formats:n=3", "spread-search": "spread-search:n=4,budget=40", "pride": "pride:fraction=0.2"}
"""Fewer formats than the defaults, to keep the run small; PriDe on a fifth of the items."""


def _benchmark() -> Benchmark:
    """Twelve items, the right option at every position, two of them with five options."""
    items = []
    for i in range(12):
        n = 5 if i >= 10 else 4
        gold = i % n
        options = [f"wrong {i}-{k}" for k in range(n)]
        options[gold] = "right"
        items.append(Item(f"q{i}", f"Question {i}: which one is right?", tuple(options), gold))
    return Benchmark("toy", tuple(items))


def _model() -> ScriptedModel:
    """Prefers label A, knows the answer a little; the continuation 'right' is likelier in cloze scoring."""
    return ScriptedModel(
        next_token_script=lambda context, label: (
            (-0.3 if label.strip() == "A" else -3.0) + (1.5 if f"\n{label.strip()}. right\n" in context else 0.0)
        ),
        loglikelihood_script=lambda context, continuation: (
            -len(continuation) / 4 + (2.0 if "right" in continuation else 0)
        ),
    )


@pytest.fixture(scope="module")
def everything() -> StressResult:
    perturbations = tuple(SMALL_PARAMS.get(name, name) for name in BUILTIN)
    return pfungst.stress.stress(_benchmark(), _model(), perturbations=perturbations, **SMALL)


def test_the_registry_lists_every_builtin_perturbation_in_run_order() -> None:
    assert tuple(PERTURBATIONS) == BUILTIN
    for name in BUILTIN:
        perturbation = get_perturbation(name)
        assert isinstance(perturbation, Perturbation) and perturbation.name == name and perturbation.description


def test_an_unknown_perturbation_is_refused_with_close_matches() -> None:
    with pytest.raises(ConfigError, match="Unknown perturbation 'cyclik'. Did you mean: cyclic"):
        StressConfig(perturbations=("cyclik",)).validate()


def test_pfungst_formats_lists_each_perturbation_with_its_description() -> None:
    result = CliRunner().invoke(app, ["formats", "--what", "perturbations"])
    assert result.exit_code == 0, result.output
    for name in BUILTIN:
        assert name in result.output
    assert get_perturbation("top2").description[:40] in " ".join(result.output.split())


def test_every_perturbation_reports_its_analyses_under_typed_keys(everything: StressResult) -> None:
    keys = [(a.name, a.perturbation, a.rule, a.variant, a.by) for a in everything.analyses]
    # ids-shuffled 3, pride 2, rules, choices-only and none-of-the-above 5 each (one per rule), the others 1
    assert len(keys) == len(set(keys)) == 29
    assert {a.perturbation for a in everything.analyses} == set(BUILTIN)
    by_label = everything.analysis(SelectionBias, perturbation="ids-shuffled", by="label")
    assert by_label.by == "label" and by_label.ids[0] == "A"
    assert everything.analysis("circular", perturbation="permutations").arrangements == (6, 6)
    debiased = everything.analysis(SelectionBias, perturbation="pride", variant="debiased")
    assert debiased is everything.analysis("selection-bias", "letter, PriDe debiased, by position")
    assert isinstance(everything.analysis(PairedDifference, perturbation="top2"), PairedDifference)
    pmi = everything.analysis(SelectionBias, perturbation="rules", rule="pmi")
    assert pmi.rstd.n == 12
    with pytest.raises(KeyError, match="no analysis 'SelectionBias', perturbation='formats'"):
        everything.analysis(SelectionBias, perturbation="formats")


def test_the_json_gives_each_analysis_a_stable_kind_and_its_keys(everything: StressResult) -> None:
    entry = everything.to_dict()["analyses"][4]
    assert entry["kind"] == "selection-bias" and entry["name"] == "selection-bias"
    assert (entry["perturbation"], entry["rule"], entry["variant"], entry["by"]) == (
        "ids-shuffled",
        "letter",
        "",
        "label",
    )
    assert entry["subject"] == "letter, ids shuffled, by label"


def test_a_result_read_from_its_json_is_the_result_written(everything: StressResult, tmp_path: Path) -> None:
    path = everything.save_json(tmp_path / "stress.json", items=True)
    again = StressResult.from_dict(json.loads(path.read_text()))
    assert again.to_dict(items=True) == everything.to_dict(items=True)
    assert again.outcomes == everything.outcomes
    assert [type(a.result) for a in again.analyses] == [type(a.result) for a in everything.analyses]
    assert again.analysis(PrideResult).outcomes == everything.analysis(PrideResult).outcomes
    assert again.analysis(SpreadSearch).history == everything.analysis(SpreadSearch).history
    assert again.analysis(MovedAnswerAccuracy).slots == ("A", "B", "C", "D", "E")
    assert [s.to_dict() for s in stress_sections(again)] == [s.to_dict() for s in stress_sections(everything)]


def test_a_result_read_without_its_outcomes_keeps_its_figures(everything: StressResult) -> None:
    again = StressResult.from_dict(everything.to_dict())
    assert again.outcomes == () and again.n_items == 12
    assert again.to_dict() == everything.to_dict()


def test_an_analysis_without_its_keys_is_refused_naming_the_key(everything: StressResult) -> None:
    from pfungst.errors import ReaderError

    data = everything.to_dict()
    for key in ("perturbation", "rule", "variant", "by"):
        del data["analyses"][0][key]
    with pytest.raises(ReaderError, match=r"stress\.json: field 'analyses\[0\]\.perturbation': missing"):
        StressResult.from_dict(data, source="stress.json")


def test_a_result_of_an_unknown_kind_is_kept_and_shown_field_by_field(everything: StressResult) -> None:
    data = everything.to_dict()
    data["analyses"][0] = {**data["analyses"][0], "kind": "elsewhere.mystery", "result": {"verdict": "odd"}}
    again = StressResult.from_dict(data)
    assert again.to_dict()["analyses"][0]["result"] == {"verdict": "odd"}
    sections = stress_sections(again)
    assert sections[1].blocks[0].rows[0][:2] == ("verdict", "odd")  # type: ignore[union-attr]


def test_a_comparison_read_from_its_json_is_the_comparison_written(everything: StressResult) -> None:
    other = pfungst.stress.stress(_benchmark(), ScriptedModel(), perturbations=("cyclic", "pride"), **SMALL)
    ranks = compare([everything, other], names=["a", "b"], n_bootstrap=50)
    again = RankStability.from_dict(json.loads(json.dumps(ranks.to_dict())))
    assert again.to_dict() == ranks.to_dict()
    assert again.rank_of("a", "pride").rank == ranks.rank_of("a", "pride").rank
    both = StressComparison((everything, other), ranks)
    read = StressComparison.from_dict(json.loads(json.dumps(both.to_dict(items=True))))
    assert read.to_dict(items=True) == both.to_dict(items=True)
    assert read.results[1].outcomes == other.outcomes and isinstance(read.rank_stability, RankStability)
    with pytest.raises(ConfigError, match="expected a stress comparison"):
        StressComparison.from_dict(everything.to_dict())


PLUGIN = Path(__file__).resolve().parents[1] / "fixtures" / "pfungst_plugin_example"


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The example plugin's perturbation registered by an entry point, without installing the package
    (``tests/test_plugins.py`` installs it with pip)."""
    monkeypatch.syspath_prepend(str(PLUGIN))
    point = metadata.EntryPoint(
        "reversed", "pfungst_plugin_example.perturbation:ReversedPerturbation", "pfungst.perturbations"
    )
    real = metadata.entry_points

    def entry_points(**selection: Any) -> Any:
        return [point] if selection.get("group") == "pfungst.perturbations" else real(**selection)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    PERTURBATIONS.refresh()
    yield
    monkeypatch.undo()
    for name in [name for name in sys.modules if name.split(".")[0] == "pfungst_plugin_example"]:
        del sys.modules[name]
    PERTURBATIONS.refresh()


@pytest.mark.usefixtures("plugin")
def test_a_plugin_perturbation_runs_end_to_end_through_the_same_path() -> None:
    assert PERTURBATIONS.is_plugin("reversed")
    result = pfungst.stress.stress(_benchmark(), _model(), perturbations=("cyclic", "reversed"), **SMALL)
    reversed_outcomes = [o for o in result.outcomes if o.perturbation == "reversed"]
    assert len(reversed_outcomes) == 12 and reversed_outcomes[0].order == (3, 2, 1, 0)
    found = result.analysis("pfungst-plugin.reversed")
    assert found.n_items == 12 and found.accuracy.value == result.accuracy_of("reversed").accuracy.value
    assert [c.perturbation for c in result.costs] == ["identity", "cyclic", "reversed"]
    assert StressResult.from_dict(result.to_dict(items=True)).to_dict(items=True) == result.to_dict(items=True)
    titles = [section.title for section in stress_sections(result)]
    assert "Options reversed (letter, options reversed)" in titles
    console = Console(file=io.StringIO(), width=100)
    render_to_console(result, console)
    assert "accuracy reversed: " + f"{found.accuracy.value:.3f}" in console.file.getvalue()  # type: ignore[attr-defined]
    listed = CliRunner().invoke(app, ["formats", "--what", "perturbations"])
    assert "reversed" in listed.output and "the options in reverse order" in listed.output


def test_read_result_gives_the_typed_stress_result_and_comparison(everything: StressResult, tmp_path: Path) -> None:
    from pfungst.report.loading import read_result

    path = everything.save_json(tmp_path / "stress.json", items=True)
    read = read_result(path)
    assert isinstance(read, StressResult) and read.to_dict(items=True) == everything.to_dict(items=True)
    assert isinstance(read.analysis(SelectionBias, perturbation="identity"), SelectionBias)
    ranks = compare([everything, everything], names=["a", "b"], n_bootstrap=20)
    both = tmp_path / "both.json"
    both.write_text(json.dumps(StressComparison((everything, everything), ranks).to_dict()))
    comparison = read_result(both)
    assert isinstance(comparison, StressComparison) and comparison.rank_stability.models == ("a", "b")


def test_a_malformed_stress_file_names_the_missing_key(everything: StressResult) -> None:
    from pfungst.errors import ReaderError

    data = everything.to_dict()
    del data["costs"]
    with pytest.raises(ReaderError, match="stress.json: field 'costs': missing"):
        StressResult.from_dict(data, "stress.json")
