"""Golden comparisons: the redesign moves code, not figures.

``tests/golden/`` holds results written by pfungst before the engine moved out of ``stress/`` (commit 9bf924b): the
demo's stress result, and a fixed-seed ``pfungst stress`` run of the embedded model on the first 20 ARC-Challenge
items with every default perturbation. The demo's four audit results were identical through the redesign and were
then rewritten once, when issue 16 changed the probes' fit on purpose (sparse features scaled, C chosen from a grid).
Three of them (control, gold-position, longest-option) were rewritten again for issue 12, which changed them on
purpose: option probes that cannot see positions break ties at random (they used to pick the first slot, which read
the gold's position through the back door), and the new ``options_no_position`` probe joined the per-item defaults.
Every other difference then was a validation score of a classifier not chosen at C 10 or 100 (poorly converged fits,
which moved with the package versions and with the order of floating-point sums) and the order of two tied top
features; no chosen classifier and no estimate moved. The demo's stress result was rewritten once, when the demo
stopped running ``cyclic`` and ``rules`` (its conclusion reads neither): every figure of its identity, answer-moved
and PriDe analyses, and every field of the 120 outcomes both files hold, was unchanged, and PriDe's own rotations
scored exactly as the cyclic passes they replace. They guard every later change. These tests rerun both and
check that every figure of the old files is still there, with the same value, and that every old field of every
outcome is unchanged. Keys may be renamed or added (typed results carry explicit kinds now); figures may not change.
Volatile parts (versions, timings, cache counts, paths) are left out.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).parent / "golden"
VOLATILE = {"environment", "seconds", "counts", "cache", "hits", "misses", "model_calls", "source", "sha256"}
"""Keys whose values vary from run to run or machine to machine (timings, cache use, versions, file paths)."""


def _read(path: Path) -> Any:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        if ".jsonl" in path.name:
            return [json.loads(line) for line in handle if line.strip()]
        return json.load(handle)


def figures(node: Any) -> Counter[str]:
    """Every number and truth value in a JSON document (volatile keys left out), as a multiset of canonical strings:
    integers exactly, floats to 10 significant digits."""
    found: Counter[str] = Counter()
    stack = [node]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(child for key, child in value.items() if key not in VOLATILE)
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool):
            found[str(value)] += 1
        elif isinstance(value, int):
            found[f"{value}"] += 1
        elif isinstance(value, float):
            found[f"{value:.10g}"] += 1
    return found


def assert_same_figures(old: Any, new: Any, what: str) -> None:
    """Every figure of ``old`` is in ``new`` as often as before."""
    missing = figures(old) - figures(new)
    assert not missing, f"{what}: figures of the old result missing or changed in the new one: {dict(missing)}"


def assert_same_outcomes(old: list[dict[str, Any]], new: list[dict[str, Any]], what: str) -> None:
    """The same outcomes in the same order, every old field with its old value (new fields may be added)."""
    assert len(new) == len(old), f"{what}: {len(new)} outcomes, expected {len(old)}"
    for number, (before, after) in enumerate(zip(old, new, strict=True), start=1):
        changed = {key: (value, after.get(key)) for key, value in before.items() if after.get(key) != value}
        assert not changed, f"{what}: outcome {number} ({before.get('item_id')}) changed: {changed}"


def _pfungst(*args: str, cache: Path) -> None:
    env = {**os.environ, "PFUNGST_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "pfungst.cli", *args], env=env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_golden_files_can_fail() -> None:
    """The comparison is not vacuous: a changed figure or outcome field is caught."""
    old = {"accuracy": {"value": 0.25, "n": 20}, "environment": {"python": "3.11"}}
    with pytest.raises(AssertionError, match="missing or changed"):
        assert_same_figures(old, {"accuracy": {"value": 0.2500001, "n": 20}}, "toy")
    assert_same_figures(old, {"renamed": {"value": 0.25, "n": 20, "added": 3}}, "toy")
    with pytest.raises(AssertionError, match="changed"):
        assert_same_outcomes([{"item_id": "q", "chosen": 1}], [{"item_id": "q", "chosen": 2}], "toy")


@pytest.mark.slow
def test_demo_results_are_unchanged(tmp_path: Path) -> None:
    _pfungst("demo", "--out", str(tmp_path / "demo"), cache=tmp_path / "cache.sqlite")
    old_files = sorted((GOLDEN / "demo").glob("*.json.gz"))
    assert len(old_files) == 5
    for old_file in old_files:
        name = old_file.name.removesuffix(".gz")
        new = json.loads((tmp_path / "demo" / name).read_text(encoding="utf-8"))
        old = _read(old_file)
        assert_same_figures(old, new, name)
        if "outcomes" in old:
            assert_same_outcomes(old["outcomes"], new["outcomes"], name)


@pytest.mark.slow
def test_fixed_seed_stress_run_on_20_arc_challenge_items_is_unchanged(tmp_path: Path, shared_data: Path) -> None:
    data = shared_data / "arc" / "ARC-Challenge-Test.jsonl"
    out = tmp_path / "stress.json"
    items = tmp_path / "outcomes.jsonl"
    args = ("stress", str(data), "--limit", "20", "--seed", "0", "--threads", "1", "--json", str(out))
    _pfungst(*args, "--items", str(items), cache=tmp_path / "cache.sqlite")
    assert_same_figures(_read(GOLDEN / "stress-arc20.json.gz"), json.loads(out.read_text()), "stress")
    assert_same_outcomes(_read(GOLDEN / "stress-arc20.jsonl.gz"), _read(items), "stress outcomes")
