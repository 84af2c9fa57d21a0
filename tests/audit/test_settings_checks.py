"""Settings the audit cannot honour are refused before any fitting, and a benchmark too small for the folds asked
for is cross-fitted with fewer folds and a warning (issue 15: each crashed with a traceback or printed nonsense)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

QUICK = {"feature_sets": ("1-grams_presence",), "n_bootstrap": 50, "n_permutations": 20, "cues": False}


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"n_jobs": 0}, "jobs must be a positive number"),
        ({"seed": -5}, "seed must be an integer from 0 to 4294967295, not -5"),
        ({"seed": 99999999999}, "seed must be an integer from 0 to 4294967295"),
        ({"n_bootstrap": 0}, r"n_bootstrap \(--n-bootstrap\) must be at least 1, not 0"),
        ({"n_permutations": -5}, r"n_permutations \(--n-permutations\) must be at least 1, not -5"),
    ],
)
def test_settings_the_audit_cannot_honour_are_refused(setting: dict[str, int], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        pfungst.audit.audit(make_synthetic("control", 40), **{**QUICK, **setting})


@pytest.mark.parametrize(
    "option",
    [
        ["--n-jobs", "0"],
        ["--seed", "-5"],
        ["--seed", "99999999999"],
        ["--n-bootstrap", "0"],
        ["--n-permutations", "-5"],
    ],
)
def test_the_command_line_refuses_them_with_exit_2(tmp_path: Path, option: list[str]) -> None:
    data = make_synthetic("control", 40).save(tmp_path / "control.jsonl")
    result = CliRunner().invoke(app, ["audit", str(data), *option])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_a_benchmark_whose_classes_are_all_rarer_than_the_folds_is_cross_fitted_with_fewer_folds() -> None:
    items = make_synthetic("cue-word", 60)
    chosen = [item.id for label in range(3) for item in [i for i in items if i.gold == label][:4]]
    small = items.select(chosen)  # 12 items, 4 per label: no label has the 5 that 5 folds need
    with pytest.warns(UserWarning, match="no class has 5 items, as 5-fold cross-fitting needs; cross-fitting with 4"):
        result = pfungst.audit.audit(small, **QUICK)
    assert result.verdict.estimate.n == 12
    assert "4-fold cross-fitting" in result.verdict.estimate.method


def test_a_rare_class_is_warned_about_once_in_pfungst_words() -> None:
    items = make_synthetic("cue-word", 60)
    rare = next(item for item in items if item.gold == 0)
    benchmark = items.filter(lambda item: item.gold != 0 or item.id == rare.id)
    with pytest.warns(UserWarning) as caught:
        pfungst.audit.audit(benchmark, **{**QUICK, "feature_sets": ("1-grams_presence", "1-grams_tf")})
    messages = [str(warning.message) for warning in caught]
    assert sum("rarest class has only 1 item(s)" in message for message in messages) == 1
    assert not any("least populated class" in message for message in messages)


def test_too_few_items_say_what_cross_fitting_needs() -> None:
    items = make_synthetic("cue-word", 60)
    benchmark = items.select([next(i.id for i in items if i.gold == label) for label in range(3)])
    with pytest.raises(ConfigError, match="it takes a class with at least 2 items"):
        pfungst.audit.audit(benchmark, **QUICK)
