"""Counts that would hang a run are refused at once: parallel jobs past 4 per CPU core, resamples past a million,
cross-fitting repeats past a thousand. The config objects refuse them when built; every command reports that as
one message naming the option, the value and the cap, and exits 2 before reading any data."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pfungst.audit.heuristic_scoring import HeuristicConfig
from pfungst.audit.probe import ProbeConfig
from pfungst.audit.run import AuditConfig
from pfungst.cli import app
from pfungst.errors import ConfigError
from pfungst.reliance.analysis import RelianceConfig
from pfungst.stress.ranks import rank_stability
from pfungst.stress.stress_config import StressConfig

HUGE = 10**12
JOBS_CAP = 4 * (os.cpu_count() or 1)

runner = CliRunner()


def _one_item(folder: Path) -> Path:
    data = folder / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    return data


@pytest.mark.parametrize(
    ("command", "option", "value", "cap"),
    [
        (["audit", "{data}"], "--n-jobs", 100_000, f"at most {JOBS_CAP} (4 per CPU core"),
        (["audit", "{data}"], "--n-bootstrap", HUGE, "at most 1000000 resamples"),
        (["audit", "{data}"], "--n-permutations", HUGE, "at most 1000000 resamples"),
        (["audit", "{data}"], "--n-repeats", 100_000, "at most 1000 repeats"),
        (["audit", "{data}"], "--n-refits", 201, "0 (no refit-aware check"),
        (["suite", "{data}", "--out", "{out}"], "--n-jobs", 100_000, f"at most {JOBS_CAP} (4 per CPU core"),
        (["suite", "{data}", "--out", "{out}"], "--n-bootstrap", HUGE, "at most 1000000 resamples"),
        (["suite", "{data}", "--out", "{out}"], "--n-permutations", HUGE, "at most 1000000 resamples"),
        (["stress", "{data}"], "--n-bootstrap", HUGE, "at most 1000000 resamples"),
        (["export", "lm-eval", "{data}", "--out", "{out}"], "--n-bootstrap", HUGE, "at most 1000000 resamples"),
    ],
)
def test_a_count_past_its_cap_is_exit_2_naming_the_option_value_and_cap(
    tmp_path: Path, command: list[str], option: str, value: int, cap: str
) -> None:
    places = {"{data}": str(_one_item(tmp_path)), "{out}": str(tmp_path / "out")}
    started = time.perf_counter()
    result = runner.invoke(app, [places.get(arg, arg) for arg in command] + [option, str(value)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"{option.lstrip('-').replace('-', '_')} ({option}) must be {cap}" in text and f"not {value}" in text
    assert "Traceback" not in text and time.perf_counter() - started < 10


def test_minus_one_jobs_still_means_one_per_core() -> None:
    assert AuditConfig(n_jobs=-1).n_jobs == -1 and AuditConfig(n_jobs=JOBS_CAP).n_jobs == JOBS_CAP
    with pytest.raises(ConfigError, match=r"Give -1 for one job per core"):
        AuditConfig(n_jobs=JOBS_CAP + 1)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: AuditConfig(n_bootstrap=HUGE), r"^n_bootstrap \(--n-bootstrap\) must be at most 1000000 resamples"),
        (lambda: AuditConfig(n_permutations=1_000_001), r"^n_permutations \(--n-permutations\) must be at most"),
        (lambda: ProbeConfig(n_jobs=100_000), r"^n_jobs \(--n-jobs\) must be at most \d+ \(4 per CPU core"),
        (lambda: ProbeConfig(n_repeats=1001), r"^n_repeats \(--n-repeats\) must be at most 1000 repeats, not 1001"),
        (lambda: StressConfig(n_bootstrap=HUGE), r"^n_bootstrap \(--n-bootstrap\) must be at most 1000000"),
        (lambda: RelianceConfig(n_permutations=HUGE), r"^n_permutations \(--n-permutations\) must be at most"),
        (lambda: HeuristicConfig(n_resamples=HUGE), r"^n_resamples \(--n-resamples\) must be at most 1000000"),
    ],
)
def test_the_config_objects_refuse_a_count_past_its_cap_when_built(build: Callable[[], Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build()


def test_rank_stability_refuses_a_million_and_one_resamples() -> None:
    answers = {model: {"plain": {"q1": True, "q2": model == "a"}} for model in ("a", "b")}
    with pytest.raises(ConfigError, match=r"n_bootstrap \(--n-bootstrap\) must be at most 1000000 resamples"):
        rank_stability(answers, seed=0, n_bootstrap=1_000_001)
