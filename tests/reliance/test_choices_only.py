"""The classifier's and the model's choices-only accuracy in one table, on planted items whose options give the
answer away, through the Python API, the report (HTML, Markdown, JSON) and ``pfungst report`` on the console."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.result import AuditResult
from pfungst.cli import app
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError
from pfungst.reliance import ChoicesOnlyComparison, choices_only_comparisons, compare_choices_only
from pfungst.report.document import build_report
from pfungst.report.html import render_html
from pfungst.report.markdown import render_markdown
from pfungst.stress.perturbations.choices_only.metric import ChoicesOnlyAccuracy
from pfungst.stress.stress_result import StressResult
from tests.evaluate.fakes import ScriptedModel

N_ITEMS = 80
CUED = 40
"""Items q0-q39 mark their gold option 'obviously'; q40-q79 give nothing away."""


def _benchmark(name: str = "planted", cue: bool = True) -> Benchmark:
    items = []
    for i in range(N_ITEMS):
        gold = (i * 7 + i // 4) % 4
        options = [f"plain choice {i} {k}" for k in range(4)]
        if cue and i < CUED:
            options[gold] = f"obviously choice {i} {gold}"
        items.append(Item(f"q{i}", f"Question {i}?", tuple(options), gold))
    return Benchmark(name, tuple(items))


def _reader(context: str, label: str) -> float:
    """A planted model: the option marked 'obviously' if any, else A."""
    marked = re.search(r"\n([A-D])\. obviously", context)
    return 0.0 if label.strip() == (marked.group(1) if marked else "A") else -4.0


def _stress(benchmark: Benchmark) -> StressResult:
    model = ScriptedModel(next_token_script=_reader)
    return pfungst.stress.stress(
        benchmark, model, perturbations=("choices-only",), rules=("letter",), cache=False, n_bootstrap=100
    )


def _audit(benchmark: Benchmark, feature_sets: tuple[str, ...] = ("options_1-grams_presence",)) -> AuditResult:
    config = AuditConfig(
        feature_sets=feature_sets, heuristics=False, cues=False, n_repeats=1, n_bootstrap=100, n_permutations=200
    )
    return pfungst.audit.audit(benchmark, config)


@pytest.fixture(scope="module")
def planted() -> tuple[AuditResult, StressResult]:
    benchmark = _benchmark()
    return _audit(benchmark), _stress(benchmark)


def _expected_model_accuracy() -> float:
    """The cued items, plus the others whose gold sits at A (the planted model's answer without a cue)."""
    return sum(i < CUED or item.gold == 0 for i, item in enumerate(_benchmark())) / N_ITEMS


def test_one_row_for_the_classifier_and_one_per_rule_with_each_analysis_own_figures(
    planted: tuple[AuditResult, StressResult],
) -> None:
    audit, stress = planted
    comparison = compare_choices_only(audit, [stress])
    classifier, model = comparison.rows
    probe = next(p for p in audit.probes if p.feature_set == "options_1-grams_presence")
    assert (classifier.source, classifier.name) == ("classifier", "options_1-grams_presence")
    assert classifier.how == "crossfit"
    assert classifier.accuracy == probe.accuracy and classifier.majority == probe.majority_baseline
    assert classifier.chance == pytest.approx(0.25) and classifier.n == N_ITEMS
    # the cue word gives the answer away on half the items: the classifier finds it, well above both baselines
    assert classifier.accuracy.ci.low > max(classifier.chance, classifier.majority.value)
    assert classifier.accuracy.pvalue < 0.05
    analysis = stress.analysis(ChoicesOnlyAccuracy, perturbation="choices-only", rule="letter")
    assert (model.source, model.how, model.n) == ("model", "letter", N_ITEMS)
    assert model.accuracy == analysis.accuracy and model.accuracy.value == pytest.approx(_expected_model_accuracy())
    assert (model.majority_position, model.majority) == (analysis.majority_position, analysis.majority)
    assert model.chance == 0.25 and model.accuracy.pvalue < 1e-6


def test_the_classifier_row_names_the_majority_position_from_the_per_item_golds(
    planted: tuple[AuditResult, StressResult],
) -> None:
    audit, _ = planted
    golds = [item.gold for item in _benchmark()]
    majority = max(range(4), key=lambda g: (golds.count(g), -g))
    (row,) = compare_choices_only(audit, []).rows
    assert row.majority_position == "ABCD"[majority]
    assert row.majority.value == pytest.approx(golds.count(majority) / N_ITEMS)


def test_without_the_cue_neither_source_beats_its_baselines() -> None:
    benchmark = _benchmark(cue=False)
    comparison = compare_choices_only(_audit(benchmark), [_stress(benchmark)])
    classifier, model = comparison.rows
    assert classifier.accuracy.ci.low <= classifier.chance <= classifier.accuracy.ci.high
    # the planted model answers A to everything: exactly the items whose gold sits at A
    assert model.accuracy.value == sum(item.gold == 0 for item in benchmark) / N_ITEMS
    assert model.accuracy.pvalue > 0.05


def test_round_trip_and_frame(planted: tuple[AuditResult, StressResult]) -> None:
    comparison = compare_choices_only(*planted[:1], [planted[1]])
    again = ChoicesOnlyComparison.from_dict(json.loads(json.dumps(comparison.to_dict())))
    assert again == comparison
    frame = comparison.to_frame()
    assert list(frame["source"]) == ["classifier", "model"] and list(frame["n"]) == [N_ITEMS, N_ITEMS]
    assert frame.loc[1, "accuracy"] == pytest.approx(_expected_model_accuracy())
    assert "options_1-grams_presence/crossfit" in repr(comparison)


def test_pairs_only_results_of_the_same_benchmark_with_both_probes(planted: tuple[AuditResult, StressResult]) -> None:
    audit, stress = planted
    other = _stress(_benchmark("other", cue=False))
    assert [c.benchmark for c in choices_only_comparisons([stress, other, audit])] == ["planted"]
    assert choices_only_comparisons([stress]) == () and choices_only_comparisons([audit]) == ()
    with pytest.raises(ConfigError, match=r"stress run of 'other' is not on the audited benchmark 'planted'"):
        compare_choices_only(audit, [other])


def test_an_audit_without_the_probe_and_no_stress_is_an_error_naming_the_fix() -> None:
    audit = _audit(_benchmark(), feature_sets=("options",))
    assert choices_only_comparisons([audit, _stress(_benchmark())]) == ()
    with pytest.raises(ConfigError, match=r"ran no 'options_1-grams_presence' probe .* --feature-set"):
        compare_choices_only(audit, [])


def test_every_report_shows_the_one_table(planted: tuple[AuditResult, StressResult], tmp_path: Path) -> None:
    audit, stress = planted
    report = build_report([audit, stress])
    titles = [section.title for section in report.sections]
    assert "Choices-only: classifier vs model on planted" in titles
    here = titles.index("Choices-only: classifier vs model on planted")
    assert here > titles.index("Model stress: scripted on planted")
    markdown = render_markdown([audit, stress])
    assert "| classifier: options_1-grams_presence | crossfit |" in markdown
    assert re.search(r"\| model: \S+ \| letter \| 0\.\d+ \[", markdown)
    assert "Accuracy from the options alone on planted" in render_html([audit, stress], plots=False)
    assert "Choices-only: classifier vs model" not in [s.title for s in build_report([stress]).sections]

    audit.save_json(tmp_path / "audit.json")
    stress.save_json(tmp_path / "stress.json")
    result = CliRunner().invoke(
        app, ["report", str(tmp_path / "audit.json"), str(tmp_path / "stress.json"), "-o", str(tmp_path / "r.md")]
    )
    assert result.exit_code == 0, result.output
    printed = " ".join(result.stdout.split())
    assert "Choices-only: classifier vs model on planted" in printed
    assert "classifier: options_1-grams_presence" in printed
    assert "Choices-only: classifier vs model" in (tmp_path / "r.md").read_text()


def test_the_comparison_is_a_derived_result_the_reliance_stage_computes(
    planted: tuple[AuditResult, StressResult],
) -> None:
    """A report pairs nothing itself: ``pfungst.results.derive`` asks the reliance stage, and the report shows what
    comes back, after the model side's chapters."""
    from pfungst.results import DERIVED, derive

    audit, stress = planted
    assert DERIVED.resolve("choices-only-comparison") is choices_only_comparisons
    (comparison,) = derive([stress, audit])
    assert comparison == compare_choices_only(audit, [stress])
    assert comparison.REPORT_PART == "model"
    assert derive([stress]) == ()
