"""Which items a shortcut solves: the audit's out-of-fold probe predictions, per item.

An audit (an :class:`~pfungst.audit.AuditResult`, the dict of ``pfungst audit --json``, or the path of that file)
holds, for every feature set, each item's out-of-fold prediction in every repeat of the cross-fitting; per item,
``ProbeOutcome.share_correct`` is the share of repeats that predicted it right (NaN for items never predicted, e.g.
the training items of the paper's single split). An item is *solvable* when that share exceeds ``min_share``
(default 0.5: a strict majority of repeats; with the default 2 repeats, both). Items never predicted are neither
solvable nor the rest: they are left out and counted. Each item's gold class is kept too: the items a probe
solves often share a label (a probe that always answers "yes" solves exactly the "yes" items), so the analysis also
compares solvable and other items within each gold class.

The probe is the audit's verdict probe (the feature set with the best statistic) unless ``feature_set`` names
another. The chance rate ``c`` of the chance-corrected accuracies is the probe's ``settings["chance"]``: ``1/K``
for a shared label set, the mean of ``1/K`` over items for per-item choices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.audit.probe_protocol import PROTOCOLS
from pfungst.audit.result import AuditResult
from pfungst.data.item import FrozenMapping
from pfungst.data.records import json_value
from pfungst.data.result_bytes import result_bytes
from pfungst.errors import ConfigError, DataError, ReaderError, unknown_name_message
from pfungst.schema import Fields, check_depth

__all__ = ["AuditInput", "ShortcutItems", "load_audit", "read_audit", "shortcut_items"]

AuditInput = AuditResult | Mapping[str, Any] | str | Path
"""What :func:`shortcut_items` and :func:`pfungst.reliance.reliance` accept as an audit."""


@dataclass(frozen=True, eq=False)
class ShortcutItems:
    """One audited dataset's items split by whether a surface-feature probe solves them out of fold."""

    dataset: str
    """The audited benchmark's name (what model outcomes' ``dataset`` must match)."""
    feature_set: str
    protocol: str
    """How the split was made: the probe's protocol by name (``crossfit``), or ``shortcut table``."""
    item_ids: tuple[str, ...]
    """Every audited item, predicted or not."""
    solvable: Mapping[str, bool]
    """For each item the probe predicted: whether it predicted it right (share of repeats > ``min_share``)."""
    gold: Mapping[str, str]
    """Each item's gold class (label, or option position), the strata of the within-label comparison."""
    chance: float
    """Chance accuracy: ``1/K`` for shared labels, mean ``1/K`` for per-item choices."""
    kappa: float
    """The probe's Cohen's kappa (mean over repeats)."""
    kappa_pvalue: float
    """Its permutation p-value (NaN if not computed)."""
    n_repeats: int
    min_share: float
    constant: bool
    """Whether the probe predicted one class for every item in its first repeat (then "solvable" only means "has
    that gold class")."""
    file_counts: tuple[int, int, int] = (-1, -1, -1)
    """``(n_items, n_predicted, n_solvable)`` as read from a result file (which holds no per-item split); all -1
    when the split is held."""

    @property
    def probed(self) -> bool:
        """Whether a probe made the split (its protocol is a probe protocol's name), so its kappa says whether it
        beats chance; a shortcut table's column of another kind has none."""
        return self.protocol in PROTOCOLS

    @property
    def n_solvable(self) -> int:
        return self.file_counts[2] if self.file_counts[2] >= 0 else sum(self.solvable.values())

    @property
    def n_items(self) -> int:
        """Audited items, predicted or not."""
        return self.file_counts[0] if self.file_counts[0] >= 0 else len(self.item_ids)

    @property
    def n_predicted(self) -> int:
        """Items the probe predicted out of fold."""
        return self.file_counts[1] if self.file_counts[1] >= 0 else len(self.solvable)

    @classmethod
    def from_fields(cls, fields: Fields) -> ShortcutItems:
        """Read :meth:`to_dict` back: the counts, not the per-item split.

        Raises:
            ReaderError: a value of the wrong type or a missing key, naming the file and the field.
        """
        return cls(
            dataset=fields.string("dataset"),
            feature_set=fields.string("feature_set"),
            protocol=fields.string("protocol"),
            item_ids=(),
            solvable={},
            gold={},
            chance=fields.number("chance"),
            kappa=fields.number("kappa"),
            kappa_pvalue=fields.number("kappa_pvalue"),
            n_repeats=fields.integer("n_repeats"),
            min_share=fields.number("min_share"),
            constant=fields.boolean("constant"),
            file_counts=(fields.integer("n_items"), fields.integer("n_predicted"), fields.integer("n_solvable")),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe summary with stable keys (counts, not the items)."""
        return {
            "dataset": self.dataset,
            "feature_set": self.feature_set,
            "protocol": self.protocol,
            "n_items": self.n_items,
            "n_predicted": self.n_predicted,
            "n_solvable": self.n_solvable,
            "chance": self.chance,
            "kappa": None if math.isnan(self.kappa) else self.kappa,
            "kappa_pvalue": None if math.isnan(self.kappa_pvalue) else self.kappa_pvalue,
            "n_repeats": self.n_repeats,
            "min_share": self.min_share,
            "constant": self.constant,
            "rule": f"solvable: share of {self.n_repeats} repeat(s) predicting it right > {self.min_share:g}",
        }

    def __repr__(self) -> str:
        return (
            f"ShortcutItems({self.dataset!r}, {self.feature_set}, {self.n_solvable} of {len(self.solvable)} "
            f"predicted items solvable)"
        )


def shortcut_items(audit: AuditInput, feature_set: str | None = None, min_share: float = 0.5) -> ShortcutItems:
    """The items of one audit that its probe solves out of fold.

    Args:
        audit: An :class:`AuditResult`, the dict of ``pfungst audit --json`` (written with per-item predictions), or
            that file's path.
        feature_set: The probe to use; None for the verdict's (best) probe.
        min_share: An item is solvable when the share of repeats that predicted it right exceeds this.

    Raises:
        ConfigError: an unknown feature set; ``min_share`` outside [0, 1).
        DataError: an audit dict without per-item predictions, or not an audit at all.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> import pfungst
        >>> result = pfungst.audit.audit(make_synthetic("cue-word", 200), feature_sets=("1-grams_presence",),
        ...                        n_bootstrap=50, n_permutations=50, cues=False, heuristics=False)
        >>> split = shortcut_items(result)
        >>> split.feature_set, len(split.solvable), 0 < split.n_solvable < len(split.solvable)
        ('1-grams_presence', 200, True)
    """
    if not 0 <= min_share < 1:
        raise ConfigError(f"min_share must lie in [0, 1), found {min_share}. Use 0.5 for a majority of repeats.")
    return _from_result(read_audit(audit), feature_set, min_share)


def _from_result(audit: AuditResult, feature_set: str | None, min_share: float) -> ShortcutItems:
    names = [p.feature_set for p in audit.probes]
    if feature_set is not None and feature_set not in names:
        raise ConfigError(unknown_name_message("feature set of this audit", feature_set, names))
    probe = audit.probe(feature_set) if feature_set else audit.best
    if not probe.item_ids:
        raise DataError(
            f"the audit of {audit.benchmark['name']!r} holds no per-item predictions for {probe.feature_set}. Write "
            "it with AuditResult.save_json(path, items=True) (pfungst audit --json does)."
        )
    if "chance" not in probe.settings:
        raise DataError(f"the audit of {audit.benchmark['name']!r}: probe {probe.feature_set} records no chance rate")
    shares = {item: float(share) for item, share in zip(probe.item_ids, probe.share_correct, strict=True)}
    predictions = probe.prediction[probe.predicted]
    return ShortcutItems(
        dataset=str(audit.benchmark["name"]),
        feature_set=probe.feature_set,
        protocol=probe.protocol.name,
        item_ids=tuple(probe.item_ids),
        solvable=_solvable(shares, min_share),
        gold=FrozenMapping({item: probe.classes[g] for item, g in zip(probe.item_ids, probe.gold, strict=True)}),
        chance=float(probe.settings["chance"]),
        kappa=probe.kappa.value,
        kappa_pvalue=probe.kappa.pvalue,
        n_repeats=len(probe.per_repeat),
        min_share=min_share,
        constant=len(set(predictions.tolist())) <= 1,
    )


def read_audit(audit: AuditInput) -> AuditResult:
    """An audit as an :class:`AuditResult`: a dict or a file read by ``AuditResult.from_dict``, the reader
    ``pfungst report`` uses, so that an audit file one command refuses no other accepts.

    Raises:
        DataError: the file cannot be read; ReaderError: not JSON, another ``schema_version``, or a value out of
            its range (a negative count, an interval whose low is above its high), naming the file and the field.
    """
    if isinstance(audit, AuditResult):
        return audit
    if isinstance(audit, Mapping):
        return _checked(audit, "<dict>")
    return load_audit(Path(audit))


def load_audit(path: Path) -> AuditResult:
    """The audit in a JSON file (gzip-compressed too, inflated within :func:`~pfungst.data.result_bytes.result_bytes`'s
    bound), read and checked as :func:`read_audit` does.

    Raises:
        DataError: the file cannot be read; ReaderError: as :func:`read_audit`, or gzip data that is truncated,
            corrupt or inflates past the bound.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read an audit JSON ({exc}). Write one with pfungst audit --json.") from exc
    text = result_bytes(path, raw)
    return _checked(json_value(text, path, hint="Pass what pfungst audit --json wrote"), str(path))


def _checked(data: Any, source: str) -> AuditResult:
    if not isinstance(data, Mapping):
        raise ReaderError(source, 0, "", f"expected an audit JSON object, found {type(data).__name__}")
    check_depth(data, source)
    return AuditResult.from_dict(data, source)


def _solvable(shares: Mapping[str, float], min_share: float) -> FrozenMapping:
    return FrozenMapping({item: share > min_share for item, share in shares.items() if not math.isnan(share)})
