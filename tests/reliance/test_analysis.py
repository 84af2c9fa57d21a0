"""The reliance analysis on hand-checkable audits and outcomes: per model, per family, joins, power."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ConfigError, DataError, ReaderError
from pfungst.reliance import (
    ModelOutcomes,
    RelianceConfig,
    detectable_difference,
    family_of,
    reliance,
    shortcut_items,
)
from pfungst.stats import benjamini_hochberg
from tests.reliance.audit_files import audit_file


def _audit(name: str, shares: dict[str, float | None], gold: dict[str, str] | None = None, chance: float = 0.5) -> dict:
    """An audit dict as ``pfungst audit --json`` writes it, its probe planted: each item's gold class and share of
    repeats predicting it right (None: never predicted)."""
    gold = gold or {item: ("yes" if i % 2 else "no") for i, item in enumerate(shares)}
    items = [
        {"item_id": item, "gold_class": gold[item], "prediction": None if share is None else int(share > 0.5)}
        | {"share_correct": share}
        for item, share in shares.items()
    ]
    probe = {
        "feature_set": "1-grams_presence",
        "items": items,
        "kappa": {"value": 0.5, "pvalue": 0.001},
        "chance": chance,
    }
    return audit_file(name, [probe], "1-grams_presence")


def _outcomes(model: str, dataset: str, correct: dict[str, bool]) -> ModelOutcomes:
    return ModelOutcomes(model=model, dataset=dataset, correct=correct, source="test", format="csv")


IDS = [f"q{i}" for i in range(40)]
SOLVABLE = {item: 1.0 if i < 20 else 0.0 for i, item in enumerate(IDS)}


def test_a_model_right_exactly_on_solvable_items_has_difference_one() -> None:
    hans = _outcomes("hans", "d", {item: share == 1.0 for item, share in SOLVABLE.items()})
    (model,) = reliance([_audit("d", SOLVABLE)], [hans]).models
    assert (model.n_solvable, model.n_rest) == (20, 20)
    assert (model.accuracy_solvable.value, model.accuracy_rest.value) == (1.0, 0.0)
    assert (model.chance_corrected_solvable.value, model.chance_corrected_rest.value) == (1.0, -1.0)
    assert model.accuracy_solvable.baseline == 0.5
    assert model.difference.value == 1.0
    assert model.difference.pvalue < 1e-9
    assert model.difference.ci is not None and model.difference.ci.low > 0.7
    assert model.difference_within_label.value == 1.0  # the solvable items are half "yes", half "no"


def test_fisher_and_permutation_agree(seed: int) -> None:
    rng = np.random.default_rng(seed)
    correct = {item: bool(rng.random() < (0.8 if share else 0.4)) for item, share in SOLVABLE.items()}
    audits, outcomes = [_audit("d", SOLVABLE)], [_outcomes("m", "d", correct)]
    fisher = reliance(audits, outcomes).models[0].difference
    permutation = reliance(audits, outcomes, test="permutation", n_permutations=4000, seed=seed).models[0].difference
    assert fisher.value == permutation.value
    assert permutation.pvalue == pytest.approx(fisher.pvalue, abs=0.02)


def test_a_family_of_three_models_on_two_datasets_has_six_pairs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    audits = [_audit("d1", SOLVABLE), _audit("d2", SOLVABLE)]
    outcomes = [
        _outcomes(model, dataset, {item: bool(rng.random() < 0.6) for item in IDS})
        for model in ("gpt-4-0314", "gpt-4-0613", "gpt-4-1106-preview")
        for dataset in ("d1", "d2")
    ]
    (family,) = reliance(audits, outcomes).families
    assert family.family == "gpt-4"
    assert (family.n_pairs, len(family.models), family.datasets) == (6, 3, ("d1", "d2"))
    assert family.test.n == 6
    assert family.detectable_difference > 0
    assert "6 pairs" in family.power_statement


def test_benjamini_hochberg_is_applied_across_families(seed: int) -> None:
    rng = np.random.default_rng(seed)
    audits = [_audit("d1", SOLVABLE), _audit("d2", SOLVABLE), _audit("d3", SOLVABLE)]
    outcomes = []
    for model, lift in (("hans-001", 0.5), ("hans-002", 0.45), ("fair-001", 0.0), ("fair-002", 0.0)):
        for dataset in ("d1", "d2", "d3"):
            outcomes.append(
                _outcomes(
                    model,
                    dataset,
                    {item: bool(rng.random() < 0.4 + lift * (share == 1.0)) for item, share in SOLVABLE.items()},
                )
            )
    families = reliance(audits, outcomes).families
    assert [f.family for f in families] == ["hans", "fair"]
    expected = benjamini_hochberg([f.test.pvalue for f in families])
    assert [f.qvalue for f in families] == pytest.approx(list(expected.qvalues))
    assert families[0].rejected
    assert families[1].rejected == (families[1].qvalue <= 0.05)
    assert families[0].qvalue >= families[0].test.pvalue  # the paper's uncorrected p-value is kept beside q


def test_unmatched_ids_are_counted_on_both_sides() -> None:
    shares: dict[str, float | None] = {**SOLVABLE, "unpredicted": None}
    correct = {item: True for item in IDS[:30]} | {"unpredicted": True, "extra-1": False, "extra-2": True}
    (model,) = reliance([_audit("d", shares)], [_outcomes("m", "d", correct)]).models
    assert model.n_unmatched_outcomes == 2  # extra-1, extra-2: not in the audit
    assert model.n_unmatched_audit == 10  # q30..q39 have no outcome
    assert model.n_not_predicted == 1  # the probe never predicted "unpredicted"
    assert (model.n_solvable, model.n_rest) == (20, 10)


def test_outcomes_and_audits_without_a_partner_are_listed() -> None:
    hans = _outcomes("m", "d1", {item: True for item in IDS})
    stray = _outcomes("m", "elsewhere", {item: True for item in IDS})
    result = reliance([_audit("d1", SOLVABLE), _audit("d2", SOLVABLE)], [hans, stray])
    assert len(result.models) == 1
    assert any("'elsewhere'" in line and "no audit" in line for line in result.unjoined)
    assert any("audit of 'd2'" in line for line in result.unjoined)
    with pytest.raises(DataError, match="no model outcomes join any audit"):
        reliance([_audit("d1", SOLVABLE)], [stray])


def test_an_outcome_without_dataset_joins_the_only_audit() -> None:
    anonymous = _outcomes("m", "", {item: True for item in IDS})
    assert reliance([_audit("d1", SOLVABLE)], [anonymous]).models[0].dataset == "d1"
    with pytest.raises(ConfigError, match="name no dataset and 2 audits"):
        reliance([_audit("d1", SOLVABLE), _audit("d2", SOLVABLE)], [anonymous])


def test_a_label_preference_is_not_read_as_reliance() -> None:
    # The probe solves exactly the "yes" items (a constant "yes"); the model always answers "yes" too.
    gold = {item: "yes" if i < 20 else "no" for i, item in enumerate(IDS)}
    yes_man = _outcomes("m", "d", {item: gold[item] == "yes" for item in IDS})
    result = reliance([_audit("d", SOLVABLE, gold)], [yes_man])
    model = result.models[0]
    assert model.difference.value == 1.0
    assert math.isnan(model.difference_within_label.value)  # no label has items on both sides
    assert any("exactly those of some gold classes" in warning for warning in result.warnings)


def test_within_label_difference_removes_a_label_confound() -> None:
    # Solvable items are mostly "yes", and the model is right on every "yes" item whatever the probe says.
    gold = {item: "yes" if (i < 16 or 20 <= i < 24) else "no" for i, item in enumerate(IDS)}
    model = reliance([_audit("d", SOLVABLE, gold)], [_outcomes("m", "d", {i: gold[i] == "yes" for i in IDS})]).models[0]
    assert model.difference.value == pytest.approx(16 / 20 - 4 / 20)
    assert model.difference_within_label.value == 0.0


def test_family_rule_and_mapping() -> None:
    names = [
        "gpt-4-0613",
        "gpt-4-0125-preview",
        "gpt-3.5-turbo-0125",
        "text-davinci-003",
        "text-ada-001",
        "gpt-4o-2024-05-13",
        "claude-3-opus-20240229",
        "mistral-7b-instruct-v0.2",
        "llama-3-8b",
    ]
    assert [family_of(name) for name in names] == [
        "gpt-4",
        "gpt-4",
        "gpt-3.5-turbo",
        "text-davinci",
        "text-ada",
        "gpt-4o",
        "claude-3-opus",
        "mistral-7b-instruct",
        "llama-3-8b",
    ]
    assert family_of("text-ada-001", {"text-ada-001": "gpt-3"}) == "gpt-3"
    with pytest.raises(ConfigError, match="model 'x' has no family"):
        family_of("x", {"y": "z"})


def test_a_family_mapping_groups_models_its_way(seed: int) -> None:
    rng = np.random.default_rng(seed)
    outcomes = [_outcomes(m, "d", {item: bool(rng.random() < 0.5) for item in IDS}) for m in ("a", "b", "c")]
    result = reliance([_audit("d", SOLVABLE)], outcomes, families={"a": "one", "b": "one", "c": "two"})
    assert [(f.family, f.n_pairs) for f in result.families] == [("one", 2), ("two", 1)]
    lonely = result.families[1]
    assert math.isnan(lonely.test.pvalue) and math.isnan(lonely.qvalue) and not lonely.rejected
    assert "at least 2" in lonely.note


def test_detectable_difference_shrinks_with_more_pairs() -> None:
    assert detectable_difference(10, 0.1) == pytest.approx(0.0853, abs=1e-4)  # checked by simulation
    assert detectable_difference(40, 0.1) < detectable_difference(10, 0.1)
    assert math.isnan(detectable_difference(1, 0.1)) and math.isnan(detectable_difference(5, 0.0))


def test_settings_are_validated_and_unused_ones_warned() -> None:
    hans = _outcomes("m", "d", {item: True for item in IDS})
    with pytest.raises(ConfigError, match="alpha must lie in"):
        reliance([_audit("d", SOLVABLE)], [hans], alpha=1.5)
    with pytest.raises(ConfigError, match="feature set of this audit 'readability'"):
        reliance([_audit("d", SOLVABLE)], [hans], feature_set="readability")
    with pytest.raises(ConfigError, match="Unknown reliance setting 'alfa'. Did you mean: alpha"):
        reliance([_audit("d", SOLVABLE)], [hans], alfa=0.1)
    with pytest.warns(UserWarning, match="n_permutations has no effect"):
        reliance([_audit("d", SOLVABLE)], [hans], n_permutations=50)


def test_audit_json_without_items_is_refused(tmp_path: Path) -> None:
    audit = _audit("d", SOLVABLE)
    del audit["probes"][0]["items"]
    with pytest.raises(DataError, match="holds no per-item predictions"):
        shortcut_items(audit)
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(_audit("d", SOLVABLE)))
    assert shortcut_items(path).n_solvable == 20


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda audit: audit["probes"].insert(0, None),
            r"audit\.json: field 'probes\[0\]': expected an object, found null",
        ),
        (lambda audit: audit.update(verdict=None), r"audit\.json: field 'verdict': expected an object, found null"),
        (lambda audit: audit["probes"][0]["items"].append(None), r"field 'probes\[0\]\.items\[40\]': expected an obj"),
        (
            lambda audit: audit["probes"][0]["items"][3].pop("item_id"),
            r"field 'probes\[0\]\.items\[3\]\.item_id': miss",
        ),
        (
            lambda audit: audit["probes"][0]["settings"].update(chance="half"),
            r"'probes\[0\]\.settings\.chance': expected a",
        ),
        (lambda audit: audit["probes"][0]["items"][0].update(share_correct=3), r"'probes\[0\]\.items\[0\]\.share_corr"),
    ],
)
def test_an_audit_file_with_a_null_or_malformed_probe_names_the_file_and_field(
    tmp_path: Path, change: Any, message: str
) -> None:
    audit = _audit("d", SOLVABLE)
    change(audit)
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(audit))
    with pytest.raises(ReaderError, match=message):
        reliance([path], [_outcomes("m", "d", {})])
    table = tmp_path / "o.csv"
    table.write_text("model,dataset,item_id,correct\nm,d,q1,1\n")
    result = CliRunner().invoke(app, ["reliance", str(path), "--outcomes", str(table)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_a_real_audit_result_joins_and_the_json_is_clean(tmp_path: Path) -> None:
    import pfungst
    from pfungst.data.synthetic import make_synthetic

    benchmark = make_synthetic("cue-word", 120)
    audited = pfungst.audit.audit(
        benchmark, feature_sets=("1-grams_presence",), n_bootstrap=20, n_permutations=20, cues=False, heuristics=False
    )
    split = shortcut_items(audited)
    outcomes = [
        _outcomes(f"m-00{i}", benchmark.name, {item: bool(split.solvable[item]) or i == 1 for item in split.solvable})
        for i in (1, 2)
    ]
    result = reliance([audited], outcomes, config=RelianceConfig(alpha=0.1))
    assert [m.n_solvable for m in result.models] == [split.n_solvable] * 2
    assert result.models_frame().shape[0] == 2 and result.families_frame().shape[0] == 1
    text = result.save_json(tmp_path / "r.json").read_text()
    data = json.loads(text)
    assert "NaN" not in text
    assert data["schema_version"] == "pfungst.reliance/2"
    assert data["provenance"]["settings"]["alpha"] == 0.1
    assert data["families"][0]["n_pairs"] == 2


def test_the_same_audit_file_twice_exits_2_naming_both_paths(tmp_path: Path) -> None:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(_audit("d", SOLVABLE)))
    table = tmp_path / "o.csv"
    table.write_text("model,dataset,item_id,correct\nm,d,q1,1\n")
    result = CliRunner().invoke(app, ["reliance", str(path), str(path), "--outcomes", str(table)])
    assert result.exit_code == 2, result.output
    assert f"audit {path}: same content as {path}" in " ".join(result.output.split())
