"""A plugin's result kind that keeps no provenance record still renders in ``pfungst report``: its section of the
provenance chapter says "no provenance recorded" (with where it was read from), in every format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from pfungst.blocks import Section, Table
from pfungst.cli import app
from pfungst.report import render_markdown
from pfungst.report.document import build_report
from pfungst.report.loading import load_results
from pfungst.results import RESULTS, Overview
from pfungst.schema import Fields


@dataclass(frozen=True)
class Headcount:
    """A plugin result without a ``provenance``: the items counted in one benchmark."""

    KIND: ClassVar[str] = "example-plugin.headcount"
    SCHEMA_VERSION: ClassVar[str] = "example-plugin.headcount/1"
    REPORT_PART: ClassVar[str] = "data"
    name: str
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": self.SCHEMA_VERSION, "kind": self.KIND, "name": self.name, "n_items": self.n_items}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> Headcount:
        fields = Fields(data, source)
        fields.check_schema(cls.SCHEMA_VERSION)
        return cls(fields.string("name"), fields.integer("n_items"))

    def sections(self) -> tuple[Section, ...]:
        return (Section(f"Headcount: {self.name}", (Table("Items", ("items",), ((str(self.n_items),),)),)),)

    def overview(self) -> Overview:
        return Overview(
            {"name": self.name}, "", f"{self.n_items} items", ((self.name, "(data)", "counted", "", "info"),)
        )


@pytest.fixture
def headcount(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The plugin's kind registered (as its entry point would) and one of its files written."""
    monkeypatch.setattr(RESULTS, "_merged", {**RESULTS, Headcount.KIND: Headcount})
    path = tmp_path / "toy.headcount.json"
    path.write_text(json.dumps(Headcount("toy", 12).to_dict()))
    return path


def test_a_result_without_a_provenance_record_says_so_in_the_provenance_chapter(headcount: Path) -> None:
    report = build_report(load_results([headcount]))
    chapter = [section for section in report.sections if section.title == f"{Headcount.KIND}: {headcount}"]
    assert len(chapter) == 1
    facts = dict(chapter[0].blocks[0].pairs)
    assert facts["provenance"] == "no provenance recorded" and facts["result file"] == str(headcount)
    page = " ".join(render_markdown(load_results([headcount])).split())
    assert "Headcount: toy" in page and "no provenance recorded" in page


def test_pfungst_report_renders_it_beside_a_result_with_one(headcount: Path, tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    summary = tmp_path / "items.summary.json"
    assert CliRunner().invoke(app, ["inspect", str(data), "--json", str(summary)]).exit_code == 0
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(headcount), str(summary), "--out", str(out)])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    page = out.read_text(encoding="utf-8")
    assert page.count("no provenance recorded") == 1 and "Headcount: toy" in page
    assert "items.jsonl" in page  # the summary's record, as before
