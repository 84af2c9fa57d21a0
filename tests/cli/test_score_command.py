"""``pfungst score`` is a stress run with the identity perturbation alone: the same accuracy and interval as
``pfungst stress -p identity`` on the same items, through the same cache."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pfungst.cli import app

runner = CliRunner()


def _clustered_benchmark(folder: Path) -> Path:
    """Six questions in three subjects (pfungst's native JSON lines): accuracy gets a cluster-robust interval."""
    rows = [
        ("sky", "What colour is the sky on a clear day?", ["green", "blue", "red"], 1, "nature"),
        ("grass", "What colour is grass?", ["green", "blue", "red"], 0, "nature"),
        ("sum", "What is 2 + 2?", ["3", "5", "4"], 2, "maths"),
        ("product", "What is 2 * 3?", ["6", "5", "4"], 0, "maths"),
        ("cow", "Which animal says moo?", ["cat", "cow", "dog"], 1, "animals"),
        ("dog", "How many legs does a dog have?", ["four", "two", "six"], 0, "animals"),
    ]
    data = folder / "subjects.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": id_, "text": text, "options": options, "gold": gold, "metadata": {"subject": subject}})
            + "\n"
            for id_, text, options, gold, subject in rows
        )
    )
    return data


def test_score_and_stress_identity_report_the_same_accuracy_and_interval(tmp_path: Path) -> None:
    from tests.test_cli import _need_smollm2

    _need_smollm2()
    data, cache = str(_clustered_benchmark(tmp_path)), str(tmp_path / "cache.sqlite")
    common = ["--rule", "letter", "--cache", cache, "--threads", "1", "--quiet", "--json", "-"]
    scored = runner.invoke(app, ["score", data, *common])
    assert scored.exit_code == 0, scored.output
    stressed = runner.invoke(app, ["stress", data, "-p", "identity", "--n-bootstrap", "50", *common])
    assert stressed.exit_code == 0, stressed.output
    score, stress = json.loads(scored.stdout), json.loads(stressed.stdout)
    (identity,) = [entry for entry in stress["accuracies"] if entry["perturbation"] == "identity"]
    assert score["accuracy"] == identity["accuracy"]
    assert "cluster-robust" in score["accuracy"]["method"] and score["design_effect"] == identity["design_effect"]
    assert stress["counts"]["misses"] == 0  # the stress run's identity pass asked nothing the score had not


def test_score_takes_cluster_by_none_for_the_independent_item_interval(tmp_path: Path) -> None:
    from tests.test_cli import _need_smollm2

    _need_smollm2()
    data = str(_clustered_benchmark(tmp_path))
    args = ["score", data, "--rule", "letter", "--cache", str(tmp_path / "c.sqlite"), "--threads", "1", "--quiet"]
    result = runner.invoke(app, [*args, "--cluster-by", "none", "--json", "-"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["accuracy"]["method"] == "wilson" and summary["design_effect"] is None
    assert summary["provenance"]["settings"]["cluster_by"] == "none"


def test_prefix_trie_reaches_the_llamacpp_model_and_is_named_in_its_fingerprint(tmp_path: Path) -> None:
    """``--prefix-trie`` with the stored weights scores an item's options in one call: other answers, so another
    fingerprint and no answer of the exact default served from the cache; ``--no-prefix-trie`` is the default's."""
    from tests.test_cli import _need_smollm2

    _need_smollm2()
    data = str(_clustered_benchmark(tmp_path))
    args = ["score", data, "--rule", "cloze-raw", "--cache", str(tmp_path / "c.sqlite"), "--threads", "1"]
    runs = {}
    for flag in ("--no-prefix-trie", "--prefix-trie"):
        result = runner.invoke(app, [*args, flag, "--quiet", "--json", "-"])
        assert result.exit_code == 0, result.output
        runs[flag] = json.loads(result.stdout)
    assert "+trie" not in runs["--no-prefix-trie"]["model"] and "+trie" in runs["--prefix-trie"]["model"]
    assert runs["--prefix-trie"]["counts"]["misses"] == runs["--no-prefix-trie"]["counts"]["misses"] > 0
