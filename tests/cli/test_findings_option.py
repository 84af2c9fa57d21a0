"""``pfungst audit DATA --findings FILE.md [--validity V.json]``: the report, its CSV, path errors, the Python API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.report import read_result, write_findings
from tests.audit.planted import longest_in_half

runner = CliRunner()
CHEAP = ["--n-bootstrap", "50", "--n-permutations", "20", "--n-repeats", "1", "--n-refits", "0", "--quiet"]


def _said(output: str) -> str:
    return " ".join(output.split())


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One audit with --findings and --validity (eight models agree on another answer for row 3): its folder."""
    folder = tmp_path_factory.mktemp("cli")
    data = longest_in_half(folder / "half.jsonl", 200, 0)
    rows = ["model,item_id,correct,answer,gold"]
    for m in range(8):
        for i in range(1, 41):
            answer = "B" if i == 3 else ("A" if (i + m) % 4 else "C")
            rows.append(f"m{m},half.jsonl:{i},{int(answer == 'A')},{answer},A")
    (folder / "answers.csv").write_text("\n".join(rows) + "\n")
    screen = runner.invoke(
        app, ["validity", "--outcomes", str(folder / "answers.csv"), "--json", str(folder / "keys.json")]
    )
    assert screen.exit_code == 0, screen.output
    args = [str(data), "--findings", str(folder / "out" / "findings.md"), "--validity", str(folder / "keys.json")]
    done = runner.invoke(app, ["audit", *args, *CHEAP])
    assert done.exit_code == 0, done.output
    assert f"wrote {folder / 'out' / 'findings.md'}, {folder / 'out' / 'findings.csv'}" in _said(done.output)
    return folder


def test_the_command_writes_the_report_with_the_suspected_key_and_the_csv(run: Path) -> None:
    text = (run / "out" / "findings.md").read_text()
    assert "| finding | items |" in text and "(`wrong-key`)" in text
    section = text.split("(`wrong-key`)\n", 1)[1].split("\n## ", 1)[0]
    assert "**Items:** half.jsonl:3\n" in section and "8 of 8 models answer 'B', not the key 'A'" in section
    assert f"pfungst validity --outcomes {run / 'answers.csv'} --json {run / 'keys.json'}\n" in section
    rows = (run / "out" / "findings.csv").read_text().splitlines()
    assert rows[0] == "finding,title,item_id,group,evidence"
    assert sum(row.startswith("heuristic,") for row in rows) == 100
    assert [row.split(",")[2] for row in rows if row.startswith("wrong-key,")] == ["half.jsonl:3"]


def test_the_python_api_writes_the_same_report_from_the_saved_result(run: Path, tmp_path: Path) -> None:
    result = read_result(run / "half.audit.json")
    cli_text = (run / "out" / "findings.md").read_text()
    command = re.search(r"```bash\n(pfungst audit .*)\n```", cli_text)
    assert command is not None
    markdown, csv = write_findings(result, tmp_path / "findings.md", validity=run / "keys.json", command=command[1])
    assert markdown.read_text() == cli_text
    assert csv.read_bytes() == (run / "out" / "findings.csv").read_bytes()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--findings", "report.txt"], "--findings report.txt: the findings report is Markdown; name it with .md"),
        (["--validity", "keys.json"], "--validity keys.json: it is read only for the findings report."),
        (["--findings", "half.md"], "--findings (its CSV) half.csv: this is the input half.csv"),
    ],
)
def test_a_bad_findings_path_exits_2_with_one_message_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("half.csv").write_text("question,A,B,answer\nOne?,a,b,A\nTwo?,c,d,B\nThree?,e,f,A\n")
    Path("keys.json").write_text("{}")
    done = runner.invoke(app, ["audit", "half.csv", *extra, *CHEAP])
    assert done.exit_code == 2, done.output
    assert message in _said(done.output)
    assert not Path("half.audit.json").exists() and not Path("half.md").exists()
