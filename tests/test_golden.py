"""Golden comparisons: the redesign moves code, not figures.

``tests/golden/`` holds results written by pfungst before the engine moved out of ``stress/`` (commit 9bf924b): the
demo's stress result, and a fixed-seed ``pfungst stress`` run of the embedded model on the first 20 ARC-Challenge items
with every default perturbation. The demo's four audit results were identical through the redesign and were then
rewritten once, when issue 16 changed the probes' fit on purpose (sparse features scaled, C chosen from a grid). Three
of them (control, gold-position, longest-option) were rewritten again for issue 12, which changed them on purpose:
option probes that cannot see positions break ties at random (they used to pick the first slot, which read the gold's
position through the back door), and the new ``options_no_position`` probe joined the per-item defaults. Every other
difference then was a validation score of a classifier not chosen at C 10 or 100 (poorly converged fits, which moved
with the package versions and with the order of floating-point sums) and the order of two tied top features; no chosen
classifier and no estimate moved. All four were rewritten again for issue 28, which changed how the grid is fitted on
purpose (liblinear at its own tolerance for both penalties, each C path stopped at its first C that does not help):
every verdict kept its label and kind and moved by less than 0.01 (the cue-word benchmark's best probe became
``1-grams_tf_gpt2``, kappa 0.394, from ``2-grams_presence_gpt2``, 0.392), the 25 probes' kappas moved by 0.007 (median)
to 0.019, and some folds chose a neighbouring C. They were rewritten once more for issue 28 when L1 above C = 1 took
liblinear's own tolerance (0.01): every verdict kept its label, kind and feature set (cue-word: kappa 0.389 from 0.394),
15 of the 25 probes did not move and the others moved by at most 0.011. All four were rewritten for issue 35, which
added the headline (schema ``pfungst.audit/2``) and widened the verdict's interval by the spread across cross-fitting
repeats on purpose: every verdict kept its label and feature set, and nothing else a user reads moved but the two
predictable verdicts' intervals (cue-word [0.295, 0.476] to [0.267, 0.505]; longest-option [0.312, 0.478] to
[0.278, 0.512]). All four were rewritten again for issue 35 when the refit variance added to the verdict's interval
became the between-repeat to bootstrap variance ratio pooled over the probes, on purpose: only the verdicts' intervals
moved, every label kept (control [-0.045, 0.081] to [-0.094, 0.126]; cue-word [0.267, 0.505] to [0.261, 0.512];
gold-position [0.530, 0.677] to [0.500, 0.707]; longest-option [0.278, 0.512] to [0.276, 0.513]). All four were
rewritten for issue 39, which added the item findings (duplicates and broken items) and the per-item shortcut flags
(``item_flags``), schema ``pfungst.audit/3``, and made the sibling groups use the findings' duplicate detection: the
groups of all four demo benchmarks were checked identical before and after, and nothing a user reads moved (the
longest-option benchmark has one item with a repeated option). All four were rewritten for issue 40, which draws the
bootstrap and permutation resamples on the contingency table wherever it has fewer possible cells than items (the same
distribution, other draws), on purpose: only intervals and p-values moved (control 31 of 258 figures read, cue-word 40
of 474, gold-position 25 of 258, longest-option 21 of 258); every verdict's label and feature set, every kappa and
accuracy and every fold's chosen classifier stayed (verdicts' intervals: control [-0.094, 0.126] to [-0.092, 0.126];
cue-word [0.261, 0.512] to [0.266, 0.507]; gold-position [0.500, 0.707] to [0.487, 0.710]; longest-option
[0.276, 0.513] to [0.279, 0.510]). The demo's stress result was rewritten once, when the
demo stopped running ``cyclic`` and ``rules`` (its conclusion reads neither): every figure of its identity, answer-moved
and PriDe analyses, and every field of the 120 outcomes both files hold, was unchanged, and PriDe's own rotations scored
exactly as the cyclic passes they replace. All six files were rewritten for issue 38 without a rerun, on purpose: each
file's ``settings``, ``seed``, ``environment`` and ``benchmark.provenance`` moved, unchanged, into one ``provenance``
record (``data``, ``settings``, ``seed``, ``environment``, ``derived_from``; schemas ``pfungst.audit/3`` and
``pfungst.stress/2``); no value changed. They guard every later change. These tests rerun both. The audits are compared
on what a user reads (:func:`audit_reading`): verdicts, the classifier chosen in each fold, and every estimate (value,
interval, p-value) of probes and heuristics, floats within a relative 1e-6; validation scores of grid candidates not
chosen are not compared (poorly converged fits, which move across machines and BLAS builds). For the stress results
every figure of the old files must still be there, with the same value, and every old field of every outcome unchanged;
keys may be renamed or added, figures may not change. The settings that are one perturbation's parameters are compared
as those parameters (:func:`assert_same_stress`). Volatile parts (versions, timings, cache counts, paths) are left out.

The stress run's 568 model answers are recorded too (``stress-arc20-answers.jsonl.gz``, from the run at commit
80ba7ec, whose results equalled these files): the rerun finds 19 in 20 of each request kind in its cache and asks
the embedded model the twentieth (29 requests: 21 next-token, 8 log-likelihood). So it checks every request the run
makes (one not recorded is a miss, and the misses must be exactly the held-out ones), llama.cpp's answers on a
twentieth of them (any change to the model, its weights or llama.cpp's numbers shows on each of them), and every
figure, in about a tenth of the time of asking all (about 20 s against 250 s on one core). The demo's 109 answers are
recorded the same way (``demo-stress-answers.jsonl.gz``, from the demo at commit d2af5d2, whose results equalled these
files): its rerun finds 19 in 20 of them in the cache in its output folder.
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pfungst.errors import MissingDependency
from pfungst.models.cache import CachedModel
from pfungst.models.cache_rows import read_row
from pfungst.models.embedded import embedded_model_path
from pfungst.models.llamacpp import file_fingerprint
from pfungst.models.requests import LoglikelihoodRequest, NextTokenRequest

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


PERTURBATION_SETTINGS = frozenset(
    {
        "perturbations",
        "permutations",
        "n_formats",
        "n_search_formats",
        "spread_budget",
        "instructions",
        "pride_fraction",
    }
)
"""Settings of the golden stress files that are parameters of one perturbation each in a stress result's
``settings["perturbations"]`` (``{"name", "params"}``); the files record them for perturbations that did not run."""


def assert_same_stress(old: dict[str, Any], new: dict[str, Any], what: str) -> None:
    """Every figure of the old stress result is in the new one, each perturbation ran with the parameter values the
    old settings gave it, and every format asked has the fields it had."""
    settings, made = old["provenance"]["settings"], new["provenance"]["settings"]
    kept = {key: value for key, value in settings.items() if key not in PERTURBATION_SETTINGS | {"formats"}}
    assert_same_figures({**old, "provenance": {**old["provenance"], "settings": kept}}, new, what)
    ran = {spec["name"]: spec["params"] for spec in made["perturbations"]}
    assert list(ran) == settings["perturbations"], f"{what}: perturbations {list(ran)}"
    given = {
        "permutations": {"n": settings["permutations"]},
        "pride": {"fraction": settings["pride_fraction"]},
        "formats": {"n": settings["n_formats"]},
        "spread-search": {"n": settings["n_search_formats"], "budget": settings["spread_budget"]},
        "instructions": {"texts": settings["instructions"][6:], "file": None},  # after the six built-in ones
    }
    for name, params in ran.items():
        assert params == given.get(name, {}), f"{what}: {name} ran with {params}"
    for name, fields in made["formats"].items():
        changed = {key for key, value in settings["formats"][name].items() if fields.get(key) != value}
        assert not changed, f"{what}: format {name!r} changed in {sorted(changed)}"


STATISTICS = ("accuracy", "kappa", "chance_corrected_accuracy", "majority_baseline")
"""The estimates a probe or heuristic reports (a heuristic has no majority baseline)."""
REL, ABS = 1e-6, 1e-9
"""Tolerance on a float a user reads: last-digit noise of sums passes, a moved estimate does not."""


def _estimate(read: dict[str, Any], name: str, estimate: dict[str, Any] | None) -> None:
    if estimate is None:  # not defined here (a heuristic that abstains on every item has no kappa)
        read[name] = None
        return
    read[f"{name}.value"] = estimate["value"]
    ci = estimate["ci"] or {}  # no interval where no item was scored
    read[f"{name}.ci"] = (ci.get("low"), ci.get("high"), ci.get("level"))
    read[f"{name}.pvalue"] = estimate["pvalue"]


def audit_reading(audit: dict[str, Any]) -> dict[str, Any]:
    """What a user reads in an audit result, by name: the verdict, each probe's estimates and the classifier chosen in
    each fold, each heuristic's estimates, each cue's counts and p-values. Validation scores of grid candidates, fit
    weights and per-item shares are left out: a candidate not chosen may be a poorly converged fit whose score moves
    with the machine's floating-point sums and BLAS, and what a user reads follows only from the chosen ones."""
    verdict = audit["verdict"]
    read: dict[str, Any] = {
        f"verdict.{key}": verdict[key]
        for key in ("label", "feature_set", "statistic", "threshold", "n_feature_sets", "signal_below_threshold")
    }
    _estimate(read, "verdict.estimate", verdict["estimate"])
    for probe in audit["probes"]:
        name = f"probe {probe['feature_set']}"
        read[f"{name}.n_predicted"] = probe["n_predicted"]
        read[f"{name}.final_classifier"] = probe["final_classifier"]
        for statistic in STATISTICS:
            _estimate(read, f"{name}.{statistic}", probe[statistic])
        for fold in probe["folds"]:
            read[f"{name}.repeat {fold['repeat']} fold {fold['fold']}.classifier"] = fold["classifier"]
    for result in (audit.get("heuristics") or {}).get("results", []):
        name = f"heuristic {result['name']}"
        read[f"{name}.coverage"], read[f"{name}.tie_rate"] = result["coverage"], result["tie_rate"]
        for statistic in STATISTICS[:3]:
            _estimate(read, f"{name}.{statistic}", result[statistic])
    for cue in (audit.get("cues") or {}).get("cues", []):
        name = f"cue {cue['cue']!r} for {cue['label']}"
        read.update({f"{name}.{key}": cue[key] for key in ("count", "hits", "pvalue", "qvalue")})
    return read


def _same(old: Any, new: Any) -> bool:
    if isinstance(old, tuple) and isinstance(new, tuple):
        return len(old) == len(new) and all(map(_same, old, new))
    if isinstance(old, float) and isinstance(new, (int, float)) and not isinstance(new, bool):
        return new == pytest.approx(old, rel=REL, abs=ABS, nan_ok=True)
    return type(old) is type(new) and old == new


def assert_same_reading(old: dict[str, Any], new: dict[str, Any], what: str) -> None:
    """The same figures, names and verdicts a user reads (floats within ``REL``/``ABS``)."""
    before, after = audit_reading(old), audit_reading(new)
    missing, added = sorted(before.keys() - after.keys()), sorted(after.keys() - before.keys())
    assert not missing and not added, f"{what}: missing {missing}, new {added}"
    changed = {key: (value, after[key]) for key, value in before.items() if not _same(value, after[key])}
    assert not changed, f"{what}: what a user reads changed (old, new): {changed}"


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
    settings = {"perturbations": ["pride"], "pride_fraction": 0.05, "permutations": 6, "n_formats": 8, "formats": {}}
    settings |= {"n_search_formats": 24, "spread_budget": 400, "instructions": [""] * 6}
    ran = {"perturbations": [{"name": "pride", "params": {"fraction": 0.1}}], "formats": {}}
    with pytest.raises(AssertionError, match=r"pride ran with \{'fraction': 0.1\}"):
        assert_same_stress({"provenance": {"settings": settings}}, {"provenance": {"settings": ran}}, "toy")


CHANGES = [
    ("verdict", lambda a: a["verdict"].update(label="predictable"), "verdict.label"),
    ("verdict estimate", lambda a: a["verdict"]["estimate"].update(value=0.03), "verdict.estimate.value"),
    ("chosen classifier", lambda a: a["probes"][0]["folds"][3].update(classifier="l2_C100"), "fold 3.classifier"),
    ("probe kappa", lambda a: a["probes"][1]["kappa"].update(value=a["probes"][1]["kappa"]["value"] + 1e-4), "kappa"),
    ("probe ci", lambda a: a["probes"][2]["accuracy"]["ci"].update(low=0.2), "accuracy.ci"),
    ("heuristic p", lambda a: a["heuristics"]["results"][0]["kappa"].update(pvalue=0.5), "kappa.pvalue"),
    ("cue", lambda a: a["cues"]["cues"][0].update(hits=1), "hits"),
    ("probe gone", lambda a: a["probes"].pop(), "missing"),
]


@pytest.mark.parametrize(("what", "change", "message"), CHANGES)
def test_a_changed_figure_a_user_reads_is_caught(what: str, change: Any, message: str) -> None:
    old = _read(GOLDEN / "demo" / "control.audit.json.gz")
    new = json.loads(json.dumps(old))
    change(new)
    with pytest.raises(AssertionError, match=message):
        assert_same_reading(old, new, what)


def test_scores_of_candidates_not_chosen_and_float_noise_are_not_compared() -> None:
    old = _read(GOLDEN / "demo" / "control.audit.json.gz")
    new = json.loads(json.dumps(old))
    for probe in new["probes"]:
        for fold in probe["folds"]:
            for candidate in fold["validation_scores"]:
                if candidate != fold["classifier"]:
                    fold["validation_scores"][candidate] += 0.01
        probe["kappa"]["value"] += 1e-12
    assert_same_reading(old, new, "noise")
    assert len(audit_reading(old)) > 100


@pytest.mark.slow
def test_demo_results_are_unchanged(tmp_path: Path) -> None:
    """The demo asks exactly the recorded requests (all but the held-out ones found in the cache in its folder), and
    every figure of its four audits and its stress run is the golden one."""
    cache = tmp_path / "demo" / "gold-position.stress-cache.sqlite"
    cache.parent.mkdir()
    held_out = _cache_all_but_held_out(cache, DEMO_ANSWERS)
    _pfungst("demo", "--out", str(tmp_path / "demo"), cache=tmp_path / "cache.sqlite")
    misses = json.loads((tmp_path / "demo" / "gold-position.stress.json").read_text())["counts"]["misses"]
    assert misses == held_out, f"the demo asked the model {misses} requests, {held_out} held out: the requests changed"
    old_files = sorted((GOLDEN / "demo").glob("*.json.gz"))
    assert len(old_files) == 5
    for old_file in old_files:
        name = old_file.name.removesuffix(".gz")
        new = json.loads((tmp_path / "demo" / name).read_text(encoding="utf-8"))
        old = _read(old_file)
        if name.endswith(".audit.json"):
            assert_same_reading(old, new, name)
            continue
        assert_same_stress(old, new, name)
        if "outcomes" in old:
            assert_same_outcomes(old["outcomes"], new["outcomes"], name)


ANSWERS = GOLDEN / "stress-arc20-answers.jsonl.gz"
"""The embedded model's answer to every request of the fixed-seed stress run (``request`` and ``result`` per line)."""
DEMO_ANSWERS = GOLDEN / "demo-stress-answers.jsonl.gz"
"""The embedded model's answer to every request of the demo's stress run, as :data:`ANSWERS`."""
HELD_OUT = 20
"""One recorded answer in this many, of each request kind, is left out of the cache and asked of the model again."""


def record_answers(cache: Path, out: Path) -> int:
    """Write the answers in ``cache`` (a run's SQLite model cache) as ``ANSWERS`` lines, sorted; return how many.

    To record them again: ``python -c "from pathlib import Path; from tests.test_golden import record_answers;
    record_answers(Path('CACHE'), Path('tests/golden/stress-arc20-answers.jsonl.gz'))"`` after the golden run (the
    demo's: its folder's ``gold-position.stress-cache.sqlite``, into ``demo-stress-answers.jsonl.gz``).
    """
    with sqlite3.connect(cache) as connection:
        rows = sorted(connection.execute("SELECT request, result FROM results"))
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        for request, result in rows:
            line = {"request": json.loads(request), "result": json.loads(result)}
            handle.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    return len(rows)


def _request(data: dict[str, Any]) -> LoglikelihoodRequest | NextTokenRequest:
    if data["kind"] == "loglikelihood":
        return LoglikelihoodRequest(data["context"], data["continuation"])
    return NextTokenRequest(data["context"], tuple(data["candidates"]))


class _Recorded:
    """The recorded answers as a model, only to fill a cache under the embedded model's fingerprint."""

    capabilities = frozenset({"loglikelihood", "next_token"})

    def __init__(self, fingerprint: str, answers: dict[Any, Any]) -> None:
        self.fingerprint, self.answers = fingerprint, answers

    def loglikelihood(self, requests: list[Any]) -> list[Any]:
        return [self.answers[request] for request in requests]

    next_token_logprobs = loglikelihood


def _cache_all_but_held_out(cache: Path, recorded: Path = ANSWERS) -> int:
    """Store the answers recorded in ``recorded`` in ``cache``, all but one in ``HELD_OUT`` of each kind; return how
    many are held out."""
    try:
        fingerprint = file_fingerprint(embedded_model_path())
    except MissingDependency as exc:
        pytest.skip(str(exc))
    answers = {}
    for line in _read(recorded):
        request = _request(line["request"])
        answers[request] = read_row(request, json.dumps(line["result"]))
    kept = {kind: [r for r in answers if isinstance(r, kind)] for kind in (LoglikelihoodRequest, NextTokenRequest)}
    model = CachedModel(_Recorded(fingerprint, answers), cache)
    model.loglikelihood([r for i, r in enumerate(kept[LoglikelihoodRequest]) if i % HELD_OUT])
    model.next_token_logprobs([r for i, r in enumerate(kept[NextTokenRequest]) if i % HELD_OUT])
    model.close()
    return len(answers) - model.stats.misses


@pytest.mark.slow
def test_fixed_seed_stress_run_on_20_arc_challenge_items_is_unchanged(tmp_path: Path, shared_data: Path) -> None:
    """The run asks exactly the recorded requests, the model answers the held-out ones as recorded (llama.cpp's
    numbers, checked on a twentieth of the next-token and of the log-likelihood requests), and every figure and
    outcome is the golden one."""
    data = shared_data / "arc" / "ARC-Challenge-Test.jsonl"
    out = tmp_path / "stress.json"
    items = tmp_path / "outcomes.jsonl"
    held_out = _cache_all_but_held_out(tmp_path / "cache.sqlite")
    args = ("stress", str(data), "--limit", "20", "--seed", "0", "--threads", "1", "--json", str(out))
    _pfungst(*args, "--items", str(items), cache=tmp_path / "cache.sqlite")
    result = json.loads(out.read_text())
    misses = result["counts"]["misses"]
    assert misses == held_out, f"the run asked the model {misses} requests, {held_out} held out: the requests changed"
    assert_same_stress(_read(GOLDEN / "stress-arc20.json.gz"), result, "stress")
    assert_same_outcomes(_read(GOLDEN / "stress-arc20.jsonl.gz"), _read(items), "stress outcomes")
