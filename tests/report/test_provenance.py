"""One provenance record in every result (issue 38): written and read through the schema, named by field path when
wrong, naming the inputs of a derived result by hash, rendered as the report's provenance chapter."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import pfungst
from pfungst.audit.position_content import split
from pfungst.audit.suite import SuiteEntry, SuiteResult
from pfungst.blocks import Facts, Table
from pfungst.errors import ReaderError
from pfungst.provenance import Provenance, ResultReference
from pfungst.reliance import ModelOutcomes, reliance
from pfungst.reliance.choices_only import ChoicesOnlyComparison, choices_only_comparisons
from pfungst.reliance.outcomes import ItemAnswer
from pfungst.reliance.validity import ValidityConfig, validity
from pfungst.report.document import build_report
from pfungst.report.loading import load_results
from pfungst.results import RESULTS, derive, is_top_level, result_class
from pfungst.stress.comparison import StressComparison

TOP_LEVEL = sorted(kind for kind in RESULTS if not RESULTS.is_plugin(kind) and is_top_level(result_class(kind)))
"""Every result kind a file can hold on its own."""


def _suite(audited: Any) -> SuiteResult:
    parts = split(audited)
    entry = SuiteEntry.from_result(
        audited, parts.content, parts.position, name="toy", source="toy.jsonl", sha256="ab", key="k",
        audit_json="benchmarks/toy.audit.json", seconds=0.5,
    )  # fmt: skip
    reference = ResultReference("audit", "benchmarks/toy.audit.json", "cd", audited.SCHEMA_VERSION)
    record = Provenance.current({"alpha": 0.05}, 0, derived_from=(reference,))
    return SuiteResult.build([entry], [], record, n_reused=0, seconds=0.5)


def _validity() -> Any:
    def model(name: str) -> ModelOutcomes:
        chosen = {f"q{i}": ItemAnswer("yes", "no" if i == 0 else "yes") for i in range(10)}
        correct = {key: answer.chosen == answer.gold for key, answer in chosen.items()}
        return ModelOutcomes(name, "toy", correct, f"{name}.csv", "csv", answers=chosen)

    return validity([model(f"m{n}") for n in range(6)], ValidityConfig(irt=False))


@pytest.fixture(scope="module")
def every_kind(demo_objects: dict[str, Any]) -> dict[str, Any]:
    """One result of each top-level kind."""
    stressed = demo_objects["stress"]
    return {
        "summary": demo_objects["summary"],
        "audit": demo_objects["audit"],
        "suite": _suite(demo_objects["audit"]),
        "score": demo_objects["score"],
        "stress": stressed[0],
        "stress-comparison": StressComparison(tuple(stressed), demo_objects["ranks"]),
        "rank-stability": demo_objects["ranks"],
        "reliance": demo_objects["reliance"],
        "validity": _validity(),
    }


def _json(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


def test_every_top_level_kind_is_covered(every_kind: dict[str, Any]) -> None:
    assert sorted(every_kind) == TOP_LEVEL


@pytest.mark.parametrize("kind", TOP_LEVEL)
def test_provenance_survives_to_dict_and_from_dict(every_kind: dict[str, Any], kind: str) -> None:
    result = every_kind[kind]
    assert isinstance(result.provenance, Provenance)
    assert result.provenance.environment.packages["pfungst"] == pfungst.__version__
    read = result_class(kind).from_dict(_json(result.to_dict()), f"{kind}.json")
    assert read.provenance == result.provenance
    assert read.to_dict() == _json(result.to_dict())


def test_results_made_from_data_name_the_data_file_and_results_made_from_results_name_them(
    every_kind: dict[str, Any],
) -> None:
    for kind in ("summary", "audit", "score", "stress"):
        (source,) = every_kind[kind].provenance.data
        assert source.format == "synthetic" and source.rows_kept == 96, kind
    assert every_kind["audit"].provenance.seed == every_kind["audit"].provenance.settings["seed"]
    assert every_kind["summary"].provenance.seed is None  # a summary draws nothing at random
    compared = every_kind["rank-stability"].provenance.derived_from
    assert [reference.kind for reference in compared] == ["stress", "stress"]
    assert all(len(reference.sha256) == 64 for reference in compared)
    screened = every_kind["validity"].provenance.derived_from
    assert [(reference.kind, reference.source) for reference in screened][:2] == [("csv", "m0.csv"), ("csv", "m1.csv")]


def test_a_wrong_value_in_the_record_is_named_by_file_and_field_path(demo_objects: dict[str, Any]) -> None:
    written = _json(demo_objects["audit"].to_dict())
    cases = [
        (("data", 0, "rows_read"), "12", r"audit\.json: field 'provenance\.data\[0\]\.rows_read': expected a whole"),
        (("data", 0, "rows_kept"), -1, r"field 'provenance\.data\[0\]\.rows_kept': a count cannot be negative"),
        (("environment", "packages", "numpy"), 2, r"field 'provenance\.environment\.packages\.numpy': expected a str"),
        (("seed",), "zero", r"field 'provenance\.seed': expected a whole number, found 'zero'"),
        (("derived_from",), [{"kind": "audit"}], r"field 'provenance\.derived_from\[0\]\.source': missing"),
    ]
    for path, value, message in cases:
        changed = copy.deepcopy(written)
        holder = changed["provenance"]
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
        with pytest.raises(ReaderError, match=message):
            pfungst.AuditResult.from_dict(changed, "audit.json")


def test_a_rejected_row_count_that_disagrees_with_the_rows_listed_is_refused(demo_objects: dict[str, Any]) -> None:
    written = _json(demo_objects["audit"].to_dict())
    written["provenance"]["data"][0]["rows_rejected"] = 3
    with pytest.raises(ReaderError, match=r"'provenance\.data\[0\]\.rows_rejected': 3 disagrees with 0"):
        pfungst.AuditResult.from_dict(written, "audit.json")


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data, default=str), encoding="utf-8")
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_derived_pairing_names_the_files_it_paired_by_hash(demo_objects: dict[str, Any], tmp_path: Path) -> None:
    audit_file = _write(tmp_path / "toy.audit.json", demo_objects["audit"].to_dict(items=True))
    stress_file = _write(tmp_path / "toy.stress.json", demo_objects["stress"][0].to_dict())
    loaded = load_results([audit_file, stress_file])
    (pairing,) = derive([result.data for result in loaded], [result.reference for result in loaded])
    assert isinstance(pairing, ChoicesOnlyComparison)
    named = [(reference.kind, reference.source, reference.sha256) for reference in pairing.provenance.derived_from]
    assert named == [
        ("audit", str(audit_file), _sha256(audit_file)),
        ("stress", str(stress_file), _sha256(stress_file)),
    ]
    audited, stressed = demo_objects["audit"].provenance.data, demo_objects["stress"][0].provenance.data
    assert pairing.provenance.data == (*audited, *stressed)  # the stress run's sample is a step of its own
    assert ChoicesOnlyComparison.from_dict(_json(pairing.to_dict())).provenance == pairing.provenance


def test_a_pairing_of_objects_names_them_by_their_content_hash(demo_objects: dict[str, Any]) -> None:
    (pairing,) = choices_only_comparisons([demo_objects["audit"], demo_objects["stress"][0]])
    first, second = pairing.provenance.derived_from
    assert (first.source, second.kind) == ("<audit: gold-position>", "stress")
    assert first == ResultReference.of(demo_objects["audit"]) and len(first.sha256) == 64


def test_reliance_names_the_audit_file_and_the_outcome_file_it_joined(
    demo_objects: dict[str, Any], tmp_path: Path
) -> None:
    audit_file = _write(tmp_path / "toy.audit.json", demo_objects["audit"].to_dict(items=True))
    outcome_file = tmp_path / "answers.csv"
    outcome_file.write_text("item_id,correct\n", encoding="utf-8")
    stressed = demo_objects["stress"][0]
    correct = {o.item_id: o.correct for o in stressed.outcomes if o.perturbation == "identity"}
    outcomes = [ModelOutcomes("m", "gold-position", correct, str(outcome_file), "csv")]
    references = reliance([audit_file], outcomes).provenance.derived_from
    assert [(r.kind, r.source, r.sha256, r.schema_version) for r in references] == [
        ("audit", str(audit_file), _sha256(audit_file), pfungst.AuditResult.SCHEMA_VERSION),
        ("csv", str(outcome_file), _sha256(outcome_file), ""),
    ]


def test_the_provenance_chapter_shows_the_data_file_hash_and_row_counts(tmp_path: Path) -> None:
    data = tmp_path / "toy.jsonl"
    rows = [{"id": str(i), "text": f"q{i}", "options": ["x", "y"], "gold": i % 2} for i in range(6)]
    data.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    summary = pfungst.summarize(pfungst.load(data))
    summary_file = _write(tmp_path / "toy.summary.json", summary.to_dict())
    report = build_report(load_results([summary_file]))
    chapter = report.sections[[section.title for section in report.sections].index("Provenance") + 1]
    facts = dict(next(block for block in chapter.blocks if isinstance(block, Facts)).pairs)
    assert facts["data file"] == str(data) and facts["data sha256"] == _sha256(data)
    assert facts["rows"] == "6 read, 6 kept, 0 rejected"
    assert facts["result sha256"] == _sha256(summary_file)
    assert facts["seed"] == "none (nothing drawn at random)"
    assert not any(isinstance(block, Table) for block in chapter.blocks)  # derived from nothing


def test_a_derived_result_has_its_own_section_in_the_provenance_chapter(demo_objects: dict[str, Any]) -> None:
    report = build_report([demo_objects["audit"], demo_objects["stress"][0]])
    titles = [section.title for section in report.sections]
    derived = report.sections[titles.index("Choices-only: classifier vs model on gold-position (derived)")]
    table = next(block for block in derived.blocks if isinstance(block, Table))
    assert [row[0] for row in table.rows] == ["audit", "stress"]
