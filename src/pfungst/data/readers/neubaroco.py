"""NeuBAROCO (Ando et al. 2023): Japanese and English syllogisms, as an NLI task and as a multiple-choice task.

Two tab-separated layouts, told apart by their columns:

* ``NeuBAROCO_NALOMA.tsv`` (NLI): ``premises_ja, hypothesis_ja, premises_en, hypothesis_en, gold`` and
  annotations. Shared labels ``entailment``, ``neutral``, ``contradiction``. The text a model sees is::

      Premises: {premises}
      Hypothesis: {hypothesis}

  with ``fields`` ``premise`` (both premises, as one string) and ``hypothesis``. The source has no ids, so items
  get the builder's ``<file>:<line>``. The file repeats some prompts; they are kept and counted in
  ``provenance.duplicate_texts``.
* ``NeuBAROCO_MC.tsv`` (multiple choice): ``ID, premises_{ja,en}, hypothesis_{ja,en}_{1..5}, gold`` (the 1-based
  number of the right hypothesis) and annotations. The text is the premises alone (``fields`` ``premise``); the
  options are the five hypotheses in file order. Item ids are ``ID``.

The setting ``language`` (``en``, the default, or ``ja``) picks which columns are read; the scaffolding words of
the NLI text (``Premises:``, ``Hypothesis:``) stay English. Every other column (``figure``, ``content-type``, ...)
is kept in ``metadata`` under its own name.
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.answers import AnswerError, resolve_answer
from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import head_lines
from pfungst.data.records import iter_csv
from pfungst.errors import ConfigError

__all__ = ["NeuBarocoReader"]

_LABELS = ("entailment", "neutral", "contradiction")
_LANGUAGES = ("en", "ja")
_OPTIONS = 5
_NLI_COLUMNS = {"premises_ja", "hypothesis_ja", "premises_en", "hypothesis_en", "gold"}
_MC_COLUMNS = {"ID", "premises_ja", "premises_en", "gold"} | {
    f"hypothesis_{language}_{n}" for language in _LANGUAGES for n in range(1, _OPTIONS + 1)
}


class NeuBarocoReader:
    """NeuBAROCO's NLI (NALOMA) and multiple-choice TSV files, in English or Japanese."""

    name = "neubaroco"
    description = "NeuBAROCO syllogism TSV: NALOMA (NLI, 3 labels) or MC (5 hypotheses); setting language=en|ja"

    def sniff(self, path: Path) -> bool:
        return _layout(_header(path)) != ""

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read one NeuBAROCO TSV; raises :class:`~pfungst.errors.ReaderError` naming file, line and column.

        Raises:
            ConfigError: ``language`` is neither ``en`` nor ``ja``.
        """
        options.check_keys(self.name, ["language"])
        language = options.setting("language", "en")
        if language not in _LANGUAGES:
            raise ConfigError(f"The 'neubaroco' reader's language must be 'en' or 'ja', not {language!r}")
        nli = _layout(_header(path)) != "mc"
        builder = BenchmarkBuilder(path, self.name, options, labels=_LABELS if nli else None)
        add = _add_nli if nli else _add_mc
        builder.add_records(iter_csv(path, delimiter="\t"), add, language)
        return builder.build(f"neubaroco-{'nli' if nli else 'mc'}-{language}")


def _header(path: Path) -> set[str]:
    lines = head_lines(path, 1)
    return {column.strip() for column in lines[0].split("\t")} if lines else set()


def _layout(columns: set[str]) -> str:
    """``nli``, ``mc`` or '' from a file's header."""
    if columns >= _MC_COLUMNS:
        return "mc"
    return "nli" if columns >= _NLI_COLUMNS else ""


def _value(builder: BenchmarkBuilder, line: int, row: dict[str, str], column: str) -> str:
    if column not in row:
        raise builder.error(line, column, f"no column '{column}' in the file (columns: {', '.join(row)})")
    if not row[column].strip():
        raise builder.error(line, column, "the value is empty")
    return row[column]


def _metadata(row: dict[str, str]) -> dict[str, str]:
    """Every annotation column: not an input in either language, not the gold, not the id."""
    return {
        column: value
        for column, value in row.items()
        if not column.startswith(("premises_", "hypothesis_")) and column not in ("gold", "ID")
    }


def _add_nli(builder: BenchmarkBuilder, line: int, row: dict[str, str], language: str) -> None:
    premises = _value(builder, line, row, f"premises_{language}")
    hypothesis = _value(builder, line, row, f"hypothesis_{language}")
    builder.add(
        line=line,
        text=f"Premises: {premises}\nHypothesis: {hypothesis}",
        gold=_value(builder, line, row, "gold").strip(),
        fields={"premise": premises, "hypothesis": hypothesis},
        metadata=_metadata(row),
        text_field=f"premises_{language}",
        options_field="gold",
    )


def _add_mc(builder: BenchmarkBuilder, line: int, row: dict[str, str], language: str) -> None:
    premises = _value(builder, line, row, f"premises_{language}")
    options = [_value(builder, line, row, f"hypothesis_{language}_{n}") for n in range(1, _OPTIONS + 1)]
    try:
        gold = resolve_answer(_value(builder, line, row, "gold"), options, "index1")
    except AnswerError as error:
        raise builder.error(line, "gold", error.reason, "NeuBAROCO MC gold is the hypothesis number, 1-5") from None
    builder.add(
        line=line,
        id=row.get("ID", "").strip(),
        text=premises,
        options=options,
        gold=gold,
        fields={"premise": premises},
        metadata=_metadata(row),
        text_field=f"premises_{language}",
        options_field=f"hypothesis_{language}_1-{_OPTIONS}",
    )
