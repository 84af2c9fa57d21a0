"""``fix``: write mitigated copies of a benchmark (counterbalanced, AFLite-filtered) and audit them again."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pfungst.audit.mitigate import AFLiteConfig, FilterResult, counterbalance, filter_predictable
from pfungst.audit.result import AuditResult
from pfungst.audit.run import AuditConfig, Progress, audit
from pfungst.data.benchmark import Benchmark
from pfungst.path_checks import check_outputs
from pfungst.serialization import write_csv

__all__ = ["FixResult", "fix"]

_WRITTEN = {"counterbalanced": "jsonl", "filtered": "jsonl", "predictability": "csv"}
"""The files :func:`fix` writes, ``<benchmark>.<kind>.<suffix>`` in its folder."""


@dataclass(frozen=True, eq=False)
class FixResult:
    """The mitigated copies, where they were written, and their audits."""

    counterbalanced: Benchmark | None
    """Gold positions rotated to uniform (per-item choices only; None for shared-label tasks)."""
    counterbalanced_audit: AuditResult | None
    filtered: FilterResult
    """AFLite: the items surface-feature probes do not solve, and each item's predictability."""
    filtered_audit: AuditResult
    paths: dict[str, str]
    """Files written: ``counterbalanced``, ``filtered``, ``predictability``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "paths": self.paths,
            "counterbalanced": self.counterbalanced_audit.to_dict() if self.counterbalanced_audit else None,
            "filtered": {"filter": self.filtered.to_dict(), "audit": self.filtered_audit.to_dict()},
        }


def fix(
    benchmark: Benchmark,
    out_dir: str | Path,
    config: AuditConfig | None = None,
    *,
    aflite: AFLiteConfig | None = None,
    progress: Progress | None = None,
) -> FixResult:
    """Write a counterbalanced and a filtered copy of ``benchmark`` to ``out_dir`` and audit both with ``config``.

    The heuristics and cue tables are skipped in the re-audits (the probe table and verdict are what change).

    Raises:
        ConfigError: a file it would write is the benchmark's own file, or cannot be written (checked first).
    """
    out = Path(out_dir)
    targets = {kind: out / f"{benchmark.name}.{kind}.{suffix}" for kind, suffix in _WRITTEN.items()}
    check_outputs([benchmark.provenance.source], {f"fix ({kind})": path for kind, path in targets.items()})
    config = replace(config or AuditConfig(), heuristics=False, cues=False)
    aflite = aflite or AFLiteConfig(seed=config.seed)
    paths: dict[str, str] = {}
    balanced = balanced_audit = None
    if benchmark.option_kind == "per_item":
        balanced = counterbalance(benchmark, seed=config.seed)
        paths["counterbalanced"] = str(balanced.save(targets["counterbalanced"]))
        balanced_audit = audit(balanced.with_name(f"{benchmark.name} (counterbalanced)"), config, progress=progress)
    filtered = filter_predictable(benchmark, config=aflite)
    paths["filtered"] = str(filtered.benchmark.save(targets["filtered"]))
    paths["predictability"] = str(write_csv(targets["predictability"], filtered.to_frame()))
    filtered_audit = audit(filtered.benchmark.with_name(f"{benchmark.name} (filtered)"), config, progress=progress)
    return FixResult(balanced, balanced_audit, filtered, filtered_audit, paths)
