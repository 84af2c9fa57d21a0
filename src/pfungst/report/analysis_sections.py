"""Report blocks of each stress analysis, one builder per result kind (the ``kind`` key of an analysis dict).

:data:`ANALYSES` maps the kind (the result class's name) to its builder; a kind without one is shown field by field
by :func:`~pfungst.blocks.generic_blocks`. Every figure is read from the analysis; nothing is computed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pfungst.blocks import (
    ESTIMATE_COLUMNS,
    Block,
    Facts,
    Figure,
    Table,
    estimate_row,
    format_estimate,
    format_number,
    format_pvalue,
    methods_note,
)

__all__ = ["ANALYSES", "analysis_title"]

Builder = Callable[[Mapping[str, Any]], tuple[Block, ...]]

_SHOWN_IDS = 5
"""Item ids of PriDe's estimation sample shown (the JSON has all of them)."""

_TITLES = {
    "selection-bias": "Selection bias",
    "circular": "Circular versus plain",
    "answer-moved": "Gold answer moved to each slot",
    "paired-difference": "Paired difference",
    "pride": "PriDe debiasing",
    "format-spread": "Format spread",
    "spread-search": "Format spread search",
    "multiprompt": "Instruction paraphrases",
}


def analysis_title(analysis: Mapping[str, Any]) -> str:
    """A heading for an analysis dict: its name in words and its subject.

    Example:
        >>> analysis_title({"name": "selection-bias", "subject": "letter, identity, by position"})
        'Selection bias (letter, identity, by position)'
    """
    name = str(analysis.get("name", "analysis"))
    subject = analysis.get("subject")
    title = _TITLES.get(name, name)
    return f"{title} ({subject})" if subject else title


def _estimates_table(caption: str, named: list[tuple[str, Mapping[str, Any] | None]]) -> Table:
    return Table(
        caption,
        ESTIMATE_COLUMNS,
        tuple(estimate_row(label, e) for label, e in named),
        note=methods_note([e for _, e in named]),
    )


def _selection_bias(result: Mapping[str, Any]) -> tuple[Block, ...]:
    ids, recalls = result.get("ids") or [], result.get("recalls") or []
    predicted, expected = result.get("predicted") or [], result.get("expected") or []
    by = str(result.get("by", "id"))
    rows = tuple(
        (
            str(id_),
            format_estimate(recall),
            format_number((recall or {}).get("baseline")),
            format_number(predicted[k] if k < len(predicted) else None),
            format_number(expected[k] if k < len(expected) else None, 1),
            format_number((recall or {}).get("n")),
        )
        for k, (id_, recall) in enumerate(zip(ids, recalls, strict=False))
    )
    uniformity = result.get("uniformity") or {}
    facts = Facts(
        (
            ("RStd (std of recalls x 100)", format_estimate(result.get("rstd"), 1)),
            (
                "top share",
                f"{format_estimate(result.get('top_share'))}, chance "
                f"{format_number((result.get('top_share') or {}).get('baseline'))}",
            ),
            (
                "choices uniform",
                f"chi-squared {format_number(uniformity.get('value'), 2)}, p {format_pvalue(uniformity.get('pvalue'))}",
            ),
            ("unanswered", format_number(result.get("n_unanswered"))),
        )
    )
    table = Table(
        f"Recall per {by} (share of the items whose gold is there that the model answered right)",
        (by, "recall [CI]", "chance", "chosen", "expected", "items"),
        rows,
        note=methods_note([*recalls, result.get("rstd"), result.get("top_share"), uniformity]),
    )
    figure = Figure(
        "bars",
        f"Recall per {by} (95% intervals)",
        {
            "labels": [str(i) for i in ids],
            "estimates": recalls,
            "references": _shared_baseline(recalls),
            "axis": "recall",
        },
    )
    return facts, table, figure


def _circular(result: Mapping[str, Any]) -> tuple[Block, ...]:
    named = [
        ("plain (as published)", result.get("plain")),
        ("mean over arrangements", result.get("mean")),
        ("circular (right in every arrangement)", result.get("circular")),
        ("consistency (same answer in every arrangement)", result.get("consistency")),
        ("fluctuation (share of changed answers)", result.get("fluctuation")),
    ]
    arrangements = ", ".join(str(a) for a in result.get("arrangements") or [])
    facts = Facts((("arrangements per item", arrangements or "n/a"), ("items", format_number(result.get("n_items")))))
    figure = Figure(
        "intervals",
        "Plain versus circular accuracy",
        {
            "labels": ["plain", "mean over arrangements", "circular"],
            "estimates": [result.get("plain"), result.get("mean"), result.get("circular")],
            "axis": "accuracy",
        },
    )
    return facts, _estimates_table("Circular evaluation", named), figure


def _paired_difference(result: Mapping[str, Any]) -> tuple[Block, ...]:
    first, second = str(result.get("first")), str(result.get("second"))
    named = [
        (f"accuracy, {first}", result.get("first_accuracy")),
        (f"accuracy, {second}", result.get("second_accuracy")),
        (f"difference ({first} - {second})", result.get("difference")),
    ]
    discordant = result.get("n_discordant") or [None, None]
    facts = Facts(
        (
            (f"right only under {first}", format_number(discordant[0])),
            (f"right only under {second}", format_number(discordant[1] if len(discordant) > 1 else None)),
            ("items", format_number(result.get("n_items"))),
        )
    )
    return _estimates_table("Paired accuracies", named), facts


def _answer_moved(result: Mapping[str, Any]) -> tuple[Block, ...]:
    slots, per_slot = result.get("slots") or [], result.get("per_slot") or []
    named = [(f"gold in slot {slot}", estimate) for slot, estimate in zip(slots, per_slot, strict=False)]
    named += [("gap (best - worst slot)", result.get("gap")), ("right in every slot", result.get("worst_case"))]
    figure = Figure(
        "bars",
        "Accuracy with the gold answer in each slot",
        {
            "labels": [str(s) for s in slots],
            "estimates": per_slot,
            "references": _shared_baseline(per_slot),
            "axis": "accuracy",
        },
    )
    return _estimates_table("Accuracy per gold slot", named), figure


def _pride(result: Mapping[str, Any]) -> tuple[Block, ...]:
    named = [
        ("plain", result.get("plain")),
        ("debiased", result.get("debiased")),
        ("debiased, items outside the estimation set", result.get("debiased_rest")),
    ]
    chosen = [str(item) for item in result.get("estimation_items") or []]
    shown = ", ".join(chosen[:_SHOWN_IDS]) + (", ..." if len(chosen) > _SHOWN_IDS else "")
    facts = Facts(
        (
            ("estimation items", f"{len(chosen)} ({format_number(result.get('fraction'), 2)} of the items): {shown}"),
            (
                "passes",
                f"{format_number(result.get('passes'))} against {format_number(result.get('plain_passes'))} "
                f"plain (cost ratio {format_number(result.get('cost_ratio'), 2)})",
            ),
        )
    )
    blocks: list[Block] = [_estimates_table("Accuracy before and after PriDe", named), facts]
    prior = result.get("prior") or {}
    by_k = prior.get("by_n_options") or {}
    if by_k:
        width = max(len(values) for values in by_k.values())
        rows = tuple(
            (
                str(k),
                format_number((prior.get("n_items") or {}).get(k)),
                *(format_number(values[p]) if p < len(values) else "" for p in range(width)),
            )
            for k, values in by_k.items()
        )
        blocks.append(
            Table(
                "Estimated prior over positions",
                ("options", "estimated on items", *(f"position {p + 1}" for p in range(width))),
                rows,
            )
        )
    return tuple(blocks)


def _format_spread(result: Mapping[str, Any]) -> tuple[Block, ...]:
    formats = result.get("formats") or []
    rows = tuple((str(f.get("format")), format_estimate(f.get("accuracy")), format_number(f.get("n"))) for f in formats)
    figure = Figure(
        "intervals",
        "Accuracy per prompt format (best first)",
        {
            "labels": [str(f.get("format")) for f in formats],
            "estimates": [f.get("accuracy") for f in formats],
            "axis": "accuracy",
        },
    )
    facts = Facts(
        (
            ("best", str(result.get("best"))),
            ("worst", str(result.get("worst"))),
            ("formats", format_number(result.get("n_formats"))),
        )
    )
    return (
        _estimates_table("Spread", [("best - worst accuracy", result.get("spread"))]),
        facts,
        Table(
            "Accuracy per format",
            ("format", "accuracy [CI]", "items"),
            rows,
            note=methods_note([f.get("accuracy") for f in formats]),
        ),
        figure,
    )


def _spread_search(result: Mapping[str, Any]) -> tuple[Block, ...]:
    best, worst = result.get("best") or {}, result.get("worst") or {}
    named = [
        (f"best: {best.get('format')}", best.get("accuracy")),
        (f"worst: {worst.get('format')}", worst.get("accuracy")),
        ("spread (best - worst)", result.get("spread")),
    ]
    pulls = result.get("pulls") or {}
    rows = tuple((str(name), format_number(counts[0]), format_number(counts[1])) for name, counts in pulls.items())
    evaluations = f"{format_number(result.get('evaluations'))} of a budget of {format_number(result.get('budget'))}"
    facts = Facts((("evaluations", evaluations), ("seed", format_number(result.get("seed")))))
    return (
        _estimates_table("Best and worst format found", named),
        facts,
        Table("Items asked per format", ("format", "right", "asked"), rows),
    )


def _multiprompt(result: Mapping[str, Any]) -> tuple[Block, ...]:
    prompts, accuracies = result.get("prompts") or [], result.get("accuracies") or []
    named = [
        ("MaxP (best prompt)", result.get("maxp")),
        ("AvgP (mean over prompts)", result.get("avgp")),
        ("CPS", result.get("cps")),
        ("spread (best - worst)", result.get("spread")),
    ]
    rows = tuple((str(p), format_estimate(a)) for p, a in zip(prompts, accuracies, strict=False))
    figure = Figure(
        "intervals",
        "Accuracy per instruction",
        {"labels": [str(p) for p in prompts], "estimates": accuracies, "axis": "accuracy"},
    )
    return (
        _estimates_table("Over prompts", named),
        Table("Accuracy per prompt", ("prompt", "accuracy [CI]"), rows, note=methods_note(accuracies)),
        figure,
    )


def _shared_baseline(estimates: list[Any]) -> list[list[Any]]:
    """A chance line when every estimate has the same baseline."""
    baselines = {(e or {}).get("baseline") for e in estimates}
    return [[baselines.pop(), "chance"]] if len(baselines) == 1 and None not in baselines else []


ANALYSES: dict[str, Builder] = {
    "SelectionBias": _selection_bias,
    "CircularMetrics": _circular,
    "PairedDifference": _paired_difference,
    "AnswerMoved": _answer_moved,
    "PrideResult": _pride,
    "FormatSpread": _format_spread,
    "SpreadSearch": _spread_search,
    "MultiPromptStats": _multiprompt,
}
"""Analysis kind (the result's class name) -> the blocks that show it."""
