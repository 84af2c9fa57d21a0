"""Time writing an audit's result file (``pfungst audit --json``, per-item records included) against writing the same
values with ``json.dumps(indent=2)``, every value on its own line, its records built by pandas, in one run.

An audit's file holds one record per item and probe (what ``pfungst reliance`` joins), so at scale it is mostly
records: at 100,000 items, 100,000 per probe. pfungst writes them with :func:`pfungst.serialization.frame_records`
(column by column) and its writer (below the top, a container of plain values on one line, by the C encoder);
the baseline builds the records with ``DataFrame.to_dict(orient="records")`` and writes with ``json.dumps(indent=2)``,
the pure-Python encoder that indentation makes ``json`` use. Both files must hold the same values.

The audit is the synthetic shared-label benchmark of ``audit_scaling.py`` with one feature set (word 1-gram
presence) and the default protocol: the result of a real audit, cheap to make. Per size it prints the CPU seconds
and megabytes of each way, the ratio, and whether the values are the same.

Run: .venv/bin/python benchmarks/result_writing.py [--sizes 100000] [--no-record]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_scaling import make_items  # noqa: E402
from results_file import add_record_option, recording  # noqa: E402

import pfungst  # noqa: E402
from pfungst.audit import AuditConfig  # noqa: E402
from pfungst.serialization import to_jsonable  # noqa: E402

TITLE = "Writing an audit's result file, against json.dumps(indent=2)"
FEATURE_SET = "1-grams_presence"


def baseline_text(result: object) -> str:
    """The same values as ``save_json(items=True)``: records by pandas, every value on its own line."""
    data = result.to_dict()
    for probe, entry in zip(result.probes, data["probes"], strict=True):
        frame = probe.to_frame()
        entry["items"] = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    data["heuristics"] = result.heuristics.to_dict(True) if result.heuristics else None
    return json.dumps(to_jsonable(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def measure(n_items: int, folder: Path) -> str:
    """One size's line: CPU seconds and megabytes of each way, the ratio, and whether the values agree."""
    result = pfungst.audit.audit(make_items(n_items), AuditConfig(feature_sets=(FEATURE_SET,)))
    started = time.process_time()
    ours = result.save_json(folder / "ours.json", items=True)
    ours_cpu = time.process_time() - started
    started = time.process_time()
    theirs = folder / "baseline.json"
    theirs.write_text(baseline_text(result), encoding="utf-8")
    theirs_cpu = time.process_time() - started
    same = json.loads(ours.read_text(encoding="utf-8")) == json.loads(theirs.read_text(encoding="utf-8"))
    ours_mb, theirs_mb = ours.stat().st_size / 1e6, theirs.stat().st_size / 1e6
    return (
        f"- {n_items:,} items, 1 probe ({FEATURE_SET}): save_json {ours_cpu:.2f} s CPU, {ours_mb:.1f} MB; "
        f"json.dumps(indent=2) with pandas records {theirs_cpu:.2f} s CPU, {theirs_mb:.1f} MB: "
        f"{theirs_cpu / ours_cpu:.1f}x faster, {ours_mb / theirs_mb:.2f} of the size; "
        f"the same values: {'yes' if same else 'NO'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000", help="Comma-separated item counts.")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("result_writing", TITLE, enabled=not args.no_record), tempfile.TemporaryDirectory() as folder:
        for size in (int(part) for part in args.sizes.split(",")):
            print(measure(size, Path(folder)), flush=True)


if __name__ == "__main__":
    main()
