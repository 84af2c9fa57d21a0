"""``run_demo``: the built-in job. Generate the planted-artifact benchmarks, save them, summarise and audit each.

Every synthetic benchmark has a known answer: the audit must flag the three with planted artifacts and find no
evidence in the control. Later stages (a model stress run, the HTML report) join here as they land.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.audit.result import AuditResult
from pfungst.audit.run import AuditConfig, audit
from pfungst.data.loading import load
from pfungst.data.summary import BenchmarkSummary, summarize
from pfungst.data.synthetic import SYNTHETIC, make_synthetic

__all__ = ["DEMO_FIELDS", "DemoResult", "run_demo"]

DEMO_FIELDS: dict[str, tuple[str, ...]] = {"cue-word": ("hypothesis",)}
"""Partial-input settings per demo benchmark: the cue-word artifact sits in the hypothesis."""


@dataclass(frozen=True, eq=False)
class DemoResult:
    """Per demo benchmark: where it was written, its summary and its audit."""

    paths: dict[str, Path]
    summaries: dict[str, BenchmarkSummary]
    audits: dict[str, AuditResult]
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "benchmarks": {
                name: {"path": str(self.paths[name]), "planted": SYNTHETIC[name].planted,
                       "summary": self.summaries[name].to_dict(), "audit": self.audits[name].to_dict()}
                for name in self.paths
            },
        }


def run_demo(out_dir: str | Path = "pfungst-demo", *, seed: int = 0, n_items: int = 400,
             config: AuditConfig | None = None,
             progress: Callable[[str, int, int], None] | None = None) -> DemoResult:
    """Write each synthetic benchmark to ``out_dir`` as pfungst JSONL, read it back, summarise and audit it.

    The audit JSON of each goes beside it (``<name>.audit.json``).
    """
    out = Path(out_dir)
    config = config or AuditConfig(seed=seed)
    paths, summaries, audits = {}, {}, {}
    for name in SYNTHETIC:
        paths[name] = make_synthetic(name, n_items=n_items, seed=seed).save(out / f"{name}.jsonl")
        benchmark = load(paths[name])  # through the reader, as a user's file would go
        summaries[name] = summarize(benchmark)
        audits[name] = audit(benchmark, config, fields=DEMO_FIELDS.get(name, ()), progress=progress)
        audits[name].save_json(out / f"{name}.audit.json", items=True)
    return DemoResult(paths, summaries, audits, seed)
