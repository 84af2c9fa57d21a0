"""ARCT, the Argument Reasoning Comprehension Task (Habernal et al. 2018), and Niven & Kao's adversarial sets.

Tab-separated files with a header ``#id warrant0 warrant1 correctLabelW0orW1 reason claim debateTitle debateInfo``
(the adversarial ``*-adv-negated.tsv`` files add ``adversarial`` and order the columns differently; columns are
found by name). Each row is a two-option item: the options are the two warrants, verbatim and in file order, since
the audit looks for cues such as "not" in them; the gold is ``correctLabelW0orW1`` (0 or 1).

The text a model sees is the argument without its warrant::

    Reason: {reason}
    Claim: {claim}

``fields`` hold ``reason``, ``claim``, ``debate_title`` and ``debate_info``; ``metadata`` holds ``adversarial``
(a bool) where the file has that column. Item ids are the source's ``#id``. Many arguments share a reason and
claim (with different warrants), so ``provenance.duplicate_texts`` is large by design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.answers import AnswerError, resolve_answer
from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import head_lines
from pfungst.data.records import iter_csv

__all__ = ["ArctReader"]

_REQUIRED = ("#id", "warrant0", "warrant1", "correctLabelW0orW1", "reason", "claim")
_DEBATE = {"debateTitle": "debate_title", "debateInfo": "debate_info"}


class ArctReader:
    """ARCT train / dev / test TSV files and the adversarial negated dev / test sets."""

    name = "arct"
    description = "Argument Reasoning Comprehension Task TSV (#id, warrant0, warrant1, correctLabelW0orW1, ...)"

    def sniff(self, path: Path) -> bool:
        lines = head_lines(path, 1)
        return bool(lines) and set(_REQUIRED) <= {column.strip() for column in lines[0].split("\t")}

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read one ARCT TSV file; raises :class:`~pfungst.errors.ReaderError` naming file, line and column."""
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options)
        builder.add_records(iter_csv(path, delimiter="\t"), _add_row)
        return builder.build(f"arct-{path.stem}")


def _add_row(builder: BenchmarkBuilder, line: int, row: dict[str, str]) -> None:
    for column in _REQUIRED:
        if column not in row:
            raise builder.error(
                line,
                column,
                f"no column '{column}' in the file (columns: {', '.join(row)})",
                "ARCT files have #id, warrant0, warrant1, correctLabelW0orW1, reason, claim",
            )
    for column in ("warrant0", "warrant1", "reason", "claim"):
        if not row[column].strip():
            raise builder.error(line, column, "the value is empty")
    options = [row["warrant0"], row["warrant1"]]
    try:
        gold = resolve_answer(row["correctLabelW0orW1"], options, "index")
    except AnswerError as error:
        raise builder.error(line, "correctLabelW0orW1", error.reason, "ARCT labels are 0 or 1") from None
    fields = {"reason": row["reason"], "claim": row["claim"]}
    fields.update({name: row.get(column, "") for column, name in _DEBATE.items()})
    metadata: dict[str, Any] = {}
    if "adversarial" in row:
        metadata["adversarial"] = _as_bool(builder, line, row["adversarial"])
    builder.add(
        line=line,
        id=row["#id"],
        text=f"Reason: {row['reason']}\nClaim: {row['claim']}",
        options=options,
        gold=gold,
        fields=fields,
        metadata=metadata,
        text_field="reason",
        options_field="warrant0/warrant1",
    )


def _as_bool(builder: BenchmarkBuilder, line: int, value: str) -> bool:
    if value.strip() in ("True", "False"):
        return value.strip() == "True"
    raise builder.error(line, "adversarial", f"expected True or False, found {value!r}")
