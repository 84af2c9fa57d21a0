"""Multi-prompt evaluation (Mizrahi et al., TACL 2024, "State of What Art? A Call for Multi-Prompt LLM Evaluation").

A single instruction template says little: accuracy moves a lot between paraphrases of it. The paper reports, over a
set of paraphrases, MaxP (the best paraphrase's accuracy: what a developer tuning the prompt gets), AvgP (the mean
over paraphrases: what a user with any reasonable prompt gets) and CPS, the combined performance score
``MaxP * (1 - (MaxP - AvgP))``, which discounts a high MaxP by how far the average falls below it.

:func:`multiprompt_stats` computes them, with bootstrap intervals over items, from outcomes of several prompts on the
same items; :func:`combined_performance_score` from a list of accuracies (a published table);
:func:`read_paraphrase_accuracies` and :func:`read_paraphrases` read the paper's released files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar

import numpy as np
import pandas as pd

from pfungst.blocks import Block, Figure, Table, format_estimate, methods_note
from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.outcome import Outcome
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import ConfidenceInterval, Estimate, bootstrap_interval, wilson_interval
from pfungst.stress.correctness_table import correctness_table
from pfungst.stress.estimates import estimates_table

__all__ = [
    "MultiPromptStats",
    "combined_performance_score",
    "multiprompt_stats",
    "read_paraphrase_accuracies",
    "read_paraphrases",
]


@dataclass(frozen=True)
class MultiPromptStats:
    """MaxP, AvgP, CPS and the spread over prompts answered on the same items."""

    KIND: ClassVar[str] = "multiprompt"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Instruction paraphrases"
    """The result's heading in reports."""

    prompts: tuple[str, ...]
    """The prompts, in first-seen order."""
    accuracies: tuple[Estimate, ...]
    """Accuracy of each prompt (Wilson interval), in the order of ``prompts``."""
    maxp: Estimate
    """MaxP: the best prompt's accuracy (bootstrap interval over items)."""
    avgp: Estimate
    """AvgP: the mean accuracy over prompts."""
    cps: Estimate
    """CPS: ``MaxP * (1 - (MaxP - AvgP))``."""
    spread: Estimate
    """Best minus worst prompt accuracy."""
    n_items: int
    """Items every prompt answered."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "prompts": list(self.prompts),
            "accuracies": [accuracy.to_dict() for accuracy in self.accuracies],
            "maxp": self.maxp.to_dict(),
            "avgp": self.avgp.to_dict(),
            "cps": self.cps.to_dict(),
            "spread": self.spread.to_dict(),
            "n_items": self.n_items,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> MultiPromptStats:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """MaxP, AvgP, CPS and spread; accuracy per prompt as a table and a plot."""
        named = [
            ("MaxP (best prompt)", self.maxp),
            ("AvgP (mean over prompts)", self.avgp),
            ("CPS", self.cps),
            ("spread (best - worst)", self.spread),
        ]
        accuracies = [accuracy.to_dict() for accuracy in self.accuracies]
        rows = tuple((prompt, format_estimate(a)) for prompt, a in zip(self.prompts, accuracies, strict=False))
        figure = Figure(
            "intervals",
            "Accuracy per instruction",
            {"labels": list(self.prompts), "estimates": accuracies, "axis": "accuracy"},
        )
        return (
            estimates_table("Over prompts", named),
            Table("Accuracy per prompt", ("prompt", "accuracy [CI]"), rows, note=methods_note(accuracies)),
            figure,
        )


def combined_performance_score(accuracies: Sequence[float]) -> tuple[float, float, float]:
    """MaxP, AvgP and CPS of one model's accuracies over a set of prompts.

    Raises:
        ConfigError: No accuracies, or one that is not a number in [0, 1].

    Example:
        >>> maxp, avgp, cps = combined_performance_score([0.8, 0.6, 0.4])
        >>> round(maxp, 2), round(avgp, 2), round(cps, 2)
        (0.8, 0.6, 0.64)
    """
    values = [float(value) for value in accuracies]
    if not values:
        raise ConfigError("no accuracies given; MaxP, AvgP and CPS need at least one prompt's accuracy")
    if not all(0.0 <= value <= 1.0 for value in values):
        raise ConfigError(f"accuracies must be numbers in [0, 1]; got {values}")
    return _scores(np.array(values))


def multiprompt_stats(
    outcomes: Sequence[Outcome],
    *,
    by: str = "format",
    seed: int,
    n_bootstrap: int = 1000,
    level: float = 0.95,
) -> MultiPromptStats:
    """MaxP, AvgP, CPS and the spread over prompts, each with a bootstrap interval over the (paired) items.

    Args:
        outcomes: One outcome per (prompt, item); every prompt must have answered the same items.
        by: The outcome field naming the prompt: ``format`` (paraphrases are formats), ``variant``, ``rule`` or
            ``perturbation``.
        seed: Seed of the bootstrap; the four statistics share the same resamples.
        n_bootstrap: Bootstrap resamples of the items.
        level: Coverage of the intervals.

    Raises:
        ConfigError: See :func:`pfungst.stress.correctness_table.correctness_table`.

    Example:
        >>> def answer(prompt, item, chosen):
        ...     return Outcome(item, "instructions", prompt, "letter", prompt, (0, 1), ("A", "B"), 0, chosen, chosen,
        ...                    "ok", (0.0, -1.0))
        >>> outcomes = [answer("p1", f"q{i}", int(i >= 8)) for i in range(10)]
        >>> outcomes += [answer("p2", f"q{i}", int(i >= 4)) for i in range(10)]
        >>> stats = multiprompt_stats(outcomes, seed=0)
        >>> round(stats.maxp.value, 2), round(stats.avgp.value, 2), round(stats.cps.value, 2)
        (0.8, 0.6, 0.64)
    """
    table = correctness_table(outcomes, by=by)
    matrix = table.correct.astype(float)
    n_items = len(table.item_ids)
    accuracies = tuple(
        Estimate(
            value=float(row.mean()),
            method="accuracy; Wilson interval",
            n=n_items,
            ci=wilson_interval(int(row.sum()), n_items, level),
        )
        for row in matrix
    )
    maxp, avgp, cps = _scores(matrix.mean(axis=1))

    def interval(pick: Callable[[np.ndarray], float]) -> ConfidenceInterval:
        return bootstrap_interval(
            lambda index: pick(matrix[:, index].mean(axis=1)), n_items, n_resamples=n_bootstrap, seed=seed, level=level
        )

    def estimate(value: float, pick: Callable[[np.ndarray], float], what: str) -> Estimate:
        return Estimate(
            value=value,
            method=f"{what} over {len(table.names)} prompts; bootstrap over items",
            n=n_items,
            ci=interval(pick),
        )

    return MultiPromptStats(
        prompts=table.names,
        accuracies=accuracies,
        maxp=estimate(maxp, lambda acc: _scores(acc)[0], "MaxP"),
        avgp=estimate(avgp, lambda acc: _scores(acc)[1], "AvgP"),
        cps=estimate(cps, lambda acc: _scores(acc)[2], "CPS = MaxP * (1 - (MaxP - AvgP))"),
        spread=estimate(float(np.ptp(matrix.mean(axis=1))), lambda acc: float(np.ptp(acc)), "best minus worst"),
        n_items=n_items,
    )


def read_paraphrase_accuracies(path: str | Path | IO[str]) -> pd.DataFrame:
    """Read one task's per-paraphrase accuracies as released by Mizrahi et al. (``paraphrase_accuracies/*.csv``).

    The file has a ``paraphrase idx`` column, then one ``<model>_acc`` column per model, each the accuracy on 100
    samples. The column labels are taken as written (they are not re-ordered or corrected).

    Returns:
        One row per paraphrase (index ``paraphrase``, its 1-based id) and one float column per model (the ``_acc``
        suffix dropped).

    Raises:
        ReaderError: The file is missing, a header is not of that form, a model or paraphrase id repeats, or an
            accuracy is missing or outside [0, 1].

    Example:
        >>> import io
        >>> frame = read_paraphrase_accuracies(io.StringIO("paraphrase idx,t0pp_acc,flan-t5-xl_acc\\n1,0.5,0.7\\n"))
        >>> list(frame.columns), float(frame.loc[1, "flan-t5-xl"])
        (['t0pp', 'flan-t5-xl'], 0.7)
    """
    raw = _read_csv(path, dtype=str)
    where = str(path) if isinstance(path, (str, Path)) else "<stream>"
    columns = list(raw.columns)
    if not columns or columns[0] != "paraphrase idx":
        raise ReaderError(where, 1, columns[0] if columns else "", "expected the first column 'paraphrase idx'")
    bad = [column for column in columns[1:] if not column.endswith("_acc") or column == "_acc"]
    if bad or len(columns) < 2:
        raise ReaderError(where, 1, bad[0] if bad else "", "expected one '<model>_acc' column per model")
    models = [column.removesuffix("_acc") for column in columns[1:]]
    if len(set(models)) != len(models):
        raise ReaderError(where, 1, "", "a model column repeats", "Give each model one column.")
    index = _integer_ids(raw, "paraphrase idx", where)
    values = raw[columns[1:]].apply(pd.to_numeric, errors="coerce").astype(float)
    invalid = values.isna() | (values < 0) | (values > 1)
    if invalid.to_numpy().any():
        row, column = np.argwhere(invalid.to_numpy())[0]
        raise ReaderError(
            where, int(row) + 2, columns[1 + int(column)], f"{raw.iloc[row, 1 + column]!r} is not an accuracy in [0, 1]"
        )
    frame = pd.DataFrame(
        values.to_numpy(), index=pd.Index(index, name="paraphrase"), columns=pd.Index(models, name="model")
    )
    return frame


def read_paraphrases(path: str | Path | IO[str]) -> pd.DataFrame:
    """Read one task's paraphrases as released by Mizrahi et al. (``paraphrases/*.csv``), duplicates flagged.

    Returns:
        One row per paraphrase (index ``paraphrase``) with columns ``template``, ``method``, ``default`` (bool: one
        of the benchmark's original templates), ``correct`` (bool: the authors judged the paraphrase faithful; only
        a ``1`` counts, so the one ``0?`` in the release is not correct), ``samples`` (int) and ``duplicate`` (bool:
        the same template text occurs at an earlier paraphrase id; kept, not dropped).

    Raises:
        ReaderError: The file is missing, lacks one of the columns ``prompt idx``, ``prompt template``, ``method``,
            ``default prompt``, ``correct``, ``samples``, or a paraphrase id repeats.

    Example:
        >>> import io
        >>> text = ("prompt idx,default prompt,method,prompt template,correct,samples\\n"
        ...         "1,True,default,Q: {x}?,1,100\\n2,False,rephrase,Q: {x}?,0?,100\\n")
        >>> read_paraphrases(io.StringIO(text))[["correct", "duplicate"]].to_dict("list")
        {'correct': [True, False], 'duplicate': [False, True]}
    """
    raw = _read_csv(path, dtype=str, keep_default_na=False)
    where = str(path) if isinstance(path, (str, Path)) else "<stream>"
    needed = ["prompt idx", "prompt template", "method", "default prompt", "correct", "samples"]
    missing = [column for column in needed if column not in raw.columns]
    if missing:
        raise ReaderError(where, 1, missing[0], f"missing column; expected columns {needed}")
    index = pd.Index(_integer_ids(raw, "prompt idx", where), name="paraphrase")
    return pd.DataFrame(
        {
            "template": raw["prompt template"].to_numpy(),
            "method": raw["method"].to_numpy(),
            "default": (raw["default prompt"].str.strip().str.lower() == "true").to_numpy(),
            "correct": (raw["correct"].str.strip() == "1").to_numpy(),
            "samples": pd.to_numeric(raw["samples"], errors="coerce").fillna(0).astype(int).to_numpy(),
            "duplicate": raw["prompt template"].duplicated().to_numpy(),
        },
        index=index,
    )


def _scores(accuracies: np.ndarray) -> tuple[float, float, float]:
    maxp, avgp = float(accuracies.max()), float(accuracies.mean())
    return maxp, avgp, maxp * (1.0 - (maxp - avgp))


def _read_csv(path: str | Path | IO[str], **options: Any) -> pd.DataFrame:
    try:
        return pd.read_csv(path, **options)
    except (FileNotFoundError, IsADirectoryError) as exc:
        raise ReaderError(str(path), 0, "", "file not found", "Check the path.") from exc
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ReaderError(str(path), 0, "", f"not a readable CSV file ({exc})") from exc


def _integer_ids(raw: pd.DataFrame, column: str, where: str) -> list[int]:
    ids = pd.to_numeric(raw[column], errors="coerce")
    for row, value in enumerate(ids):
        if math.isnan(value) or value != int(value):
            raise ReaderError(where, row + 2, column, f"{raw[column].iloc[row]!r} is not an integer id")
    duplicated = ids.duplicated()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        raise ReaderError(where, row + 2, column, f"id {int(ids.iloc[row])} repeats", "Give each row its own id.")
    return [int(value) for value in ids]
