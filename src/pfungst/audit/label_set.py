"""The audit's reading of a benchmark's layout: a fixed label set written as per-item options is audited as labels.

The same task written with its labels once (BIG-bench ``target_scores``) or repeated as every item's options (a
``question`` / ``choices`` / ``answer`` JSONL) gets the same audit: :func:`~pfungst.data.label_sets.detect_label_set`
finds the second layout, and this module says so on stderr (a warning) and checks that the named feature sets
still apply.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from pfungst.audit.feature_sets import get_feature_set
from pfungst.data.benchmark import Benchmark
from pfungst.data.label_sets import LabelSetDetection, LabelSetView, detect_label_set
from pfungst.errors import ConfigError

__all__ = ["audited_layout"]

_OFF = "pass --no-detect-label-set (detect_label_set=False) to audit the options as per-item choices"


def audited_layout(benchmark: Benchmark, enabled: bool, feature_sets: Sequence[str] = ()) -> LabelSetView:
    """``benchmark`` as the audit reads it: with shared labels when its items all offer one fixed label set.

    A detection is announced with a :class:`UserWarning` (one ``warning:`` line on the CLI's stderr).

    Args:
        benchmark: The benchmark to audit.
        enabled: Search for a fixed label set (the audit's ``detect_label_set``).
        feature_sets: The feature sets named in the settings (empty: the defaults, which follow the kind).

    Raises:
        ConfigError: a fixed label set was found and an option-level feature set is named; those need per-item
            choices.
    """
    view = detect_label_set(benchmark, enabled)
    if view.detection.detected:
        _check_feature_sets(benchmark.name, view.detection, feature_sets)
        warnings.warn(
            f"benchmark '{benchmark.name}': {view.detection.describe()} "
            f"(label imbalance is then not read as a gold-position artifact); {_OFF}",
            UserWarning,
            stacklevel=3,
        )
    return view


def _check_feature_sets(name: str, detection: LabelSetDetection, feature_sets: Sequence[str]) -> None:
    """Raise when an option-level feature set is named for a benchmark read as shared labels."""
    option_level = [set_name for set_name in feature_sets if get_feature_set(set_name).level == "option"]
    if option_level:
        labels = ", ".join(repr(label) for label in detection.labels)
        raise ConfigError(
            f"benchmark '{name}': every item offers the same options ({labels}), so it is audited as shared labels, "
            f"where the option-level feature sets {', '.join(option_level)} do not apply. Name item-level feature "
            f"sets (e.g. --feature-set 1-grams_presence), or {_OFF}"
        )
