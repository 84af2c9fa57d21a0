"""A stress run on the console (its own sections, through the block renderer): every figure a user reads off a run,
with its interval, markup-safe, never crashing."""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from rich.console import Console

from pfungst.environment import Environment
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import ScoreCounts
from pfungst.provenance import Provenance
from pfungst.report.console_blocks import render_to_console
from pfungst.stress.metrics import (
    circular_metrics,
    moved_answer_accuracy,
    paired_difference,
    selection_bias,
    variant_accuracies,
)
from pfungst.stress.multiprompt import multiprompt_stats
from pfungst.stress.perturbations.formats.metric import format_spread
from pfungst.stress.perturbations.pride.estimate import run_pride
from pfungst.stress.perturbations.spread_search.metric import search_spread
from pfungst.stress.ranks import rank_stability
from pfungst.stress.stress_result import Analysis, PerturbationCost, StressResult

N_ITEMS = 8
LABELS = ("A", "B", "C", "D")
CELL = r"[\s│]+"
"""What separates two table cells in the output."""
POSITION_PRIOR = (0.7, 0.1, 0.1, 0.1)
"""The fake model's weight for each position: strong enough that it always answers at the first position."""


def _outcome(
    item: int,
    perturbation: str,
    variant: str,
    order: tuple[int, ...],
    *,
    chosen_position: int | None = None,
    labels: tuple[str, ...] = LABELS,
    format_name: str = "mmlu",
    chosen: int | None = None,
) -> Outcome:
    """Item ``q<item>`` (gold ``item % 4``) in ``order``; by default the model answers at the first position, with
    log-scores ``log(prior(position) * content(option))`` (content 0.6 for the gold, 0.4 / 3 for the others)."""
    gold = item % 4
    scores = tuple(math.log(POSITION_PRIOR[p] * (0.6 if order[p] == gold else 0.4 / 3)) for p in range(4))
    if chosen is not None:
        chosen_position = order.index(chosen)
    position = 0 if chosen_position is None else chosen_position
    return Outcome(
        item_id=f"q{item}",
        perturbation=perturbation,
        variant=variant,
        rule="letter",
        format=format_name,
        order=order,
        labels=labels,
        gold=gold,
        chosen=order[position],
        chosen_position=position,
        status="ok",
        scores=scores,
    )


def _gold_at(item: int, slot: int) -> tuple[int, ...]:
    gold = item % 4
    others = [option for option in range(4) if option != gold]
    return tuple(others[:slot] + [gold] + others[slot:])


@dataclass(frozen=True)
class _Mystery:
    """An analysis result no renderer knows: it has a kind but no blocks."""

    KIND: ClassVar[str] = "mystery"
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "score": 42}


def _stress_result(seed: int) -> StressResult:
    """A first-position model on 8 four-option items (gold spread evenly), under every perturbation."""
    items = range(N_ITEMS)
    identity = [_outcome(i, "identity", "identity", (0, 1, 2, 3)) for i in items]
    cyclic = [
        _outcome(i, "cyclic", f"shift {s}", tuple((p + s) % 4 for p in range(4))) for i in items for s in range(4)
    ]
    moved = [_outcome(i, "answer-moved", f"slot {s + 1}", _gold_at(i, s)) for i in items for s in range(4)]
    shuffled = [
        _outcome(
            i,
            "ids-shuffled",
            "ids shuffled",
            (0, 1, 2, 3),
            labels=tuple(("[bold]", "B", "C", "D")[(p + i) % 4] for p in range(4)),
        )
        for i in items
    ]
    adjacent = [_outcome(i, "top2", "adjacent", (0, 1, 2, 3), chosen=i % 4) for i in items]
    ends = [_outcome(i, "top2", "ends", (0, 1, 2, 3)) for i in items]
    names = ["[bold]plain", *(f"format {f}" for f in range(2, 9))]  # format f gets the first f items right
    formats = [
        _outcome(i, "formats", name, (0, 1, 2, 3), format_name=name, chosen=i % 4 if i < f else (i + 1) % 4)
        for f, name in enumerate(names, start=1)
        for i in items
    ]
    prompts = [
        _outcome(
            i,
            "instructions",
            f"paraphrase {p}",
            (0, 1, 2, 3),
            format_name=f"paraphrase {p}",
            chosen=i % 4 if i < right else (i + 1) % 4,
        )
        for p, right in ((1, 6), (2, 2))
        for i in items
    ]
    debiased = run_pride(identity, [o for o in cyclic if o.item_id in ("q0", "q1")], ["q0", "q1"], fraction=0.25)
    search = search_spread(
        ["good", "bad"],
        40,
        lambda fmt, chosen: [fmt == "good" or i % 4 == 0 for i in chosen],
        budget=40,
        batch=10,
        seed=seed,
    )
    boot = {"seed": seed, "n_bootstrap": 200}
    analyses = (
        Analysis(
            "identity",
            "letter",
            selection_bias(identity, by="position", **boot),
            subject="letter, identity, by position",
        ),
        Analysis("cyclic", "letter", circular_metrics(cyclic, **boot), subject="letter, cyclic rotations"),
        Analysis(
            "answer-moved",
            "letter",
            moved_answer_accuracy(moved, **boot),
            subject="letter, gold moved to each slot",
        ),
        Analysis(
            "ids-shuffled",
            "letter",
            selection_bias(shuffled, by="label", **boot),
            subject="letter, ids shuffled, by label",
        ),
        Analysis(
            "top2",
            "letter",
            paired_difference(adjacent, ends, names=("adjacent", "ends"), **boot),
            subject="letter, top two adjacent versus at the ends",
        ),
        Analysis("pride", "letter", debiased, subject="letter, K = 25%"),
        Analysis(
            "pride",
            "letter",
            selection_bias(debiased.outcomes, by="position", **boot),
            variant="debiased",
            subject="letter, PriDe debiased, by position",
        ),
        Analysis("formats", "letter", format_spread(formats, **boot), subject="letter, 8 formats"),
        Analysis("spread-search", "letter", search, subject="letter, 2 formats"),
        Analysis(
            "instructions",
            "letter",
            multiprompt_stats(prompts, by="format", **boot),
            subject="letter, instruction paraphrases",
        ),
        Analysis("mystery", "letter", _Mystery("odd"), subject="letter, something new"),  # type: ignore[arg-type]
    )
    outcomes = (*identity, *cyclic, *moved, *shuffled, *adjacent, *ends, *formats, *prompts)
    return StressResult(
        model="llamacpp:/models/tiny.gguf:1234:abcd",
        accuracies=variant_accuracies([*outcomes, *debiased.outcomes]),
        analyses=analyses,
        costs=(
            PerturbationCost("identity", 8, 8, 1.0, 1.0),
            PerturbationCost("cyclic", 32, 24, 4.0, 3.0),
            PerturbationCost("spread-search", 0, 0, math.nan, math.nan),
        ),
        outcomes=outcomes,
        counts=ScoreCounts(requests=120, unique_requests=100, hits=30, misses=70, model_calls=7, seconds=2.5),
        warnings=("top2 (letter) partly skipped: [bold]3 items[/bold] have one option",),
        benchmark={"name": "toy [v2]", "n_items": N_ITEMS},
        provenance=Provenance({"rule": "letter", "format": "mmlu"}, seed, Environment()),
    )


@pytest.fixture
def report(seed: int) -> str:
    console = Console(file=io.StringIO(), width=140)
    render_to_console(_stress_result(seed), console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert all(len(line) <= 140 for line in text.splitlines())
    return text


def _line(text: str, start: str) -> str:
    """The first line that starts (after indentation) with ``start``."""
    return next(line.strip() for line in text.splitlines() if line.strip().startswith(start))


def test_header_names_benchmark_items_model_file_seed_rule_and_format(report: str, seed: int) -> None:
    assert "Model stress: tiny.gguf on toy [v2]" in report.splitlines()[0]
    for fact in ("model: llamacpp:/models/tiny.gguf:1234:abcd", "items: 8", f"seed: {seed}", "scoring rule: letter"):
        assert f"  {fact}\n" in report
    assert "  base format: mmlu\n" in report


def test_accuracy_table_lists_every_variant_with_its_interval(report: str) -> None:
    # The first-position model is right when the gold is at A: 2 of 8 items, chance 1/4.
    row = rf"identity{CELL}identity{CELL}letter{CELL}mmlu{CELL}0\.250 \[0\.071, 0\.591\]{CELL}0\.250{CELL}0{CELL}8"
    assert re.search(row, report)
    assert re.search(rf"shift 3{CELL}letter{CELL}mmlu{CELL}0\.250", report)
    assert re.search(rf"slot 4{CELL}letter{CELL}mmlu{CELL}0\.000", report)
    assert re.search(rf"pride{CELL}debiased{CELL}letter{CELL}mmlu{CELL}1\.000", report)  # PriDe's answers: a variant
    table = report.split("\nSelection bias (")[0]
    assert all(f"format {number}" in table for number in range(2, 9))  # the table lists every format


def test_selection_bias_shows_recall_bars_rstd_counts_and_the_favourite(report: str) -> None:
    # Always position 1: recall 1 there and 0 elsewhere, RStd = std(1, 0, 0, 0) x 100 = 43.3.
    assert re.search(r"1 █{20} 1\.000 \[0\.342, 1\.000\]", report)
    assert re.search(r"2 \s{20} 0\.000 \[0\.000, 0\.658\]", report)
    # position | recall [CI] | chance | chosen | expected under uniform choice | items with the gold there
    assert re.search(rf"1{CELL}1\.000 \[0\.342, 1\.000\]{CELL}0\.250{CELL}8{CELL}2\.0{CELL}2 *\n", report)
    assert re.search(rf"2{CELL}0\.000 \[0\.000, 0\.658\]{CELL}0\.250{CELL}0{CELL}2\.0{CELL}2 *\n", report)
    assert _line(report, "RStd").startswith("RStd (std of recalls x 100): 43.3 [")
    assert _line(report, "choices uniform").startswith("choices uniform: chi-squared 24.00")
    assert _line(report, "top share") == "top share: 1.000 [0.676, 1.000], chance 0.250"


def test_circular_evaluation_rows_with_baselines(report: str) -> None:
    assert "arrangements per item: 4, 4\n  items: 8\n" in report
    assert re.match(
        r"plain \(as published\)\s+0\.250 \[0\.071, 0\.591\]\s+0\.250\s+n/a\s+8$", _line(report, "plain (as published)")
    )
    # Right under every rotation never; chance of that 4 * (1/4)^4 for consistency, (1/4)^4 for circular.
    assert re.match(
        r"circular \(right in every arrangement\)\s+0\.000 \[0\.000, 0\.324\]\s+0\.004\s+n/a\s+8$",
        _line(report, "circular (right in every arrangement)"),
    )
    assert re.match(
        r"consistency \(same answer in every arrangement\)\s+0\.000 .*\s+0\.016\s+n/a\s+8$",
        _line(report, "consistency (same answer in every arrangement)"),
    )
    assert re.match(
        r"fluctuation \(share of changed answers\)\s+1\.000 \[1\.000, 1\.000\]\s+0\.750\s+n/a\s+8$",
        _line(report, "fluctuation (share of changed answers)"),
    )


def test_answer_moved_shows_each_slot_the_gap_and_worst_case(report: str) -> None:
    assert re.match(r"gold in slot A\s+1\.000 .*0\.250\s+n/a\s+8$", _line(report, "gold in slot A"))
    assert re.match(r"gold in slot D\s+0\.000 .*0\.250\s+n/a\s+8$", _line(report, "gold in slot D"))
    assert re.match(
        r"gap \(best - worst slot\)\s+1\.000 \[1\.000, 1\.000\]\s+0\.000\s+n/a\s+8$",
        _line(report, "gap (best - worst slot)"),
    )
    assert re.match(r"right in every slot\s+0\.000", _line(report, "right in every slot"))
    assert re.search(r"A █{20} 1\.000 \[0\.676, 1\.000\]", report)


def test_paired_difference_shows_both_accuracies_the_difference_and_mcnemar_p(report: str) -> None:
    assert re.match(r"accuracy, adjacent\s+1\.000", _line(report, "accuracy, adjacent"))
    assert re.match(r"accuracy, ends\s+0\.250", _line(report, "accuracy, ends"))
    # 6 items right only when adjacent, none the other way: McNemar p = 2 / 2^6.
    assert re.match(
        r"difference \(adjacent - ends\)\s+0\.750 \[.*\]\s+0\.000\s+0\.0312\s+8$", _line(report, "difference")
    )
    assert "right only under adjacent: 6\n  right only under ends: 0\n  items: 8\n" in report


def test_pride_shows_plain_and_debiased_accuracy_the_prior_and_its_cost(report: str) -> None:
    assert re.search(r"^\s+plain\s+0\.250 \[0\.071, 0\.591\]", report, re.MULTILINE)
    assert re.search(r"^\s+debiased\s+1\.000", report, re.MULTILINE)
    assert re.match(
        r"debiased, items outside the estimation set\s+1\.000 .*\s+6$",
        _line(report, "debiased, items outside the estimation set"),
    )
    # options | estimated on items | prior of each position
    assert re.search(rf"4{CELL}2{CELL}0\.700{CELL}0\.100{CELL}0\.100{CELL}0\.100", report)
    # Two items in 4 rotations plus one pass for each of the other 6: 14 passes for 8 plain ones.
    assert _line(report, "passes:") == "passes: 14 against 8 plain (cost ratio 1.75)"
    assert _line(report, "estimation items:") == "estimation items: 2 (0.25 of the items): q0, q1"
    assert "Selection bias (letter, PriDe debiased, by position)" in report


def test_format_spread_and_spread_search_show_best_worst_spread_and_budget(report: str, seed: int) -> None:
    assert _line(report, "best:") == "best: format 8" and _line(report, "worst:") == "worst: [bold]plain"
    assert re.search(rf"format 8{CELL}1\.000 \[0\.676, 1\.000\]{CELL}8", report)
    assert re.search(rf"\[bold\]plain{CELL}0\.125", report)
    assert re.match(r"best - worst accuracy\s+0\.875 \[", _line(report, "best - worst accuracy"))
    assert "formats: 8" in report
    search = _stress_result(seed).analysis("spread-search")  # which format the seeded search judged best varies
    assert re.search(rf"best: {search.best.format}\s+{search.best.accuracy.value:.3f} \[", report)
    assert re.search(rf"worst: {search.worst.format}\s+{search.worst.accuracy.value:.3f} \[", report)
    assert "evaluations: 40 of a budget of 40" in report


def test_multiprompt_shows_maxp_avgp_cps_and_spread(report: str) -> None:
    # Paraphrase 1 gets 6 of 8 right, paraphrase 2 gets 2: MaxP 0.75, AvgP 0.5, spread 0.5.
    assert re.match(r"MaxP \(best prompt\)\s+0\.750 \[.*\s+8$", _line(report, "MaxP"))
    assert re.match(r"AvgP \(mean over prompts\)\s+0\.500 \[", _line(report, "AvgP"))
    assert _line(report, "CPS").startswith("CPS")
    assert re.search(rf"paraphrase 1{CELL}0\.750", report) and re.search(rf"paraphrase 2{CELL}0\.250", report)


def test_costs_counts_and_warnings_are_printed(report: str) -> None:
    assert re.search(rf"cyclic{CELL}32{CELL}24{CELL}4\.00{CELL}3\.00", report)
    assert re.search(rf"spread-search{CELL}0{CELL}0{CELL}n/a{CELL}n/a", report)
    assert "requests: 120 (100 distinct)\n" in report and "seconds: 2.5\n" in report
    assert "cache: 30 hits, 70 asked of the model in 7 calls\n" in report
    assert "warning: top2 (letter) partly skipped: [bold]3 items[/bold] have one option" in report


def test_markup_in_labels_format_names_and_names_is_printed_literally(report: str) -> None:
    # A label "[bold]" of the shuffled IDs, a format "[bold]plain", the benchmark "toy [v2]": all shown as written.
    assert re.search(r"\[bold\] █+\s+", report)
    assert re.search(rf"\[bold\]{CELL}0\.500 \[0\.150, 0\.850\]{CELL}0\.250{CELL}2", report)
    assert "[bold]plain" in report and "toy [v2]" in report


def test_an_unknown_analysis_is_printed_from_its_to_dict(report: str) -> None:
    assert "mystery (letter, something new)" in report
    assert re.match(r"verdict\s+odd", _line(report, "verdict"))
    assert re.match(r"score\s+42", _line(report, "score"))


def test_a_run_without_analyses_or_costs_prints_header_table_and_counts() -> None:
    outcomes = [_outcome(i, "identity", "identity", (0, 1, 2, 3)) for i in range(4)]
    result = StressResult(
        model="scripted",
        accuracies=variant_accuracies(outcomes),
        analyses=(),
        costs=(),
        outcomes=tuple(outcomes),
        counts=ScoreCounts(4, 4, 0, 4, 1, 0.1),
        warnings=(),
        benchmark={"name": "tiny", "n_items": 4},
        provenance=Provenance({"rule": "letter", "format": "mmlu"}, 0, Environment()),
    )
    console = Console(file=io.StringIO(), width=100)
    render_to_console(result, console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Cost of each perturbation" not in text and "warning" not in text
    assert re.search(rf"identity{CELL}identity{CELL}letter{CELL}mmlu{CELL}0\.250", text)
    assert "requests: 4 (4 distinct)" in text and text.splitlines()[-1].strip() == "seconds: 0.1"


def _answers(n_correct: int, n_items: int = 10) -> dict[str, bool]:
    return {f"q{i:02d}": i < n_correct for i in range(n_items)}


def test_ranks_show_places_agreement_largest_shift_and_pairs(seed: int) -> None:
    # Accuracies 0.9 / 0.6 / 0.3 in the original order, reversed when the answer is moved.
    ranks = rank_stability(
        {
            "a": {"identity": _answers(9), "answer moved": _answers(3)},
            "b": {"identity": _answers(6), "answer moved": _answers(6)},
            "llamacpp:/m/c.gguf:9:ff": {"identity": _answers(3), "answer moved": _answers(9)},
        },
        seed=seed,
        n_bootstrap=200,
    )
    console = Console(file=io.StringIO(), width=140)
    render_to_console(ranks, console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Model comparison" in text.splitlines()[0]
    assert "models: a, b, llamacpp:/m/c.gguf:9:ff\n" in text and f"seed: {seed}\n" in text
    assert re.search(rf"identity{CELL}a{CELL}0\.900 \[0\.596, 0\.982\]{CELL}1\.0 \[", text)
    assert re.search(rf"answer moved{CELL}a{CELL}0\.300 \[0\.108, 0\.603\]{CELL}3\.0 \[", text)
    assert re.search(rf"identity{CELL}answer moved{CELL}-1\.000{CELL}0\.3333{CELL}3", text)
    assert "concordance (Kendall's W): 0.000, p 1.0000" in text
    assert "largest shift: a: place 1.0 on identity -> 3.0 on answer moved" in text
    # a - c on identity = 0.6 (6 discordant items, p = 2 / 2^6).
    assert re.search(rf"identity{CELL}a{CELL}llamacpp:/m/c\.gguf:9:ff{CELL}0\.600 \[[^]]*\]{CELL}0\.0312", text)


def test_ranks_with_one_variant_say_w_is_undefined(seed: int) -> None:
    ranks = rank_stability({"a": {"plain": _answers(7)}, "b": {"plain": _answers(4)}}, seed=seed, n_bootstrap=50)
    console = Console(file=io.StringIO(), width=140)
    render_to_console(ranks, console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "variants: 1\n" in text and "undefined with 1 variant" in text and "tau" not in text
    assert "largest shift: a: place 1.0 on plain -> 1.0 on plain" in text
    assert re.search(rf"plain{CELL}a{CELL}b{CELL}0\.300 \[", text)


def test_the_verdict_follows_the_header_with_its_checks_against_their_thresholds(report: str, seed: int) -> None:
    verdict = _stress_result(seed).verdict
    after_header = " ".join(line.strip() for line in report.splitlines()[1:3])
    assert after_header.startswith(verdict.finding)  # wrapped at the console's width
    assert "Verdict checks" in report
    assert "answer-moved gap" in report and "RStd by position" in report and "format spread" in report
