"""The headline names what explains an audit's score (position first, a label prior, content, declared content),
the cue in words, and how sure (three states, with the items needed and the smallest detectable effect)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pfungst import load
from pfungst.audit import audit
from pfungst.audit.cue_naming import name_cue
from pfungst.audit.cues import GOLD_OPTION, Cue, CueConfig, CueTable
from pfungst.audit.headline_rules import detectable, items_needed
from pfungst.audit.result import AuditResult
from pfungst.errors import ReaderError
from pfungst.stats import ConfidenceInterval, Estimate
from tests.audit import planted

QUICK = {"n_bootstrap": 200, "n_permutations": 100, "n_repeats": 1, "n_splits": 3}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("planted")


@pytest.fixture(scope="module")
def longest(folder: Path) -> AuditResult:
    return audit(load(planted.longest_always(folder / "longest.jsonl", 60, 0)), **QUICK)


def test_a_longest_option_file_names_longest_in_its_sentence(longest: AuditResult) -> None:
    headline = longest.headline
    assert headline.certainty == "predictable" and headline.explains == "content" and headline.status == "bad"
    assert headline.cue is not None and headline.cue.source == "heuristic"
    assert (headline.cue.hits, headline.cue.applicable, headline.cue.qvalue < 0.05) == (60, 60, True)
    # every probe scores 1.000: the verdict names the one that needs the least input
    assert headline.input == "options alone, no question"
    assert headline.sentence.startswith(
        "Predictable from the options alone, no question: the longest option is gold in 60 of 60 items; "
    )
    assert "Next: rewrite the items so that the cue (the longest option is gold)" in headline.sentence


def test_the_headline_reads_back_from_json_and_a_bad_certainty_names_its_field(longest: AuditResult) -> None:
    data = json.loads(json.dumps(longest.to_dict()))
    again = AuditResult.from_dict(data)
    assert again.headline == longest.headline
    assert data["headline"]["sentence"] == longest.headline.sentence and data["headline"]["status"] == "bad"
    data["headline"]["certainty"] = "probably"
    with pytest.raises(ReaderError, match=r"audit\.json: field 'headline\.certainty': expected one of 'predictable'"):
        AuditResult.from_dict(data, source="audit.json")


def test_a_gold_position_artifact_with_a_content_signal_reads_position_first(folder: Path) -> None:
    result = audit(load(planted.last_and_longest(folder / "last.jsonl", 120, 0)), **QUICK)
    headline = result.headline
    assert headline.explains == "position" and headline.findings == ("position", "content")
    assert headline.input == "gold position in the file" and headline.estimate.value == 1.0
    assert headline.sentence.startswith("Position artifact: gold is the last option (D) in 120 of 120 items")
    assert any(clause.startswith("besides, the content is predictable from the") for clause in headline.besides)
    assert "Next: shuffle each item's options" in headline.sentence


def test_real_truthfulqa_puts_its_gold_first_and_reads_position_before_its_content(shared_data: Path) -> None:
    benchmark = load(shared_data / "truthfulqa" / "mc_task.json")
    sets = ("options", "options_no_position", "options_1-grams_presence")
    result = audit(benchmark, feature_sets=sets, cues=False, **QUICK)
    headline = result.headline
    assert headline.explains == "position" and "content" in headline.findings
    assert headline.sentence.startswith(f"Position artifact: gold is option A in {len(benchmark)} of {len(benchmark)}")


def test_a_small_file_without_a_cue_reads_inconclusive_with_the_items_it_would_need(folder: Path, seed: int) -> None:
    result = audit(load(planted.no_cue(folder / f"none-{seed}.jsonl", 60, seed)), **QUICK)
    headline, verdict = result.headline, result.verdict
    assert verdict.label == "inconclusive" and headline.certainty == "inconclusive"
    assert headline.status == "warn" and headline.findings == () and headline.cue is None
    assert headline.items_needed == items_needed(headline.estimate, headline.threshold)
    assert headline.items_needed is not None and headline.items_needed > 60
    assert headline.sentence.startswith(f"Inconclusive ({headline.input}): no cue found; 60 items are too few")
    assert f"about {headline.items_needed} would resolve one (80% power)" in headline.sentence


@pytest.mark.filterwarnings("ignore:benchmark 'constant'. fixed label set detected")
def test_a_constant_answer_key_reads_as_a_label_prior(folder: Path) -> None:
    result = audit(load(planted.constant_answer(folder / "constant.jsonl", 40, 0)), **QUICK)
    headline = result.headline
    assert result.verdict.label != "predictable"  # kappa discounts the prior: the verdict alone would pass it
    assert headline.explains == "label prior" and headline.findings == ("label prior",)
    assert headline.cue is not None and headline.cue.text == "'blue' is gold"
    assert headline.sentence.startswith("Label prior: 'blue' is gold in 40 of 40 items; always answering it scores")
    assert headline.estimate.ci is not None and headline.estimate.ci.low > headline.threshold


def test_a_nonsense_word_in_a_shared_label_task_is_a_named_content_finding(folder: Path) -> None:
    result = audit(load(planted.nonsense_word(folder / "nonsense.jsonl", 200, 0)), **QUICK)
    headline = result.headline
    assert result.verdict.evidence.lexical and headline.explains == "content" and headline.declared == ""
    assert headline.cue is not None and headline.cue.text == f"'{planted.NONSENSE}' in the text gives neutral"
    assert headline.status == "bad"


def test_bigbench_keywords_declare_a_task_answered_from_its_words(folder: Path) -> None:
    written = planted.nonsense_word(folder / "rows.jsonl", 200, 1).read_text().splitlines()
    rows = [json.loads(line) for line in written if line.strip()]
    labels = ("entailment", "neutral", "contradiction")
    task = {
        "name": "planted_sentiment",
        "keywords": ["sentiment analysis", "multiple choice"],
        "examples": [
            {"input": row["premise"], "target_scores": {label: int(label == row["label"]) for label in labels}}
            for row in rows
        ],
    }
    (folder / "task").mkdir()
    (folder / "task" / "task.json").write_text(json.dumps(task))
    benchmark = load(folder / "task")
    assert benchmark[0].metadata["keywords"] == "sentiment analysis, multiple choice"
    headline = audit(benchmark, **QUICK).headline
    assert headline.explains == "expected" and headline.declared == "BIG-bench keywords: sentiment analysis"
    assert headline.status == "warn" and headline.findings == ("expected",)


def test_detectable_and_items_needed_follow_their_formulas() -> None:
    estimate = Estimate(0.1, "m", 60, ConfidenceInterval(-0.1, 0.3, 0.95))
    se = 0.4 / (2 * 1.959963984540054)
    assert detectable(estimate) == pytest.approx((1.959963984540054 + 0.8416212335729143) * se)
    needed = items_needed(estimate, 0.2)
    assert needed == math.ceil(60 * (detectable(estimate) / 0.2) ** 2)
    assert needed is not None
    # at that size the interval is narrower by sqrt(60 / needed), and the smallest detectable effect is the threshold
    shrink = math.sqrt(60 / needed)
    smaller = Estimate(0.1, "m", needed, ConfidenceInterval(0.1 - 0.2 * shrink, 0.1 + 0.2 * shrink, 0.95))
    assert detectable(smaller) == pytest.approx(0.2, abs=0.002)
    assert math.isnan(detectable(Estimate(0.1, "m", 60))) and items_needed(Estimate(0.1, "m", 60), 0.2) is None


def test_a_cue_word_whose_test_does_not_survive_correction_is_never_named() -> None:
    row = Cue("florp", GOLD_OPTION, 10, 9, 0.9, 0.1, 0.25, 0.001, 0.3)
    table = CueTable("toy", "per_item", 100, 40, (row,), "test", CueConfig())
    assert name_cue(None, table, 100) is None
    survivor = CueTable("toy", "per_item", 100, 40, (Cue(**{**vars(row), "qvalue": 0.01}),), "test", CueConfig())
    named = name_cue(None, survivor, 100)
    assert named is not None and named.text == "the option containing 'florp' is gold" and named.hits == 9
