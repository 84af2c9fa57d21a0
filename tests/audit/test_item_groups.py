"""Sibling groups: items that share an option set, near-identical texts or duplicates fall in one fold."""

from __future__ import annotations

import numpy as np
import pytest

from pfungst.audit import audit
from pfungst.audit.controls import label_only_baseline
from pfungst.audit.heuristics import gold_position
from pfungst.audit.item_groups import ExactDuplicates, NearIdenticalText, SharedOptionSet, group_items
from pfungst.audit.run import AuditConfig
from pfungst.data.benchmark import Benchmark, DataSource
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic

_ROLES = (
    *("chief", "counselor", "nurse", "doctor", "mechanic", "customer", "lawyer", "witness", "teacher", "student"),
    *("designer", "client", "guard", "visitor", "manager", "worker", "pilot", "engineer", "chef", "waiter"),
)
_EVENTS = (
    *("took the day off", "was late", "made a mistake", "won the prize", "lost the keys", "needed help"),
    *("felt sick", "signed the form", "missed the bus", "broke the vase", "paid the bill", "left early"),
)


def _benchmark(items: list[Item], kind: str = "per_item", labels: tuple[str, ...] = ()) -> Benchmark:
    provenance = DataSource(source="planted", format="synthetic", rows_read=len(items), rows_kept=len(items), steps=())
    return Benchmark("planted", tuple(items), kind, labels, provenance)  # type: ignore[arg-type]


def sibling_leak(n_families: int, seed: int) -> Benchmark:
    """his / her / their variants of one sentence sharing one option set; gold random per family, the same within."""
    rng = np.random.default_rng(seed)
    items = []
    for family in range(n_families):
        first, second = (f"{role} {_name(rng)}" for role in rng.choice(_ROLES, 2, replace=False))
        event = _EVENTS[rng.integers(len(_EVENTS))]
        options = [f"The {first} {event}", f"The {second} {event}", "Ambiguous"]
        rng.shuffle(options)
        gold = int(rng.integers(3))
        for k, pronoun in enumerate(("he", "she", "they")):
            text = f"Explain the antecedent of the pronoun. The {first} told the {second} that {pronoun} {event}."
            items.append(Item(id=f"{family}-{k}", text=text, options=tuple(options), gold=gold))
    return _benchmark(items)


def _name(rng: np.random.Generator) -> str:
    """A made-up surname: each family's people are its own, as in BIG-bench's disambiguation sets."""
    return "".join(rng.choice(list("bdfgklmnprstvz")) + rng.choice(list("aeiou")) for _ in range(3))


def _item(index: int, text: str, options: tuple[str, ...], gold: int = 0) -> Item:
    return Item(id=str(index), text=text, options=options, gold=gold)


def test_items_sharing_an_option_set_in_any_order_are_one_group() -> None:
    items = [
        _item(0, "Q one", ("Red car", "blue car")),
        _item(1, "Q two entirely different", ("blue  car!", "red car")),
        *[_item(k, f"question {k} about {k * 7}", (f"a{k}", f"b{k}")) for k in range(2, 30)],
    ]
    groups = group_items(_benchmark(items), [SharedOptionSet()])
    assert groups.ids[0] == groups.ids[1]
    assert groups.n_groups == 29 and groups.largest == 2 and groups.grouped_items == 2


def test_an_option_set_in_many_items_is_a_label_set_not_siblings() -> None:
    items = [_item(k, f"question {k}", ("yes", "no") if k < 40 else (f"a{k}", f"b{k}")) for k in range(100)]
    groups = group_items(_benchmark(items), [SharedOptionSet()], max_share=0.05)
    assert groups.n_groups == 100
    assert groups.rules[0].too_common_keys == 1 and groups.rules[0].too_common_items == 40
    assert "not grouped, as label sets or templates" in groups.explanation


def test_shared_labels_never_group_by_their_label_set() -> None:
    benchmark = make_synthetic("cue-word", 200)
    groups = group_items(benchmark, [SharedOptionSet()])
    assert groups.grouped_items == 0


def test_near_identical_texts_group_and_unrelated_ones_do_not() -> None:
    texts = [
        "the chief told the counselor that he took the day off and went home early",
        "the chief told the counselor that she took the day off and went home early",
        "a completely different sentence about the weather in paris during spring",
    ]
    items = [_item(k, text, ("Entailment", "Neutral")) for k, text in enumerate(texts)]
    labels = ("Entailment", "Neutral")
    groups = group_items(_benchmark(items, "shared_labels", labels), [NearIdenticalText(0.8)])
    assert groups.ids[0] == groups.ids[1] != groups.ids[2]


def test_exact_duplicates_up_to_case_and_punctuation_group() -> None:
    items = [_item(0, "What is 2+2?", ("4", "5")), _item(1, "what is  2+2", ("5", "4.")), _item(2, "x", ("1", "2"))]
    groups = group_items(_benchmark(items), [ExactDuplicates()])
    assert groups.ids[0] == groups.ids[1] != groups.ids[2]


def test_spacing_inside_the_text_makes_near_identical_items_not_exact_duplicates() -> None:
    items = [_item(0, "What is 2+2?", ("4", "5")), _item(1, "what is 2 + 2", ("5", "4")), _item(2, "x", ("1", "2"))]
    exact = group_items(_benchmark(items), [ExactDuplicates()])
    near = group_items(_benchmark(items), [NearIdenticalText(0.8)])
    assert exact.ids[0] != exact.ids[1]
    assert near.ids[0] == near.ids[1] != near.ids[2]


def test_groups_are_recorded_in_the_audit_settings_and_described_with_the_folds() -> None:
    result = audit(sibling_leak(40, 0), n_bootstrap=100, n_permutations=100, cues=False, n_refits=0)
    recorded = result.provenance.settings["item_groups"]
    assert recorded["grouped_items"] == 120 and recorded["largest"] >= 3
    assert [rule["rule"] for rule in recorded["rules"]] == [
        "exact duplicates",
        "shared option set",
        "near-identical text",
    ]
    ids = group_items(sibling_leak(40, 0)).ids
    assert all(ids[3 * family] == ids[3 * family + 1] == ids[3 * family + 2] for family in range(40))
    notes = [block for section in result.sections() for block in getattr(section, "blocks", ())]
    assert any("sibling groups kept in one fold" in str(getattr(block, "text", "")) for block in notes)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_sibling_leak_is_predictable_ungrouped_and_not_grouped(seed: int) -> None:
    """Grouped, the leak is gone: the point falls below the threshold and nothing is called predictable (240 items
    may leave the interval spanning the threshold: "inconclusive" is then the honest answer, never "predictable")."""
    benchmark = sibling_leak(80, seed)
    config = AuditConfig(n_bootstrap=300, n_permutations=300, cues=False, seed=seed)
    assert audit(benchmark, config, group_siblings=False).verdict.label == "predictable"
    grouped = audit(benchmark, config)
    assert grouped.verdict.label in ("no evidence", "inconclusive")
    assert grouped.headline.certainty == grouped.verdict.label
    assert grouped.verdict.estimate.value < 0.2


def test_grouping_off_is_recorded() -> None:
    result = audit(make_synthetic("cue-word", 200), n_bootstrap=50, n_permutations=50, cues=False, group_siblings=False)
    assert result.provenance.settings["item_groups"]["reason"] == "group_siblings is off"


def _two_families() -> tuple[Benchmark, np.ndarray]:
    """Two families of 30 items, one always answered A, the other always B."""
    items = [_item(k, f"question {k}", ("first", "second"), gold=k // 30) for k in range(60)]
    return _benchmark(items), np.repeat([0, 1], 30)


def test_the_gold_position_heuristic_learns_only_from_the_other_groups() -> None:
    benchmark, groups = _two_families()
    ungrouped = gold_position(benchmark)
    grouped = gold_position(benchmark, groups=groups)
    # Held out, each family sees only the other one, whose answer is never its own.
    assert grouped.accuracy.value == 0.0 and ungrouped.accuracy.value > 0.3


def test_the_label_only_baseline_learns_only_from_the_other_groups() -> None:
    benchmark, groups = _two_families()
    grouped = label_only_baseline(benchmark, n_splits=5, seed=0, level=0.95, groups=groups)
    ungrouped = label_only_baseline(benchmark, n_splits=5, seed=0, level=0.95)
    assert grouped.prior_accuracy.value == 0.0 and ungrouped.prior_accuracy.value > 0.3


def test_the_paper_protocol_keeps_its_own_split_and_says_so() -> None:
    result = audit(
        make_synthetic("cue-word", 100),
        protocol="pacchiardi2024",
        feature_sets=("1-grams_presence",),
        n_bootstrap=50,
        n_permutations=50,
        cues=False,
        heuristics=False,
    )
    assert (
        result.provenance.settings["item_groups"]["reason"] == "the pacchiardi2024 protocol keeps the paper's own split"
    )
