from __future__ import annotations

import json

from pfungst.audit import AuditConfig, audit
from pfungst.audit.result import AuditResult
from pfungst.data import Benchmark, Item
from pfungst.report.card import render_card


def _with_copies(n: int = 60) -> Benchmark:
    options = [(f"a{k}", f"b{k}", "c") for k in range(n)]
    items = [Item(f"q{k}", f"question number {k} about topic {k % 7}", options[k], k % 3) for k in range(n)]
    items.append(Item("copy", "Question number 3 about topic 3.", ("b3", "a3", "c"), 0))
    items.append(Item("twice", "which one?", ("Paris", "paris", "Rome"), 0))
    return Benchmark("copies", items)


def test_the_audit_saves_and_prints_the_item_findings() -> None:
    quick = AuditConfig(feature_sets=("options",), n_splits=2, n_repeats=1, n_bootstrap=50, n_refits=0, cues=False)
    result = audit(_with_copies(), quick)
    saved = json.loads(json.dumps(result.to_dict()))
    assert saved["schema_version"] == "pfungst.audit/3"
    assert saved["item_findings"]["findings"][0]["groups"] == [["q3", "copy"]]
    again = AuditResult.from_dict(saved)
    assert again.item_findings == result.item_findings
    line = result.summary_lines()[-1]
    assert line.startswith("Item findings (62 items): exact duplicates 2;")
    assert "keyed answer at two positions 1" in line
    assert "  - exact duplicates: 2 of 62 items in 1 group; ids: q3, copy" in render_card(result)
