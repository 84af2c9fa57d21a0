"""The one folder walk never follows a link to a folder: link loops and links out of the folder are left out,
each with its reason, and every command that reads a folder holding them runs (issue 37)."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.folder_walk import walk_files

runner = CliRunner()
LINKS = {
    "self": ".",  # a link to its own folder
    "up": "..",  # a link to the folder above: out of the folder given
    "root": "/",  # out of the folder, to the whole file system
    "x": "x",  # a link to itself
    "y": "z",  # two links to each other
    "z": "y",
    "gone": "missing",  # a broken link
}


def _with_loops(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in LINKS.items():
        (folder / name).symlink_to(target)
    deep = folder / "sub" / "deeper"
    deep.mkdir(parents=True)
    (deep / "back").symlink_to(folder)  # a loop two levels down
    return folder


def _mmlu(folder: Path) -> Path:
    """A headerless MMLU file of 40 items (the gold the longest option) in a folder full of link loops."""
    rows = [f"Question {i}?,a{i},bb{i},cccccc{i},d{i},C" for i in range(40)]
    (_with_loops(folder) / "astronomy_test.csv").write_text("\n".join(rows) + "\n")
    return folder


def test_the_walk_leaves_out_every_link_to_a_folder_and_every_broken_or_looping_link(tmp_path: Path) -> None:
    root = _with_loops(tmp_path / "data")
    (root / "a.jsonl").write_text("{}\n")
    (root / "sub" / "b.jsonl").write_text("{}\n")
    (root / "alias.jsonl").symlink_to(root / "a.jsonl")
    walked = walk_files(root)
    assert [path.relative_to(root).as_posix() for path in walked.files] == ["a.jsonl", "alias.jsonl", "sub/b.jsonl"]
    reasons = {path.relative_to(root).as_posix(): reason for path, reason in walked.left_out}
    assert reasons == {
        "self": "a link to a folder (not followed)",
        "up": "a link to a folder (not followed)",
        "root": "a link to a folder (not followed)",
        "sub/deeper/back": "a link to a folder (not followed)",
        "x": "a broken or looping link",
        "y": "a broken or looping link",
        "z": "a broken or looping link",
        "gone": "a broken or looping link",
    }


def test_the_walk_goes_any_depth_without_recursion(tmp_path: Path) -> None:
    folder = tmp_path
    for _ in range(300):
        folder = folder / "d"
        folder.mkdir()
    (folder / "leaf.txt").write_text("x")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 100)  # 300 levels deep would pass it, were the walk recursive
    try:
        walked = walk_files(tmp_path)
    finally:
        sys.setrecursionlimit(limit)
    assert [path.name for path in walked.files] == ["leaf.txt"]


def _invoke(arguments: list[str]) -> str:
    result = runner.invoke(app, arguments)
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 0, result.output
    return result.output


def test_suite_walks_a_folder_with_link_loops_and_lists_the_links(tmp_path: Path) -> None:
    data = _mmlu(tmp_path / "data")
    _invoke(["suite", str(data), "--out", str(tmp_path / "out"), "--quiet", "--n-bootstrap", "50"])
    ignored = json.loads((tmp_path / "out" / "suite.json").read_text())["ignored"]
    assert {Path(entry["source"]).name for entry in ignored} >= {"self", "up", "root", "x", "y", "z", "back"}


@pytest.mark.parametrize("command", ["inspect", "audit"])
def test_inspect_and_audit_read_a_folder_with_link_loops(command: str, tmp_path: Path) -> None:
    data = _mmlu(tmp_path / "data")
    out = tmp_path / f"{command}.json"
    extra = ["--quiet", "--n-bootstrap", "50", "--n-permutations", "50"] if command == "audit" else []
    _invoke([command, str(data), "--json", str(out), *extra])
    assert json.loads(out.read_text())


def test_validity_reads_an_outcome_folder_with_link_loops(tmp_path: Path) -> None:
    folder = _with_loops(tmp_path / "outcomes")
    rows = ["model,item_id,correct"] + [f"m{m},q{i},{int((i + m) % 3 > 0)}" for m in range(4) for i in range(20)]
    (folder / "answers.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "validity.json"
    _invoke(["validity", "--outcomes", str(folder), "--json", str(out)])
    assert json.loads(out.read_text())


def test_an_instructions_folder_with_link_loops_is_refused_with_one_message(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "Q?", "choices": ["a", "b"], "answer": 0}\n')
    folder = _with_loops(tmp_path / "instructions")
    (folder / "paraphrases.txt").write_text("Answer the question.\n")
    arguments = ["stress", str(data), "--model", "openai:http://127.0.0.1:9#m", "--quiet"]
    result = runner.invoke(app, [*arguments, "-p", f"instructions:file={folder}", "--json", str(tmp_path / "s.json")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "instructions" in result.output and "file" in result.output
