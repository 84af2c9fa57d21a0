"""Every numeric option bounded and finite, every list option whole: checked when the config is built, refused with
exit 2 and one message that names the option and its bound.

Property tests draw values on both sides of each bound (and NaN, infinities, empty parts); the cases of issue 37 are
explicit examples and command-line runs.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pfungst.audit.audit_config import AuditConfig
from pfungst.audit.c_grid import parse_c_grid
from pfungst.audit.classifiers import MAX_C, MIN_C, check_c_grid
from pfungst.audit.probe_settings import MAX_GRID_PATIENCE, MAX_SPLITS, ProbeSettings
from pfungst.audit.suite_config import SuiteConfig
from pfungst.cli import app
from pfungst.cli.option_groups import _parse_mapping
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError, max_jobs
from pfungst.evaluate.run_config import RunConfig
from pfungst.stress.perturbations.instructions import InstructionsPerturbation
from pfungst.stress.perturbations.params import parse_spec
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.suite import prepare_run

RUNS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
runner = CliRunner()
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**30), 10**30))


@RUNS
@given(C=NUMBERS)
@example(C=1e-300)
@example(C=MIN_C)
@example(C=MAX_C)
@example(C=math.nan)
@example(C=math.inf)
@example(C=0)
def test_a_c_value_is_taken_exactly_when_it_lies_in_the_bounded_range(C: float) -> None:
    inside = MIN_C <= C <= MAX_C
    if inside:
        check_c_grid([C])
        ProbeSettings(c_grid=(C,))
    else:
        with pytest.raises(ConfigError, match=r"c_grid \(--c-grid\): every C must be a number from 1e-06 to 1e\+06"):
            ProbeSettings(c_grid=(0.1, C))


@RUNS
@given(parts=st.lists(st.one_of(st.sampled_from(["", " ", "0.1", "1", "1e-300", "nan", "x"]), st.floats()), max_size=4))
@example(parts=[""])
@example(parts=["0.1", "", "1"])
@example(parts=["1e-300"])
def test_the_c_grid_option_is_read_whole_or_refused(parts: list[object]) -> None:
    text = ",".join(map(str, parts))
    try:
        numbers = [float(str(part)) for part in parts]
    except ValueError:
        numbers = []
    whole = bool(parts) and len(numbers) == len(parts) and all(str(part).strip() for part in parts)
    if whole and all(MIN_C <= number <= MAX_C for number in numbers):
        assert parse_c_grid(text) == tuple(numbers)
        check_c_grid(parse_c_grid(text))
    else:
        with pytest.raises(ConfigError):
            check_c_grid(parse_c_grid(text))


@RUNS
@given(threads=st.integers(-(10**6), 10**6))
@example(threads=0)
@example(threads=-4)
@example(threads=1)
def test_threads_lie_between_one_and_four_per_core(threads: int) -> None:
    config = RunConfig(model_options={"n_threads": threads})
    if 1 <= threads <= max_jobs():
        config.validate()
    else:
        with pytest.raises(
            ConfigError, match=r"n_threads \(--threads; 4 per CPU core at most\) must be at (least 1|most)"
        ):
            config.validate()


@RUNS
@given(n_splits=st.integers(2, 10**9), patience=st.integers(0, 10**9))
@example(n_splits=10**12, patience=1)
@example(n_splits=5, patience=10**12)
def test_folds_and_grid_patience_are_bounded(n_splits: int, patience: int) -> None:
    if n_splits <= MAX_SPLITS and patience <= MAX_GRID_PATIENCE:
        ProbeSettings(n_splits=n_splits, grid_patience=patience)
    else:
        with pytest.raises(
            ConfigError, match=r"(n_splits \(--n-splits\)|grid_patience \(--grid-patience\)) must be at"
        ):
            ProbeSettings(n_splits=n_splits, grid_patience=patience)


def _benchmark(n: int) -> Benchmark:
    return Benchmark("toy", [Item(f"q{i}", f"Which is {i}?", ("x", "y"), i % 2) for i in range(n)])


@RUNS
@given(n_items=st.integers(1, 8), sample=st.integers(1, 30))
@example(n_items=5, sample=999)
def test_a_sample_larger_than_the_benchmark_is_refused_with_the_count(n_items: int, sample: int) -> None:
    config = StressConfig(run=RunConfig(cache=False), perturbations=(), sample=sample)
    if sample <= n_items:
        assert len(prepare_run(_benchmark(n_items), config).benchmark) == sample
    else:
        with pytest.raises(ConfigError, match=rf"sample \(--sample\) {sample} is more than the {n_items} items"):
            prepare_run(_benchmark(n_items), config)


@RUNS
@given(spec=st.text(max_size=12))
@example(spec="cyclic\n:n=3")
@example(spec="formats\t:n=3")
@example(spec="pride:fraction=0.1")
def test_a_perturbation_spec_with_a_control_character_is_refused_never_cut(spec: str) -> None:
    if any(ord(char) < 32 or 0x7F <= ord(char) < 0xA0 for char in spec):
        with pytest.raises(ConfigError, match="holds the control character"):
            parse_spec(spec)
    else:
        try:
            name, params = parse_spec(spec)
        except ConfigError:
            return
        assert name and not any(char.isspace() for char in name) and name in spec
        assert all(key in spec and not any(char.isspace() for char in key) for key in params)


@RUNS
@given(value=st.text(alphabet=" \t", max_size=3))
@example(value="")
def test_a_map_setting_without_a_value_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match=r"--map 'question=.*': the value of 'question' is empty"):
        _parse_mapping([f"question={value}"])


@RUNS
@given(text=st.text(alphabet=" \t\n\r", max_size=6))
@example(text="")
def test_an_instructions_file_without_a_paraphrase_is_refused(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    path = tmp_path_factory.mktemp("instructions") / "paraphrases.txt"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"parameter 'file': .*paraphrases\.txt holds no paraphrase"):
        InstructionsPerturbation(file=path)


@pytest.fixture
def five_items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(f'{{"question": "q{i}", "choices": ["a", "b"], "answer": {i % 2}}}\n' for i in range(5)))
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "{data}", "--model", "smollm2", "--threads", "0"], r"n_threads \(--threads.* at least 1.*got 0"),
        (["score", "{data}", "--model", "smollm2", "--threads", "-4"], r"n_threads \(--threads.* at least 1.*got -4"),
        (["score", "{data}", "--model", "smollm2", "--weights", "q4"], r"weights \(--weights\) 'q4'.*stored, f16, f32"),
        (["stress", "{data}", "--model", "smollm2", "--sample", "999"], r"--sample\) 999 is more than the 5 items"),
        (["audit", "{data}", "--c-grid", "1e-300"], r"--c-grid.*every C must be a number from 1e-06 to 1e\+06"),
        (["audit", "{data}", "--c-grid", ""], r"--c-grid.*'' is not a list of numbers"),
        (["audit", "{data}", "--c-grid", "0.1,,1"], r"--c-grid.*'0\.1,,1' is not a list of numbers"),
        (["audit", "{data}", "--n-splits", "100000"], r"n_splits \(--n-splits\) must be at most 1000"),
        (["audit", "{data}", "--max-items", "-1"], r"max_items \(--max-items\) must be at least 0, not -1"),
        (["audit", "{data}", "--selection-max-items", "0"], r"\(--selection-max-items\) must be at least 100, not 0"),
        (["audit", "{data}", "--n-repeats", "0"], r"n_repeats \(--n-repeats\) must be at least 1, not 0"),
        (["audit", "{data}", "--n-splits", "1"], r"n_splits \(--n-splits\) must be at least 2, not 1"),
        (["stress", "{data}", "--model", "smollm2", "--limit", "0"], r"limit \(--limit\) must be at least 1, not 0"),
        (["score", "{data}", "--model", "smollm2", "--limit", "-5"], r"limit \(--limit\) must be at least 1, not -5"),
        (["stress", "{data}", "--model", "smollm2", "--sample", "0"], r"sample \(--sample\) must be at least 1, not 0"),
        (
            ["stress", "{data}", "--model", "smollm2", "--chunk-size", "0"],
            r"\(--chunk-size\) must be at least 1, not 0",
        ),
        (
            ["suite", "{folder}", "--out", "{folder}/s", "--top-cues", "-1"],
            r"\(--top-cues\) must be at least 0, not -1",
        ),
        (["inspect", "{data}", "--map", "question="], r"--map 'question=': the value of 'question' is empty"),
        (["stress", "{data}", "--model", "smollm2", "-p", "instructions:file={empty}"], r"'file': .* holds no para"),
        (["stress", "{data}", "--model", "smollm2", "-p", "cyclic\n:n=3"], r"holds the control character '\\n'"),
    ],
)
def test_each_bad_option_exits_2_with_one_message_naming_it(
    five_items: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    filled = [
        arg.replace("{data}", str(five_items)).replace("{empty}", str(empty)).replace("{folder}", str(tmp_path))
        for arg in args
    ]
    result = runner.invoke(app, filled)
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in text
    assert re.search(message, text), text


@RUNS
@given(seed=st.integers(-(10**20), 10**20))
@example(seed=-1)
@example(seed=2**32)
def test_the_reliance_seed_is_one_numpy_takes(seed: int) -> None:
    from pfungst.reliance import RelianceConfig

    if 0 <= seed <= 2**32 - 1:
        assert RelianceConfig(seed=seed).seed == seed
    else:
        with pytest.raises(ConfigError, match=rf"seed must be an integer from 0 to 4294967295, not {seed}"):
            RelianceConfig(seed=seed)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: ProbeSettings(selection_max_items=99),
            r"^selection_max_items \(--selection-max-items\) .* 100, not 99",
        ),
        (lambda: ProbeSettings(n_splits=1), r"^n_splits \(--n-splits\) must be at least 2, not 1"),
        (lambda: AuditConfig(max_items=-1).validate(), r"^max_items \(--max-items\) must be at least 0, not -1"),
        (lambda: SuiteConfig(top_cues=-1).validate(), r"^top_cues \(--top-cues\) must be at least 0, not -1"),
        (lambda: RunConfig(limit=0).validate(), r"^limit \(--limit\) must be at least 1, not 0"),
        (lambda: StressConfig(sample=-2).validate(), r"^sample \(--sample\) must be at least 1, not -2"),
        (lambda: StressConfig(n_bootstrap=0).validate(), r"^n_bootstrap \(--n-bootstrap\) must be at least 1, not 0"),
    ],
)
def test_python_refuses_a_count_out_of_its_bounds_naming_the_option(build: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build()
