"""Any result's blocks print on the console: tables with their notes, facts, texts, bars and code, markup-safe."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console

from pfungst.blocks import Code, Facts, Figure, Table, Text
from pfungst.report.console_blocks import render_blocks, render_to_console


def _printed(*blocks: object, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width)
    render_blocks(blocks, console)  # type: ignore[arg-type]
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_a_table_prints_its_caption_header_rows_and_methods_note() -> None:
    table = Table("Accuracy per slot", ("slot", "accuracy [CI]", "n"), (("A", "0.500 [0.2, 0.8]", "8"),), note="wilson")
    text = _printed(table)
    assert "Accuracy per slot:" in text
    assert re.search(r"slot\s+accuracy \[CI\]\s+n", text) and re.search(r"A\s+0\.500 \[0\.2, 0\.8\]\s+8", text)
    assert "(wilson)" in text


def test_facts_texts_and_code_print_as_lines() -> None:
    text = _printed(
        Facts((("items", "12"), ("seed", "0"))), Text("bias found", tone="bad"), Code('{"a": 1}', "settings")
    )
    assert text.splitlines() == ["  items: 12", "  seed: 0", "  bias found", "  settings", '{"a": 1}']


def test_bars_are_drawn_against_one_for_shares_and_intervals_are_left_to_the_tables() -> None:
    estimates = [{"value": 1.0, "ci": {"low": 0.5, "high": 1.0}}, {"value": 0.25, "ci": None}, None]
    bars = Figure("bars", "Recall per position", {"labels": ["1", "2", "3"], "estimates": estimates})
    text = _printed(bars, Figure("intervals", "Plain versus circular", {"labels": ["plain"], "estimates": []}))
    assert "Recall per position:" in text and "Plain versus circular" not in text
    assert re.search(r"1 █{20} 1\.000 \[0\.500, 1\.000\]", text)
    assert re.search(r"2 █{5}\s{15} 0\.250$", text, re.MULTILINE)
    assert re.search(r"3 \s{20} n/a$", text, re.MULTILINE)


def test_markup_in_any_block_is_printed_literally() -> None:
    text = _printed(
        Facts((("[bold]label", "[red]value"),)),
        Table("[b]caption", ("[i]column",), (("[u]cell",),)),
        Figure("bars", "[bold]title", {"labels": ["[x]"], "estimates": [{"value": 0.5}]}),
    )
    for shown in ("[bold]label: [red]value", "[b]caption", "[i]column", "[u]cell", "[bold]title", "[x]"):
        assert shown in text


def test_a_result_in_memory_prints_from_its_own_sections_not_through_the_file_loader(
    demo_objects: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pfungst.report.document as document
    import pfungst.report.loading as loading
    from pfungst.report.html import render_fragment

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an object in memory went through the file loader")

    for module in (loading, document):
        monkeypatch.setattr(module, "as_result", refuse)
    monkeypatch.setattr(loading, "_checked", refuse)
    console = Console(file=io.StringIO(), width=100)
    render_to_console(demo_objects["score"], console)
    assert "Accuracy" in console.file.getvalue()
    assert "Accuracy" in render_fragment(demo_objects["score"], plots=False)
