"""The validity screen as the ``wrong-key`` flag on an audit's items."""

from __future__ import annotations

import pytest

from pfungst.audit.item_flags import FlagColumn, ItemFlags, flag_share
from pfungst.errors import ConfigError
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes
from pfungst.reliance.validity import ValidityConfig, ValidityResult, validity, wrong_key_flags

IDS = tuple(f"q{i}" for i in range(30))


def _screen(miskeyed: str = "q7") -> ValidityResult:
    """Eight models; ``miskeyed`` is keyed A but every model answers B; each model misses its own quarter of the
    other items."""
    models = []
    for m in range(8):
        answers = {}
        for i, item_id in enumerate(IDS):
            chosen = "B" if item_id == miskeyed else ("A" if (i + m) % 4 else "C")
            answers[item_id] = ItemAnswer(chosen, "A")
        correct = {key: answer.chosen == answer.gold for key, answer in answers.items()}
        models.append(ModelOutcomes(f"m{m}", "toy", correct, "", "csv", answers=answers))
    return validity(models, ValidityConfig(irt=False, label_issues=False))


def test_the_planted_wrong_key_is_the_one_item_flagged_with_the_agreed_answer() -> None:
    column = wrong_key_flags(_screen(), ("extra", *IDS))
    assert column.code == "wrong-key" and column.n == 31 and column.count == 1
    assert column.flagged[IDS.index("q7") + 1]
    assert column.evidence[IDS.index("q7") + 1].startswith("8 of 8 models answer 'B', not the key 'A'")
    assert column.certainty == "found"
    assert not column.flagged[0]  # an audited item the screen did not see is not flagged


def test_the_column_joins_an_audits_flags() -> None:
    heuristic = FlagColumn(
        "heuristic", "t", "s", (False,) * len(IDS), ("",) * len(IDS), flag_share(0, len(IDS), 7.5), 0.2, "m", "f"
    )
    flags = ItemFlags(IDS, (heuristic,)).with_column(wrong_key_flags(_screen(), IDS))
    assert flags.codes == ("heuristic", "wrong-key") and flags.flagged_ids("wrong-key") == ("q7",)


def test_a_screen_of_other_items_is_refused_with_both_id_sets() -> None:
    with pytest.raises(ConfigError, match=r"names none of the 2 audited items.*its ids start q0.*the audit's x1, x2"):
        wrong_key_flags(_screen(), ("x1", "x2"))
