"""End to end: planted artifacts are flagged, shuffled real data is not, MNLI hypothesis-only signal is found."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import pfungst
from pfungst.audit import AuditConfig, AuditResult, shuffled_copy
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic

FAST = AuditConfig(n_bootstrap=300, n_permutations=300, cues=False, heuristics=False)


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("longest-option", ()),
        ("gold-position", ()),
        ("cue-word", ("hypothesis",)),
    ],
)
def test_planted_artifacts_of_the_demo_are_flagged(name: str, fields: tuple[str, ...], seed: int) -> None:
    result = pfungst.audit.audit(make_synthetic(name, 400, seed=seed), FAST, fields=fields, seed=seed)
    assert result.verdict.label == "predictable", result.verdict.explanation
    assert result.verdict.estimate.ci is not None and result.verdict.estimate.ci.low > 0.2


def test_the_control_benchmark_gives_no_evidence(seed: int) -> None:
    result = pfungst.audit.audit(make_synthetic("control", 400, seed=seed), FAST, seed=seed)
    assert result.verdict.label == "no evidence", result.verdict.explanation


def test_per_item_verdict_counts_a_constant_position_guess_as_an_artifact(seed: int) -> None:
    result = pfungst.audit.audit(
        make_synthetic("gold-position", 400, seed=seed), FAST, feature_sets=("options",), seed=seed
    )
    assert result.verdict.statistic == "chance_corrected_accuracy"
    assert result.best.kappa.value == pytest.approx(0.0, abs=0.05)  # kappa alone would hide it
    assert result.verdict.label == "predictable"


def test_mnli_hypothesis_only_beats_the_majority_class(shared_data: Path, seed: int) -> None:
    mnli = pfungst.load(shared_data / "mnli" / "dev_matched.tsv")[:3000]
    result = pfungst.audit.audit(mnli, FAST, fields=("hypothesis",), feature_sets=("1-grams_tfidf",), seed=seed)
    best = result.best
    assert best.accuracy.value > 0.42 > best.majority_baseline.value + 0.06
    assert best.kappa.ci is not None and best.kappa.ci.low > 0.1 and best.kappa.pvalue < 0.01


AUDITED = [
    ("mnli/dev_matched.tsv", ("hypothesis",), ("1-grams_tfidf", "readability")),
    ("pacchiardi/causal_judgment/gpt-4-0613.jsonl", (), ("1-grams_presence", "2-grams_tfidf_gpt2")),
    ("arc/ARC-Challenge-Test.jsonl", (), ("options", "options_1-grams_presence")),
    # 2 to 13 options per item: chance must be the mean of 1/K per item, not 1/13.
    ("truthfulqa/mc_task.json", (), ("1-grams_presence",)),
]
"""Real benchmarks audited end to end (their first 1,500 items): path, fields, feature sets."""


@pytest.mark.parametrize(("path", "fields", "feature_sets"), AUDITED)
def test_label_shuffled_real_data_gives_no_evidence(
    shared_data: Path, path: str, fields: tuple[str, ...], feature_sets: tuple[str, ...], seed: int
) -> None:
    benchmark = pfungst.load(shared_data / path)[:1500]
    result = pfungst.audit.audit(
        shuffled_copy(benchmark, seed), FAST, fields=fields, feature_sets=feature_sets, seed=seed
    )
    assert result.verdict.label == "no evidence", result.verdict.explanation
    _assert_point_inside_interval(result)


@pytest.mark.parametrize(("path", "fields", "feature_sets"), AUDITED)
def test_the_verdicts_point_lies_inside_its_interval_on_real_data(
    shared_data: Path, path: str, fields: tuple[str, ...], feature_sets: tuple[str, ...], seed: int
) -> None:
    benchmark = pfungst.load(shared_data / path)[:1500]
    _assert_point_inside_interval(
        pfungst.audit.audit(benchmark, FAST, fields=fields, feature_sets=feature_sets, seed=seed)
    )


def _assert_point_inside_interval(result: AuditResult) -> None:
    estimate = result.verdict.estimate
    assert estimate.ci is not None and estimate.ci.low <= estimate.value <= estimate.ci.high, result.verdict.explanation
    assert estimate.value == pytest.approx(getattr(result.best, result.verdict.statistic).value)


def test_the_papers_protocol_does_not_call_a_constant_majority_guess_predictable(seed: int) -> None:
    """80% of the labels are "yes" and the texts are random: the paper's chance-corrected accuracy of a majority
    guess is 0.6, far above the threshold; Cohen's kappa, which the verdict reads, is 0."""
    rng = np.random.default_rng(seed)
    labels = ("no", "yes")
    items = tuple(
        Item(f"r{i}", " ".join(rng.choice([f"w{j}" for j in range(500)], 12)), labels, int(rng.random() < 0.8))
        for i in range(300)
    )
    benchmark = Benchmark("imbalanced", items, "shared_labels", labels)
    result = pfungst.audit.audit(
        benchmark, FAST, protocol="pacchiardi2024", feature_sets=("1-grams_presence",), seed=seed
    )
    assert result.best.chance_corrected_accuracy.value > 0.4  # the paper's figure, kept as theirs
    assert result.verdict.statistic == "kappa" and result.verdict.label == "no evidence"
    assert "Cohen's kappa, not the paper's chance-corrected accuracy" in result.verdict.explanation


def test_result_records_seed_settings_versions_and_per_item_predictions(tmp_path: Path) -> None:
    benchmark = make_synthetic("longest-option", 200)
    result = pfungst.audit.audit(benchmark, AuditConfig(n_bootstrap=100, n_permutations=100), seed=5)
    saved = json.loads(result.save_json(tmp_path / "audit.json", items=True).read_text())
    assert saved["schema_version"] == "pfungst.audit/3"
    assert saved["provenance"]["settings"]["seed"] == 5 and saved["provenance"]["settings"]["feature_sets"]
    assert {"pfungst", "scikit-learn", "numpy"} <= set(saved["provenance"]["environment"]["packages"])
    assert saved["provenance"]["data"][0]["format"] == "synthetic"
    frame = result.items_frame()
    assert list(frame["item_id"]) == [item.id for item in benchmark]
    assert {"prediction", "correct", "heuristic.longest_option", "heuristic.longest_option.correct"} <= set(frame)


def test_item_level_chance_on_mixed_option_counts_is_the_mean_of_one_over_k(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "truthfulqa" / "mc_task.json")
    result = pfungst.audit.audit(benchmark, FAST, feature_sets=("1-grams_presence",))
    expected = sum(1 / item.n_options for item in benchmark) / len(benchmark)
    assert result.best.settings["chance"] == pytest.approx(expected)


def test_max_items_audits_a_stratified_sample_and_records_it(seed: int) -> None:
    benchmark = make_synthetic("cue-word", 600, seed=seed)
    result = pfungst.audit.audit(
        benchmark, FAST, fields=("hypothesis",), feature_sets=("1-grams_presence",), max_items=200
    )
    assert result.benchmark["n_items"] == 200
    assert result.provenance.data[0].steps[-1] == "sample (seed 0, stratified by gold): kept 200 of 600"
    assert result.provenance.settings["max_items"] == 200
    full = np.bincount([item.gold for item in benchmark]) / 600
    sampled = np.bincount([item.gold for item in benchmark.sample(200)]) / 200
    assert np.abs(full - sampled).max() <= 1 / 200  # every label keeps its share, to one item
    assert result.verdict.label == "predictable"


def test_a_capped_classifier_choice_changes_nothing_below_the_cap_and_still_finds_the_cue(seed: int) -> None:
    benchmark = make_synthetic("cue-word", 400, seed=seed)
    settings = {"fields": ("hypothesis",), "feature_sets": ("1-grams_presence",), "seed": seed}
    default = pfungst.audit.audit(benchmark, FAST, **settings)
    at_the_fold_size = pfungst.audit.audit(
        benchmark, FAST, selection_max_items=320, **settings
    )  # 4 of 5 folds: 320 items
    assert at_the_fold_size.best.kappa == default.best.kappa
    assert [f.classifier for f in at_the_fold_size.best.folds] == [f.classifier for f in default.best.folds]
    capped = pfungst.audit.audit(benchmark, FAST, selection_max_items=120, **settings)
    assert capped.verdict.label == "predictable"
    assert all(f.n_train == 320 for f in capped.best.folds)  # the choice is refitted on the whole training fold
    with pytest.raises(
        pfungst.ConfigError, match=r"selection_max_items \(--selection-max-items\) must be at least 100, not 10"
    ):
        pfungst.audit.audit(benchmark, FAST, selection_max_items=10, **settings)


def test_a_benchmark_past_the_large_size_probes_word_presence_once_and_says_why_in_result_and_output(
    seed: int,
) -> None:
    from rich.console import Console

    from pfungst.report.card import render_card
    from pfungst.report.console_blocks import render_to_console

    benchmark = make_synthetic("cue-word", 300, seed=seed)
    with pytest.warns(UserWarning, match="the default past 200 items"):
        result = pfungst.audit.audit(benchmark, FAST, fields=("hypothesis",), size_limits=(100, 100, 200), seed=seed)
    assert result.provenance.settings["feature_sets"] == ["1-grams_presence"]
    assert [p.feature_set for p in result.probes] == ["1-grams_presence"]
    assert result.provenance.settings["n_repeats"] == 1 and {f.repeat for f in result.best.folds} == {0}
    assert "instead of the 13 paper sets" in result.provenance.settings["feature_sets_reason"]
    assert result.verdict.label == "predictable"
    console = Console(file=io.StringIO(), width=200)
    render_to_console(result, console)
    printed = " ".join(console.file.getvalue().split())
    assert "feature sets probed (1): 1-grams_presence; why: the default past 200 items (300 here)" in printed
    assert "the default past 200 items (300 here)" in " ".join(render_card(result).split())


def test_a_medium_benchmark_probes_the_declared_word_and_readability_subset(seed: int) -> None:
    from pfungst.audit.size_defaults import MEDIUM_DEFAULTS

    benchmark = make_synthetic("cue-word", 300, seed=seed)
    with pytest.warns(UserWarning, match="the default for 100 to 1,000 items"):
        result = pfungst.audit.audit(benchmark, FAST, fields=("hypothesis",), size_limits=(100, 100, 1000), seed=seed)
    assert [p.feature_set for p in result.probes] == list(MEDIUM_DEFAULTS)
    assert set(MEDIUM_DEFAULTS) == {"1-grams_presence", "1-grams_tfidf", "readability"}
    assert result.provenance.settings["n_repeats"] == 1 and result.verdict.n_feature_sets == len(MEDIUM_DEFAULTS)


def test_past_the_repeat_size_the_default_probes_the_thirteen_sets_once_and_says_why(seed: int) -> None:
    from pfungst.audit.feature_sets import PAPER_FEATURE_SETS

    benchmark = make_synthetic("cue-word", 300, seed=seed)
    result = pfungst.audit.audit(benchmark, FAST, fields=("hypothesis",), size_limits=(200, 1000, 2000), seed=seed)
    assert [p.feature_set for p in result.probes] == list(PAPER_FEATURE_SETS)
    assert result.provenance.settings["n_repeats"] == 1 and {f.repeat for f in result.best.folds} == {0}
    reason = result.provenance.settings["feature_sets_reason"]
    assert "1 repeat of the cross-fitting" in reason and "the default for 200 to 1,000 items (300 here)" in reason
    assert result.verdict.widening is not None and result.verdict.widening.method.startswith("bootstrap only")
    forced = pfungst.audit.audit(
        benchmark, FAST, fields=("hypothesis",), feature_sets=("1-grams_presence",), size_limits=(200, 1000, 2000)
    )
    assert forced.provenance.settings["n_repeats"] == 2  # named sets keep --n-repeats


def test_all_feature_sets_keeps_the_thirteen_at_any_size_and_named_sets_are_kept() -> None:
    from pfungst.audit.feature_sets import PAPER_FEATURE_SETS
    from pfungst.audit.pacchiardi2024_protocol import Pacchiardi2024
    from pfungst.audit.size_defaults import default_feature_sets, size_default

    at_limit, past = make_synthetic("cue-word", 200), make_synthetic("cue-word", 201)
    assert default_feature_sets(at_limit, size_limits=(200, 200, 300)) == PAPER_FEATURE_SETS
    assert default_feature_sets(past, size_limits=(200, 200, 300)) != PAPER_FEATURE_SETS
    paper = Pacchiardi2024().default_sets(past, 2, size_limits=(100, 100, 100), all_sets=False)
    assert paper.feature_sets == PAPER_FEATURE_SETS
    forced = size_default(past, 2, size_limits=(100, 100, 100), all_sets=True)
    assert (forced.feature_sets, forced.n_repeats, forced.reduced) == (PAPER_FEATURE_SETS, 2, False)
    assert "all sets asked for" in forced.reason
    with pytest.raises(pfungst.ConfigError, match=r"size_limits must be three item counts .* not \(100, 300, 200\)"):
        AuditConfig(size_limits=(100, 300, 200))


def test_all_feature_sets_with_named_sets_warns_that_it_has_no_effect(seed: int) -> None:
    benchmark = make_synthetic("cue-word", 200, seed=seed)
    with pytest.warns(UserWarning, match="all_feature_sets has no effect when feature sets are named"):
        result = pfungst.audit.audit(
            benchmark, FAST, feature_sets=("1-grams_presence",), all_feature_sets=True, size_limits=(100, 100, 100)
        )
    assert result.provenance.settings["feature_sets_reason"] == "named in the settings"
