"""The validity screen as a per-item flag beside an audit's shortcut flags: ``wrong-key``, one row per audited item.

The audit sees no model, so it cannot suspect a key; the validity screen (:func:`~pfungst.reliance.validity.validity`)
can, from several models' outcomes. :func:`wrong_key_flags` turns its suspected items into a
:class:`~pfungst.audit.item_flags.FlagColumn` on the audit's items, which
:meth:`~pfungst.audit.item_flags.ItemFlags.with_column` adds to the audit's flags (the findings report does so when
given a validity result).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pfungst.audit.item_flags import FlagColumn, flag_share
from pfungst.errors import ConfigError
from pfungst.reliance.validity.result import ItemValidity, ValidityResult

__all__ = ["wrong_key_flags"]

_FIX = (
    "check each flagged item's key against its source; where the models' agreed answer is right, correct the key, "
    "and where the item is ambiguous, rewrite or drop it"
)


def wrong_key_flags(result: ValidityResult, item_ids: Sequence[str]) -> FlagColumn:
    """The ``wrong-key`` flag on ``item_ids``: the items whose key the validity screen suspects, with its evidence.

    Args:
        result: A validity screen of the same benchmark's items (``pfungst validity --outcomes ...``).
        item_ids: The audited items, in order; an item the screen did not see is not flagged.

    Raises:
        ConfigError: the screen names none of ``item_ids`` (outcomes of another benchmark, or other ids).

    Example:
        >>> from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes
        >>> from pfungst.reliance.validity import ValidityConfig, validity
        >>> def model(name, answers):
        ...     chosen = {f"q{i}": ItemAnswer(a, "yes" if i else "no") for i, a in enumerate(answers)}
        ...     return ModelOutcomes(name, "toy", {k: a.chosen == a.gold for k, a in chosen.items()}, "", "csv",
        ...                          answers=chosen)
        >>> screen = validity([model(f"m{n}", ["yes"] * 10) for n in range(8)], ValidityConfig(irt=False))
        >>> column = wrong_key_flags(screen, [f"q{i}" for i in range(10)])
        >>> column.count, column.evidence[0].split(" (")[0]
        (1, "8 of 8 models answer 'yes', not the key 'no'")
    """
    screened: dict[str, list[ItemValidity]] = {}
    for screen in result.datasets:
        for item in screen.items:
            screened.setdefault(item.item_id, []).append(item)
    if screened and not screened.keys() & set(item_ids):
        raise ConfigError(
            f"the validity screen names none of the {len(item_ids)} audited items (its ids start "
            f"{', '.join(sorted(screened)[:3])}; the audit's {', '.join(list(item_ids)[:3])}). Pass the validity "
            "result of this benchmark's outcomes (pfungst validity --outcomes ...)."
        )
    suspects = [next((item for item in screened.get(i, ()) if item.suspected), None) for i in item_ids]
    settings = result.provenance.settings
    models = sorted({model for screen in result.datasets for model in screen.models})
    return FlagColumn(
        code="wrong-key",
        title="key suspected wrong",
        source="validity",
        flagged=tuple(item is not None for item in suspects),
        evidence=tuple(_evidence(item) if item is not None else "" for item in suspects),
        share=flag_share(sum(item is not None for item in suspects), len(item_ids), math.nan),
        threshold=math.nan,
        method=f"the validity screen of {len(models)} models' outcomes: more than {settings.get('majority', 0.5):g} "
        "of the models that answered agree on one answer other than the key, beyond each model's own choice rates "
        f"(Poisson-binomial test, Benjamini-Hochberg q <= {settings.get('alpha', 0.05):g} over the items), the "
        "stronger models do not do better on the key, and the strength-weighted vote favours the agreed answer",
        fix=_FIX,
    )


def _evidence(item: ItemValidity) -> str:
    text = f"{item.n_agreed} of {item.n_models} models answer {item.agreed_answer!r}, not the key {item.key!r}"
    extra = f"q = {item.qvalue:.3g}"
    if not math.isnan(item.item_rest):
        extra += f"; item-rest correlation {item.item_rest:.2f}"
    return f"{text} ({extra})"
