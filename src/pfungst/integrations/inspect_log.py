"""inspect_ai eval logs (``.eval`` and ``.json``) read back as pfungst outcomes, without importing inspect_ai.

A ``.json`` log is one JSON document (``eval``, ``results``, ``samples``); an ``.eval`` log is a zip archive holding
``header.json`` and one ``samples/<id>_epoch_<n>.json`` per sample, compressed with Zstandard (method 93), which is
read with the ``zstandard`` package (installed with ``pfungst[inspect]``). Each sample's score under one scorer
(``scorer=``; by default ``pfungst_choice`` where present, else the first the log lists) gives:

- right or wrong per sample id (``C`` / ``I``, 1 / 0, true / false), for ``pfungst reliance`` on any inspect task;
- for a task expanded by the pfungst extension (samples with ``pfungst`` metadata), one
  :class:`~pfungst.evaluate.outcome.Outcome` per arranged sample, from which every stress metric and
  :func:`~pfungst.integrations.inspect_figures.arrangement_figures` are computed.

Only one epoch is read (``epoch=``, default 1); samples of other epochs and unscored samples are counted as skipped.
A sample whose id an earlier sample of the same epoch already has (in the dataset's order) is left out and counted
(:attr:`InspectLog.n_duplicates`, with a warning): the first is kept.
"""

from __future__ import annotations

import math
import re
import warnings
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pfungst.data.item import FrozenMapping
from pfungst.data.records import json_value
from pfungst.errors import ConfigError, DataError, ReaderError, unknown_name_message
from pfungst.evaluate.outcome import Outcome
from pfungst.integrations.inspect_archive import MAX_MEMBER_BYTES, MAX_TOTAL_BYTES, InflateTotal, read_member
from pfungst.integrations.inspect_figures import ArrangementFigures, arrangement_figures
from pfungst.integrations.inspect_samples import METADATA_KEY, outcome_from_metadata, position_of_letter
from pfungst.serialization import write_json

__all__ = ["SCHEMA_VERSION", "InspectLog", "is_inspect_log", "read_inspect_log"]

SCHEMA_VERSION = "pfungst.inspect-log/1"
"""The ``schema_version`` of :meth:`InspectLog.save_json` files."""
_JSON_HEAD = re.compile(r'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_PREFERRED_SCORER = "pfungst_choice"
_CORRECT = {"C": True, "I": False}


@dataclass(frozen=True)
class InspectLog:
    """What one inspect eval log says about each sample, under one scorer and one epoch."""

    path: str
    """The log file."""
    task: str
    """The task's name as inspect records it (``pfungst/arrangements``)."""
    model: str
    """The model, as inspect names it (``openai-api/llamacpp/smollm2``)."""
    dataset: str
    """The dataset's name (the task's name when the dataset has none)."""
    status: str
    """The log's status: ``success``, ``error``, ``cancelled`` or ``started``."""
    scorer: str
    """The scorer whose scores were read."""
    correct: Mapping[str, bool]
    """Sample id -> whether its score says right."""
    outcomes: tuple[Outcome, ...]
    """One outcome per arranged sample of a task expanded by the pfungst extension; empty for other tasks."""
    metrics: Mapping[str, float]
    """The metric values inspect reported for ``scorer`` (``accuracy``, ``position_1``, ``rstd``, ...)."""
    n_skipped: int = 0
    """Samples not read: other epochs, or no numeric or C/I score under ``scorer``."""
    metadata: Mapping[str, Any] = field(default_factory=FrozenMapping)
    """The epoch read and inspect's version."""
    n_duplicates: int = 0
    """Scored samples of the epoch left out because an earlier one has the same id (the first is kept)."""

    def figures(self, *, seed: int = 0, n_bootstrap: int = 1000, level: float = 0.95) -> ArrangementFigures:
        """pfungst's own figures from the arranged outcomes, with intervals (compare with :attr:`metrics`).

        Raises:
            ConfigError: the log holds no arranged samples.
        """
        return arrangement_figures(self.outcomes, seed=seed, n_bootstrap=n_bootstrap, level=level)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe summary with stable keys (counts, not the samples)."""
        return {
            "path": self.path,
            "task": self.task,
            "model": self.model,
            "dataset": self.dataset,
            "status": self.status,
            "scorer": self.scorer,
            "n_samples": len(self.correct),
            "n_outcomes": len(self.outcomes),
            "n_skipped": self.n_skipped,
            "n_duplicates": self.n_duplicates,
            "metrics": {name: None if math.isnan(value) else value for name, value in self.metrics.items()},
            "metadata": dict(self.metadata),
        }

    def save_json(self, path: str | Path, *, seed: int = 0, n_bootstrap: int = 1000) -> Path:
        """Write the log's summary, the metrics inspect reported and pfungst's figures (``pfungst.inspect-log/1``;
        figures only where the log holds arranged samples)."""
        document = {"schema_version": SCHEMA_VERSION, **self.to_dict()}
        if self.outcomes:
            document["figures"] = self.figures(seed=seed, n_bootstrap=n_bootstrap).to_dict()
        return write_json(path, document)

    def __repr__(self) -> str:
        return (
            f"InspectLog(task={self.task!r}, model={self.model!r}, scorer={self.scorer!r}, "
            f"samples={len(self.correct)}, outcomes={len(self.outcomes)})"
        )


def is_inspect_log(path: Path) -> bool:
    """An ``.eval`` zip with ``header.json`` or ``_journal/start.json``, or a ``.json`` that opens as inspect's."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
            return "header.json" in names or "_journal/start.json" in names
        if suffix != ".json":
            return False
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return _JSON_HEAD.match(handle.read(256)) is not None
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zipfile.LargeZipFile):
        return False


def read_inspect_log(
    path: str | Path,
    *,
    scorer: str | None = None,
    epoch: int = 1,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> InspectLog:
    """Read an inspect eval log's per-sample scores, and its arranged samples as outcomes.

    Args:
        path: An ``.eval`` or ``.json`` log.
        scorer: The scorer whose scores to read; default ``pfungst_choice`` where the log has it, else the first.
        epoch: The epoch to read.
        max_member_bytes: The most bytes one member of an ``.eval`` archive may inflate to (see
            :mod:`~pfungst.integrations.inspect_archive`).
        max_total_bytes: The most bytes all the members of an ``.eval`` archive may inflate to together.

    Raises:
        ConfigError: ``scorer`` names no scorer of the log (close matches and every scorer listed).
        ReaderError: the log holds no samples, or none scored by the scorer in the epoch; the file is not an
            inspect log, a member is corrupt or inflates past its limit (or all the
            members past theirs), JSON is nested
            too deep, a sample is malformed, or a score is neither right nor wrong (the message names the file and
            the sample or member).
        MissingDependency: an ``.eval`` log and no ``zstandard`` package.
    """
    path = Path(path)
    if not path.is_file():
        raise ReaderError(path, 0, "", "no such file", "Pass the log inspect wrote (its --log-dir)")
    if not is_inspect_log(path):
        raise ReaderError(path, 0, "", "not an inspect eval log (.eval or .json)", "Pass a log that inspect wrote")
    header, samples = (
        _read_eval(path, max_member_bytes, max_total_bytes) if path.suffix.lower() == ".eval" else _read_json(path)
    )
    evaluation = _object(path, header.get("eval"), "eval")
    dataset = _object(path, evaluation.get("dataset"), "eval.dataset")
    samples = _in_dataset_order(dataset, samples)
    scores = _scores(path, header)
    if not samples:
        reason = f"the log holds no samples (its status is {header.get('status')!r}): there is nothing to read"
        raise ReaderError(path, 0, "samples", reason, "Pass the log of a run that scored its samples")
    chosen = scorer or _default_scorer(path, scores, samples)
    _check_scorer(path, chosen, scores, samples)
    correct, outcomes, skipped, duplicates = _scored(path, samples, chosen, epoch)
    packages = _object(path, evaluation.get("packages"), "eval.packages")
    return InspectLog(
        path=str(path),
        task=str(evaluation.get("task", "")),
        model=str(evaluation.get("model", "")),
        dataset=str(dataset.get("name") or evaluation.get("task", "")),
        status=str(header.get("status", "")),
        scorer=chosen,
        correct=FrozenMapping(correct),
        outcomes=tuple(outcomes),
        metrics=FrozenMapping(_metrics(scores, chosen)),
        n_skipped=skipped,
        n_duplicates=duplicates,
        metadata=FrozenMapping({"epoch": epoch, "inspect_ai": packages.get("inspect_ai")}),
    )


def _scored(
    path: Path, samples: list[dict[str, Any]], scorer: str, epoch: int
) -> tuple[dict[str, bool], list[Outcome], int, int]:
    """Sample id -> right or wrong, the arranged samples' outcomes, and how many samples were skipped and repeated
    an earlier sample's id (the first kept; a warning names them); a ReaderError when none was scored."""
    correct: dict[str, bool] = {}
    outcomes: list[Outcome] = []
    skipped, repeated = 0, []
    for sample in samples:
        score = _object(path, sample.get("scores"), f"sample {sample.get('id')!r}: scores").get(scorer)
        value = _correct(path, sample, scorer, score) if sample.get("epoch", 1) == epoch else None
        if value is None:
            skipped += 1
            continue
        if str(sample.get("id")) in correct:
            repeated.append(str(sample.get("id")))
            continue
        correct[str(sample.get("id"))] = value
        metadata = _object(path, sample.get("metadata"), f"sample {sample.get('id')!r}: metadata")
        if isinstance(metadata.get(METADATA_KEY), Mapping) and isinstance(score, Mapping):
            outcomes.append(_outcome(path, sample, score))
    if not correct:
        reason = f"none of the {len(samples)} samples has a score of scorer {scorer!r} in epoch {epoch}"
        raise ReaderError(path, 0, "scores", reason, "Pass the scorer and epoch the log holds")
    if repeated:
        shown = ", ".join(repr(sample_id) for sample_id in list(dict.fromkeys(repeated))[:5])
        warnings.warn(
            f"{path}: {len(repeated)} sample(s) of epoch {epoch} repeat the id of an earlier sample ({shown}"
            f"{', ...' if len(set(repeated)) > 5 else ''}); the first of each id is kept, the repeats left out",
            stacklevel=3,
        )
    return correct, outcomes, skipped, len(repeated)


def _in_dataset_order(dataset: Mapping[str, Any], samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The samples in the dataset's order, then by epoch: an ``.eval`` archive holds them in the order they finished,
    which varies from run to run (and with it the items' order in every bootstrap)."""
    ids = dataset.get("sample_ids")
    rank = {str(sample_id): number for number, sample_id in enumerate(ids if isinstance(ids, list) else [])}

    def key(sample: Mapping[str, Any]) -> tuple[int, str, int]:
        epoch = sample.get("epoch", 1)
        number = epoch if isinstance(epoch, int) else 0  # a malformed epoch matches no epoch asked for
        return rank.get(str(sample.get("id")), len(rank)), str(sample.get("id")), number

    return sorted(samples, key=key)


def _scores(path: Path, header: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The scorers' entries of the header's results (name and metrics), objects only."""
    scores = _object(path, header.get("results"), "results").get("scores") or []
    if not isinstance(scores, list):
        raise ReaderError(path, 0, "results.scores", f"expected a list, found {type(scores).__name__}")
    return [entry for entry in scores if isinstance(entry, Mapping)]


def _default_scorer(path: Path, scores: list[Mapping[str, Any]], samples: list[dict[str, Any]]) -> str:
    names = [str(entry.get("name")) for entry in scores]
    names += [name for sample in samples[:1] for name in _object(path, sample.get("scores"), "scores")]
    return _PREFERRED_SCORER if _PREFERRED_SCORER in names else (names[0] if names else _PREFERRED_SCORER)


def _check_scorer(path: Path, scorer: str, scores: list[Mapping[str, Any]], samples: list[dict[str, Any]]) -> None:
    """Raise :class:`ConfigError` (close matches, every scorer) unless some sample or the results name ``scorer``."""
    names = {str(entry.get("name")) for entry in scores}
    for sample in samples:
        found = sample.get("scores")
        if isinstance(found, Mapping):
            names.update(str(name) for name in found)
    if scorer not in names:
        raise ConfigError(f"{path}: " + unknown_name_message("scorer of this log", scorer, names or ["(none)"]))


def _metrics(scores: list[Mapping[str, Any]], scorer: str) -> dict[str, float]:
    """The metric values inspect reported for ``scorer``; a value that is not a number reads as NaN."""
    for entry in scores:
        metrics = entry.get("metrics")
        if entry.get("name") == scorer and isinstance(metrics, Mapping):
            return {str(name): _number(metric) for name, metric in metrics.items()}
    return {}


def _number(metric: Any) -> float:
    value = metric.get("value") if isinstance(metric, Mapping) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan


def _where(path: Path, sample: Mapping[str, Any]) -> str:
    return f"{path}: sample {sample.get('id')!r}"


def _correct(path: Path, sample: Mapping[str, Any], scorer: str, score: Any) -> bool | None:
    """Right or wrong; None for no score or an unscored (NaN) one."""
    if not isinstance(score, Mapping):
        return None
    value = score.get("value")
    if isinstance(value, str) and value in _CORRECT:
        return _CORRECT[value]
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    raise ReaderError(
        path,
        0,
        f"scores.{scorer}",
        f"sample {sample.get('id')!r}: expected C/I, 1/0 or true/false, found {value!r}",
        "Reliance and the stress metrics need a right/wrong scorer; pass scorer= one that is",
    )


def _outcome(path: Path, sample: Mapping[str, Any], score: Mapping[str, Any]) -> Outcome:
    metadata = score.get("metadata")
    record = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
    if isinstance(record, Mapping) and isinstance(record.get("chosen_position"), int):
        position = int(record["chosen_position"])
    else:
        position = position_of_letter(str(score.get("answer") or ""))
    try:
        return outcome_from_metadata(
            sample.get("metadata"), position, where=_where(path, sample), text=str(score.get("explanation") or "")
        )
    except DataError as exc:
        raise ReaderError(path, 0, f"metadata.{METADATA_KEY}", str(exc)) from None


def _read_json(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    document = _object(path, json_value(path.read_bytes(), path), "(json)")
    samples = document.get("samples") or []
    if not isinstance(samples, list):
        raise ReaderError(path, 0, "samples", f"expected a list, found {type(samples).__name__}")
    return document, [_object(path, sample, f"samples[{index}]") for index, sample in enumerate(samples)]


def _read_eval(path: Path, max_member_bytes: int, max_total_bytes: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise ReaderError(path, 0, "", f"not a readable zip archive ({exc})", "Pass a log that inspect wrote") from None
    total = InflateTotal(path, max_total_bytes)
    with archive:
        names = archive.namelist()
        _refuse_repeated_members(path, names)
        header_name = "header.json" if "header.json" in names else "_journal/start.json"
        header = _object(path, read_member(path, archive, header_name, max_member_bytes, total), header_name)
        samples = [
            _object(path, read_member(path, archive, name, max_member_bytes, total), name)
            for name in names
            if name.startswith("samples/") and name.endswith(".json")
        ]
    return header, samples


def _refuse_repeated_members(path: Path, names: list[str]) -> None:
    """A member name twice in one archive (inspect never writes one) would be read as the last copy, twice."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ReaderError(
                path,
                0,
                name,
                "this member name occurs more than once in the archive: which copy holds the log is ambiguous",
                "Pass a log that inspect wrote",
            )
        seen.add(name)


def _object(path: Path, value: Any, field: str) -> dict[str, Any]:
    """``value`` if it is a JSON object (``{}`` for null); a ReaderError naming ``field`` otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ReaderError(path, 0, field, f"expected a JSON object, found {type(value).__name__}")
    return value
