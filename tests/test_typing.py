"""A user's script type-checks with mypy and runs: ``pfungst.audit``, ``pfungst.stress`` and ``pfungst.reliance`` are
packages whose entry functions (``pfungst.audit.audit``) a type checker sees, and accuracy is one ``Estimate``
everywhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pfungst

SOURCE = Path(pfungst.__file__).resolve().parents[1]  # the src/ folder this test imports pfungst from

USER_SCRIPT = """\
import sys

import pfungst
import pfungst.stress.perturbations.pride.estimate as pride
from pfungst.audit import AuditConfig
from pfungst.reliance import read_outcomes
from pfungst.stats import Estimate

data, folder = sys.argv[1], sys.argv[2]
benchmark: pfungst.Benchmark = pfungst.load(data)
audited: pfungst.AuditResult = pfungst.audit.audit(benchmark, AuditConfig(n_bootstrap=50, n_permutations=50))
stressed: pfungst.StressResult = pfungst.stress.stress(
    benchmark, "smollm2", perturbations=("identity",), limit=4, cache=False
)
scored: pfungst.ScoreResult = pfungst.score(benchmark, "smollm2", rule="letter", prompt="mmlu", limit=4, cache=False)
saved = stressed.save_json(f"{folder}/stress.json", items=True)
joined = pfungst.reliance.reliance([audited], read_outcomes(saved), pfungst.RelianceConfig(alpha=0.1))
accuracies: list[Estimate] = [scored.accuracy, stressed.accuracy]
print(pride.__name__, audited.verdict.label, [round(a.value, 3) for a in accuracies], len(joined.models))
"""

WRONG_SCRIPT = """\
import pfungst

pfungst.audit.audit("not a benchmark")
pfungst.stress.stress(pfungst.load("x.jsonl"), model=3)
"""


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SOURCE), "MYPYPATH": str(SOURCE)}


def _mypy(tmp_path: Path, *scripts: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is not installed (pip install 'pfungst[dev]')")
    command = [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "--no-error-summary"]
    command += ["--cache-dir", str(tmp_path / ".mypy_cache"), *map(str, scripts)]
    return subprocess.run(command, capture_output=True, text=True, env=_environment(), timeout=600, cwd=tmp_path)


@pytest.mark.slow
def test_a_user_script_type_checks_and_runs(tmp_path: Path) -> None:
    from pfungst.data.synthetic import make_synthetic

    script, wrong = tmp_path / "user.py", tmp_path / "wrong.py"
    script.write_text(USER_SCRIPT)
    wrong.write_text(WRONG_SCRIPT)
    checked = _mypy(tmp_path, script, wrong)
    errors = checked.stdout.splitlines()
    assert not [line for line in errors if line.startswith("user.py")], checked.stdout + checked.stderr
    # mypy sees the real signatures, not a module or Any: both wrong calls are reported as argument errors
    assert [line.split(":")[1] for line in errors if line.startswith("wrong.py")] == ["3", "4"], checked.stdout
    assert all("[arg-type]" in line for line in errors if line.startswith("wrong.py")), checked.stdout

    from tests.test_cli import _need_smollm2

    _need_smollm2()
    data = make_synthetic("gold-position", 40, seed=1).save(tmp_path / "gp.jsonl")
    ran = subprocess.run(
        [sys.executable, str(script), str(data), str(tmp_path)],
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("pfungst.stress.perturbations.pride.estimate predictable [")
