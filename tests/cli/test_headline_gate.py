"""``pfungst audit`` prints the headline and gates on it: every ``--fail-on`` rule given applies, a planted
nonsense word fails ``content``, a constant answer key fails ``label-prior``, a small clean file ``inconclusive``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from tests.audit import planted

runner = CliRunner()

QUICK = ["--n-bootstrap", "200", "--n-permutations", "100", "--n-repeats", "1", "--n-splits", "3", "--quiet"]


def _audit(path: Path, *rules: str) -> tuple[int, str, str]:
    args = ["audit", str(path), *QUICK]
    for rule in rules:
        args += ["--fail-on", rule]
    result = runner.invoke(app, args)
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


def test_a_planted_nonsense_word_in_a_shared_label_task_fails_the_content_gate(tmp_path: Path, seed: int) -> None:
    code, stdout, stderr = _audit(planted.nonsense_word(tmp_path / "nli.jsonl", 200, seed), "content")
    assert code == 3, stderr
    assert f"Predictable from the full input: '{planted.NONSENSE}' in the text" in stdout
    assert "gate --fail-on content: FAILED for 1 of 1" in stderr and "nli: [content] Predictable" in stderr


def test_the_longest_option_file_names_longest_in_the_verdict_sentence(tmp_path: Path, seed: int) -> None:
    code, stdout, _ = _audit(planted.longest_always(tmp_path / "longest.jsonl", 60, seed))
    assert code == 0
    assert "Predictable from the options alone, no question: the longest option is gold in 60 of 60 items" in stdout


def test_a_sixty_item_file_without_a_cue_reads_inconclusive_and_fails_only_that_gate(tmp_path: Path, seed: int) -> None:
    path = planted.no_cue(tmp_path / "clean.jsonl", 60, seed)
    code, stdout, stderr = _audit(path, "inconclusive")
    assert code == 3 and "Inconclusive (" in stdout and "60 items are too few to rule out" in stdout
    assert "[inconclusive] Inconclusive" in stderr
    code, _, stderr = _audit(path, "predictable", "content", "position", "label-prior")
    assert code == 0 and "passed (1 benchmark(s) checked)" in stderr


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_constant_answer_key_fails_the_label_prior_gate_and_not_the_content_one(tmp_path: Path, seed: int) -> None:
    path = planted.constant_answer(tmp_path / "colours.jsonl", 40, seed)
    code, stdout, stderr = _audit(path, "label-prior")
    assert code == 3 and "Label prior: 'blue' is gold in 40 of 40 items" in stdout
    assert "colours: [label-prior] Label prior" in stderr
    assert _audit(path, "content")[0] == 0
    # repeated --fail-on: every rule applies, not only the last one given
    code, _, stderr = _audit(path, "label-prior", "content")
    assert code == 3 and "gate --fail-on label-prior --fail-on content: FAILED" in stderr


def test_repeated_fail_on_rules_all_apply_and_name_each_breach(tmp_path: Path, seed: int) -> None:
    path = planted.last_and_longest(tmp_path / "last.jsonl", 120, seed)
    code, stdout, stderr = _audit(path, "position", "content")
    assert code == 3 and stdout.count("Position artifact: gold is the last option (D) in 120 of 120 items") >= 1
    assert "last: [position, content] Position artifact" in stderr
    code, _, stderr = _audit(path, "label-prior", "inconclusive")
    assert code == 0 and "gate --fail-on label-prior --fail-on inconclusive: passed" in stderr
