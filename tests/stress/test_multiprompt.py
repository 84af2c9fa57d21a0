"""Multi-prompt evaluation: MaxP, AvgP, CPS, and the paper's published tables recomputed from its accuracies."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.outcome import Outcome
from pfungst.stats import wilson_interval
from pfungst.stress.multiprompt import (
    combined_performance_score,
    multiprompt_stats,
    read_paraphrase_accuracies,
    read_paraphrases,
)


def _answer(prompt: str, item: int, right: bool) -> Outcome:
    chosen = 0 if right else 1
    return Outcome(
        f"q{item}",
        "instructions",
        f"v-{prompt}",
        "letter",
        prompt,
        (0, 1),
        ("A", "B"),
        0,
        chosen,
        chosen,
        "ok",
        (0.0, -1.0),
    )


def _outcomes(correct_counts: dict[str, int], n_items: int) -> list[Outcome]:
    return [_answer(prompt, i, i < right) for prompt, right in correct_counts.items() for i in range(n_items)]


def test_combined_performance_score_by_hand() -> None:
    maxp, avgp, cps = combined_performance_score([0.8, 0.6, 0.4])
    assert (maxp, avgp) == pytest.approx((0.8, 0.6))
    assert cps == pytest.approx(0.8 * (1 - 0.2))
    assert combined_performance_score([0.7]) == pytest.approx((0.7, 0.7, 0.7))  # one prompt: no penalty


@pytest.mark.parametrize("accuracies", [[], [0.5, 1.2], [math.nan]])
def test_combined_performance_score_rejects_non_accuracies(accuracies: list[float]) -> None:
    with pytest.raises(ConfigError, match=r"accuracies|no accuracies given"):
        combined_performance_score(accuracies)


def test_multiprompt_stats_on_paired_items(seed: int) -> None:
    stats = multiprompt_stats(_outcomes({"p1": 8, "p2": 4, "p3": 6}, 10), seed=seed)
    assert stats.prompts == ("p1", "p2", "p3") and stats.n_items == 10
    assert [a.value for a in stats.accuracies] == pytest.approx([0.8, 0.4, 0.6])
    assert stats.accuracies[1].ci == wilson_interval(4, 10)
    assert (stats.maxp.value, stats.avgp.value) == pytest.approx((0.8, 0.6))
    assert stats.cps.value == pytest.approx(0.64)
    assert stats.spread.value == pytest.approx(0.4)
    for estimate in (stats.maxp, stats.avgp, stats.cps, stats.spread):
        assert estimate.ci is not None and estimate.ci.low <= estimate.value <= estimate.ci.high
    assert json.loads(json.dumps(stats.to_dict()))["n_items"] == 10


def test_identical_prompts_have_no_spread_in_any_resample(seed: int) -> None:
    stats = multiprompt_stats(_outcomes({"p1": 5, "p2": 5}, 10), seed=seed)
    assert stats.spread.ci is not None and (stats.spread.ci.low, stats.spread.ci.high) == (0.0, 0.0)
    assert stats.cps.value == pytest.approx(stats.maxp.value)


def test_prompts_can_be_grouped_by_another_field(seed: int) -> None:
    stats = multiprompt_stats(_outcomes({"p1": 8, "p2": 4}, 10), by="variant", seed=seed)
    assert stats.prompts == ("v-p1", "v-p2")
    with pytest.raises(ConfigError, match=r"cannot group outcomes by 'item_id'"):
        multiprompt_stats(_outcomes({"p1": 8, "p2": 4}, 10), by="item_id", seed=seed)


def test_reader_reports_malformed_accuracy_files() -> None:
    with pytest.raises(ReaderError, match=r"field 'idx': expected the first column 'paraphrase idx'"):
        read_paraphrase_accuracies(io.StringIO("idx,a_acc\n1,0.5\n"))
    with pytest.raises(ReaderError, match=r"field 'model': expected one '<model>_acc' column"):
        read_paraphrase_accuracies(io.StringIO("paraphrase idx,model\n1,0.5\n"))
    with pytest.raises(ReaderError, match=r"<stream>:3: field 'b_acc': '1.5' is not an accuracy in \[0, 1\]"):
        read_paraphrase_accuracies(io.StringIO("paraphrase idx,a_acc,b_acc\n1,0.5,0.5\n2,0.5,1.5\n"))
    with pytest.raises(ReaderError, match=r"<stream>:3: field 'paraphrase idx': id 1 repeats"):
        read_paraphrase_accuracies(io.StringIO("paraphrase idx,a_acc\n1,0.5\n1,0.6\n"))
    with pytest.raises(ReaderError, match=r"nowhere\.csv: file not found"):
        read_paraphrase_accuracies("nowhere.csv")


# --- the paper's released data: recompute the open-source tables from the per-paraphrase accuracies --------------

BENCHMARKS = {"BBH": "big-bench-hard", "LMentry": "lmentry"}
METRICS = ("MaxP", "AvgP", "CPS")
FILTERINGS = ("no_filtering", "correct_paraphrases_only")
# In these two files the headers of the flan-t5-small and flan-t5-base columns are swapped relative to every other
# LMentry file; the published tables (and the upstream aggregated JSON, paraphrase 1: small 0.49, base 0.47) follow
# the column position, not the header.
SWAPPED = {("LMentry", "all_words_from_category"), ("LMentry", "any_words_from_category")}
SWAPPED_MODELS = ("flan-t5-small", "flan-t5-base")
Cell = tuple[str, str, str, str, str]  # (filtering, metric, benchmark folder, task file, model)


def _published(root: Path, metric: str, filtering: str) -> dict[tuple[str, str, str], float]:
    """(benchmark, task, model) -> published value; headers and task names carry stray spaces in the release."""
    table = pd.read_csv(root / "metric_results" / "open-source_models" / f"open-source_models_{metric}_{filtering}.csv")
    values = {}
    for record in table.to_dict("records"):
        fields = {str(key).strip(): value for key, value in record.items()}
        benchmark, task = str(fields["benchmark"]), str(fields["task"]).strip()
        for model in (str(column).strip() for column in table.columns[2:]):
            values[(benchmark, task, model)] = float(fields[model])
    return values


def _recomputed(root: Path, swap: bool) -> dict[Cell, float]:
    cells: dict[Cell, float] = {}
    for path in sorted((root / "paraphrase_accuracies").glob("*/*.csv")):
        benchmark, task = path.parent.name, path.stem
        accuracies = read_paraphrase_accuracies(path)
        if swap and (benchmark, task) in SWAPPED:
            accuracies = accuracies.rename(columns=dict(zip(SWAPPED_MODELS, reversed(SWAPPED_MODELS), strict=True)))
        correct = read_paraphrases(root / "paraphrases" / benchmark / path.name)["correct"]
        for filtering in FILTERINGS:
            kept = accuracies if filtering == "no_filtering" else accuracies.loc[correct[correct].index]
            for model in accuracies.columns:
                for metric, value in zip(METRICS, combined_performance_score(kept[model].tolist()), strict=True):
                    cells[(filtering, metric, benchmark, task, model)] = value
    return cells


def _mismatches(root: Path, cells: dict[Cell, float]) -> set[Cell]:
    tables = {
        (metric, filtering): _published(root, metric, filtering) for metric in METRICS for filtering in FILTERINGS
    }
    wrong: set[Cell] = set()
    for (filtering, metric, benchmark, task, model), value in cells.items():
        task_name = task if benchmark == "BBH" else task.replace("_", " ")
        published = tables[(metric, filtering)][(BENCHMARKS[benchmark], task_name, model)]
        if not math.isclose(value, published, rel_tol=0, abs_tol=1e-9):
            wrong.add((filtering, metric, benchmark, task, model))
    return wrong


def test_published_maxp_avgp_cps_are_recomputed_from_the_paraphrase_accuracies(shared_data: Path) -> None:
    root = shared_data / "multiprompt"
    cells = _recomputed(root, swap=False)
    assert len(cells) == 1950  # 15 BBH tasks x 11 models + 10 LMentry tasks x 16 models, x 3 metrics x 2 filterings
    wrong = _mismatches(root, cells)
    expected = {
        (filtering, metric, benchmark, task, model)
        for filtering in FILTERINGS
        for metric in METRICS
        for benchmark, task in SWAPPED
        for model in SWAPPED_MODELS
    }
    assert wrong == expected  # 1926 of 1950 cells match as labelled; the other 24 are the swapped columns


def test_swapping_the_mislabelled_columns_matches_every_published_cell(shared_data: Path) -> None:
    root = shared_data / "multiprompt"
    assert _mismatches(root, _recomputed(root, swap=True)) == set()


def test_duplicate_paraphrases_are_flagged_not_dropped(shared_data: Path) -> None:
    paraphrases = read_paraphrases(shared_data / "multiprompt" / "paraphrases" / "LMentry" / "ends_with_word.csv")
    assert len(paraphrases) == 226 and int(paraphrases["duplicate"].sum()) == 19
    bbh = shared_data / "multiprompt" / "paraphrases" / "BBH"
    seven = read_paraphrases(bbh / "logical_deduction_seven_objects.csv")
    assert not seven.loc[65, "correct"]  # released as "0?": excluded from the published correct-only tables
    assert int(seven["correct"].sum()) == 145
