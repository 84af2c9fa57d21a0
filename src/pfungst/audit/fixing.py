"""``fix``: write mitigated copies of a benchmark (counterbalanced, AFLite-filtered) and audit them again.

Each copy is audited with the same settings as the benchmark, and its residual verdict is part of the result: a copy
that is still predictable says so (console, the fix's JSON, the card), and a ``--fail-on`` gate applies to it as to
the benchmark (:meth:`FixResult.audits`), so that a mitigation is never taken on trust.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.audit.mitigate import AFLiteConfig, FilterResult, counterbalance, filter_predictable
from pfungst.audit.result import AuditResult
from pfungst.audit.run import AuditConfig, Progress, audit
from pfungst.data.benchmark import Benchmark
from pfungst.path_checks import check_outputs
from pfungst.serialization import write_csv, write_json

__all__ = ["FixResult", "fix"]

_WRITTEN = {"counterbalanced": "jsonl", "filtered": "jsonl", "predictability": "csv", "fix": "json"}
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
    """Files written: ``counterbalanced``, ``filtered``, ``predictability`` and ``fix`` (this result as JSON)."""

    @property
    def audits(self) -> tuple[tuple[str, AuditResult], ...]:
        """Each mitigated copy's audit, by kind (``counterbalanced`` only for per-item choices)."""
        pairs = (("counterbalanced", self.counterbalanced_audit), ("filtered", self.filtered_audit))
        return tuple((kind, result) for kind, result in pairs if result is not None)

    @property
    def still_predictable(self) -> tuple[str, ...]:
        """The kinds of copy whose residual verdict is still "predictable"."""
        return tuple(kind for kind, result in self.audits if result.verdict.label == "predictable")

    def residual_lines(self) -> tuple[str, ...]:
        """One sentence per copy: its residual verdict, and whether the mitigation removed the cue."""
        said = {
            "predictable": "STILL PREDICTABLE, the mitigation did not remove the cue",
            "inconclusive": "INCONCLUSIVE, the cue may remain (too few items to rule it out)",
            "no evidence": "no evidence of a cue left",
        }
        lines = []
        for kind, result in self.audits:
            headline = result.headline
            lines.append(f"{kind} copy ({headline.estimate.n} items): {said[headline.certainty]}: {headline.sentence}")
        return tuple(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paths": self.paths,
            "residual": {
                kind: {"label": result.verdict.label, "still_predictable": result.verdict.label == "predictable"}
                | {"headline": result.headline.sentence, "estimate": result.verdict.estimate.to_dict()}
                for kind, result in self.audits
            },
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
    """Write a counterbalanced and a filtered copy of ``benchmark`` to ``out_dir``, audit both with ``config`` (the
    same settings as the benchmark's audit), and write the result, residual verdicts included, as JSON.

    Raises:
        ConfigError: a file it would write is the benchmark's own file, or cannot be written (checked first).
    """
    out = Path(out_dir)
    targets = {kind: out / f"{benchmark.name}.{kind}.{suffix}" for kind, suffix in _WRITTEN.items()}
    check_outputs([benchmark.provenance.source], {f"fix ({kind})": path for kind, path in targets.items()})
    config = config or AuditConfig()
    aflite = aflite or AFLiteConfig(seed=config.seed)
    paths: dict[str, str] = {}
    balanced = balanced_audit = None
    if benchmark.option_kind.has_positions:
        balanced = counterbalance(benchmark, seed=config.seed)
        paths["counterbalanced"] = str(balanced.save(targets["counterbalanced"]))
        balanced_audit = audit(balanced.with_name(f"{benchmark.name} (counterbalanced)"), config, progress=progress)
    filtered = filter_predictable(benchmark, config=aflite)
    paths["filtered"] = str(filtered.benchmark.save(targets["filtered"]))
    paths["predictability"] = str(write_csv(targets["predictability"], filtered.to_frame()))
    filtered_audit = audit(filtered.benchmark.with_name(f"{benchmark.name} (filtered)"), config, progress=progress)
    paths["fix"] = str(targets["fix"])
    result = FixResult(balanced, balanced_audit, filtered, filtered_audit, paths)
    write_json(targets["fix"], result.to_dict())
    return result
