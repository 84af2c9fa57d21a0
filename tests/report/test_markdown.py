"""The Markdown report: the same figures as the page, as tables a CI log or a paper can take, inert text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pfungst.blocks import format_estimate
from pfungst.errors import ConfigError
from pfungst.report.document import build_report
from pfungst.report.loading import load_results
from pfungst.report.markdown import escape_markdown, render_markdown
from pfungst.report.output import write_report
from pfungst.report.plots import write_plots
from tests.report.conftest import PAYLOADS

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@pytest.fixture(scope="module")
def demo_markdown(demo_results: list[dict[str, Any]]) -> str:
    return render_markdown(demo_results)


def test_markdown_has_the_sections_and_the_figures_with_intervals(
    demo_results: list[dict[str, Any]], demo_markdown: str
) -> None:
    summary, audited, comparison, scored, joined = demo_results
    assert demo_markdown.startswith("# pfungst report: gold-position\n")
    for heading in ("## Overview", "### Verdict", "### Surface-feature probes", "### Rank stability", "## Provenance"):
        assert f"\n{heading}\n" in demo_markdown
    assert format_estimate(audited["verdict"]["estimate"]) in demo_markdown
    assert format_estimate(summary["majority"]) in demo_markdown
    assert format_estimate(scored["accuracy"]) in demo_markdown
    for probe in audited["probes"]:  # the verdict's statistic, named once in its column
        assert format_estimate(probe[audited["verdict"]["statistic"]]) in demo_markdown


def test_every_table_row_has_as_many_cells_as_its_header(payload_results: list[dict[str, Any]]) -> None:
    markdown = render_markdown(payload_results)
    lines = markdown.splitlines()
    tables = 0
    for number, line in enumerate(lines):
        if re.fullmatch(r"\|(---:?\|)+", line):
            tables += 1
            width = len(UNESCAPED_PIPE.findall(lines[number - 1]))
            for row in lines[number + 1 :]:
                if not row.startswith("| "):
                    break
                assert len(UNESCAPED_PIPE.findall(row)) == width, row
    assert tables > 20


def test_payloads_are_inert_text(payload_results: list[dict[str, Any]]) -> None:
    markdown = render_markdown(payload_results)
    for payload in PAYLOADS[:3]:
        assert payload not in markdown
    assert not re.search(r"<(script|img|svg)", markdown, re.IGNORECASE)
    assert "&lt;script&gt;window.\\_\\_pwned=1&lt;/script&gt;" in markdown
    assert not re.search(r"(?<!\\)\]\(javascript:", markdown)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.513 [0.413, 0.613] (98.3%)", "0.513 [0.413, 0.613] (98.3%)"),
        ("[click](javascript:alert(1))", "[click\\](javascript:alert(1))"),
        ("![x](y)", "\\![x\\](y)"),
        ("a | b", "a \\| b"),
        ("# not a heading", "\\# not a heading"),
        ("1. not a list", "\\1. not a list"),
        ("`code` and *stars*", "\\`code\\` and \\*stars\\*"),
        ("1-grams_tfidf_gpt2 and _emphasis_", "1-grams_tfidf_gpt2 and \\_emphasis\\_"),
        ("two\nlines", "two lines"),
    ],
)
def test_escape_markdown(text: str, expected: str) -> None:
    assert escape_markdown(text) == expected


def test_settings_fence_outlasts_backticks_in_the_data(demo_results: list[dict[str, Any]]) -> None:
    audited = dict(demo_results[1])
    record = audited["provenance"]
    audited["provenance"] = {**record, "settings": {**record["settings"], "note": "````\n# injected heading"}}
    markdown = render_markdown([audited])
    assert "`````json\n" in markdown
    assert "\n# injected heading" not in markdown.split("`````json")[0]


def test_figures_link_to_the_plot_files(demo_results: list[dict[str, Any]], tmp_path: Path) -> None:
    paths = write_plots(demo_results[:2], tmp_path / "plots", "png")
    assert len(paths) == len(build_report(demo_results[:2]).figures) >= 2
    for path in paths:
        assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    relative = [path.relative_to(tmp_path) for path in paths]
    markdown = render_markdown(demo_results[:2], figure_paths=relative)
    assert f"]({relative[0]})" in markdown
    assert markdown.count("![") == len(paths)


def test_plots_as_svg_and_an_unknown_format(demo_results: list[dict[str, Any]], tmp_path: Path) -> None:
    paths = write_plots(demo_results[:1], tmp_path, "svg")
    assert paths and paths[0].name.startswith("01-benchmark-gold-position-")
    assert paths[0].read_text().startswith("<?xml")
    with pytest.raises(ConfigError, match="cannot write plots as 'gif'; choose one of png, svg"):
        write_plots(demo_results[:1], tmp_path, "gif")


def test_plot_file_names_are_safe_whatever_the_titles(payload_results: list[dict[str, Any]], tmp_path: Path) -> None:
    paths = write_plots(payload_results[:1], tmp_path, "svg")
    assert all(re.fullmatch(r"\d\d-[a-z0-9-]+\.svg", path.name) for path in paths)


@pytest.mark.parametrize("suffix", [".html", ".md", ".json"])
def test_write_report_picks_the_format_from_the_suffix(written: list[Path], tmp_path: Path, suffix: str) -> None:
    paths = write_report(
        load_results(written[:2]), tmp_path / f"out/report{suffix}", plots=tmp_path / "out/plots", plot_format="svg"
    )
    report, figures = paths[0], paths[1:]
    assert report == tmp_path / f"out/report{suffix}" and figures
    text = report.read_text(encoding="utf-8")
    if suffix == ".html":
        assert text.startswith("<!DOCTYPE html>")
    elif suffix == ".md":
        assert f"](plots/{figures[0].name})" in text
    else:
        assert json.loads(text)["schema_version"] == "pfungst.report/1"


def test_write_report_refuses_an_unknown_suffix(written: list[Path], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"report\.pdf: the suffix '\.pdf' is not one of \.html, \.md, \.json"):
        write_report(load_results(written), tmp_path / "report.pdf")
