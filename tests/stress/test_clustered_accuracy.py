"""Stress accuracy intervals are cluster-robust where the items cluster (Miller 2024), with the design effect."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import pfungst
from pfungst.data import Benchmark, Item
from pfungst.data.clusters import item_clusters
from pfungst.evaluate.outcome import Outcome
from pfungst.stress.metrics import variant_accuracies
from tests.evaluate.fakes import ScriptedModel


def _outcome(item_id: str, correct: bool) -> Outcome:
    return Outcome(
        item_id=item_id,
        perturbation="identity",
        variant="identity",
        rule="letter",
        format="mmlu",
        order=(0, 1),
        labels=("A", "B"),
        gold=0,
        chosen=0 if correct else 1,
        chosen_position=0 if correct else 1,
        status="ok",
        scores=(0.0, 0.0),
    )


def test_clustered_items_get_a_wider_interval_and_their_design_effect() -> None:
    # 10 subjects of 8 items: the model knows whole subjects (all right) or none (all wrong): design effect 8
    outcomes = [_outcome(f"s{s}-{i}", s % 2 == 0) for s in range(10) for i in range(8)]
    clusters = {f"s{s}-{i}": f"subject={s}" for s in range(10) for i in range(8)}
    (plain,) = variant_accuracies(outcomes)
    (robust,) = variant_accuracies(outcomes, clusters=clusters)
    assert plain.accuracy.value == robust.accuracy.value == 0.5
    assert robust.design_effect == 8.0
    width = robust.accuracy.ci.high - robust.accuracy.ci.low
    assert width > 2.5 * (plain.accuracy.ci.high - plain.accuracy.ci.low)
    assert "cluster-robust" in robust.accuracy.method and plain.accuracy.method == "wilson"
    assert robust.to_dict()["design_effect"] == 8.0 and type(robust).from_dict(robust.to_dict()) == robust


def test_benchmarks_cluster_by_subject_only_when_there_are_several(shared_data: Path) -> None:
    mmlu = pfungst.load(shared_data / "mmlu" / "test")
    clusters = item_clusters(mmlu)
    assert clusters is not None and len(set(clusters.values())) > 1
    one = Benchmark("one", tuple(Item(f"q{i}", "?", ("a", "b"), 0, metadata={"subject": "law"}) for i in range(4)))
    assert item_clusters(one) is None


def test_stress_reports_the_design_effect_of_a_clustered_benchmark() -> None:
    items = tuple(
        Item(f"q{s}-{i}", f"Question {s}-{i}?", ("right", "wrong"), 0, metadata={"subject": f"s{s}"})
        for s in range(6)
        for i in range(4)
    )

    def knows_even_subjects(context: str, candidate: str) -> float:
        even = any(f"Question {s}-" in context for s in (0, 2, 4))
        right = f"\n{candidate.strip()}. right\n" in context
        return -0.1 if right == even else -3.0

    result = pfungst.stress.stress(
        Benchmark("clustered", items),
        ScriptedModel(next_token_script=knows_even_subjects),
        perturbations=("identity",),
        cache=False,
        n_bootstrap=50,
    )
    (identity,) = [a for a in result.accuracies if a.perturbation == "identity"]
    assert identity.accuracy.value == 0.5 and identity.design_effect == 4.0


def test_paired_differences_are_cluster_robust_where_items_cluster() -> None:
    from pfungst.stress.metrics.arrangement_effects import PairedDifference, paired_difference

    # variant two loses whole subjects: subjects 0-3 right under both, 4-7 right only under the first
    first = [_outcome(f"s{s}-{i}", True) for s in range(8) for i in range(5)]
    second = [_outcome(f"s{s}-{i}", s < 4) for s in range(8) for i in range(5)]
    clusters = {f"s{s}-{i}": f"subject={s}" for s in range(8) for i in range(5)}
    plain = paired_difference(first, second, seed=0)
    robust = paired_difference(first, second, seed=0, clusters=clusters)
    assert plain.difference.value == robust.difference.value == 0.5
    assert robust.design_effect == 5.0 and "cluster-robust" in robust.difference.method
    assert robust.difference.pvalue > plain.difference.pvalue  # 8 clusters carry less evidence than 40 items
    assert PairedDifference.from_dict(robust.to_dict()) == robust


def _knowing_parity_benchmark() -> Benchmark:
    """Six subjects of four items; metadata ``parity`` puts the even subjects in one cluster, the odd in another."""
    return Benchmark(
        "clustered",
        tuple(
            Item(
                f"q{s}-{i}",
                f"Question {s}-{i}?",
                ("right", "wrong"),
                0,
                metadata={"subject": f"s{s}", "parity": "even" if s % 2 == 0 else "odd"},
            )
            for s in range(6)
            for i in range(4)
        ),
    )


def _knows_even_subjects(context: str, candidate: str) -> float:
    even = any(f"Question {s}-" in context for s in (0, 2, 4))
    right = f"\n{candidate.strip()}. right\n" in context
    return -0.1 if right == even else -3.0


def _stress_parity(cluster_by: str) -> pfungst.StressResult:
    config = pfungst.StressConfig(
        run=pfungst.RunConfig(rule="letter", cache=False, cluster_by=cluster_by),
        perturbations=("identity",),
        n_bootstrap=50,
    )
    return pfungst.stress.stress(
        _knowing_parity_benchmark(), ScriptedModel(next_token_script=_knows_even_subjects), config
    )


def test_cluster_by_none_gives_the_independent_item_interval_and_no_design_effect() -> None:
    (auto,) = [a for a in _stress_parity("auto").accuracies if a.perturbation == "identity"]
    result = _stress_parity("none")
    (plain,) = [a for a in result.accuracies if a.perturbation == "identity"]
    assert auto.design_effect == 4.0 and "cluster-robust" in auto.accuracy.method
    assert math.isnan(plain.design_effect) and plain.accuracy.method == "wilson"
    assert plain.to_dict()["design_effect"] is None and result.provenance.settings["cluster_by"] == "none"
    assert plain.accuracy.ci.high - plain.accuracy.ci.low < auto.accuracy.ci.high - auto.accuracy.ci.low


def test_cluster_by_a_named_field_uses_its_clusters() -> None:
    # by parity the model is right on one whole cluster of 12 and wrong on the other: design effect 12, not 4
    (parity,) = [a for a in _stress_parity("parity").accuracies if a.perturbation == "identity"]
    assert parity.accuracy.value == 0.5 and parity.design_effect == 12.0


def test_cluster_by_a_key_the_items_lack_fails_before_any_model_call() -> None:
    def no_call(context: str, candidate: str) -> float:
        raise AssertionError("the model was asked")

    config = pfungst.StressConfig(
        run=pfungst.RunConfig(rule="letter", cache=False, cluster_by="chapter"), perturbations=("identity",)
    )
    with pytest.raises(pfungst.ConfigError, match=r"cluster_by 'chapter': 24 of 24 items .* carry: parity, subject"):
        pfungst.stress.stress(_knowing_parity_benchmark(), ScriptedModel(next_token_script=no_call), config)


def test_a_cluster_robust_accuracy_interval_stays_within_zero_and_one() -> None:
    """With few clusters the t interval's ends can fall outside [0, 1]; an accuracy's interval is cut to it, so the
    result file reads back."""
    clusters = {f"q{s}-{i}": f"s{s // 3}" for s in range(6) for i in range(4)}  # two clusters: 1 degree of freedom
    outcomes = [o for o in _stress_parity("none").outcomes if o.perturbation == "identity"]
    (wide,) = pfungst.stress.variant_accuracies(outcomes, clusters=clusters)
    assert wide.accuracy.ci is not None and "cluster-robust" in wide.accuracy.method
    assert (wide.accuracy.ci.low, wide.accuracy.ci.high) == (0.0, 1.0)
    assert pfungst.stress.VariantAccuracy.from_dict(wide.to_dict()).accuracy == wide.accuracy
