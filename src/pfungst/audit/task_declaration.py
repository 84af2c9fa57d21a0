"""Whether a task is declared to be answered from its words, and by whom: the user, or the benchmark's metadata.

A full-input finding on a shared-label task (the words of the input give the label) is a content finding, a
shortcut ranked with the others, unless the task says it is answered from its words by design (sentiment, emotion,
intent or topic classification). The tool cannot know that unless told, by:

- the user: ``pfungst audit --lexical-task`` / ``audit(..., lexical_task=True)`` (recorded in the settings);
- the benchmark: BIG-bench ``keywords`` (kept by the BIG-bench reader in each item's ``metadata["keywords"]``) that
  contain one of :data:`LEXICAL_KEYWORDS` (``sentiment analysis``, ``emotional understanding``, ...).

The declaration is recorded in the headline's ``declared`` (``declared with --lexical-task``; ``BIG-bench keywords:
emotional understanding``); a finding it covers reads as ``expected`` and is caught by ``--fail-on predictable``,
not by ``--fail-on content``.
"""

from __future__ import annotations

from pfungst.data.benchmark import Benchmark

__all__ = ["LEXICAL_KEYWORDS", "declaration"]

LEXICAL_KEYWORDS: tuple[str, ...] = ("sentiment", "emotion", "intent", "topic")
"""Word stems of a benchmark keyword that declare a task answered from its words (matched within each keyword)."""


def declaration(benchmark: Benchmark, lexical_task: bool = False) -> str:
    """Where the task was declared to be answered from its words, in words; empty when it was not.

    Args:
        benchmark: The audited benchmark (its items' ``metadata["keywords"]`` are read).
        lexical_task: The user declared it (``--lexical-task``).

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> declaration(make_synthetic("cue-word", 20)), declaration(make_synthetic("cue-word", 20), True)
        ('', 'declared with --lexical-task')
    """
    if lexical_task:
        return "declared with --lexical-task"
    keywords = _keywords(benchmark)
    matched = [word for word in keywords if any(stem in word.casefold() for stem in LEXICAL_KEYWORDS)]
    return f"BIG-bench keywords: {', '.join(matched)}" if matched else ""


def _keywords(benchmark: Benchmark) -> list[str]:
    """Every distinct keyword of the items' metadata, in first-seen order."""
    seen: dict[str, None] = {}
    for item in benchmark:
        found = item.metadata.get("keywords", "")
        for word in str(found).split(","):
            if word.strip():
                seen.setdefault(word.strip(), None)
    return list(seen)
