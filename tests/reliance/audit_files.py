"""Planted audits as ``pfungst audit --json`` writes them: a hand-checkable probe or heuristic (item ids, gold,
shares) completed into a whole audit file, so that reliance reads it exactly as ``report`` does.

The parts a test does not plant (the benchmark's provenance, the verdict's estimate, the probe's folds and method
texts) come from the demo's control audit under ``tests/golden``, a file pfungst wrote.
"""

from __future__ import annotations

import copy
import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

TEMPLATE = Path(__file__).parents[1] / "golden" / "demo" / "control.audit.json.gz"


@cache
def _template() -> dict[str, Any]:
    with gzip.open(TEMPLATE, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def audit_file(name: str, probes: list[dict[str, Any]], best: str, heuristics: list[dict[str, Any]] = ()) -> dict:
    """A whole audit dict of benchmark ``name`` whose verdict names the probe ``best``.

    Args:
        name: The benchmark's name.
        probes: Each ``{"feature_set", "items": [{"item_id", "gold_class", "prediction" (class index or None),
            "share_correct" (or None)}], "kappa": {"value", "pvalue"}, "n_repeats", "chance"}``.
        best: The verdict's feature set.
        heuristics: Each ``{"name", "items": [{"item_id", "gold", "correct" (None: abstained)}]}``.
    """
    audit = copy.deepcopy(_template())
    audit["benchmark"]["name"] = name
    audit["verdict"]["feature_set"] = best
    audit["probes"] = [_probe(audit["probes"][0], planted) for planted in probes]
    audit["cues"] = audit["position_content"] = audit["controls"] = None
    results = audit["heuristics"]["results"]
    audit["heuristics"]["results"] = [_heuristic(results[0], planted) for planted in heuristics]
    return audit


def _probe(template: dict[str, Any], planted: dict[str, Any]) -> dict[str, Any]:
    probe = copy.deepcopy(template)
    rows = planted["items"]
    classes = sorted({row["gold_class"] for row in rows})
    items = []
    for row in rows:
        gold, prediction = classes.index(row["gold_class"]), row["prediction"]
        items.append(
            {
                "item_id": row["item_id"],
                "feature_set": planted["feature_set"],
                "gold": gold,
                "gold_class": row["gold_class"],
                "predicted": prediction is not None,
                "prediction": prediction,
                "prediction_class": None if prediction is None else classes[prediction],
                "correct": None if prediction is None else prediction == gold,
                "share_correct": row["share_correct"],
            }
        )
    probe.update(
        feature_set=planted["feature_set"],
        classes=classes,
        n_items=len(items),
        n_predicted=sum(item["predicted"] for item in items),
        items=items,
        per_repeat=[{**template["per_repeat"][0], "repeat": r} for r in range(planted.get("n_repeats", 2))],
    )
    probe["kappa"].update(value=planted["kappa"]["value"], pvalue=planted["kappa"]["pvalue"])
    probe["settings"]["chance"] = planted.get("chance", 0.5)
    return probe


def _heuristic(template: dict[str, Any], planted: dict[str, Any]) -> dict[str, Any]:
    heuristic = copy.deepcopy(template)
    items = []
    for row in planted["items"]:
        right, gold = row["correct"], row["gold"]
        prediction = -1 if right is None else gold if right else gold + 1
        items.append({"item_id": row["item_id"], "prediction": prediction, "gold": gold, "correct": right})
    heuristic.update(name=planted["name"], items=items, n_items=len(items))
    return heuristic
