"""Feature sets declare what they see (question, options, position) and their level; the audit reads the
declarations, never a feature set's name."""

from __future__ import annotations

from dataclasses import replace

import pytest

import pfungst.audit.feature_sets as feature_sets_module
import pfungst.audit.item_flag_rules as item_flag_rules_module
import pfungst.audit.run as run_module
import pfungst.audit.verdict_rule as verdict_rule_module
from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, FeatureSet, get_feature_set
from pfungst.audit.inputs import OptionTable
from pfungst.audit.run import AuditConfig, audit
from pfungst.audit.size_defaults import default_feature_sets
from pfungst.data.synthetic import make_synthetic

QUICK = {"n_bootstrap": 50, "n_permutations": 20, "n_repeats": 1, "n_splits": 3, "cues": False}


def _with_sets(monkeypatch: pytest.MonkeyPatch, *extra: FeatureSet) -> None:
    """Make the audit resolve ``extra`` by name, beside the built-in sets (as a plugin's sets are)."""
    by_name = {feature_set.name: feature_set for feature_set in extra}
    # the config looks its names up when it validates; the per-item flags when they pick the options-only probe
    for module in (run_module, verdict_rule_module, feature_sets_module, item_flag_rules_module):
        monkeypatch.setattr(module, "get_feature_set", lambda name: by_name.get(name) or get_feature_set(name))


@pytest.mark.parametrize(
    ("name", "sees"),
    [
        ("options", (True, True, True)),
        ("options_no_position", (False, True, False)),
        ("options_1-grams_presence", (False, True, False)),
        ("1-grams_presence", (True, False, False)),
        ("readability", (True, False, False)),
    ],
)
def test_each_builtin_set_declares_question_options_and_position(name: str, sees: tuple[bool, bool, bool]) -> None:
    feature_set = get_feature_set(name)
    assert (feature_set.sees_question, feature_set.sees_options, feature_set.sees_position) == sees


def test_only_option_level_sets_without_a_position_column_are_blind_to_positions() -> None:
    blind = {name for name in ("options", "options_no_position", "options_1-grams_presence", "1-grams_presence")}
    assert {name for name in blind if get_feature_set(name).position_blind} == {
        "options_no_position",
        "options_1-grams_presence",
    }


def test_the_defaults_are_the_sets_that_declare_the_benchmark_kind() -> None:
    per_item = default_feature_sets(make_synthetic("longest-option", 30))
    assert per_item == ("options", "options_no_position", "options_1-grams_presence", "1-grams_presence")
    assert all("per_item" in get_feature_set(name).default_for for name in per_item)
    assert default_feature_sets(make_synthetic("cue-word", 30)) == PAPER_FEATURE_SETS
    assert all("shared_labels" in get_feature_set(name).default_for for name in PAPER_FEATURE_SETS)
    assert "shared_labels" not in get_feature_set("options").default_for


def test_an_option_set_gets_the_question_when_it_declares_it_whatever_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    sees_question = replace(get_feature_set("options"), name="options_with_overlap")
    _with_sets(monkeypatch, sees_question)
    benchmark = make_synthetic("longest-option", 20)
    table = run_module._inputs(benchmark, "options_with_overlap", AuditConfig())
    assert isinstance(table, OptionTable)
    assert table.frame["question"].str.len().min() > 0  # the name starts with "options_"; the declaration rules


def test_a_named_set_that_declares_no_position_gives_the_content_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    blind = replace(get_feature_set("options_no_position"), name="my_blind_set")
    _with_sets(monkeypatch, blind)
    result = audit(make_synthetic("gold-position", 150), feature_sets=("options", "my_blind_set"), **QUICK)
    assert result.position_content is not None
    assert result.position_content.content_feature_sets == ("my_blind_set",)
    assert result.position_content.content.evidence.input == "options"


def test_formats_lists_each_feature_sets_level_and_what_it_sees() -> None:
    from typer.testing import CliRunner

    from pfungst.cli import app

    result = CliRunner().invoke(app, ["formats", "--what", "feature-sets"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: " ".join(line.split()) for line in result.stdout.splitlines() if line.strip()}
    assert lines["options_no_position"].endswith("(option level; sees options)")
    assert lines["options"].endswith("(option level; sees question, options, position)")
    assert lines["1-grams_presence"].endswith("(item level; sees question)")
