"""The HTML report: one self-contained page with every figure and its interval, inert whatever the results hold."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import markupsafe
import pytest

from pfungst.blocks import format_estimate
from pfungst.errors import ConfigError, ReaderError
from pfungst.report.document import build_report
from pfungst.report.html import render_html, write_html
from pfungst.report.loading import load_result, load_results
from tests.report.conftest import PAYLOADS


def test_page_shows_each_part_of_the_audit_and_the_stress_run(demo_page: str) -> None:
    for heading in (
        "Overview",
        "Benchmark: gold-position",
        "Gold answers",
        "Verdict",
        "Surface-feature probes",
        "Heuristic baselines",
        "Cue words",
        "Model stress: prefers-A on gold-position",
        "Selection bias (letter, identity, by position)",
        "Circular versus plain",
        "PriDe debiasing",
        "Format spread",
        "Format spread search",
        "Instruction paraphrases",
        "Gold answer moved to each slot",
        "Rank stability",
        "Model score",
        "Reliance on shortcuts",
        "Families of models",
        "Provenance",
    ):
        assert f">{heading}" in demo_page, heading


def test_every_headline_figure_is_printed_with_its_interval(demo_results: list[dict[str, Any]], demo_page: str) -> None:
    summary, audited, comparison, scored, joined = demo_results
    statistic = audited["verdict"]["statistic"]  # each probe's row shows the verdict's statistic, named once
    for probe in audited["probes"]:
        assert format_estimate(probe[statistic]) in demo_page
        assert re.search(r"\[-?\d\.\d{3}, -?\d\.\d{3}\]", format_estimate(probe[statistic]))
    assert format_estimate(audited["verdict"]["estimate"]) in demo_page
    assert format_estimate(summary["majority"]) in demo_page
    assert format_estimate(scored["accuracy"]) in demo_page
    for entry in comparison["results"][0]["accuracies"]:
        assert format_estimate(entry["accuracy"]) in demo_page
    for rank in comparison["rank_stability"]["ranks"]:
        assert format_estimate(rank["accuracy"]) in demo_page
    for pair in joined["models"]:
        for key in ("accuracy_solvable", "accuracy_rest", "difference", "difference_within_label"):
            assert format_estimate(pair[key]) in demo_page
    for family in joined["families"]:
        assert format_estimate(family["test"]) in demo_page


def test_provenance_names_data_hash_seeds_versions_and_revision(
    demo_results: list[dict[str, Any]], demo_page: str
) -> None:
    record = demo_results[1]["provenance"]
    assert record["data"][0]["sha256"] in demo_page
    assert f"<dt>seed</dt><dd>{record['seed']}</dd>" in demo_page
    rows = record["data"][0]
    assert f"<dt>rows</dt><dd>{rows['rows_read']} read, {rows['rows_kept']} kept, 0 rejected</dd>" in demo_page
    assert f"numpy {record['environment']['packages']['numpy']}" in demo_page
    if record["environment"].get("git_revision"):
        assert record["environment"]["git_revision"] in demo_page


def test_page_loads_nothing_and_forbids_scripts(demo_results: list[dict[str, Any]], demo_page: str) -> None:
    assert (
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'"
    ) in demo_page
    assert not re.search(
        r"<script|<link|<iframe|@import|(?:src|href)=\"(?!#|data:image/svg\+xml;base64,)", demo_page, re.IGNORECASE
    )
    figures = build_report(demo_results).figures
    assert len(figures) >= 10
    assert demo_page.count('<img src="data:image/svg+xml;base64,') == demo_page.count("<img ") == len(figures)


def test_payloads_appear_only_escaped(payload_page: str) -> None:
    for payload in PAYLOADS[:3]:
        assert payload not in payload_page
        assert str(markupsafe.escape(payload)) in payload_page
    assert not re.search(r"<script|<svg|<img(?! src=\"data:image/svg\+xml;base64,)", payload_page, re.IGNORECASE)
    # a column name is a cell's data-label (a quoted attribute value, its quotes escaped): a handler could only run
    # as an attribute of its own, outside every quoted value
    unquoted = re.sub(r'"[^"]*"', '""', payload_page)
    assert "&lt;img src=x onerror=" in payload_page and not re.search(r"<[^>]*\son\w+\s*=", unquoted, re.IGNORECASE)
    assert not re.search(r"(?:href|src)\s*=\s*[\"']?\s*javascript:", payload_page, re.IGNORECASE)


def test_plots_of_payload_labels_hold_no_markup(payload_results: list[dict[str, Any]], payload_page: str) -> None:
    images = re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", payload_page)
    assert len(images) == len(build_report(payload_results).figures) > 10
    for encoded in images:
        svg = base64.b64decode(encoded).decode("utf-8")
        assert svg.startswith("<svg")
        assert not re.search(r"<script|<img|<svg|<foreignObject|<[^>]*\son\w+\s*=", svg[4:], re.IGNORECASE)
    assert "window.__pwned" in "".join(base64.b64decode(encoded).decode("utf-8") for encoded in images)


def test_result_objects_render_like_their_json(demo_objects: dict[str, Any]) -> None:
    objects = [
        demo_objects["summary"],
        demo_objects["audit"],
        *demo_objects["stress"],
        demo_objects["ranks"],
        demo_objects["reliance"],
    ]
    page = render_html(objects, plots=False)
    assert format_estimate(demo_objects["audit"].verdict.estimate.to_dict()) in page
    assert page.count(">Model stress: scripted on gold-position</h2>") == 2
    assert ">Rank stability<" in page and ">Families of models<" in page
    assert (
        '<td data-label="file">gold-position (summary)</td>' in page
    )  # an object is named by its benchmark, not its class


def test_an_object_that_is_no_result_is_a_user_error() -> None:
    with pytest.raises(ConfigError, match=r"cannot report on <int>: expected a result object with to_dict\(\)"):
        render_html([3])


def test_title_is_escaped() -> None:
    page = render_html([_summary()], title="<b>mine</b>", plots=False)
    assert "<title>&lt;b&gt;mine&lt;/b&gt;</title>" in page


def test_write_html_renders_the_files_a_run_wrote(written: list[Path], tmp_path: Path) -> None:
    path = write_html(load_results(written), tmp_path / "out" / "report.html", plots=False)
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    for source in written:
        assert str(source) in page
    assert "n/a (passed in Python)" not in page  # files carry their own sha256


def test_a_summary_file_is_read_by_its_kind_and_hashed(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(_summary()))
    loaded = load_result(path)
    assert (loaded.kind, loaded.schema_version) == ("summary", "pfungst.summary/2")
    assert len(loaded.sha256) == 64


def test_a_result_without_schema_version_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({key: value for key, value in _summary().items() if key != "schema_version"}))
    with pytest.raises(ConfigError, match=r"summary\.json: no 'schema_version' and not a known result"):
        load_result(path)


def test_unknown_schema_names_the_file_and_the_versions_known(tmp_path: Path) -> None:
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"schema_version": "pfungst.audit/9"}))
    with pytest.raises(
        ConfigError,
        match=r"future\.json: unknown schema_version 'pfungst\.audit/9'\. Known: "
        r"pfungst\.audit/\d+, .*pfungst\.stress/\d+",
    ):
        load_result(path)


def test_file_that_is_not_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n"schema_version": "pfungst.audit/3",\n oops\n}')
    with pytest.raises(ReaderError, match=r"broken\.json:3: not valid JSON"):
        load_result(path)


def test_result_missing_a_key_names_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps({"schema_version": "pfungst.audit/3", "benchmark": {}}))
    with pytest.raises(ReaderError, match=r"audit\.json: field 'verdict': missing"):
        load_result(path)


def test_missing_file_and_no_files_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read result file .*absent\.json"):
        load_result(tmp_path / "absent.json")
    with pytest.raises(ConfigError, match="no result files given"):
        load_results([])


def test_report_as_json_is_serialisable_and_holds_the_tables(demo_results: list[dict[str, Any]]) -> None:
    data = json.loads(json.dumps(build_report(demo_results).to_dict()))
    assert data["schema_version"] == "pfungst.report/1"
    kinds = {block["kind"] for section in data["sections"] for block in section["blocks"]}
    assert {"table", "facts", "figure", "text", "code"} <= kinds


def _summary() -> dict[str, Any]:
    """A small benchmark's summary as ``pfungst inspect --json`` writes it (gold A in 3 of 4 items)."""
    from pfungst.data import Benchmark, Item
    from pfungst.data.summary import summarize

    items = [Item(str(i), f"question {i}", ("x", "y"), int(i == 3)) for i in range(4)]
    return summarize(Benchmark("toy", items)).to_dict()
