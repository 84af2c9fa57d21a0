"""Crossfit fits its grid with liblinear at liblinear's own tolerance by default; scikit-learn's defaults remain one
setting away, give the same verdicts, and are what the paper's protocol always uses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from typer.testing import CliRunner

import pfungst
from pfungst.audit import AuditConfig, classifiers
from pfungst.audit.classifiers import (
    DEFAULT_C_GRID,
    DUAL_MIN_ROWS,
    L1_SPARSE_TOL,
    LIBLINEAR_TOL,
    fit_item_classifier,
    make_classifier,
    top_features,
)
from pfungst.audit.liblinear_logistic import LiblinearLogistic, predict_classes
from pfungst.audit.probe import ProbeConfig
from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

FAST = AuditConfig(n_bootstrap=300, n_permutations=300, cues=False, heuristics=False)
runner = CliRunner()


def test_the_default_grid_is_fitted_by_liblinear_at_its_own_tolerance() -> None:
    specs = ProbeConfig().candidates()
    assert (LIBLINEAR_TOL, L1_SPARSE_TOL) == (0.01, 0.001)
    # liblinear's own default, except L1 up to C = 1, where a weak cue's weight must grow from zero.
    assert {(spec.name, spec.item_solver, spec.tol) for spec in specs} == {
        *((f"l2_C{C:g}", "liblinear", 0.01) for C in DEFAULT_C_GRID),
        ("l1_C0.01", "liblinear", 0.001),
        ("l1_C0.1", "liblinear", 0.001),
        ("l1_C1", "liblinear", 0.001),
        ("l1_C10", "liblinear", 0.01),
        ("l1_C100", "liblinear", 0.01),
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
    assert isinstance(model, LiblinearLogistic) and model.coef_.shape == (3, 5)
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


def test_large_l2_fits_solve_liblinears_dual_and_reach_the_primals_optimum(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    y = np.repeat([0, 1, 2], 200)
    X = sparse.random(600, 300, density=0.05, random_state=seed, format="csr") + sparse.csr_matrix(np.eye(3, 300)[y])
    spec = ProbeConfig(c_grid=(1.0,), classifiers=("l2_C1",)).candidates()[0]
    assert DUAL_MIN_ROWS == 10_000 and not spec.dual(DUAL_MIN_ROWS - 1) and spec.dual(DUAL_MIN_ROWS)
    primal = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    monkeypatch.setattr(classifiers, "DUAL_MIN_ROWS", 600)
    dual = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    assert isinstance(dual, LiblinearLogistic) and dual.dual and not primal.dual
    held_out = sparse.random(200, 300, density=0.05, random_state=seed + 1, format="csr")
    assert np.mean(dual.predict(held_out) == primal.predict(held_out)) > 0.97
    np.testing.assert_allclose(dual.coef_, primal.coef_, atol=0.05 * np.abs(primal.coef_).max())
    dense = fit_item_classifier(spec, X.toarray(), y, n_classes=3, seed=seed, max_iter=1000)
    assert not dense.dual  # a few dense columns (readability) keep the primal, where the dual is slow


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
    assert fast.provenance.settings["solvers"] == "liblinear" and exact.provenance.settings["solvers"] == "sklearn"


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
    assert json.loads(out.read_text())["provenance"]["settings"]["solvers"] == "sklearn"
    refused = runner.invoke(app, [*args, "--solvers", "fast"])
    assert refused.exit_code == 2
    assert "solvers (--solvers) must be 'liblinear' or 'sklearn', not 'fast'" in refused.output


def test_the_c_grid_reaches_every_fold_from_the_cli_and_its_default_is_the_apis(tmp_path: Path, seed: int) -> None:
    data = make_synthetic("cue-word", 120, seed=seed).save(tmp_path / "cue.jsonl")
    out = tmp_path / "audit.json"
    args = ["audit", str(data), "--fields", "hypothesis", "--feature-set", "1-grams_presence", "--json", str(out)]
    fast = [*args, "--n-bootstrap", "100", "--n-permutations", "100"]
    assert runner.invoke(app, fast).exit_code == 0
    written = json.loads(out.read_text())
    assert written["provenance"]["settings"]["c_grid"] == list(DEFAULT_C_GRID) == [0.01, 0.1, 1.0, 10.0, 100.0]
    assert runner.invoke(app, [*fast, "--c-grid", "0.1, 10"]).exit_code == 0
    written = json.loads(out.read_text())
    assert written["provenance"]["settings"]["c_grid"] == [0.1, 10.0]
    assert {fold["C"] for probe in written["probes"] for fold in probe["folds"]} <= {0.1, 10.0}
    for bad, message in [("0.1,x", "is not a list of numbers"), ("0,1", "every C must be a number from 1e-06 to")]:
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
    assert refused.exit_code == 2 and "grid_patience (--grid-patience) must be at least 0, not -1" in refused.output


def test_a_one_vs_rest_model_fitted_on_two_of_three_classes_names_its_features(seed: int) -> None:
    # A training fold can hold two of a benchmark's three labels: one-vs-rest then fits one binary model.
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 2], 30)
    X = rng.normal(size=(60, 2)) + np.outer(y == 2, [3.0, 0.0])
    spec = ProbeConfig(c_grid=(1.0,), classifiers=("l2_C1",)).candidates()[0]
    model = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    assert isinstance(model, LiblinearLogistic) and model.coef_.shape[0] == 1
    top = top_features(model, ["shifted", "noise"], ["a", "b", "c"], top_k=1)
    assert [(weight.class_name, weight.feature) for weight in top if weight.rank == 1][0] == ("c", "shifted")
    assert {weight.class_name for weight in top} <= {"a", "c"}


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("classes", [(0, 1, 2), (0, 2)])
@pytest.mark.parametrize("name", ["l1_C0.01", "l1_C1", "l1_C100", "l2_C1"])
def test_liblinear_fits_are_scikit_learns_models_and_predictions(
    name: str, classes: tuple[int, ...], sparse_input: bool, seed: int
) -> None:
    # The grid's own liblinear call must give what LogisticRegression gives (one-vs-rest: OneVsRestClassifier),
    # coefficient for coefficient: same classes, ties (L1 at C = 0.01: every weight zero) to the first class, two
    # classes as one binary model.
    rng = np.random.default_rng(seed)
    y = rng.choice(classes, size=150)
    X = (rng.random((150, 40)) < 0.15).astype(float) + np.eye(3, 40)[y] * rng.random((150, 1))
    X = sparse.csr_matrix(X) if sparse_input else X
    spec = next(spec for spec in ProbeConfig().candidates() if spec.name == name)
    ours = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    reference = LogisticRegression(
        C=spec.C, l1_ratio=float(spec.penalty == "l1"), solver="liblinear", tol=spec.tol, max_iter=1000,
        random_state=seed,
    )  # fmt: skip
    theirs = (OneVsRestClassifier(reference) if len(classes) > 2 else reference).fit(X, y)
    assert isinstance(ours, LiblinearLogistic)
    assert np.array_equal(ours.classes_, theirs.classes_)
    binaries = getattr(theirs, "estimators_", [theirs])
    assert np.array_equal(ours.coef_, np.vstack([model.coef_ for model in binaries]))
    assert np.array_equal(ours.intercept_, np.concatenate([model.intercept_ for model in binaries]))
    held_out = (rng.random((300, 40)) < 0.15).astype(float)
    assert np.array_equal(predict_classes(ours, held_out), theirs.predict(held_out))
    assert np.array_equal(ours.predict(held_out), theirs.predict(held_out))


def test_a_liblinear_fit_that_stops_at_max_iter_warns_as_scikit_learn_does(seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 100)
    X = rng.normal(size=(200, 30)) + y[:, np.newaxis]
    with pytest.warns(ConvergenceWarning, match="Liblinear failed to converge"):
        LiblinearLogistic(C=100.0, penalty="l1", tol=1e-8, max_iter=1, random_state=seed).fit(X, y)


def test_predictions_read_off_the_coefficients_are_scikit_learns(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n_classes, solver in [(2, "liblinear"), (3, "lbfgs")]:
        y = rng.integers(0, n_classes, 200)
        X = rng.normal(size=(200, 6)) + np.eye(n_classes, 6)[y]
        model = LogisticRegression(solver=solver, random_state=seed).fit(X, y)
        held_out = rng.normal(size=(500, 6))
        assert np.array_equal(predict_classes(model, held_out), model.predict(held_out))


@pytest.mark.parametrize("C", [0.01, 0.1, 1.0])
def test_l1_fits_leave_out_only_columns_the_full_fit_leaves_at_zero(
    seed: int, C: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A column whose values sum to at most 1 / C cannot get an L1 weight: a large fit leaves it out and gives it
    0, and predicts as the fit on every column does; a small fit keeps every column (bit for bit as before)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 600)
    rare = sparse.random(600, 3000, density=0.003, format="csr", random_state=seed)  # rare n-grams
    cue = sparse.csr_matrix(((y == 0) & (rng.random(600) < 0.7)).astype(float)[:, np.newaxis])
    X = sparse.hstack([cue, rare], format="csr")
    kept = classifiers.l1_screened_columns(X, C)
    assert kept is not None and 0 in kept and kept.size < X.shape[1]
    spec = classifiers.ClassifierSpec(f"l1_C{C:g}", "l1", C, "liblinear")
    full = make_classifier(spec, seed=seed, max_iter=1000).fit(X, y)
    assert classifiers.SCREEN_MIN_ROWS == 10_000 > X.shape[0]
    small = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    assert np.array_equal(small.coef_, full.coef_)
    monkeypatch.setattr(classifiers, "SCREEN_MIN_ROWS", 600)
    screened = fit_item_classifier(spec, X, y, n_classes=3, seed=seed, max_iter=1000)
    dropped = np.setdiff1d(np.arange(X.shape[1]), kept)
    assert screened.coef_.shape == full.coef_.shape
    assert not screened.coef_[:, dropped].any() and not full.coef_[:, dropped].any()
    assert np.mean(predict_classes(screened, X) == predict_classes(full, X)) >= 0.99
    if C >= 0.1:  # the cue's weight (at 0.01 every weight may be 0), named by the model of all the columns
        assert top_features(screened, np.arange(X.shape[1]).astype(str), ("a", "b", "c"), 1)[0].feature == "0"
