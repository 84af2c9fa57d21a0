"""Every path under a suite's folder is accounted for: a benchmark, or ignored with why; BIG-bench tasks and other
benchmark files side by side are all audited."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

import pfungst.audit.suite as suite_api
from pfungst.audit.run import AuditConfig
from pfungst.audit.suite import SuiteConfig, SuiteResult, audit_suite, discover
from pfungst.errors import DataError

ROWS = "".join(
    json.dumps({"question": f"What is {i} + {i}?", "choices": [str(2 * i), str(2 * i + 1)], "answer": i % 2}) + "\n"
    for i in range(40)
)
TASK = json.dumps({"name": "navigate", "examples": [{"input": "Go?", "target_scores": {"yes": 1, "no": 0}}]})


def _mixed(root: Path) -> Path:
    """A BIG-bench task with its README, a JSON-lines benchmark beside it, documentation and a hidden folder."""
    (root / "navigate").mkdir(parents=True)
    (root / "navigate" / "task.json").write_text(TASK)
    (root / "navigate" / "README.md").write_text("# navigate\n")
    (root / "mine").mkdir()
    (root / "mine" / "items.jsonl").write_text(ROWS)
    (root / "README.md").write_text("# suite\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n")
    return root


def test_a_folder_with_one_task_json_still_audits_its_other_benchmark_files(tmp_path: Path) -> None:
    sources = discover([_mixed(tmp_path / "suite")])
    assert [(source.name, source.reader) for source in sources] == [
        ("mine/items.jsonl", None),
        ("navigate", "bigbench"),
    ]


def test_every_other_path_is_listed_with_why_it_is_no_benchmark(tmp_path: Path) -> None:
    root = _mixed(tmp_path / "suite")
    found = suite_api.survey([root])  # type: ignore[attr-defined]
    reasons = {Path(ignored.source).relative_to(root).as_posix(): ignored.reason for ignored in found.ignored}
    assert reasons == {
        ".git": "hidden (the name starts with . or _)",
        "README.md": "not a benchmark format (.md)",
        "navigate/README.md": "part of BIG-bench task folder navigate",
    }


def test_the_suite_result_lists_the_ignored_paths_and_reads_them_back(tmp_path: Path) -> None:
    root = _mixed(tmp_path / "suite")
    quick = AuditConfig(n_bootstrap=20, n_permutations=10, n_repeats=1, n_splits=2, cues=False)
    result = audit_suite([root], tmp_path / "out", SuiteConfig(audit=quick))
    data = json.loads((tmp_path / "out" / "suite.json").read_text())
    assert data["n_ignored"] == 3
    assert {entry["reason"] for entry in data["ignored"]} >= {"part of BIG-bench task folder navigate"}
    assert [e.name for e in result.entries] + [s.name for s in result.skipped] == ["mine/items.jsonl", "navigate"]
    back = SuiteResult.from_dict(data)
    assert back.ignored == result.ignored  # type: ignore[attr-defined]


def test_a_gzipped_benchmark_in_a_folder_is_a_source_and_a_truncated_one_is_skipped_saying_so(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    root.mkdir()
    data = gzip.compress(ROWS.encode())
    (root / "whole.jsonl.gz").write_bytes(data)
    (root / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    assert [source.name for source in discover([root])] == ["cut.jsonl.gz", "whole.jsonl.gz"]
    quick = AuditConfig(n_bootstrap=20, n_permutations=10, n_repeats=1, n_splits=2, cues=False)
    result = audit_suite([root], tmp_path / "out", SuiteConfig(audit=quick))
    assert [s.name for s in result.skipped] == ["cut.jsonl.gz"]
    assert "the gzip stream ends early: the file is truncated" in result.skipped[0].reason


def test_a_path_given_twice_is_listed_as_a_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(ROWS)
    (tmp_path / "link.jsonl").symlink_to(path)
    found = suite_api.survey([path, tmp_path / "link.jsonl"])  # type: ignore[attr-defined]
    assert [source.name for source in found.sources] == ["items.jsonl"]
    assert [(Path(i.source).name, i.reason) for i in found.ignored] == [("link.jsonl", "duplicate of items.jsonl")]


def test_a_fifo_is_listed_not_read(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    root.mkdir()
    (root / "items.jsonl").write_text(ROWS)
    os.mkfifo(root / "pipe.jsonl")
    found = suite_api.survey([root])  # type: ignore[attr-defined]
    assert [source.name for source in found.sources] == ["items.jsonl"]
    assert [(Path(i.source).name, i.reason.split(" (")[0]) for i in found.ignored] == [
        ("pipe.jsonl", "not a regular file")
    ]


def test_a_file_nested_six_hundred_folders_deep_is_found_and_its_cache_name_fits(tmp_path: Path) -> None:
    deep = tmp_path / "suite"
    deep.mkdir()
    for _ in range(600):  # one at a time: Path.mkdir(parents=True) recurses once per level
        deep /= "d"
        deep.mkdir()
    (deep / "items.jsonl").write_text(ROWS)
    sources = discover([tmp_path / "suite"])
    assert [source.path for source in sources] == [deep / "items.jsonl"]
    assert len(sources[0].slug.encode()) <= 120


def test_a_folder_without_a_benchmark_says_what_it_holds(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("# notes\n")
    with pytest.raises(DataError, match=r"docs: the folder holds no benchmark file \(1 path\(s\) seen: notes\.md: not"):
        discover([tmp_path / "docs"])
