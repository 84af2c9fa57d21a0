"""Cue tables after Niven & Kao 2019: which words give the answer away, how often, and how reliably.

Two kinds of benchmark, two kinds of cue (n-grams of lower-cased word tokens, 1- and 2-grams by default):

- **Per-item choices** (ARCT warrants, multiple-choice options). A cue ``k`` is *applicable* to an item when it
  occurs in some but not all of the item's options; its applicability ``alpha_k`` counts those items, its
  *productivity* ``pi_k`` is the share of them where ``k`` occurs in the gold option, its *coverage* ``xi_k`` is
  ``alpha_k / n``. With two options "some but not all" is Niven & Kao's "in one option but not the other", so the
  figures reduce exactly to theirs. Without any association a cue in ``m`` of ``K`` options sits in the gold one
  with probability ``m / K``; the mean of that over the applicable items is the row's ``base_rate`` (0.5 for two
  options), and the p-value tests productivity against it (two-sided; exact binomial when every item has two
  options, else a normal approximation to the Poisson-binomial with continuity correction).
- **Shared labels** (NLI hypotheses, any text field). For each n-gram ``k`` and label ``l``: ``count`` = items whose
  text contains ``k``, coverage = ``count / n``, productivity = P(l | k present), ``base_rate`` = P(l). The p-value
  is Fisher's exact test of over-representation (one-sided, hypergeometric: does ``k`` occur with ``l`` more often
  than the label's base rate allows?), as in Gururangan et al. 2018's hypothesis cues.

q-values are Benjamini-Hochberg adjusted across every (cue, label) row that passed the ``min_count`` filter.

Example:
    >>> from pfungst.data.synthetic import make_synthetic
    >>> table = find_cues(make_synthetic("cue-word", 300), config=CueConfig(fields=("hypothesis",), top_k=1))
    >>> table.cues[0].cue, table.cues[0].label
    ('never', 'contradiction')
"""

from __future__ import annotations

import re
import warnings
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

from pfungst.audit.inputs import item_texts
from pfungst.audit.ngram_presence import NgramPresence
from pfungst.data.benchmark import Benchmark
from pfungst.data.option_kind import OptionKind
from pfungst.errors import ConfigError
from pfungst.serialization import to_jsonable
from pfungst.stats import benjamini_hochberg, hypergeometric_pvalues, normal_pvalues, sign_test_pvalues

__all__ = ["GOLD_OPTION", "Cue", "CueConfig", "CueTable", "find_cues", "tokenize"]

GOLD_OPTION = "(gold option)"
"""The ``label`` of per-item cue rows: the cue points at the gold option, whatever its text."""

_CANNOT = re.compile(r"\bcannot\b")
_NOT_CONTRACTION = re.compile(r"n't\b")
_WORD = re.compile(r"\w+")


def tokenize(text: str, expand_negations: bool = True) -> list[str]:
    """Lower-cased word tokens (``\\w+`` runs), so that cue tables count words as a reader sees them.

    Args:
        text: Any text.
        expand_negations: Rewrite ``n't`` as `` not`` and ``cannot`` as ``can not`` first, so that every written
            negation counts as the cue ``not`` (as Niven & Kao's own counting of "not" and "n't" did). Default True.

    Example:
        >>> tokenize("Don't go; it CANNOT rain.")
        ['do', 'not', 'go', 'it', 'can', 'not', 'rain']
    """
    text = text.lower().replace("\u2019", "'")
    if expand_negations:
        text = _NOT_CONTRACTION.sub(" not", _CANNOT.sub("can not", text))
    return _WORD.findall(text)


def _ngrams(text: str, ngram_range: tuple[int, int], expand_negations: bool) -> list[str]:
    tokens = tokenize(text, expand_negations)
    low, high = ngram_range
    return [" ".join(tokens[i : i + n]) for n in range(low, high + 1) for i in range(len(tokens) - n + 1)]


@dataclass(frozen=True)
class CueConfig:
    """How to build a cue table."""

    ngram_range: tuple[int, int] = (1, 2)
    """Smallest and largest n-gram length, in words (Niven & Kao: unigrams and bigrams)."""
    min_count: int = 5
    """Rows whose applicability (per-item) or item count (shared labels) is below this are not tested or shown."""
    top_k: int = 50
    """How many ranked rows the table keeps; 0 keeps every tested row."""
    fields: tuple[str, ...] = ()
    """Shared labels only: named fields that make up the text (``("hypothesis",)``); empty = the item text."""
    expand_negations: bool = True
    """Count ``n't`` and ``cannot`` as ``not`` (see :func:`tokenize`)."""
    rank_by: Literal["pvalue", "productivity"] = "pvalue"
    """``pvalue``: most significant first (ties by distance from the base rate); ``productivity``: Niven & Kao's
    order, most productive first (ties by count)."""

    def __post_init__(self) -> None:
        low, high = self.ngram_range
        if not 1 <= low <= high:
            raise ConfigError(f"ngram_range must satisfy 1 <= low <= high, not {self.ngram_range}")
        if self.min_count < 1 or self.top_k < 0:
            raise ConfigError(f"min_count must be >= 1 and top_k >= 0, not {self.min_count} and {self.top_k}")
        if self.rank_by not in ("pvalue", "productivity"):
            raise ConfigError(f"rank_by must be 'pvalue' or 'productivity', not {self.rank_by!r}")


@dataclass(frozen=True)
class Cue:
    """One row of a cue table."""

    cue: str
    """The n-gram (words joined by one space)."""
    label: str
    """The label it points at (shared labels), or :data:`GOLD_OPTION` (per-item choices)."""
    count: int
    """Per-item: applicability alpha_k (items where it is in some but not all options). Shared: items with it."""
    hits: int
    """Of those, items where it sits in the gold option (per-item) or whose gold label is ``label`` (shared)."""
    productivity: float
    """``hits / count``."""
    coverage: float
    """``count / n_items``."""
    base_rate: float
    """What productivity would be without any association (see the module docstring)."""
    pvalue: float
    """Test of productivity against the base rate (see the module docstring)."""
    qvalue: float
    """Benjamini-Hochberg adjusted p-value across every tested row."""


@dataclass(frozen=True)
class CueTable:
    """A ranked cue table with how it was made; :meth:`to_frame` gives one row per (cue, label)."""

    benchmark: str
    """Name of the benchmark."""
    kind: OptionKind
    """``per_item`` (cues among an item's options) or ``shared_labels`` (cues for labels)."""
    n_items: int
    """Items in the benchmark (the coverage denominator)."""
    n_tested: int
    """Rows tested (the Benjamini-Hochberg family), before ``top_k``."""
    cues: tuple[Cue, ...]
    """The ranked rows, at most ``config.top_k`` of them."""
    method: str
    """The test behind ``pvalue``."""
    config: CueConfig
    """The settings used."""

    def __repr__(self) -> str:
        top = ", ".join(f"{c.cue!r}->{c.label} ({c.productivity:.2f}/{c.coverage:.2f})" for c in self.cues[:3])
        return f"CueTable(benchmark={self.benchmark!r}, kind={self.kind.value!r}, rows={len(self.cues)}, top=[{top}])"

    def get(self, cue: str, label: str = GOLD_OPTION) -> Cue:
        """The row for ``cue`` and ``label``.

        Raises:
            KeyError: the row is not in the table (below ``min_count``, or cut by ``top_k``).
        """
        for row in self.cues:
            if row.cue == cue and row.label == label:
                return row
        raise KeyError(f"no row for cue {cue!r} and label {label!r} in this table; lower min_count or set top_k=0")

    def to_frame(self) -> pd.DataFrame:
        """One row per (cue, label), ranked: cue, label, count, hits, productivity, coverage, base_rate, pvalue,
        qvalue."""
        columns = [name for name in Cue.__dataclass_fields__]
        return pd.DataFrame([asdict(row) for row in self.cues], columns=columns)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "benchmark": self.benchmark,
            "kind": self.kind.value,
            "n_items": self.n_items,
            "n_tested": self.n_tested,
            "method": self.method,
            "config": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.config).items()},
            "cues": [to_jsonable(asdict(row)) for row in self.cues],
        }


def find_cues(benchmark: Benchmark, *, config: CueConfig | None = None) -> CueTable:
    """Rank the n-grams that give a benchmark's answers away, with productivity, coverage and a test for each.

    Per-item benchmarks get option cues (Niven & Kao 2019), shared-label benchmarks get label cues (Gururangan et
    al. 2018); see the module docstring for the definitions.

    Args:
        benchmark: The benchmark to inspect.
        config: Settings (n-gram range, ``min_count``, ``top_k``, fields, ranking); defaults to ``CueConfig()``.

    Raises:
        ConfigError: ``config.fields`` names a field some item lacks.
    """
    config = config or CueConfig()
    if benchmark.option_kind.has_positions:
        if config.fields:
            warnings.warn(
                "CueConfig.fields has no effect on per-item benchmarks: their cues are read from the options",
                UserWarning,
                stacklevel=2,
            )
        counts, method = _option_counts(benchmark, config)
    else:
        counts, method = _label_counts(benchmark, config)
    frame = _rank(counts, config)
    cues = tuple(Cue(**{str(key): value for key, value in row.items()}) for row in frame.to_dict("records"))
    return CueTable(benchmark.name, benchmark.option_kind, len(benchmark), len(counts), cues, method, config)


def _vectorizer(config: CueConfig) -> CountVectorizer:
    analyzer = partial(_ngrams, ngram_range=config.ngram_range, expand_negations=config.expand_negations)
    return CountVectorizer(analyzer=analyzer, binary=True, dtype=np.int32)


def _option_counts(benchmark: Benchmark, config: CueConfig) -> tuple[pd.DataFrame, str]:
    """Applicability, hits and the no-association expectation of each n-gram over per-item options."""
    sizes = np.array([item.n_options for item in benchmark], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    vectorizer = _vectorizer(config)
    presence = vectorizer.fit_transform([option for item in benchmark for option in item.options]).tocsr()
    owner = np.repeat(np.arange(len(benchmark)), sizes)
    to_item = sparse.csr_matrix(
        (np.ones(len(owner)), (owner, np.arange(len(owner)))), shape=(len(benchmark), len(owner))
    )
    in_options = (to_item @ presence).tocsr()  # items x n-grams: how many options contain it
    rows = np.repeat(np.arange(len(benchmark)), np.diff(in_options.indptr))
    share = in_options.data / sizes[rows]
    applicable = in_options.copy()
    applicable.data = (share < 1).astype(np.float64)  # stored entries are > 0 already
    expected = in_options.copy()
    expected.data = np.where(share < 1, share, 0.0)
    gold_rows = starts + np.array([item.gold for item in benchmark], dtype=np.int64)
    frame = pd.DataFrame(
        {
            "cue": vectorizer.get_feature_names_out(),
            "label": GOLD_OPTION,
            "count": np.asarray(applicable.sum(axis=0)).ravel().astype(int),
            "hits": np.asarray(presence[gold_rows].multiply(applicable).sum(axis=0)).ravel().astype(int),
            "expected": np.asarray(expected.sum(axis=0)).ravel(),
            "variance": np.asarray((expected - expected.multiply(expected)).sum(axis=0)).ravel(),
        }
    )
    frame = frame[frame["count"] >= config.min_count].reset_index(drop=True)
    two_options = bool(np.all(sizes == 2))
    frame["pvalue"] = _option_pvalues(frame, two_options)
    frame["base_rate"] = frame["expected"] / frame["count"]
    frame["coverage"] = frame["count"] / len(benchmark)
    method = (
        "two-sided exact binomial test of productivity against 0.5"
        if two_options
        else "two-sided normal approximation (continuity-corrected) to the Poisson-binomial null"
    )
    return frame.drop(columns=["expected", "variance"]), method


def _option_pvalues(frame: pd.DataFrame, two_options: bool) -> np.ndarray:
    hits, count = frame["hits"].to_numpy(), frame["count"].to_numpy()
    if two_options:
        return sign_test_pvalues(hits, count)
    return normal_pvalues(hits, frame["expected"].to_numpy(), frame["variance"].to_numpy())


def _label_counts(benchmark: Benchmark, config: CueConfig) -> tuple[pd.DataFrame, str]:
    """Per (n-gram, label): items with the n-gram, of which with that label, and Fisher's one-sided p-value.

    Rows come in the order of the n-grams' spelling (as ``CountVectorizer`` sorts its vocabulary), labels in their
    order within each n-gram."""
    texts = item_texts(benchmark, config.fields)
    labels = benchmark.labels
    gold = np.array([item.gold for item in benchmark], dtype=np.int64)
    tally = NgramPresence.count(
        (tokenize(text, config.expand_negations) for text in texts),
        config.ngram_range,
        classes=gold,
        n_classes=len(labels),
        min_documents=config.min_count,
    )
    names = tally.names()
    order = np.argsort(names, kind="stable") if names.size else np.zeros(0, dtype=np.int64)
    names, counts, hits = names[order], tally.documents[order], tally.by_class[order].ravel()
    totals = np.bincount(gold, minlength=len(labels))
    n = len(benchmark)
    frame = pd.DataFrame(
        {
            "cue": np.repeat(names, len(labels)),
            "label": np.tile(np.array(labels, dtype=object), len(names)),
            "count": np.repeat(counts, len(labels)).astype(int),
            "hits": hits.astype(int),
            "base_rate": np.tile(totals / n, len(names)),
        }
    )
    frame["pvalue"] = hypergeometric_pvalues(frame["hits"], n, np.tile(totals, len(names)), frame["count"])
    frame["coverage"] = frame["count"] / n
    return frame, "one-sided Fisher's exact test (hypergeometric) of over-representation"


def _rank(frame: pd.DataFrame, config: CueConfig) -> pd.DataFrame:
    """Add productivity and q-values, order the rows, keep the top ``config.top_k``."""
    frame = frame.copy()
    frame["productivity"] = frame["hits"] / frame["count"]
    pvalues = np.clip(frame["pvalue"].to_numpy(dtype=float), 0.0, 1.0)
    frame["pvalue"] = pvalues
    frame["qvalue"] = benjamini_hochberg(pvalues).qvalues if len(frame) else pvalues
    frame["_lift"] = (frame["productivity"] - frame["base_rate"]).abs()
    if config.rank_by == "pvalue":
        frame = frame.sort_values(["pvalue", "_lift", "count", "cue"], ascending=[True, False, False, True])
    else:
        frame = frame.sort_values(["productivity", "count", "cue"], ascending=[False, False, True])
    if config.top_k:
        frame = frame.head(config.top_k)
    columns = ["cue", "label", "count", "hits", "productivity", "coverage", "base_rate", "pvalue", "qvalue"]
    return frame[columns].reset_index(drop=True)
