"""The stress engine: plan every cell first, ask each distinct request once through the cache, resume after a crash."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pfungst.data import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.engine import Cell, ask, open_cached, plan_cell
from pfungst.evaluate.formats import PromptFormat, get_format
from pfungst.evaluate.scoring import ScoringRule, get_scoring_rule
from pfungst.evaluate.variants import Identity, Variant
from pfungst.models.cache import CachedModel
from pfungst.models.requests import NextTokenLogprobs, NextTokenRequest
from pfungst.stress.perturbations.cyclic import Cyclic
from tests.evaluate.fakes import ScriptedModel

ITEMS = [Item(f"q{i}", f"Question {i}?", tuple(f"option {i}-{k}" for k in range(4)), i % 4) for i in range(6)]


def _prefers_a(context: str, candidate: str) -> float:
    return -0.1 if candidate.strip() == "A" else -3.0


def _cells(
    items: Sequence[Item], variants: Sequence[Variant], rule: str = "letter", prompt_format: PromptFormat | None = None
) -> list[Cell]:
    scoring: ScoringRule = get_scoring_rule(rule)
    shown = prompt_format or get_format("mmlu")
    return [
        Cell(presentation, variant.name, scoring, shown, "mmlu")
        for item in items
        for variant in variants
        for presentation in variant.present(item, shown.labels(item.n_options), 0)
    ]


def _asked(model: ScriptedModel) -> list[object]:
    return [request for _, batch in model.batches for request in batch]


def test_identity_and_cyclic_shift_0_cost_one_request() -> None:
    model = ScriptedModel(next_token_script=_prefers_a)
    cells = _cells(ITEMS[:3], [Identity(), Cyclic()])
    with open_cached(model, ":memory:", {}) as cached:
        outcomes, counts = ask(cached, cells, chunk_size=4)
    asked = _asked(model)
    # 3 items x (1 identity + 4 rotations) = 15 questions; shift 0 repeats the identity question: 12 distinct.
    assert (counts.requests, counts.unique_requests, counts.misses) == (15, 12, 12)
    assert len(asked) == 12 == len(set(asked))
    assert all(kind == "next_token" for kind, _ in model.batches)
    identity = [o for o in outcomes if o.perturbation == "identity"]
    shift0 = [o for o in outcomes if o.variant == "shift 0"]
    assert [(o.chosen, o.scores) for o in identity] == [(o.chosen, o.scores) for o in shift0]
    assert [o.chosen_position for o in outcomes] == [0] * 15  # the model always says A


def test_outcomes_come_back_in_cell_order_with_original_indices() -> None:
    model = ScriptedModel(next_token_script=_prefers_a)
    cells = _cells(ITEMS[:2], [Cyclic()])
    with open_cached(model, ":memory:", {}) as cached:
        outcomes, _ = ask(cached, cells, chunk_size=3)
    assert [(o.item_id, o.variant) for o in outcomes] == [
        (c.presentation.arranged.item.id, c.presentation.variant) for c in cells
    ]
    # Answering A under shift s picks original option s; item q1's gold is 1, right only under shift 1.
    assert [o.chosen for o in outcomes] == [0, 1, 2, 3] * 2
    assert [o.correct for o in outcomes[4:]] == [False, True, False, False]


def test_a_missing_capability_fails_before_any_model_call() -> None:
    model = ScriptedModel(capabilities=frozenset({"loglikelihood"}))
    # The cloze cells come first and could be served; the letter cells later cannot.
    cells = _cells(ITEMS[:2], [Identity()], rule="cloze-raw") + _cells(ITEMS[:2], [Identity()], rule="letter")
    with (
        open_cached(model, ":memory:", {}) as cached,
        pytest.raises(
            ConfigError,
            match=r"scoring rule 'cloze-raw', 'letter' needs \['next_token'\] requests, which the model "
            r"cannot serve",
        ),
    ):
        ask(cached, cells, chunk_size=1)
    assert model.batches == []


def test_a_cell_that_cannot_be_planned_names_its_item_before_any_call() -> None:
    model = ScriptedModel()
    short = Item("long-one", "Pick one.", ("a", "b", "c"), 0)
    two_labels = PromptFormat(label_style=("x", "y"))
    (presentation,) = Identity().present(short, (), 0)
    bad = Cell(presentation, "identity", get_scoring_rule("letter"), two_labels, "xy")
    cells = [*_cells(ITEMS[:1], [Identity()]), bad]
    with open_cached(model, ":memory:", {}) as cached, pytest.raises(ConfigError, match=r"item 'long-one'"):
        ask(cached, cells)
    assert model.batches == []


def test_a_rule_error_gets_the_item_named() -> None:
    cell = _cells(ITEMS[2:3], [Identity()], rule="pmi", prompt_format=PromptFormat(cue=""))[0]
    with pytest.raises(ConfigError, match=r"item 'q2': PMI scoring needs an answer cue"):
        plan_cell(cell)


def test_a_rerun_on_the_same_cache_file_asks_nothing(tmp_path: Path) -> None:
    cache, cells = tmp_path / "cache.sqlite", _cells(ITEMS, [Identity(), Cyclic()])
    first = ScriptedModel(next_token_script=_prefers_a)
    with open_cached(first, cache, {}) as cached:
        outcomes, counts = ask(cached, cells)
    assert counts.misses == counts.unique_requests == 24 and counts.hits == 0

    second = ScriptedModel(next_token_script=_prefers_a)
    with open_cached(second, cache, {}) as cached:
        again, counts = ask(cached, cells)
    assert (counts.misses, counts.model_calls, counts.hits) == (0, 0, 24)
    assert second.batches == [] and again == outcomes


@dataclass
class _FailingModel(ScriptedModel):
    """Answers ``fail_after`` batches, then fails the way a dropped connection would."""

    fail_after: int = 2

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        if len(self.batches) >= self.fail_after:
            raise ConnectionError("the server went away")
        return super().next_token_logprobs(requests)


def test_an_interrupted_run_resumes_asking_only_the_rest(tmp_path: Path) -> None:
    cache, cells = tmp_path / "cache.sqlite", _cells(ITEMS, [Identity(), Cyclic()])
    failing = _FailingModel(next_token_script=_prefers_a, fail_after=2)
    with open_cached(failing, cache, {}) as cached, pytest.raises(ConnectionError):
        ask(cached, cells, chunk_size=5)
    answered = _asked(failing)
    assert len(failing.batches) == 2 and 0 < len(answered) < 24

    resumed = ScriptedModel(next_token_script=_prefers_a)
    with open_cached(resumed, cache, {}) as cached:
        outcomes, counts = ask(cached, cells, chunk_size=5)
    rest = _asked(resumed)
    assert set(answered).isdisjoint(rest)
    assert len(answered) + len(rest) == 24 == counts.unique_requests
    assert (counts.hits, counts.misses) == (len(answered), len(rest))

    with open_cached(ScriptedModel(next_token_script=_prefers_a), ":memory:", {}) as cached:
        uninterrupted, _ = ask(cached, cells)
    assert outcomes == uninterrupted


def test_progress_reports_each_chunk_of_questions() -> None:
    seen: list[tuple[str, int, int]] = []
    with open_cached(ScriptedModel(), ":memory:", {}) as cached:
        ask(
            cached,
            _cells(ITEMS[:2], [Cyclic()]),
            chunk_size=3,
            step="rotating",
            progress=lambda step, done, total: seen.append((step, done, total)),
        )
    assert seen == [("rotating", 0, 8), ("rotating", 3, 8), ("rotating", 6, 8), ("rotating", 8, 8)]


def test_a_cached_model_is_used_as_given_and_left_open() -> None:
    cached = CachedModel(ScriptedModel(), ":memory:")
    with open_cached(cached, ":memory:", {}) as opened:
        assert opened is cached
    _, counts = ask(cached, _cells(ITEMS[:1], [Identity()]))
    assert counts.misses == 1
    cached.close()


def test_open_cached_rejects_options_for_a_built_model_and_a_non_model() -> None:
    with (
        pytest.raises(ConfigError, match=r"model_options apply only to a model given by name"),
        open_cached(ScriptedModel(), ":memory:", {"n_threads": 2}),
    ):
        pass
    with (
        pytest.raises(ConfigError, match=r"model must be a spec such as 'smollm2' or a LanguageModel, not int"),
        open_cached(3, ":memory:", {}),
    ):  # type: ignore[arg-type]
        pass
