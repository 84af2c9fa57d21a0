"""``pfungst stress`` on a terminal: the stages by name, one total marked as a bound until top2 is planned, and the
threads chosen for the embedded model said on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pfungst
from pfungst.data.synthetic import make_synthetic


def test_stress_shows_its_stages_and_a_bounded_total_on_a_terminal(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    data = make_synthetic("gold-position", 20, seed=0).save(tmp_path / "gp.jsonl")
    environment = {**os.environ, "TTY_COMPATIBLE": "1", "PYTHONPATH": str(Path(pfungst.__file__).parents[1])}
    command = [sys.executable, "-m", "pfungst.cli", "stress", str(data), "--limit", "3", "-p", "top2"]
    command += ["--cache", str(tmp_path / "cache.sqlite"), "--n-bootstrap", "50"]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600)
    assert done.returncode == 0, done.stderr
    shown = done.stderr
    # 3 plain questions, and top2's two placements of each item at most, before the first request
    assert "first pass: identity" in shown and "0/≤9" in shown
    assert "llama.cpp: 1 CPU thread" in shown or "CPU threads (" in shown
    assert "starting" not in shown
