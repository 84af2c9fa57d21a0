"""Probe protocols are objects: their splits are the old ones, their names round-trip, an unknown name is explained."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import RepeatedStratifiedKFold

from pfungst.audit import AuditConfig
from pfungst.audit.crossfit_protocol import CrossFit
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.pacchiardi2024_protocol import Pacchiardi2024
from pfungst.audit.paper_protocol import paper_split
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.probe_protocol import PROTOCOLS, ProbeProtocol, get_protocol
from pfungst.audit.probe_tasks import make_task
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError, ReaderError
from pfungst.schema import Fields

TINY = ProbeConfig(n_splits=3, n_repeats=1, n_bootstrap=20, n_permutations=20)


def test_crossfit_splits_are_scikit_learns_repeated_stratified_folds(seed: int) -> None:
    y = np.random.default_rng(seed).integers(0, 3, size=60)
    config = ProbeConfig(n_splits=4, n_repeats=2, seed=seed)
    expected = RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=seed).split(np.zeros(60), y)
    found = CrossFit().splits(y, config)
    assert len(found) == 8
    for (train, test), (want_train, want_test) in zip(found, expected, strict=True):
        assert np.array_equal(train, want_train) and np.array_equal(test, want_test)


def test_crossfit_plans_one_job_per_split_with_its_repeat_and_fold(seed: int) -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 60, seed=seed), ("hypothesis",))
    config = ProbeConfig(n_splits=3, n_repeats=2, seed=seed)
    plan = CrossFit().plan(get_feature_set("1-grams_presence"), make_task(inputs), config, None)
    splits = CrossFit().splits(inputs.y, config)
    assert [(repeat, fold) for repeat, fold, _, _ in plan.jobs] == [(r, f) for r in range(2) for f in range(3)]
    assert all(np.array_equal(job[3], test) for job, (_, test) in zip(plan.jobs, splits, strict=True))


def test_the_paper_protocol_splits_once_as_the_paper_did_whatever_the_seed() -> None:
    train, _, test = paper_split(197)
    for seed in (0, 7):
        ((found_train, found_test),) = Pacchiardi2024().splits(np.zeros(197), ProbeConfig(seed=seed))
        assert np.array_equal(found_train, train) and np.array_equal(found_test, test)
    assert (len(train), len(test)) == (118, 39)


def test_the_paper_protocol_plans_a_single_job_on_its_test_fifth() -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 100), ("hypothesis",))
    plan = Pacchiardi2024().plan(get_feature_set("1-grams_presence"), make_task(inputs), ProbeConfig(), None)
    ((repeat, fold, _, test),) = plan.jobs
    assert (repeat, fold) == (0, 0) and np.array_equal(test, paper_split(100)[2])
    assert plan.settings.select_k == 20000 and not plan.settings.scale_dense


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_a_protocol_name_round_trips_through_settings_and_result_files(name: str) -> None:
    protocol = get_protocol(name)
    assert protocol.name == name and protocol == get_protocol(name) and hash(protocol) == hash(get_protocol(name))
    assert ProbeConfig(protocol=name).protocol == protocol  # type: ignore[arg-type]
    assert AuditConfig(protocol=protocol).to_dict()["protocol"] == name
    assert protocol.to_dict() == {"name": name, "params": {}}
    assert repr(protocol) == f"{type(protocol).__name__}()"


def test_a_probe_outcome_records_its_protocol_by_name_and_reads_it_back(seed: int) -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 80, seed=seed), ("hypothesis",))
    for protocol in (CrossFit(), Pacchiardi2024()):
        outcome = run_probe(
            get_feature_set("1-grams_presence"), inputs, ProbeConfig(**{**TINY.shared(), "protocol": protocol})
        )
        data = outcome.to_dict()
        assert data["protocol"] == protocol.name and data["settings"]["config"]["protocol"] == protocol.name
        assert ProbeOutcome.from_fields(Fields(data, "probe.json")).protocol == protocol


def test_an_unknown_protocol_lists_close_matches_and_every_name() -> None:
    with pytest.raises(
        ConfigError,
        match=r"^Unknown protocol 'crosfit'\. Did you mean: crossfit\? Available: crossfit, pacchiardi2024$",
    ):
        ProbeConfig(protocol="crosfit")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="Unknown protocol 'paper'"):
        AuditConfig(protocol="paper")  # type: ignore[arg-type]


def test_a_result_file_with_an_unknown_protocol_names_the_file_and_the_field(seed: int) -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 60, seed=seed), ("hypothesis",))
    data = run_probe(get_feature_set("1-grams_presence"), inputs, TINY).to_dict()
    with pytest.raises(ReaderError, match=r"probe\.json.*protocol.*Unknown protocol 'kfold'"):
        ProbeOutcome.from_fields(Fields({**data, "protocol": "kfold"}, "probe.json"))


def test_protocols_differ_in_what_an_audit_reads_not_in_their_name() -> None:
    benchmark = make_synthetic("cue-word", 40)
    crossfit, paper = CrossFit(), Pacchiardi2024()
    assert crossfit.rows(benchmark) is benchmark
    assert "paper order" in paper.rows(benchmark).provenance.steps[-2]
    assert paper.deduplicate(benchmark) is benchmark and crossfit.deduplicate(benchmark) is not benchmark
    assert paper.verdict_note("kappa") and not paper.verdict_note("chance_corrected_accuracy")
    assert not crossfit.verdict_note("kappa")
    assert crossfit.max_iter(ProbeConfig(max_iter=7)) == 7 and paper.max_iter(ProbeConfig(max_iter=7)) == 100
    assert {spec.name for spec in paper.candidates(ProbeConfig())} == set(ProbeConfig().classifiers)
    assert len(crossfit.candidates(ProbeConfig())) > len(paper.candidates(ProbeConfig()))
    assert all(isinstance(get_protocol(name), ProbeProtocol) for name in PROTOCOLS)


def test_the_command_line_reads_a_protocol_name_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pfungst.cli import app

    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    refused = CliRunner().invoke(app, ["audit", str(data), "--protocol", "crosfit"])
    assert refused.exit_code == 2
    words = " ".join(word for word in refused.output.split() if word.strip("│╭╮╰╯─"))  # the usage box's frame left out
    assert "Unknown protocol 'crosfit'. Did you mean: crossfit? Available: crossfit, pacchiardi2024" in words
