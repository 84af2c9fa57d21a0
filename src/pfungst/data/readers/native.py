"""pfungst's own JSON lines: one :meth:`Item.to_dict` per line, as written by :meth:`Benchmark.save`.

Shared-label benchmarks also carry ``label_set`` on each line, so a saved benchmark reads back as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl

__all__ = ["NativeReader"]

_KEYS = {"id", "text", "options", "gold"}


class NativeReader:
    """Benchmarks saved by pfungst (``Benchmark.save``) and hand-written files in the same shape."""

    name = "pfungst"
    description = "pfungst native JSON lines {id, text, options, gold, fields, metadata}"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        return record is not None and set(record) >= _KEYS

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        records = list(iter_jsonl(path))
        label_set = next((r.raw.get("label_set") for r in records if r.error is None and r.raw.get("label_set")), None)
        builder = BenchmarkBuilder(path, self.name, options, labels=label_set)
        for record in records:
            with builder.row(record.line):
                _add(builder, record.line, record.data(), shared=label_set is not None)
        return builder.build(path.stem)


def _add(builder: BenchmarkBuilder, line: int, data: dict[str, Any], shared: bool) -> None:
    for key in ("text", "options", "gold"):
        if key not in data:
            raise builder.error(line, key, f"missing field '{key}'")
    options, gold = data["options"], data["gold"]
    if not isinstance(options, list):
        raise builder.error(line, "options", f"expected a list, found {type(options).__name__}")
    if not isinstance(gold, int) or isinstance(gold, bool):
        raise builder.error(line, "gold", f"expected an integer index, found {gold!r}")
    if shared:
        if not 0 <= gold < len(options):
            raise builder.error(line, "gold", f"gold index {gold} is out of range for {len(options)} labels")
        gold_value: int | str = builder.text(line, f"options[{gold}]", options[gold])
        options = []
    else:
        gold_value = gold
    builder.add(
        line=line,
        id=str(data.get("id", "")),
        text=data["text"],
        options=[builder.text(line, f"options[{i}]", option) for i, option in enumerate(options)],
        gold=gold_value,
        fields=data.get("fields") or {},
        metadata=data.get("metadata") or {},
    )
