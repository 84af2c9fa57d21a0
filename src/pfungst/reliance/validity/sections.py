"""Blocks of an item validity screen (:class:`~pfungst.reliance.validity.ValidityResult`): suspected wrong keys.

Per dataset: the counts (items, models, suspected keys, items no model gets right), the top-ranked items with
their text, key, the answer the models agree on, the wrong-key test, the IRT parameters, the item-rest correlation
and cleanlab's score; then the items no model gets right, and how IRT and cleanlab were run. Nothing is computed
here: the ranking is the result's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.blocks import Block, Facts, Section, Table, Text, format_number, format_pvalue
from pfungst.results import Overview

if TYPE_CHECKING:
    from pfungst.reliance.validity.result import DatasetValidity, ValidityResult

__all__ = ["TOP_ITEMS", "validity_overview", "validity_sections"]

TOP_ITEMS = 20
"""Items listed per dataset (the full ranking is in the JSON)."""

_COLUMNS = (
    "rank",
    "item",
    "text",
    "key",
    "models agree on",
    "agree / answered",
    "strength log-odds",
    "expected share",
    "p",
    "q (BH)",
    "difficulty b",
    "discrimination a",
    "item-rest r",
    "cleanlab quality",
)

_NOTE = (
    "p: chance that this many models pick the same non-gold answer if the key were right, each model at its "
    "own rate of picking that answer on other items (Poisson-binomial, Bonferroni over the answers tested); "
    "q: Benjamini-Hochberg over the dataset's items. Strength log-odds: the models' votes for the agreed "
    "answer against the key, each weighted by the model's accuracy on the other items; high when the strongest "
    "models reject the key together, negative when they keep it (an item built to make weaker models fail). "
    "A shared misconception or an ambiguous item also gives a small p: read the text."
)
"""What the table's columns mean."""


def validity_overview(result: ValidityResult) -> Overview:
    """One board row per dataset screened (its suspected wrong keys) and the headline."""
    rows = tuple(
        (
            screen.dataset,
            f"{len(screen.models)} models",
            f"{screen.n_suspected} key(s) suspected wrong",
            f"{screen.n_suspected} of {screen.n_items} items; {len(screen.no_model_right)} no model gets right",
            "bad" if screen.n_suspected else "good",
        )
        for screen in result.datasets
    )
    suspected = sum(screen.n_suspected for screen in result.datasets)
    headline = f"{suspected} key(s) suspected wrong in {sum(s.n_items for s in result.datasets)} items"
    models = f"{max((len(s.models) for s in result.datasets), default=0)} models"
    about = ", ".join(screen.dataset for screen in result.datasets)
    return Overview({}, models, headline, rows, about=about)


def validity_sections(result: ValidityResult) -> tuple[Section, ...]:
    """The chapter, one part per dataset screened, then the warnings."""
    sections = [
        Section("Item validity: suspected wrong keys", ()),
        *(
            Section(f"Item validity: {screen.dataset or '(unnamed)'}", _blocks(screen), level=3)
            for screen in result.datasets
        ),
    ]
    if result.warnings:
        sections.append(Section("Warnings", tuple(Text(w, tone="bad") for w in result.warnings), level=3))
    return tuple(sections)


def _blocks(screen: DatasetValidity) -> tuple[Block, ...]:
    facts = Facts(
        (
            ("items", format_number(screen.n_items)),
            ("models", f"{len(screen.models)}: {', '.join(screen.models)}"),
            ("labels", ", ".join(screen.labels)),
            ("items with chosen answers", format_number(screen.n_with_answers)),
            ("keys suspected wrong", format_number(screen.n_suspected)),
            ("items no model gets right", format_number(len(screen.no_model_right))),
            ("cleanlab label issues", format_number(screen.n_label_issues)),
            ("items keyed differently by different sources", format_number(screen.n_key_conflicts)),
        )
    )
    rows = tuple(
        (
            format_number(item.rank),
            item.item_id,
            item.text,
            item.key,
            item.agreed_answer,
            f"{item.n_agreed} / {item.n_models}",
            format_number(item.strength_log_odds, 2),
            format_number(item.wrong_key.baseline),
            format_pvalue(item.wrong_key.pvalue),
            format_pvalue(item.qvalue),
            format_number(item.difficulty, 2),
            format_number(item.discrimination, 2),
            format_number(item.item_rest, 2),
            format_number(item.label_quality),
        )
        for item in screen.items[:TOP_ITEMS]
    )
    caption = f"The {min(TOP_ITEMS, len(screen.items))} items whose key is most likely wrong"
    blocks: list[Block] = [facts, Table(caption, _COLUMNS, rows, text_columns=5, note=_NOTE)]
    verdict = (
        f"{screen.n_suspected} key(s) suspected wrong: a majority of the models agree on one other answer "
        "(q <= alpha) and the strength-weighted vote favours it over the key"
    )
    blocks.append(Text(verdict, tone="bad" if screen.n_suspected else "good"))
    if screen.no_model_right:
        shown = ", ".join(screen.no_model_right[:50])
        more = f" and {len(screen.no_model_right) - 50} more" if len(screen.no_model_right) > 50 else ""
        blocks.append(Text(f"No model gets these right: {shown}{more}"))
    blocks.append(Facts((("IRT", screen.irt_note), ("label issues", screen.label_issue_note))))
    return tuple(blocks)
