"""Crossfit fits its grid with liblinear at liblinear's own tolerance by default; scikit-learn's defaults remain one
setting away, give the same verdicts, and are what the paper's protocol always uses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from typer.testing import CliRunner

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.classifiers import DEFAULT_C_GRID, LIBLINEAR_TOL, fit_item_classifier, top_features
from pfungst.audit.probe import ProbeConfig
from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

FAST = AuditConfig(n_bootstrap=300, n_permutations=300, cues=False, heuristics=False)
runner = CliRunner()


def test_the_default_grid_is_fitted_by_liblinear_at_its_own_tolerance() -> None:
    specs = ProbeConfig().candidates()
    assert LIBLINEAR_TOL == {"l2": 0.01, "l1": 0.001}
    assert {(spec.penalty, spec.item_solver, spec.tol) for spec in specs} == {
        ("l1", "liblinear", LIBLINEAR_TOL["l1"]),
        ("l2", "liblinear", LIBLINEAR_TOL["l2"]),
    }
    assert {spec.spec()["params"]["item_solver"] for spec in ProbeConfig(solvers="sklearn").candidates()} == {
        "lbfgs",
        "liblinear",
    }


def test_the_papers_protocol_keeps_scikit_learns_defaults_whatever_solvers_says() -> None:
    for solvers in ("liblinear", "sklearn"):
        specs = ProbeConfig(protocol="pacchiardi2024", solvers=solvers).candidates()  # type: ignore[arg-type]
        assert [(spec.name, spec.item_solver, spec.tol) for spec in specs] == [
            ("l2_C1", "lbfgs", 1e-4),
            ("l1_C1", "liblinear", 1e-4),
            ("l1_C0.1", "liblinear", 1e-4),
        ]


def test_liblinear_l2_on_three_classes_is_one_vs_rest_and_predicts_each_class(seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 5)) + np.eye(3, 5)[y] * 3
    spec = ProbeConfig(c_grid=(1.0,), classifiers=("l2_C1",)).candidates()[0]
    model = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    assert isinstance(model, OneVsRestClassifier) and model.estimator.solver == "liblinear"
    assert np.mean(model.predict(X) == y) > 0.9
    paper = fit_item_classifier(
        ProbeConfig(c_grid=(1.0,), classifiers=("l2_C1",), solvers="sklearn").candidates()[0],
        X,
        y,
        n_classes=3,
        seed=seed,
        max_iter=1000,
    )
    assert isinstance(paper, LogisticRegression) and paper.solver == "lbfgs"  # multinomial


@pytest.mark.parametrize(("name", "fields"), [("cue-word", ("hypothesis",)), ("longest-option", ()), ("control", ())])
def test_both_solvers_give_the_same_verdict_and_nearly_the_same_kappas(
    name: str, fields: tuple[str, ...], seed: int
) -> None:
    benchmark = make_synthetic(name, 300, seed=seed)
    fast = pfungst.audit.audit(benchmark, FAST, fields=fields, seed=seed)
    exact = pfungst.audit.audit(benchmark, FAST, fields=fields, seed=seed, solvers="sklearn")
    assert fast.verdict.label == exact.verdict.label, (fast.verdict.explanation, exact.verdict.explanation)
    deltas = [abs(a.kappa.value - b.kappa.value) for a, b in zip(fast.probes, exact.probes, strict=True)]
    assert max(deltas) <= 0.1, deltas
    assert fast.settings["solvers"] == "liblinear" and exact.settings["solvers"] == "sklearn"


def test_warm_paths_are_refused_with_liblinear() -> None:
    with pytest.raises(ConfigError, match="needs solvers='sklearn'"):
        AuditConfig(warm_start=True).validate()


def test_the_cli_records_the_solvers_and_refuses_an_unknown_one(tmp_path: Path, seed: int) -> None:
    data = make_synthetic("cue-word", 120, seed=seed).save(tmp_path / "cue.jsonl")
    out = tmp_path / "audit.json"
    args = ["audit", str(data), "--fields", "hypothesis", "--feature-set", "1-grams_presence"]
    fast = [*args, "--n-bootstrap", "100", "--n-permutations", "100", "--json", str(out)]
    result = runner.invoke(app, [*fast, "--solvers", "sklearn"])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["settings"]["solvers"] == "sklearn"
    refused = runner.invoke(app, [*args, "--solvers", "fast"])
    assert refused.exit_code == 2
    assert "solvers must be 'liblinear' or 'sklearn', not 'fast'" in refused.output


def test_the_c_grid_reaches_every_fold_from_the_cli_and_its_default_is_the_apis(tmp_path: Path, seed: int) -> None:
    data = make_synthetic("cue-word", 120, seed=seed).save(tmp_path / "cue.jsonl")
    out = tmp_path / "audit.json"
    args = ["audit", str(data), "--fields", "hypothesis", "--feature-set", "1-grams_presence", "--json", str(out)]
    fast = [*args, "--n-bootstrap", "100", "--n-permutations", "100"]
    assert runner.invoke(app, fast).exit_code == 0
    written = json.loads(out.read_text())
    assert written["settings"]["c_grid"] == list(DEFAULT_C_GRID) == [0.01, 0.1, 1.0, 10.0, 100.0]
    assert runner.invoke(app, [*fast, "--c-grid", "0.1, 10"]).exit_code == 0
    written = json.loads(out.read_text())
    assert written["settings"]["c_grid"] == [0.1, 10.0]
    assert {fold["C"] for probe in written["probes"] for fold in probe["folds"]} <= {0.1, 10.0}
    for bad, message in [("0.1,x", "is not a list of numbers"), ("0,1", "every C of the C grid must be a positive")]:
        refused = runner.invoke(app, [*args, "--c-grid", bad])
        assert refused.exit_code == 2 and message in " ".join(refused.output.split()), refused.output


def test_the_default_stops_each_c_path_early_and_grid_patience_0_fits_the_whole_grid(tmp_path: Path, seed: int) -> None:
    data = make_synthetic("control", 150, seed=seed).save(tmp_path / "control.jsonl")
    out = tmp_path / "audit.json"
    args = ["audit", str(data), "--feature-set", "1-grams_presence", "--n-bootstrap", "100", "--n-permutations", "100"]

    def fitted(*more: str) -> list[int]:
        result = runner.invoke(app, [*args, *more, "--json", str(out)])
        assert result.exit_code == 0, result.output
        written = json.loads(out.read_text())
        return [len(fold["validation_scores"]) for probe in written["probes"] for fold in probe["folds"]]

    whole, default = fitted("--grid-patience", "0"), fitted()
    assert set(whole) == {10}  # 2 penalties x 5 values of C in every fold
    assert max(default) <= 10 and sum(default) < sum(whole)  # no signal: most paths stop after one C that does not help
    refused = runner.invoke(app, [*args, "--grid-patience", "-1"])
    assert refused.exit_code == 2 and "grid_patience must be 0" in refused.output


def test_a_one_vs_rest_model_fitted_on_two_of_three_classes_names_its_features(seed: int) -> None:
    # A training fold can hold two of a benchmark's three labels: one-vs-rest then fits one binary model.
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 2], 30)
    X = rng.normal(size=(60, 2)) + np.outer(y == 2, [3.0, 0.0])
    spec = ProbeConfig(c_grid=(1.0,), classifiers=("l2_C1",)).candidates()[0]
    model = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    assert isinstance(model, OneVsRestClassifier) and len(model.estimators_) == 1
    top = top_features(model, ["shifted", "noise"], ["a", "b", "c"], top_k=1)
    assert [(weight.class_name, weight.feature) for weight in top if weight.rank == 1][0] == ("c", "shifted")
    assert {weight.class_name for weight in top} <= {"a", "c"}
