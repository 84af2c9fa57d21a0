"""Which feature sets (and how many cross-fitting repeats) a default audit runs, by the benchmark's size.

A shared-label benchmark's default is the 13 feature sets of Pacchiardi et al. 2024 up to :data:`MEDIUM_ITEMS`
items (100,000), with ``n_repeats`` (2) repeats up to :data:`REPEAT_ITEMS` (10,000) and one past that; past
:data:`MEDIUM_ITEMS` a subset chosen to keep a default audit within about ten minutes of one core: the cost of a
set grows with the items (its refits on every training fold, its encoding). The 13 sets with one repeat took 273
CPU s at 100,000 synthetic items, 2 cores shared with another job (``benchmarks/audit_scaling.py``). Per-item
benchmarks, the ``pacchiardi2024`` protocol
(:meth:`~pfungst.audit.pacchiardi2024_protocol.Pacchiardi2024.default_sets`) and named feature sets are not cut.
:func:`size_default` says which sets run and why; the audit records that in its settings (``feature_sets``,
``feature_sets_reason``, ``n_repeats``) and prints it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pfungst.audit.audit_config import LARGE_ITEMS, MEDIUM_ITEMS, REPEAT_ITEMS, check_size_limits
from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, builtin_defaults
from pfungst.data.benchmark import Benchmark

__all__ = [
    "LARGE_DEFAULTS",
    "LARGE_ITEMS",
    "MEDIUM_DEFAULTS",
    "MEDIUM_ITEMS",
    "REPEAT_ITEMS",
    "SizeDefault",
    "check_size_limits",
    "default_feature_sets",
    "size_default",
]

MEDIUM_DEFAULTS: tuple[str, ...] = ("1-grams_presence", "1-grams_tfidf", "readability")
"""Word 1-gram presence and TF-IDF, and the readability and length set: the word sets that name cue words, and the
one dense set (length, sentence and word statistics), without the GPT-2 token sets (their cues show in the word sets
too) and the 2-gram sets, which cost most at this size."""
LARGE_DEFAULTS: tuple[str, ...] = ("1-grams_presence",)
"""Word 1-gram presence: the set that names planted words, and the cheapest of the word sets to refit."""
SIZE_REPEATS = 1
"""Cross-fitting repeats of a default past :data:`REPEAT_ITEMS` items: with tens of thousands of items the fold
assignment moves kappa by far less than the bootstrap interval's width, so a second repeat doubles the fits for
little."""


@dataclass(frozen=True)
class SizeDefault:
    """The feature sets and repeats an audit runs, and why (recorded in its settings and printed with it)."""

    feature_sets: tuple[str, ...]
    """The feature sets probed, in order."""
    n_repeats: int
    """Repeats of the cross-fitting."""
    reason: str
    """Why these sets: named, the default for the benchmark's kind, or the size-aware subset (with the size)."""
    reduced: bool = False
    """True when the benchmark's size cut the default to a subset (the audit then warns)."""


def default_feature_sets(
    benchmark: Benchmark, size_limits: tuple[int, int, int] = (REPEAT_ITEMS, MEDIUM_ITEMS, LARGE_ITEMS)
) -> tuple[str, ...]:
    """The feature sets a default (cross-fitted) audit of ``benchmark`` probes (see :func:`size_default`).

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> default_feature_sets(make_synthetic("cue-word", 300), size_limits=(50, 100, 200))
        ('1-grams_presence',)
    """
    return size_default(benchmark, 2, size_limits=size_limits).feature_sets


def size_default(
    benchmark: Benchmark,
    n_repeats: int,
    *,
    size_limits: tuple[int, int, int] = (REPEAT_ITEMS, MEDIUM_ITEMS, LARGE_ITEMS),
    all_sets: bool = False,
) -> SizeDefault:
    """The default feature sets and repeats for ``benchmark`` (cross-fitted), and the reason.

    Shared labels, with ``size_limits = (repeat, medium, large)``: the 13 paper sets up to ``medium`` items, with
    ``n_repeats`` up to ``repeat`` items and :data:`SIZE_REPEATS` past that (``n_repeats`` when smaller);
    :data:`MEDIUM_DEFAULTS` up to ``large``, :data:`LARGE_DEFAULTS` past that, both with :data:`SIZE_REPEATS`.
    Per-item choices: the sets that declare ``per_item`` in their ``default_for``, at any size. ``all_sets`` keeps
    the 13 sets and ``n_repeats`` at any size.
    """
    if benchmark.option_kind.has_positions:
        return SizeDefault(builtin_defaults(benchmark.option_kind), n_repeats, "the default for per-item choices")
    n_items, (repeat, medium, large) = len(benchmark), size_limits
    if all_sets and n_items > repeat:
        return SizeDefault(PAPER_FEATURE_SETS, n_repeats, "the 13 paper feature sets: all sets asked for")
    if n_items <= repeat:
        return SizeDefault(
            PAPER_FEATURE_SETS, n_repeats, f"the 13 paper feature sets: the default up to {repeat:,} items"
        )
    repeats = min(n_repeats, SIZE_REPEATS)
    once = f"{repeats} repeat of the cross-fitting (the fold assignment moves kappa far less than the interval's width)"
    if n_items <= medium:
        return SizeDefault(
            PAPER_FEATURE_SETS,
            repeats,
            f"the 13 paper feature sets with {once}: the default for {repeat:,} to {medium:,} items ({n_items:,} "
            "here); --n-repeats applies to named sets (--feature-set) or with --all-feature-sets",
        )
    if n_items <= large:
        return SizeDefault(
            MEDIUM_DEFAULTS,
            repeats,
            f"the default for {medium:,} to {large:,} items ({n_items:,} here): word 1-gram presence and TF-IDF "
            f"and readability, with {once}, instead of the 13 paper sets (the GPT-2 token and 2-gram sets cost "
            f"several times as much at this size); {_ASK_ALL}",
            True,
        )
    return SizeDefault(
        LARGE_DEFAULTS,
        repeats,
        f"the default past {large:,} items ({n_items:,} here): word 1-gram presence, the set that names planted "
        f"words, with {once}, instead of the 13 paper sets, which take hours at this size; {_ASK_ALL}",
        True,
    )


_ASK_ALL = "--all-feature-sets (all_feature_sets=True) probes all 13, or name the sets with --feature-set"
