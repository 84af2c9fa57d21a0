"""score: validation before any model call, de-duplication, records, resuming an interrupted run."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest

import pfungst
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError, ContextOverflow
from pfungst.evaluate import PromptFormat, RunConfig, ScoreResult
from pfungst.evaluate.score_sections import score_sections
from pfungst.models.requests import LoglikelihoodRequest
from pfungst.stress import VariantAccuracy, score, stress
from tests.evaluate.fakes import ScriptedModel as ScriptModel
from tests.evaluate.fakes import by_continuation
from tests.models.scripted import ScriptedModel

SCRIPT_RULES = ["letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi", "generate"]


def _benchmark(n: int = 12) -> Benchmark:
    items = tuple(
        Item(f"q{i}", f"Question {i}: which is right?", tuple(f"option {i}-{k}" for k in range(2 + i % 3)), i % 2)
        for i in range(n)
    )
    return Benchmark("toy", items)


def _rows(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM results").fetchone()[0])


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"rule": "pmii"}, r"Unknown scoring rule 'pmii'. Did you mean: pmi\?"),
        ({"prompt": "mmluu"}, r"Unknown format 'mmluu'. Did you mean: mmlu\?"),
        ({"rule": "generate", "rule_params": {"max_tokens": 0}}, "max_tokens must be a positive integer"),
        ({"rule": "letter", "rule_params": {"normalization": "byte"}}, "does not take the parameters"),
        ({"limit": 0}, r"limit \(--limit\) must be at least 1"),
        ({"chunk_size": 0}, r"chunk_size \(--chunk-size\) must be at least 1"),
        ({"rule": "pmi", "prompt": PromptFormat(cue="")}, "item 'q0': PMI scoring needs an answer cue"),
        ({"prompt": PromptFormat(label_style=("x", "y"))}, "item 'q1'"),
    ],
)
def test_invalid_settings_fail_before_any_model_call(tmp_path: Path, settings: dict, message: str) -> None:
    model = ScriptedModel()
    with pytest.raises(ConfigError, match=message):
        score(_benchmark(), model, cache=tmp_path / "cache.sqlite", **settings)
    assert model.calls == []


def test_a_model_lacking_the_rules_capability_fails_before_any_call(tmp_path: Path) -> None:
    model = ScriptModel(capabilities=frozenset({"next_token"}))
    with pytest.raises(ConfigError, match=r"'cloze-raw' needs \['loglikelihood'\] requests"):
        score(_benchmark(), model, rule="cloze-raw", cache=tmp_path / "cache.sqlite")
    assert model.batches == []


def test_an_unknown_setting_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"unknown score setting\(s\) \['rules'\]"):
        score(_benchmark(), ScriptedModel(), rules="letter")


def test_identical_requests_reach_the_model_once(tmp_path: Path) -> None:
    item = Item("a", "Pick one.", ("red", "green", "blue"), 2)
    twins = Benchmark(
        "twins",
        (
            item,
            Item("b", "Pick one.", ("red", "green", "blue"), 2),
            Item("c", "Pick another.", ("red", "green", "blue"), 0),
        ),
    )
    model = ScriptedModel()
    result = score(twins, model, rule="pmi", cache=tmp_path / "cache.sqlite", chunk_size=1)
    # per item 3 conditional + 3 cue-only requests; items a and b are identical, and all share the cue-only ones
    assert result.counts.requests == 18
    assert result.counts.unique_requests == 9
    assert model.requests_seen == 9 == result.counts.misses
    assert result.items[0].scores == result.items[1].scores


def test_records_hold_scores_and_choices_in_original_option_order(tmp_path: Path) -> None:
    item = Item("q", "Which is a colour?", ("dog", "red", "seven", "run"), 1)
    model = ScriptModel(loglikelihood_script=by_continuation({"dog": -4.0, "red": -1.0, "seven": -3.0, "run": -2.0}))
    result = score(Benchmark("one", (item,)), model, rule="cloze-raw", cache=False)
    (record,) = result.items
    assert record.scores == (-4.0, -1.0, -3.0, -2.0)
    assert (record.chosen, record.gold, record.correct, record.status) == (1, 1, True, "ok")
    assert record.n_tokens == (1, 1, 1, 1)
    assert result.items_frame().loc[0, "chosen"] == 1


def test_generate_counts_refusals_and_unparseable_answers_as_wrong(tmp_path: Path) -> None:
    answers = {"First": "The answer is B", "Second": "I cannot help with that.", "Third": "Perhaps, perhaps."}
    items = tuple(Item(text, f"{text} question?", ("yes", "no"), 1) for text in answers)
    model = ScriptModel(generate_script=lambda prompt: next(v for k, v in answers.items() if k in prompt))
    result = score(Benchmark("gen", items), model, rule="generate", cache=False)
    assert [(r.status, r.chosen, r.text) for r in result.items] == [
        ("ok", 1, "The answer is B"),
        ("refused", -1, "I cannot help with that."),
        ("unparseable", -1, "Perhaps, perhaps."),
    ]
    assert (result.n_refused, result.n_unparseable) == (1, 1)
    assert result.accuracy.value == pytest.approx(1 / 3)


def test_accuracy_has_a_wilson_interval_and_chance_as_baseline(tmp_path: Path) -> None:
    result = score(_benchmark(6), ScriptedModel(), rule="cloze-byte", cache=False)
    accuracy = result.accuracy
    assert accuracy.baseline == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) * 2 / 6)
    assert accuracy.method == "wilson" and accuracy.n == 6
    assert accuracy.ci is not None and accuracy.ci.low <= accuracy.value <= accuracy.ci.high
    assert accuracy.value == sum(record.correct for record in result.items) / 6


@pytest.mark.parametrize("rule", SCRIPT_RULES)
def test_every_rule_scores_every_item_and_reports_progress(rule: str) -> None:
    seen: list[tuple[str, int, int]] = []
    result = score(
        _benchmark(),
        ScriptedModel(),
        rule=rule,
        cache=False,
        limit=10,
        chunk_size=4,
        progress=lambda step, done, total: seen.append((step, done, total)),
    )
    assert [record.item_id for record in result.items] == [f"q{i}" for i in range(10)]
    done = [done for _, done, _ in seen]
    assert done == sorted(done) and done[-1] == result.counts.misses > 0  # one counter, over model requests
    assert {total for _, _, total in seen[1:]} == {result.counts.misses}  # the total known before the first request
    assert result.provenance.settings["rule"] == rule and result.benchmark["n_items"] == 10
    json.dumps(result.to_dict(items=True))  # JSON-safe


class _Interrupting:
    """Passes calls to a model and raises KeyboardInterrupt on call number ``stop_at`` (as Ctrl-C would)."""

    def __init__(self, model: ScriptedModel, stop_at: int) -> None:
        self.model, self.stop_at, self.n_calls = model, stop_at, 0
        self.fingerprint, self.capabilities = model.fingerprint, model.capabilities

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list:
        self.n_calls += 1
        if self.n_calls == self.stop_at:
            raise KeyboardInterrupt
        return self.model.loglikelihood(requests)


def test_an_interrupted_run_resumes_with_zero_repeated_model_calls(tmp_path: Path) -> None:
    benchmark, cache = _benchmark(20), tmp_path / "cache.sqlite"
    first = ScriptedModel()
    with pytest.raises(KeyboardInterrupt):
        score(benchmark, _Interrupting(first, stop_at=3), rule="cloze-token", cache=cache, chunk_size=3)
    stored = _rows(cache)
    assert stored == first.requests_seen > 0

    second = ScriptedModel()
    resumed = score(benchmark, second, rule="cloze-token", cache=cache, chunk_size=3)
    asked_before = {request for _, batch in first.calls for request in batch}
    asked_after = {request for _, batch in second.calls for request in batch}
    assert asked_before.isdisjoint(asked_after)
    assert resumed.counts.misses == second.requests_seen == resumed.counts.unique_requests - stored
    assert resumed.counts.hits == stored

    uninterrupted = score(benchmark, ScriptedModel(), rule="cloze-token", cache=tmp_path / "other.sqlite")
    assert resumed.items == uninterrupted.items
    again = score(benchmark, ScriptedModel(), rule="cloze-token", cache=cache)
    assert (again.counts.misses, again.counts.model_calls) == (0, 0)


def test_a_changed_rule_or_format_misses_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    score(_benchmark(4), ScriptedModel(), rule="letter", cache=cache)
    other_format = score(_benchmark(4), ScriptedModel(), rule="letter", prompt="plain", cache=cache)
    cloze = score(_benchmark(4), ScriptedModel(), rule="cloze-raw", cache=cache)
    byte = score(_benchmark(4), ScriptedModel(), rule="cloze-byte", cache=cache)
    assert other_format.counts.hits == 0 and cloze.counts.hits == 0
    assert byte.counts.misses == 0  # the same log-likelihoods, normalised differently


def test_per_item_results_are_written_as_jsonl_or_parquet(tmp_path: Path) -> None:
    result = score(_benchmark(5), ScriptedModel(), rule="pmi", cache=False)
    lines = result.save_items(tmp_path / "items.jsonl").read_text().splitlines()
    assert [json.loads(line)["item_id"] for line in lines] == [f"q{i}" for i in range(5)]
    frame = pd.read_parquet(result.save_items(tmp_path / "items.parquet"))
    assert list(frame["chosen"]) == [record.chosen for record in result.items]
    assert [list(scores) for scores in frame["scores"]] == [list(record.scores) for record in result.items]
    with pytest.raises(ConfigError, match=r"suffix '.csv' is not one of \['.jsonl', '.parquet'\]"):
        result.save_items(tmp_path / "items.csv")


def test_the_summary_records_settings_provenance_and_schema(tmp_path: Path) -> None:
    config = RunConfig(rule="generate", seed=7, cache=False)
    result = score(_benchmark(3), ScriptedModel(), config)
    summary = result.to_dict()
    assert summary["schema_version"] == "pfungst.score/3"
    record = summary["provenance"]
    assert record["seed"] == 7 and record["settings"]["rule_params"]["seed"] == 7
    assert summary["model"] == "scripted:v1" and "packages" in record["environment"]
    assert summary["counts"]["unique_requests"] == 3


def test_the_prompt_format_is_set_by_prompt_and_an_unknown_keyword_is_refused_by_name() -> None:
    from pfungst.stress import StressConfig

    with pytest.raises(ConfigError, match="Unknown score setting 'format'"):
        score(_benchmark(3), ScriptedModel(), rule="letter", format="plain", cache=False)
    for config in (RunConfig, StressConfig):
        with pytest.raises(TypeError, match="unexpected keyword argument 'format'"):
            config(format="plain")  # type: ignore[call-arg]


class _SmallWindow(ScriptModel):
    """A scripted model whose context window holds 200 characters: longer questions overflow, as in llama.cpp."""

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list:
        for request in requests:
            if len(request.context + request.continuation) > 200:
                raise ContextOverflow(f"A sequence of {len(request.context)} tokens does not fit the context window")
        return super().loglikelihood(requests)


_WINDOW_ITEMS = Benchmark(
    "window",
    (
        Item("short-1", "1+1=", ("2", "3"), 0),
        Item("too-long", "Please " * 40 + "say 1+2=", ("3", "4"), 0),
        Item("short-2", "2+2=", ("4", "5"), 0),
    ),
)


def test_a_question_longer_than_the_context_window_names_its_item() -> None:
    """Issue 15: the overflow error named no item, so a user could not find which question was too long."""
    model = _SmallWindow(by_continuation({"2": -1.0, "4": -1.0}))
    with pytest.raises(ContextOverflow, match=r"item 'too-long' .*does not fit the context window.*--on-error skip"):
        score(_WINDOW_ITEMS, model, cache=False)


def test_on_error_skip_scores_an_overflowing_question_as_skipped_and_goes_on() -> None:
    model = _SmallWindow(by_continuation({"2": -1.0, "4": -1.0}))
    result = score(_WINDOW_ITEMS, model, cache=False, on_error="skip")
    assert [outcome.status for outcome in result.outcomes] == ["ok", "skipped", "ok"]
    assert result.n_skipped == 1 and result.to_dict()["n_skipped"] == 1
    assert (result.n_items, result.accuracy.value) == (3, 2 / 3)  # a skipped question counts as wrong
    text = "\n".join(
        block.text for section in score_sections(result) for block in section.blocks if hasattr(block, "text")
    )
    assert "skipped: 1 items did not fit the model's context window" in text


def _subjects(n_subjects: int = 3, per_subject: int = 4) -> Benchmark:
    """Items in MMLU-like subjects: they cluster, so accuracy gets a cluster-robust interval."""
    return Benchmark(
        "subjects",
        tuple(
            Item(
                f"s{s}-{i}",
                f"Subject {s}, question {i}?",
                ("one", "two", "three"),
                (s + i) % 3,
                metadata={"subject": f"s{s}"},
            )
            for s in range(n_subjects)
            for i in range(per_subject)
        ),
    )


def _identity(result: pfungst.StressResult) -> VariantAccuracy:
    (found,) = [accuracy for accuracy in result.accuracies if accuracy.perturbation == "identity"]
    return found


@pytest.mark.parametrize("cluster_by", ["auto", "none"])
def test_score_gives_the_accuracy_and_interval_of_a_stress_identity_run(cluster_by: str) -> None:
    """A user checks that ``pfungst.score`` and the identity pass of ``pfungst.stress`` agree on the same items."""
    scored = score(_subjects(), ScriptedModel(), rule="letter", cache=False, cluster_by=cluster_by)
    stressed = stress(_subjects(), ScriptedModel(), perturbations=(), rule="letter", cache=False, cluster_by=cluster_by)
    identity = _identity(stressed)
    assert scored.accuracy == identity.accuracy
    assert math.isnan(scored.design_effect) == math.isnan(identity.design_effect)
    clustered = cluster_by == "auto"
    assert ("cluster-robust" in scored.accuracy.method) == clustered
    assert (scored.accuracy.method == "wilson") == (not clustered)
    assert [o.chosen for o in scored.outcomes] == [o.chosen for o in stressed.outcomes]
    read_back = ScoreResult.from_dict(json.loads(json.dumps(scored.to_dict())))
    assert read_back.accuracy == scored.accuracy and read_back.provenance.settings["cluster_by"] == cluster_by


def test_score_and_a_stress_identity_run_share_one_cache_and_one_request_count(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    scored = score(_subjects(), ScriptedModel(), rule="cloze-raw", cache=cache)
    model = ScriptedModel()
    stressed = stress(_subjects(), model, perturbations=(), rule="cloze-raw", cache=cache)
    assert model.calls == [] and stressed.counts.hits == scored.counts.misses == scored.counts.unique_requests
    assert stressed.counts.requests == scored.counts.requests


def test_the_score_report_names_a_cluster_robust_interval_and_its_design_effect() -> None:
    result = score(_subjects(), ScriptedModel(), rule="letter", cache=False)
    text = "\n".join(str(block) for section in score_sections(result) for block in section.blocks)
    assert "cluster-robust interval" in text and "Wilson" not in text
    assert "design effect" in text
