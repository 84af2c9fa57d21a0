"""MultiNLI (Williams et al. 2018) and SNLI (Bowman et al. 2015): premise-hypothesis pairs with three shared labels.

Both readers read the same layouts; they differ only in which files they claim when sniffing:

* the official JSON lines (``sentence1``, ``sentence2``, ``gold_label``, ``annotator_labels``, ``pairID``, parses);
* the official tab-separated files (``gold_label``, ``sentence1``, ``sentence2``, ``pairID``, ``label1`` ...
  ``label5``, parses; GLUE's MNLI TSVs add ``index``);
* the ``index, premise, hypothesis, gold_label`` TSV (with ``number of correct responses (out of 100)``, kept as
  the int ``correct_responses``) that hypothesis-only studies distribute for MNLI dev-matched (read in either
  format, but claimed only as a TSV).

A file with a ``genre`` or ``promptID`` column (or key) is MNLI, one with ``captionID`` is SNLI; the
``premise``/``hypothesis`` layout is claimed by ``mnli``. TSVs are read with quoting off: their double quotes are
text, often unbalanced.

Labels are ``entailment``, ``neutral``, ``contradiction`` in that order. Rule: a row whose ``gold_label`` is ``-``
(the annotators reached no consensus) is not an item; it is rejected by rule and counted in
``provenance.rejected``. Any other label outside the three is an error naming file, line and ``gold_label``.

The text a model sees is::

    Premise: {premise}
    Hypothesis: {hypothesis}

with ``fields`` ``premise`` and ``hypothesis`` (for hypothesis-only baselines). Item ids are ``pairID`` (or
``index`` where there is no ``pairID``); ``metadata`` keeps ``promptID``, ``genre``, ``captionID``,
``annotator_labels`` and ``correct_responses`` where the source has them.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record, head_lines, head_text
from pfungst.data.records import Record, iter_csv, iter_jsonl

__all__ = ["LABELS", "MnliReader", "SnliReader"]

LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
"""The NLI label set in canonical order."""

_NO_CONSENSUS = "-"
_CORRECT = "number of correct responses (out of 100)"
_MNLI_MARKS = {"genre", "promptID"}
_SNLI_MARKS = {"captionID"}
_SENTENCE_PAIRS = (("premise", "hypothesis"), ("sentence1", "sentence2"))
_HINT = "NLI rows need sentence1, sentence2, gold_label (or premise, hypothesis, gold_label)"


class _NliReader:
    name = ""
    description = ""

    def sniff(self, path: Path) -> bool:
        columns = _columns(path)
        return bool(columns) and _dataset(columns, jsonl=_is_jsonl(path)) == self.name

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read one NLI file (JSON lines or TSV); raises :class:`~pfungst.errors.ReaderError` naming the field."""
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options, labels=LABELS)
        builder.add_records(_records(path), _add_row)
        stem = Path(path.name.removesuffix(".gz")).stem
        return builder.build(stem if stem.lower().startswith(("snli", "mnli", "multinli")) else f"{self.name}-{stem}")


class MnliReader(_NliReader):
    """MultiNLI in its official JSON lines or TSV, or the ``premise``/``hypothesis`` TSV of dev-matched."""

    name = "mnli"
    description = "MultiNLI JSON lines / TSV (sentence1, sentence2, gold_label, genre) or premise/hypothesis TSV"


class SnliReader(_NliReader):
    """SNLI in its official JSON lines or TSV; rows with gold label ``-`` are rejected by rule."""

    name = "snli"
    description = "SNLI JSON lines / TSV (sentence1, sentence2, gold_label, captionID); '-' labels rejected"


def _is_jsonl(path: Path) -> bool:
    return head_text(path, 4096).lstrip().startswith("{")


def _columns(path: Path) -> set[str]:
    """The keys of the first JSON record, or the TSV header's columns; empty when neither."""
    if _is_jsonl(path):
        record = first_json_record(path)
        return set(record) if record else set()
    lines = head_lines(path, 1)
    return {column.strip() for column in lines[0].split("\t")} if lines and "\t" in lines[0] else set()


def _dataset(columns: set[str], jsonl: bool) -> str:
    """``mnli``, ``snli`` or '' from a file's columns (see the module docstring for the rule)."""
    if "gold_label" not in columns:
        return ""
    if columns >= {"premise", "hypothesis"} and not {"sentence1", "sentence2"} & columns:
        # Only the dev-matched TSV has this layout; a JSON-lines file with these keys could be any NLI set.
        return "" if jsonl or _SNLI_MARKS & columns else "mnli"
    if not columns >= {"sentence1", "sentence2"}:
        return ""
    mnli, snli = bool(_MNLI_MARKS & columns), bool(_SNLI_MARKS & columns)
    return "mnli" if mnli and not snli else "snli" if snli and not mnli else ""


def _records(path: Path) -> Iterator[Record]:
    if _is_jsonl(path):
        return iter_jsonl(path)
    return iter_csv(path, delimiter="\t", quoting=csv.QUOTE_NONE)


def _add_row(builder: BenchmarkBuilder, line: int, row: Mapping[str, Any]) -> None:
    premise_key, hypothesis_key = next((pair for pair in _SENTENCE_PAIRS if pair[0] in row), _SENTENCE_PAIRS[1])
    premise = _text(builder, line, row, premise_key)
    hypothesis = _text(builder, line, row, hypothesis_key)
    gold = _text(builder, line, row, "gold_label", allow_empty=True).strip()
    if gold == _NO_CONSENSUS:
        builder.reject(line, "gold_label", "field 'gold_label': '-' means the annotators reached no consensus")
        return
    builder.add(
        line=line,
        id=next((str(row[key]) for key in ("pairID", "index") if row.get(key) not in (None, "")), ""),
        text=f"Premise: {premise}\nHypothesis: {hypothesis}",
        gold=gold,
        fields={"premise": premise, "hypothesis": hypothesis},
        metadata=_metadata(builder, line, row),
        text_field=premise_key,
        options_field="gold_label",
    )


def _text(builder: BenchmarkBuilder, line: int, row: Mapping[str, Any], key: str, allow_empty: bool = False) -> str:
    return builder.string(line, row, key, allow_empty=allow_empty, hint=_HINT)


def _metadata(builder: BenchmarkBuilder, line: int, row: Mapping[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {key: row[key] for key in ("promptID", "genre", "captionID") if key in row}
    if "annotator_labels" in row:
        metadata["annotator_labels"] = list(row["annotator_labels"] or [])
    elif "label1" in row:
        labels = (str(row.get(f"label{n}", "")).strip() for n in range(1, 6))
        metadata["annotator_labels"] = [label for label in labels if label]
    if _CORRECT in row:
        try:
            metadata["correct_responses"] = int(str(row[_CORRECT]).strip())
        except ValueError:
            raise builder.error(line, _CORRECT, f"expected an integer, found {row[_CORRECT]!r}") from None
    return metadata
