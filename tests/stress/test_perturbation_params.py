"""Perturbation parameters: given as ``name:key=value`` or as built perturbations, checked at construction with a
message naming the perturbation and the parameter, recorded in the result as ``{"name", "params"}``, and changing
what is asked (so the cached answers of one setting are never taken for another's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError
from pfungst.stress.lm_eval.plan import config_from_settings, harness_plan
from pfungst.stress.perturbations import get_perturbation
from pfungst.stress.perturbations.formats.perturbation import FormatsPerturbation
from pfungst.stress.perturbations.pride.perturbation import PridePerturbation
from pfungst.stress.stress_config import StressConfig
from tests.evaluate.fakes import ScriptedModel

FAST: dict[str, Any] = {"cache": False, "n_bootstrap": 50}


def _benchmark(n: int = 20) -> Benchmark:
    items = []
    for i in range(n):
        options = [f"wrong {i}-{k}" for k in range(4)]
        options[i % 4] = "right"
        items.append(Item(f"q{i}", f"Question {i}: which one is right?", tuple(options), i % 4))
    return Benchmark("toy", tuple(items))


def _model() -> ScriptedModel:
    return ScriptedModel(next_token_script=lambda context, label: -0.2 if label.strip() == "A" else -3.0)


def test_parameters_given_as_text_are_typed_and_recorded_as_name_and_params() -> None:
    config = StressConfig(perturbations=("pride:fraction=0.25", "formats:n=3", "permutations:n=all", "cyclic"))
    assert config.to_dict()["perturbations"] == [
        {"name": "identity", "params": {}},
        {"name": "cyclic", "params": {}},
        {"name": "permutations", "params": {"n": "all"}},
        {"name": "pride", "params": {"fraction": 0.25}},
        {"name": "formats", "params": {"n": 3}},
    ]


def test_a_built_perturbation_and_a_recorded_spec_are_taken_as_they_are() -> None:
    config = StressConfig(perturbations=(PridePerturbation(fraction=0.2), {"name": "formats", "params": {"n": 2}}))
    assert config.resolved_perturbations()[1:] == (PridePerturbation(fraction=0.2), FormatsPerturbation(n=2))
    assert get_perturbation("spread-search", budget="10").budget == 10


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("pride:fraction=0", r"perturbation 'pride': parameter 'fraction' must be a number in \(0, 1\].*got 0"),
        ("pride:fraction=1.5", r"perturbation 'pride': parameter 'fraction' must be a number in \(0, 1\].*got 1.5"),
        ("pride:fraction=half", r"perturbation 'pride': parameter 'fraction' must be a number, got 'half'"),
        ("formats:n=0", r"perturbation 'formats': parameter 'n' must be a whole number of at least 1, got 0"),
        ("permutations:n=some", r"parameter 'n' must be a whole number or 'all', got 'some'"),
        ("spread-search:budget=-1", r"parameter 'budget' must be a whole number of at least 1, got -1"),
        (
            "pride:fractoin=0.1",
            r"'pride' has no parameter 'fractoin'\. Did you mean: fraction\? Its parameters: fraction",
        ),
        ("cyclic:n=2", r"perturbation 'cyclic' has no parameter 'n'\. Its parameters: none"),
        ("pride:fraction", r"'fraction' is not key=value; write name or name:key=value,key=value"),
        ("pride:fraction=0.1,fraction=0.2", r"'fraction' is given twice"),
        ("prid:fraction=0.1", r"Unknown perturbation 'prid'\. Did you mean: pride\?"),
    ],
)
def test_a_bad_parameter_fails_before_any_model_call_naming_perturbation_and_parameter(spec: str, message: str) -> None:
    model = _model()
    with pytest.raises(ConfigError, match=message):
        pfungst.stress.stress(_benchmark(), model, perturbations=(spec,), **FAST)
    assert model.batches == []


def test_a_perturbation_checks_its_parameters_when_it_is_built() -> None:
    with pytest.raises(ConfigError, match=r"perturbation 'pride': parameter 'fraction' must be .*got 2"):
        PridePerturbation(fraction=2)
    with pytest.raises(ConfigError, match="perturbation 'formats' is given twice"):
        StressConfig(perturbations=("formats", "formats:n=2")).validate()


def test_a_parameter_changes_what_is_asked_and_the_result_says_which() -> None:
    small, large = (
        pfungst.stress.stress(_benchmark(), _model(), perturbations=(f"formats:n={n}",), **FAST) for n in (2, 4)
    )
    assert len({o.format for o in small.outcomes if o.perturbation == "formats"}) == 2
    assert len({o.format for o in large.outcomes if o.perturbation == "formats"}) == 4
    assert sorted(large.provenance.settings["formats"]) == ["format 1", "format 2", "format 3", "mmlu"]
    assert {"name": "formats", "params": {"n": 4}} in large.provenance.settings["perturbations"]


def test_answers_cached_under_one_parameter_are_not_taken_for_another(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    settings: dict[str, Any] = {"cache": cache, "n_bootstrap": 50}
    few = pfungst.stress.stress(_benchmark(), _model(), perturbations=("pride:fraction=0.1",), **settings)
    more = pfungst.stress.stress(_benchmark(), _model(), perturbations=("pride:fraction=0.5",), **settings)
    again = pfungst.stress.stress(_benchmark(), _model(), perturbations=("pride:fraction=0.5",), **settings)
    assert len(few.analysis("pride").estimation_items) == 2 and len(more.analysis("pride").estimation_items) == 10
    new = set(more.analysis("pride").estimation_items) - set(few.analysis("pride").estimation_items)
    assert new and more.counts.misses == len(new) * 3  # three new rotations of each new estimation item
    assert again.counts.misses == 0 and again.outcomes == more.outcomes


def test_instruction_paraphrases_from_a_file_are_recorded_as_texts(tmp_path: Path) -> None:
    path = tmp_path / "paraphrases.txt"
    path.write_text("Pick one.\n\nSay the letter.\n", encoding="utf-8")
    result = pfungst.stress.stress(_benchmark(4), _model(), perturbations=(f"instructions:file={path}",), **FAST)
    assert {"name": "instructions", "params": {"texts": ["Pick one.", "Say the letter."], "file": None}} in (
        result.provenance.settings["perturbations"]
    )
    assert result.provenance.settings["formats"]["paraphrase 7"]["instruction"] == "Say the letter."
    with pytest.raises(ConfigError, match=r"perturbation 'instructions': parameter 'file': cannot read .*missing"):
        StressConfig(perturbations=(f"instructions:file={tmp_path / 'missing'}",)).validate()


def test_an_exported_plan_records_each_perturbation_with_its_parameters_and_rebuilds_them() -> None:
    config = StressConfig(perturbations=("pride:fraction=0.25", "formats:n=3"), rules=("letter",))
    plan = harness_plan(_benchmark(8), config)
    assert plan.settings["perturbations"][1:] == [
        {"name": "pride", "params": {"fraction": 0.25}},
        {"name": "formats", "params": {"n": 3}},
    ]
    rebuilt = config_from_settings(plan.settings).resolved_perturbations()
    assert rebuilt[1:] == (PridePerturbation(fraction=0.25), FormatsPerturbation(n=3))


def test_the_cli_takes_parameters_after_the_name_and_exits_2_on_a_bad_one(tmp_path: Path) -> None:
    path = _benchmark(4).save(tmp_path / "toy.jsonl")
    result = CliRunner().invoke(app, ["stress", str(path), "-p", "pride:fraction=2", "--quiet"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "perturbation 'pride': parameter 'fraction' must be a number in (0, 1]" in " ".join(result.output.split())


def test_pfungst_formats_lists_each_perturbation_with_its_parameters_and_defaults() -> None:
    listed = " ".join(CliRunner().invoke(app, ["formats", "--what", "perturbations"]).output.split())
    assert "default pride(fraction=0.05)" in listed and "default spread-search(n=24, budget=400)" in listed


def test_a_parameter_value_with_commas_is_given_in_double_quotes() -> None:
    config = StressConfig(perturbations=('instructions:texts="Read it, then answer with the letter."',))
    assert {"name": "instructions", "params": {"texts": ["Read it, then answer with the letter."], "file": None}} in (
        config.to_dict()["perturbations"]
    )
    with pytest.raises(ConfigError, match=r"a double quote is not closed; quote a value with commas as key=\"a, b\""):
        StressConfig(perturbations=('instructions:texts="Read it, then answer',)).validate()
