"""Results to render: a small real run (summary, audit, two models stressed, their comparison, a score) and the same
results with script-injection payloads in every text field a benchmark or a user controls."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import pfungst
from pfungst.audit.run import audit
from pfungst.data.summary import summarize
from pfungst.data.synthetic import make_synthetic
from pfungst.reliance import ModelOutcomes, reliance
from pfungst.report.html import render_html
from pfungst.stress.comparison import compare
from pfungst.stress.perturbations import PERTURBATIONS as REGISTERED
from pfungst.stress.suite import stress
from tests.evaluate.fakes import ScriptedModel

PAYLOADS = (
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    '"><svg onload=window.__pwned=1>',
    "javascript:window.__pwned=1",
)
"""What an item id, text, cue word, feature or model name could hold."""

PERTURBATIONS = tuple(name for name in REGISTERED if not REGISTERED.is_plugin(name))
SMALL_PARAMS = {
    "formats": "formats:n=3",
    "spread-search": "spread-search:n=4,budget=40",
    "permutations": "permutations:n=4",
}
"""Perturbations run with fewer formats and orders than their defaults, to keep the run small."""
"""Every perturbation, so that every analysis kind is rendered."""

_STRUCTURAL = {
    "schema_version",
    "kind",
    "status",
    "certainty",
    "explains",
    "findings",
    "perturbation",
    "label",
    "statistic",
    "by",
    "rule",
    "format",
    "option_kind",
    "protocol",
    "length_unit",
    "rank_by",
    "input",
}
"""Keys whose values the report matches on (left clean so that each dedicated renderer is exercised), and settings
with a fixed set of values, which reading a result file checks (``length_unit``, ``rank_by``, a verdict's
``status``, its evidence's ``input``, a headline's ``certainty``, ``explains`` and ``findings``, a probe's
``protocol``, read back to its object)."""
_KEYED_BY_DATA = {"gold_counts", "field_names", "pulls"}
"""Mappings whose keys come from the data (labels, field names, format names)."""


def _seed() -> int:
    return int(os.environ.get("PFUNGST_TEST_SEED", "0"))


def _model(prefers: str) -> ScriptedModel:
    """A fake model that prefers the label ``prefers`` and shorter options."""
    return ScriptedModel(
        next_token_script=lambda context, candidate: -0.1 if candidate.strip() == prefers else -2.0,
        loglikelihood_script=lambda context, continuation: -float(len(continuation)),
    )


@pytest.fixture(scope="session")
def demo_objects() -> dict[str, Any]:
    """A small real run as result objects: summary, audit, two stress results, rank stability, score, reliance."""
    seed = _seed()
    # 96 items: this small audit (3 folds, 1 repeat) flags the planted gold-position cue for every seed 0 to 11; at 48
    # it missed 2 or 3 of those 12, its interval's lower bound falling on either side of the 0.2 threshold.
    benchmark = make_synthetic("gold-position", n_items=96, seed=seed)
    audited = audit(benchmark, seed=seed, n_bootstrap=50, n_permutations=50, n_repeats=1, n_splits=3)
    settings: dict[str, Any] = dict(
        cache=False,
        seed=seed,
        n_bootstrap=50,
        limit=24,
        perturbations=tuple(SMALL_PARAMS.get(name, name) for name in PERTURBATIONS),
    )
    results = [
        stress(benchmark, _model("A"), **settings),  # every analysis kind once; the second model is compared
        stress(benchmark, _model("C"), **{**settings, "perturbations": ("identity", "cyclic", "rules")}),
    ]
    ranks = compare(results, names=["prefers-A", "prefers-C"], seed=seed, n_bootstrap=50)
    scored = pfungst.score(benchmark, _model("A"), cache=False, limit=24)
    outcomes = [
        ModelOutcomes(
            name,
            benchmark.name,
            {o.item_id: o.correct for o in r.outcomes if o.perturbation == "identity"},
            "fixture",
            "csv",
        )
        for name, r in zip(("prefers-A", "prefers-C"), results, strict=True)
    ]
    return {
        "summary": summarize(benchmark),
        "audit": audited,
        "stress": results,
        "ranks": ranks,
        "score": scored,
        "reliance": reliance([audited], outcomes, seed=seed),
    }


@pytest.fixture(scope="session")
def demo_results(demo_objects: dict[str, Any]) -> list[dict[str, Any]]:
    """summary, audit, stress comparison (both stress results inside), score and reliance, as ``--json`` writes
    them (the comparison as ``pfungst stress`` with several models writes it)."""
    comparison = {
        "schema_version": "pfungst.stress-comparison/2",
        "results": [r.to_dict() for r in demo_objects["stress"]],
        "rank_stability": demo_objects["ranks"].to_dict(),
    }
    dicts = [
        demo_objects["summary"].to_dict(),
        demo_objects["audit"].to_dict(),
        comparison,
        demo_objects["score"].to_dict(),
        demo_objects["reliance"].to_dict(),
    ]
    return json.loads(json.dumps(dicts, default=str))


def _poison_text(text: str) -> str:
    return text + PAYLOADS[len(text) % len(PAYLOADS)]


def poison(value: Any, key: str = "") -> Any:
    """``value`` with a payload appended to every string (the same string always gets the same payload)."""
    if isinstance(value, Mapping):
        return {
            (_poison_text(k) if key in _KEYED_BY_DATA else k): (v if k in _STRUCTURAL else poison(v, k))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [poison(item, key) for item in value]
    return _poison_text(value) if isinstance(value, str) else value


@pytest.fixture(scope="session")
def payload_results(demo_results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The demo results with payloads in every text."""
    return [poison(copy.deepcopy(result)) for result in demo_results]


@pytest.fixture(scope="session")
def demo_page(demo_results: list[dict[str, Any]]) -> str:
    """The demo results as an HTML page, plots included."""
    return render_html(demo_results)


@pytest.fixture(scope="session")
def payload_page(payload_results: list[dict[str, Any]]) -> str:
    """The poisoned results as an HTML page, plots included."""
    return render_html(payload_results)


@pytest.fixture
def written(tmp_path: Path, demo_results: list[dict[str, Any]]) -> list[Path]:
    """The demo results as files, as the CLI's --json writes them."""
    names = ["summary.json", "audit.json", "stress.json", "score.json", "reliance.json"]
    paths = []
    for name, result in zip(names, demo_results, strict=True):
        path = tmp_path / name
        path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths
