"""Planted benchmark files for the headline's tests: each plants one thing (or nothing) in random words.

They are written as the files a user would audit (question / choices / answer JSON lines, or shared-label rows), so
the tests run the real reader, audit and command line on them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pfungst.serialization import write_jsonl

_WORDS = ("apple", "brick", "cloud", "dance", "eagle", "flame", "grape", "house", "image", "jelly", "knife", "lemon",
          "maple", "night", "ocean", "piano", "queen", "river", "stone", "table", "uncle", "vivid", "whale", "yacht",
          "zebra", "amber", "bloom", "charm", "daisy", "ember", "frost", "giant", "honey", "ivory")  # fmt: skip
NONSENSE = "florp"
"""The planted nonsense word."""


def _words(rng: np.random.Generator, count: int) -> str:
    return " ".join(rng.choice(_WORDS, size=count))


def _per_item(path: Path, rows: list[tuple[str, list[str], int]]) -> Path:
    return write_jsonl(path, [{"question": q, "choices": c, "answer": a} for q, c, a in rows])


def longest_always(path: Path, n_items: int, seed: int) -> Path:
    """4 options; the gold one is always the unique longest, in a random slot."""
    rng = np.random.default_rng([seed, 1])
    rows = []
    for _ in range(n_items):
        options = [_words(rng, int(length)) for length in rng.integers(1, 4, size=3)]
        gold = int(rng.integers(0, 4))
        options.insert(gold, _words(rng, 5))
        rows.append((f"Which goes with {_words(rng, 5)}?", options, gold))
    return _per_item(path, rows)


def last_and_longest(path: Path, n_items: int, seed: int) -> Path:
    """4 options; the gold one is always last in the file, and the longest in half of the items (content too)."""
    rng = np.random.default_rng([seed, 2])
    rows = []
    for _ in range(n_items):
        lengths = rng.integers(1, 4, size=3)
        gold_length = 5 if rng.random() < 0.5 else int(rng.integers(1, 4))
        options = [_words(rng, int(length)) for length in lengths] + [_words(rng, gold_length)]
        rows.append((f"Which goes with {_words(rng, 5)}?", options, 3))
    return _per_item(path, rows)


def no_cue(path: Path, n_items: int, seed: int) -> Path:
    """2 options of random words, gold in a random slot: nothing planted."""
    rng = np.random.default_rng([seed, 3])
    rows = [
        (f"Which goes with {_words(rng, 5)}?", [_words(rng, 2), _words(rng, 2)], int(rng.integers(0, 2)))
        for _ in range(n_items)
    ]
    return _per_item(path, rows)


def constant_answer(path: Path, n_items: int, seed: int) -> Path:
    """Every item offers red / green / blue in a random order; blue is always gold."""
    rng = np.random.default_rng([seed, 4])
    rows = []
    for _ in range(n_items):
        options = [str(colour) for colour in rng.permutation(["red", "green", "blue"])]
        rows.append((f"Which colour goes with {_words(rng, 4)}?", options, options.index("blue")))
    return _per_item(path, rows)


def nonsense_word(path: Path, n_items: int, seed: int) -> Path:
    """A shared-label NLI-shaped task: the nonsense word is in the premise of 60% of the 'neutral' items and of 3%
    of the others (a template artifact, not the task)."""
    rng = np.random.default_rng([seed, 5])
    rows = []
    for _ in range(n_items):
        label = str(rng.choice(["entailment", "neutral", "contradiction"]))
        words = _words(rng, 8).split()
        if rng.random() < (0.6 if label == "neutral" else 0.03):
            words.insert(int(rng.integers(0, len(words) + 1)), NONSENSE)
        rows.append({"premise": " ".join(words), "hypothesis": _words(rng, 5), "label": label})
    return write_jsonl(path, rows)


def longest_in_half(path: Path, n_items: int, seed: int) -> Path:
    """4 options in a random order: in the odd rows (1, 3, ...) the gold option is the unique longest; in the even
    rows a distractor is, and the gold option is one of the short ones. No two options ever tie in length."""
    rng = np.random.default_rng([seed, 6])
    rows = []
    for index in range(n_items):
        short = [_words(rng, length) for length in rng.permutation([1, 2, 3])]
        options = [_words(rng, 5), *short]  # the longest first, before shuffling
        gold_text = options[0] if index % 2 == 0 else short[0]
        order = rng.permutation(4)
        shuffled = [options[k] for k in order]
        rows.append((f"Which goes with {_words(rng, 5)}?", shuffled, shuffled.index(gold_text)))
    return _per_item(path, rows)
