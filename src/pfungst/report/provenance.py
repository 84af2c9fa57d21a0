"""The provenance chapter: for every input, its file and hash, the data file behind it, seeds, versions, settings."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pfungst.blocks import Block, Code, Facts, Section, format_number
from pfungst.report.loading import LoadedResult

__all__ = ["provenance_sections"]


def provenance_sections(loaded: list[LoadedResult]) -> list[Section]:
    """A chapter with one section per input (and per record inside one: each stress run of a comparison)."""
    sections = [Section("Provenance", ())]
    for result in loaded:
        pairs = [
            ("result file", result.source),
            ("result sha256", result.sha256 or "n/a (passed in Python)"),
            ("schema", result.schema_version),
        ]
        sections.append(_section(f"{result.kind}: {result.source}", _record(result.data), pairs))
        for label, record in result.data.overview().records:
            title = f"{result.source}: {label}"
            sections.append(_section(title, record, [("model", str(record.get("model")))]))
    return sections


def _record(data: Any) -> Mapping[str, Any]:
    """The provenance fields of a result: benchmark, environment, settings, seed, rank stability."""
    fields = ("benchmark", "environment", "settings", "seed", "rank_stability")
    found = {name: getattr(data, name, None) for name in fields}
    return {name: _plain(value) for name, value in found.items() if value is not None}


def _plain(value: Any) -> Any:
    """A part with ``to_dict()`` (a rank stability) as its dict."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def _section(title: str, data: Mapping[str, Any], pairs: list[tuple[str, str]]) -> Section:
    benchmark = data.get("benchmark")
    provenance = (benchmark.get("provenance") if isinstance(benchmark, Mapping) else None) or {}
    if provenance:
        pairs += [
            ("data file", str(provenance.get("source", "?"))),
            ("data sha256", str(provenance.get("sha256", "?"))),
            ("data format", str(provenance.get("format", "?"))),
            (
                "rows",
                f"{format_number(provenance.get('rows_read'))} read, "
                f"{format_number(provenance.get('rows_kept'))} kept, "
                f"{format_number(provenance.get('rows_rejected'))} rejected",
            ),
            (
                "duplicates",
                f"{format_number(provenance.get('duplicate_texts'))} texts "
                f"({format_number(provenance.get('conflicting_duplicates'))} conflicting), "
                f"{format_number(provenance.get('duplicate_ids'))} ids",
            ),
        ]
        if provenance.get("steps"):
            pairs.append(("steps", ", ".join(str(step) for step in provenance["steps"])))
    seeds = _seeds(data)
    if seeds:
        pairs.append(("seeds", seeds))
    environment = data.get("environment") or {}
    for key in ("git_revision", "python", "platform", "created"):
        if environment.get(key):
            pairs.append((key.replace("_", " "), str(environment[key])))
    packages = environment.get("packages")
    if isinstance(packages, Mapping) and packages:
        pairs.append(("packages", ", ".join(f"{name} {version}" for name, version in packages.items())))
    blocks: list[Block] = [Facts(tuple(pairs))]
    settings = data.get("settings") or data.get("config")
    if settings:
        blocks.append(Code(json.dumps(settings, indent=2, ensure_ascii=False, default=str), caption="settings"))
    return Section(title, tuple(blocks), level=3)


def _seeds(data: Mapping[str, Any]) -> str:
    settings, ranks = data.get("settings"), data.get("rank_stability")
    found = {
        "seed": data.get("seed"),
        "settings.seed": settings.get("seed") if isinstance(settings, Mapping) else None,
        "rank_stability.seed": ranks.get("seed") if isinstance(ranks, Mapping) else None,
    }
    return ", ".join(f"{key} {value}" for key, value in found.items() if value is not None)
