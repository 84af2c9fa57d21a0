"""Synthetic benchmarks with planted artifacts, for ``pfungst demo`` and for testing the audit end to end.

Item texts are random word sequences, so nothing but the planted artifact can predict the answer:

- ``longest-option``: the 4-option toy from the literature. The gold option is the unique longest in 45% of
  items and tied for longest (with one distractor) in 15%; in the other 40% a distractor is longer. "Pick the
  longest" (ties broken at random) is right 0.45 + 0.15 / 2 = 52.5% of the time: chance-corrected accuracy
  (0.525 - 0.25) / 0.75 = 0.37.
- ``cue-word``: a 3-label NLI-shaped task; the word ``never`` appears in the hypothesis of 70% of
  ``contradiction`` items and of 5% of the others (a hypothesis-only cue, as Gururangan et al. 2018 found).
- ``gold-position``: 4 options, gold in the first slot for 55% of items and uniform over the others otherwise.
- ``control``: 4 options, nothing planted. Any "signal" an audit finds here is a false positive.

Every generator takes ``n_items`` and ``seed``; the same seed gives the same benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pfungst.data.benchmark import Benchmark, DataSource
from pfungst.data.item import Item
from pfungst.data.option_kind import OptionKind
from pfungst.errors import ConfigError
from pfungst.registry import Registry

__all__ = ["SYNTHETIC", "SyntheticSpec", "make_synthetic"]

# Five-letter words only: an option's length in characters is then a fixed function of its length in words, so
# "longest" means the same in characters, words and (nearly) tokens.
_WORD_LIST = (
    "apple brick cloud dance eagle flame grape house image jelly knife lemon maple night ocean piano queen river "
    "stone table uncle vivid whale yacht zebra amber bloom charm daisy ember frost giant honey ivory joker karma "
    "lunar mango noble olive pearl quilt robin solar tiger urban vapor wheat xenon yield zonal arrow beach candy "
    "denim elbow fairy globe hazel index jolly koala lilac medal nylon orbit plaza quota radar salad torch unity "
    "vault waltz youth badge cabin diner envoy fiber grain haven inlet jumbo kiosk lodge mural nerve opera patio"
)
_WORDS = _WORD_LIST.split()
_LABELS = ("entailment", "neutral", "contradiction")


def _words(rng: np.random.Generator, count: int) -> str:
    return " ".join(rng.choice(_WORDS, size=count))


def _longest_option_item(rng: np.random.Generator, index: int) -> Item:
    kind = str(rng.choice(["longest", "tied", "shorter"], p=[0.45, 0.15, 0.40]))
    if kind == "shorter":  # some distractor is strictly longer than the gold option
        gold_length = int(rng.integers(1, 5))
        distractors = [
            int(rng.integers(gold_length + 1, gold_length + 4)),
            *rng.integers(1, gold_length + 4, size=2).tolist(),
        ]
    else:  # the gold option is the longest; "tied" makes one distractor exactly as long
        gold_length = int(rng.integers(4, 7))
        distractors = rng.integers(1, gold_length, size=3).tolist()
        if kind == "tied":
            distractors[0] = gold_length
    rng.shuffle(distractors)
    options = [_words(rng, int(length)) for length in distractors]
    gold = int(rng.integers(0, 4))
    options.insert(gold, _words(rng, gold_length))
    text = f"Which option goes with: {_words(rng, 6)}?"
    return Item(f"longest-{index}", text, tuple(options), gold, metadata={"artifact": kind})


def _cue_word_item(rng: np.random.Generator, index: int) -> Item:
    label = int(rng.integers(0, 3))
    premise, hypothesis = _words(rng, 8), _words(rng, 5).split()
    cued = rng.random() < (0.70 if _LABELS[label] == "contradiction" else 0.05)
    if cued:
        hypothesis.insert(int(rng.integers(0, len(hypothesis) + 1)), "never")
    hypothesis_text = " ".join(hypothesis)
    return Item(
        f"cue-{index}",
        f"Premise: {premise}\nHypothesis: {hypothesis_text}",
        _LABELS,
        label,
        fields={"premise": premise, "hypothesis": hypothesis_text},
        metadata={"artifact": "never" if cued else "none"},
    )


def _position_item(rng: np.random.Generator, index: int, skew: float) -> Item:
    options = tuple(_words(rng, int(rng.integers(2, 5))) for _ in range(4))
    gold = 0 if rng.random() < skew else int(rng.integers(0, 4))
    prefix = "position" if skew else "control"
    return Item(
        f"{prefix}-{index}",
        f"Which option goes with: {_words(rng, 6)}?",
        options,
        gold,
        metadata={"artifact": "first-slot" if skew and gold == 0 else "none"},
    )


@dataclass(frozen=True)
class SyntheticSpec:
    """A registered synthetic benchmark: how to make one item, and what was planted."""

    make_item: Callable[[np.random.Generator, int], Item]
    planted: str
    shared_labels: bool = False


SYNTHETIC: Registry[SyntheticSpec] = Registry(
    "synthetic benchmark",
    {
        "longest-option": SyntheticSpec(_longest_option_item, "gold is the longest option in 45% (tied in 15%)"),
        "cue-word": SyntheticSpec(_cue_word_item, "'never' in 70% of contradiction hypotheses, 5% of others", True),
        # Gold in slot A for 55% of items plus a quarter of the rest: 66.25% in all.
        "gold-position": SyntheticSpec(lambda rng, i: _position_item(rng, i, 0.55), "gold in the first slot: 66%"),
        "control": SyntheticSpec(lambda rng, i: _position_item(rng, i, 0.0), "nothing (a false-positive check)"),
    },
    group=None,
)


def make_synthetic(name: str, n_items: int = 400, seed: int = 0) -> Benchmark:
    """Generate the synthetic benchmark ``name`` (see :data:`SYNTHETIC`) with ``n_items`` items.

    Example:
        >>> b = make_synthetic("longest-option", n_items=50, seed=1)
        >>> len(b), b.option_counts
        (50, {4: 50})
    """
    spec = SYNTHETIC.resolve(name)
    if n_items < 1:
        raise ConfigError(f"n_items must be at least 1, not {n_items}")
    rng = np.random.default_rng([seed, sorted(SYNTHETIC).index(name)])
    items = tuple(spec.make_item(rng, index) for index in range(n_items))
    provenance = DataSource(
        source=f"synthetic:{name}?n_items={n_items}&seed={seed}",
        format="synthetic",
        rows_read=n_items,
        rows_kept=n_items,
        steps=(f"planted: {spec.planted}",),
    )
    kind = OptionKind.SHARED_LABELS if spec.shared_labels else OptionKind.PER_ITEM
    return Benchmark(name, items, kind, _LABELS if spec.shared_labels else (), provenance)
