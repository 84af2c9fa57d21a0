"""Per-item model outcomes (right or wrong on each item) from any source, for joining with an audit.

:func:`read_outcomes` sniffs the format of a file or folder and returns one :class:`ModelOutcomes` per (model,
dataset) found. The formats (:data:`OUTCOME_FORMATS`, one module each under ``reliance/readers/``):

- ``openai-evals``: OpenAI ``evals`` record logs (Pacchiardi et al. 2024); correctness by pfungst's documented parse
  rule (:func:`pfungst.data.read_model_answers`), not evals' case-sensitive ``match.correct``.
- ``pfungst-score``: ``pfungst score --out x.jsonl`` per-item lines, or ``--json`` written with ``items``.
- ``pfungst-stress``: ``pfungst stress --items x.jsonl`` outcome lines, or a stress JSON written with ``outcomes``;
  the ``identity`` perturbation by default (``variant=`` picks another).
- ``lm-eval``: lm-evaluation-harness ``--log_samples`` files ``samples_<task>_<date>.jsonl``; correct where the
  metric (``acc`` by default) is 1.
- ``helm``: a HELM run folder's ``per_instance_stats.json``; correct where ``exact_match`` (by default) is 1.
- ``inspect``: inspect_ai eval logs (``.eval``, ``.json``); correct where the scorer (``metric=``; by default
  ``pfungst_choice`` where present, else the first) says ``C``; a task expanded by pfungst's inspect extension gives
  one arrangement per item (``variant=``, as for stress outcomes; by default the original order).
- ``csv``: a table with columns ``model``, ``item_id``, ``correct`` and optionally ``dataset``.

Readers that see what the model chose (evals logs, pfungst score and stress files, lm-eval samples, a CSV with an
``answer`` column) also record it per item as an :class:`ItemAnswer` (``ModelOutcomes.answers``): the chosen and
the gold label, the item's text, and the option probabilities where the source has them. The validity screen
(:mod:`pfungst.reliance.validity`) reads these; the reliance analysis needs only ``correct``.

Duplicate item ids within one (model, dataset): the first is kept and the repeats counted (``n_duplicates``) when
they agree; when they disagree the file mixes two measurements and reading stops with a :class:`ReaderError`
naming both lines (pass ``variant=`` or ``metric=`` to pick one measurement).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from pfungst.data.item import FrozenMapping
from pfungst.data.readers.sniffing import first_json_record, head_lines
from pfungst.errors import ReaderError
from pfungst.folder_walk import walk_files
from pfungst.registry import Registry

__all__ = [
    "OUTCOME_FORMATS",
    "ItemAnswer",
    "ModelOutcomes",
    "OutcomeRequest",
    "OutcomesBuilder",
    "item_id",
    "read_outcomes",
]

OUTCOME_FORMATS: Registry[ModuleType] = Registry(
    "outcome format",
    {
        "openai-evals": "pfungst.reliance.readers.openai_evals",
        "pfungst-stress": "pfungst.reliance.readers.pfungst_results",
        "pfungst-score": "pfungst.reliance.readers.pfungst_results",
        "lm-eval": "pfungst.reliance.readers.lm_eval",
        "helm": "pfungst.reliance.readers.helm",
        "inspect": "pfungst.reliance.readers.inspect_ai",
        "csv": "pfungst.reliance.readers.table",
    },
    group=None,
)
"""Format name -> the module that reads it (``sniff(path) -> bool``, ``read(path, request) -> tuple``); sniffed
in this order."""

_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".eval")


@dataclass(frozen=True)
class ItemAnswer:
    """What one model answered to one item, where the source says more than right or wrong."""

    chosen: str
    """The label of the option the model chose; ``""`` when it chose none (unparseable, refused)."""
    gold: str
    """The label of the keyed (gold) option."""
    text: str = ""
    """The item's text (question, or the whole prompt where the source keeps no question apart)."""
    probabilities: Mapping[str, float] = field(default_factory=FrozenMapping)
    """Option label -> the model's probability of it (normalised over the options); empty where the source has
    only the answer."""


@dataclass(frozen=True, eq=False)
class ModelOutcomes:
    """Whether one model answered each item of one dataset correctly, and where that came from."""

    model: str
    """The model's name, as the source (or the ``model=`` argument) gives it."""
    dataset: str
    """The dataset's name, to be matched with an audit's benchmark name; ``""`` when the source does not say (it
    then joins the only audit given)."""
    correct: Mapping[str, bool]
    """Item id -> whether the model's answer was right (unparseable answers count as wrong)."""
    source: str
    """The file read."""
    format: str
    """The reader that read it (:data:`OUTCOME_FORMATS`)."""
    selection: str = ""
    """What was taken from the source, in words: the metric, perturbation, filter or trial."""
    n_unparsed: int = 0
    """Answers from which no option could be read (counted as wrong)."""
    n_skipped: int = 0
    """Source records not used: other perturbations, filters, trials or perturbed instances."""
    n_duplicates: int = 0
    """Repeated item ids whose outcome agreed with the first (dropped; the first is kept)."""
    metadata: Mapping[str, Any] = field(default_factory=FrozenMapping)
    """Anything else the reader recorded (the evals accuracy, the model fingerprint, ...)."""
    answers: Mapping[str, ItemAnswer] = field(default_factory=FrozenMapping)
    """Item id -> what the model chose, for the items whose source says (empty where it says only right or
    wrong)."""

    def __len__(self) -> int:
        return len(self.correct)

    @property
    def accuracy(self) -> float:
        """Share of items answered right (NaN without items)."""
        return sum(self.correct.values()) / len(self.correct) if self.correct else math.nan

    def to_frame(self) -> pd.DataFrame:
        """One row per item: model, dataset, item_id, correct."""
        return pd.DataFrame(
            {
                "model": self.model,
                "dataset": self.dataset,
                "item_id": list(self.correct),
                "correct": list(self.correct.values()),
            },
            columns=["model", "dataset", "item_id", "correct"],
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe summary with stable keys (counts and accuracy, not the items)."""
        accuracy = self.accuracy
        return {
            "model": self.model,
            "dataset": self.dataset,
            "source": self.source,
            "format": self.format,
            "selection": self.selection,
            "n_items": len(self),
            "n_correct": sum(self.correct.values()),
            "accuracy": None if math.isnan(accuracy) else accuracy,
            "n_unparsed": self.n_unparsed,
            "n_skipped": self.n_skipped,
            "n_duplicates": self.n_duplicates,
            "metadata": dict(self.metadata),
        }

    def __repr__(self) -> str:
        return (
            f"ModelOutcomes(model={self.model!r}, dataset={self.dataset!r}, n={len(self)}, "
            f"accuracy={self.accuracy:.3f}, format={self.format!r})"
        )


@dataclass(frozen=True)
class OutcomeRequest:
    """What the caller asked of a reader: names to use where the file gives none, and which measurement to take."""

    model: str | None = None
    """Overrides (or supplies) the model's name."""
    dataset: str | None = None
    """Overrides (or supplies) the dataset's name."""
    metric: str | None = None
    """lm-eval / HELM: the per-item metric that says right or wrong (``acc`` / ``exact_match`` if None); pfungst
    stress: the scoring rule (every rule if None)."""
    variant: str | None = None
    """pfungst stress: ``perturbation`` or ``perturbation:variant`` (``identity`` if None); lm-eval: the filter."""

    def name_model(self, found: str) -> str:
        return self.model if self.model is not None else found

    def name_dataset(self, found: str) -> str:
        return self.dataset if self.dataset is not None else found

    def warn_unused(self, format: str, *names: str) -> None:
        """Warn about each of ``names`` that was given although ``format`` does not use it."""
        for name in names:
            if getattr(self, name) is not None:
                warnings.warn(f"{name}={getattr(self, name)!r} has no effect on {format} outcomes", stacklevel=4)


class OutcomesBuilder:
    """Collects one (model, dataset)'s outcomes line by line, applying the duplicate rule of the module docstring."""

    def __init__(self, path: Path, format: str, model: str, dataset: str, selection: str = "") -> None:
        self.path, self.format, self.model, self.dataset, self.selection = path, format, model, dataset, selection
        self._correct: dict[str, bool] = {}
        self._lines: dict[str, int] = {}
        self._answers: dict[str, ItemAnswer] = {}
        self.n_unparsed = self.n_skipped = self.n_duplicates = 0
        self.metadata: dict[str, Any] = {}

    def add(
        self, item_id: str, correct: bool, line: int, *, field: str = "item_id", answer: ItemAnswer | None = None
    ) -> None:
        """Record one outcome (and what was chosen, if known); a repeated id must agree with the first, else
        :class:`ReaderError`."""
        if answer is not None:
            self._check_answer(answer, line)
        if item_id in self._correct:
            if self._correct[item_id] != correct:
                raise ReaderError(
                    self.path,
                    line,
                    field,
                    f"item {item_id!r} of model {self.model!r} appears again "
                    f"with a different outcome (first on line {self._lines[item_id]})",
                    "The file mixes two measurements: pick one with variant= or metric=",
                )
            self.n_duplicates += 1
            return
        self._correct[item_id] = correct
        self._lines[item_id] = line
        if answer is not None:
            self._answers[item_id] = answer

    def _check_answer(self, answer: ItemAnswer, line: int) -> None:
        """Option probabilities are finite shares; the gold and the chosen label (if any) are among their options."""
        shares = answer.probabilities
        bad = [f"{k}: {v!r}" for k, v in shares.items() if not (isinstance(v, float | int) and 0 <= v <= 1)]
        if bad:
            raise ReaderError(self.path, line, "scores", f"option probabilities must be shares in [0, 1], found {bad}")
        if shares and (answer.gold not in shares or answer.chosen not in ("", *shares)):
            found = f"chosen {answer.chosen!r} or gold {answer.gold!r}"
            raise ReaderError(self.path, line, "chosen", f"{found} is not among the options {', '.join(shares)}")

    def build(self) -> ModelOutcomes:
        """The outcomes collected so far."""
        return ModelOutcomes(
            model=self.model,
            dataset=self.dataset,
            correct=FrozenMapping(self._correct),
            source=str(self.path),
            format=self.format,
            selection=self.selection,
            n_unparsed=self.n_unparsed,
            n_skipped=self.n_skipped,
            n_duplicates=self.n_duplicates,
            metadata=FrozenMapping(self.metadata),
            answers=FrozenMapping(self._answers),
        )


def item_id(value: Any, path: Path, line: int, field: str) -> str:
    """An item id read from an outcome file: a string, or a whole number written as its digits.

    Raises:
        ReaderError: anything else (an object, a list, a boolean, a fraction), naming the file, line and field.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    found = "null" if value is None else type(value).__name__
    raise ReaderError(path, line, field, f"expected an item id (a string or a whole number), found {found}")


def read_outcomes(
    path: str | Path,
    *,
    format: str | None = None,
    model: str | None = None,
    dataset: str | None = None,
    metric: str | None = None,
    variant: str | None = None,
) -> tuple[ModelOutcomes, ...]:
    """Read per-item model outcomes from a file, a HELM run folder, or a folder of such files.

    Args:
        path: A file; a HELM run folder (holding ``per_instance_stats.json``); or a folder, read recursively: every
            ``.jsonl``, ``.json``, ``.csv`` and ``.tsv`` file in it (sorted by path) must be in a known format.
        format: One of :data:`OUTCOME_FORMATS`; sniffed per file when None.
        model: The model's name where the file gives none (lm-eval: else the parent folder's name; pfungst
            JSONL: else the file's stem), or a replacement for the name it gives.
        dataset: The dataset's name (to match an audit's benchmark name) where the file gives none, or a
            replacement.
        metric: lm-eval (default ``acc``) and HELM (default ``exact_match``): the per-item 0/1 metric to read;
            inspect: the scorer (default ``pfungst_choice`` where present, else the first).
        variant: pfungst stress: ``perturbation`` or ``perturbation:variant`` (default ``identity``); lm-eval: the
            filter (default: the first filter in the file); inspect: as for pfungst stress, on a task expanded by
            pfungst's extension (default: each item in its original order).

    Returns:
        One :class:`ModelOutcomes` per (file, model, dataset), in path order.

    Raises:
        ReaderError: a file is malformed or in no known format (names the file, line and field).
        ConfigError: an unknown ``format``, or an argument that does not apply.

    Example:
        >>> import pathlib, tempfile
        >>> table = pathlib.Path(tempfile.mkdtemp()) / "outcomes.csv"
        >>> _ = table.write_text("model,item_id,correct\\nm,q1,yes\\nm,q2,0\\n")
        >>> [(o.model, dict(o.correct)) for o in read_outcomes(table)]
        [('m', {'q1': True, 'q2': False})]
    """
    path = Path(path)
    if format is not None:
        OUTCOME_FORMATS.check(format)
    if not path.exists():
        raise ReaderError(path, 0, "", "no such file or folder", "Check the path")
    request = OutcomeRequest(model=model, dataset=dataset, metric=metric, variant=variant)
    found: list[ModelOutcomes] = []
    for file in _files(path):
        name = format or _sniff(file)
        module = OUTCOME_FORMATS.resolve(name)
        found.extend(module.read(file, request, name))
    return tuple(found)


def _files(path: Path) -> Iterator[Path]:
    """The files to read: the file itself, a HELM run's stats file, or every data file under a folder."""
    if path.is_file():
        yield path
        return
    stats = path / "per_instance_stats.json"
    if stats.is_file():
        yield stats
        return
    walked = walk_files(path).files
    runs = {p.parent for p in walked if p.name == "per_instance_stats.json"}
    files = sorted(p for p in walked if p.suffix.lower() in _SUFFIXES and not any(run in p.parents for run in runs))
    files += sorted(run / "per_instance_stats.json" for run in runs)
    if not files:
        raise ReaderError(
            path,
            0,
            "",
            f"the folder holds no {', '.join(_SUFFIXES)} file",
            "Point at a file or a folder of outcome files",
        )
    yield from sorted(files)


def _sniff(path: Path) -> str:
    for name in OUTCOME_FORMATS:
        module = OUTCOME_FORMATS.resolve(name)
        if module.sniff(path, name):
            return name
    raise ReaderError(
        path,
        0,
        "",
        f"not a known outcome format: {_missing(path)}",
        f"Pass format= one of: {', '.join(OUTCOME_FORMATS)}",
    )


_LINE_FIELDS = {
    "lm-eval": ("doc_id", "resps"),
    "pfungst-score": ("item_id", "correct", "chosen", "status"),
    "pfungst-stress": ("item_id", "perturbation", "variant", "rule", "format", "correct"),
    "openai-evals": ("spec",),
}
"""What the first line of each JSON Lines outcome format holds (evals logs: a ``spec`` line first)."""


def _missing(path: Path) -> str:
    """What the file lacks for each format its suffix allows, for the message when none fits."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        lines = head_lines(path, 1)
        columns = (
            {column.strip().strip('"') for column in lines[0].split("\t" if suffix == ".tsv" else ",")}
            if lines
            else set()
        )
        missing = [column for column in ("item_id", "correct") if column not in columns]
        return f"a table needs the columns item_id and correct; missing: {', '.join(missing)}"
    if suffix == ".jsonl":
        record = first_json_record(path)
        if record is None:
            return "its first line is not a JSON object"
        lacks = [
            f"{name} lacks {', '.join(f for f in fields if f not in record)}" for name, fields in _LINE_FIELDS.items()
        ]
        return f"its first line fits no layout ({'; '.join(lacks)})"
    if suffix == ".json":
        return (
            "expected an inspect log (starting with version and status), HELM per_instance_stats.json (instance_id "
            "and stats per entry) or a pfungst score or stress JSON (schema_version)"
        )
    if suffix == ".eval":
        return "not an inspect .eval log (a zip archive holding header.json)"
    return f"no outcome format reads {suffix or 'files without a suffix'} files ({', '.join(_SUFFIXES)})"
