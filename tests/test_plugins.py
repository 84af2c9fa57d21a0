"""A third-party package extends pfungst through entry points: the example plugin, installed for real with pip.

``tests/fixtures/pfungst_plugin_example`` declares a reader (``qa-text``), two feature sets (``text-length``, a
transformer class, and ``text-length-words``, a FeatureSet), a scoring rule (``cloze-word``), a backend
(``char-counter``, which prefers the shortest text), a model provider (``chars:<cost>``, the same model with its
cost in the spec), two perturbations (``reversed``, the options in reverse order, and ``rotated``, with a parameter:
the options rotated by ``shift`` places) and a result kind (``pfungst-plugin-example.answer-tally``, one module:
``tally.py``).
pip installs it into a temporary folder (never the shared environment); that folder goes on ``sys.path`` for the
in-process checks and on ``PYTHONPATH`` for a fresh ``pfungst`` process. Every part must be listed by
``pfungst formats`` as coming from the plugin and work end to end.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.audit.feature_sets import FEATURE_SETS, get_feature_set
from pfungst.cli import app
from pfungst.data.readers import READERS
from pfungst.evaluate.scoring import SCORING_RULES
from pfungst.models.providers import PROVIDERS
from pfungst.models.registry import MODELS
from pfungst.registry import Registry
from pfungst.results import RESULTS
from pfungst.stress.perturbations import PERTURBATIONS
from pfungst.stress.stress_result import read_outcomes

PLUGIN = Path(__file__).resolve().parent / "fixtures" / "pfungst_plugin_example"
DISTRIBUTION = "pfungst-plugin-example"
pytestmark = pytest.mark.slow  # installs the example plugin with pip

REGISTRIES: tuple[Registry[object], ...] = (
    READERS,
    FEATURE_SETS,
    SCORING_RULES,
    MODELS,
    PROVIDERS,
    PERTURBATIONS,
    RESULTS,
)
"""Every registry the plugin extends."""

runner = CliRunner()


def _install(target: Path) -> None:
    """``pip install`` the plugin into ``target`` offline; skip when pip cannot build it here."""
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"]
    command += ["--disable-pip-version-check", "--quiet", "--target", str(target), str(PLUGIN)]
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=environment, check=False)
    if done.returncode != 0:
        pytest.skip(f"pip could not install the example plugin offline: {(done.stderr or done.stdout)[-400:]}")


def _forget_plugin() -> None:
    for name in [name for name in sys.modules if name.split(".")[0] == "pfungst_plugin_example"]:
        del sys.modules[name]
    for registry in REGISTRIES:
        registry.refresh()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder the plugin is installed in, on ``sys.path`` while the tests of this module run."""
    target = tmp_path_factory.mktemp("plugin") / "site"
    _install(target)
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    _forget_plugin()
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        importlib.invalidate_caches()
        _forget_plugin()


@pytest.fixture(scope="module")
def animals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 items in the plugin's qa-text format: gold is first after a long question and second after a short one;
    gold is the shortest option in 30 items (``ox``) and the longest in 10 (``giraffe``)."""
    blocks = []
    for index in range(40):
        long = index % 2 == 0
        tail = " in this rather long and winding question about animals" if long else ""
        gold, others = ("ox", ["horse", "camel"]) if index % 4 != 3 else ("giraffe", ["cat", "dog"])
        options = [*others]
        options.insert(0 if long else 1, gold)
        lines = [f"? Which animal goes with number {index}{tail}?"]
        blocks.append("\n".join(lines + [("+ " if option == gold else "- ") + option for option in options]))
    path = tmp_path_factory.mktemp("data") / "animals.qa"
    path.write_text("\n\n".join(blocks) + "\n")
    return path


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(
    ("what", "names"),
    [
        ("readers", ["qa-text"]),
        ("feature-sets", ["text-length", "text-length-words"]),
        ("rules", ["cloze-word"]),
        ("models", ["char-counter"]),
        ("providers", ["chars"]),
        ("perturbations", ["reversed", "rotated"]),
    ],
)
def test_formats_lists_each_plugin_part_with_its_package(installed: Path, what: str, names: list[str]) -> None:
    lines = _cli("formats", "--what", what).splitlines()
    from_plugin = [line.split()[0] for line in lines if line.endswith(f"(plugin: {DISTRIBUTION})")]
    assert from_plugin == names


def test_plugin_entries_follow_the_builtin_ones_and_say_where_they_come_from(installed: Path) -> None:
    assert list(READERS)[-1] == "qa-text" and READERS.is_plugin("qa-text") and not READERS.is_plugin("mmlu")
    assert READERS.distribution("qa-text") == DISTRIBUTION and READERS.distribution("mmlu") is None
    assert SCORING_RULES["cloze-word"] == "pfungst_plugin_example.scoring:ClozeWordRule"


def test_the_plugin_reader_is_detected_by_its_sniff(installed: Path, animals: Path) -> None:
    output = _cli("inspect", str(animals))
    assert "items: 40" in output and "read as: qa-text" in output


def test_a_malformed_plugin_file_is_a_user_error_naming_the_line(installed: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.qa"
    path.write_text("? One?\n- a\n- b\n")
    result = runner.invoke(app, ["inspect", str(path), "--reader", "qa-text"])
    assert result.exit_code == 2
    assert "bad.qa:1: field 'options'" in " ".join(result.output.split())


def test_an_audit_with_the_plugin_feature_set_finds_the_planted_length_cue(installed: Path, animals: Path) -> None:
    output = _cli(
        "audit",
        str(animals),
        "--feature-set",
        "text-length",
        "--n-bootstrap",
        "100",
        "--n-permutations",
        "100",
        "--quiet",
        "--json",
        str(animals.with_suffix(".audit.json")),
    )
    assert "Predictable from the full input" in " ".join(output.split())  # the headline, first
    saved = json.loads(animals.with_suffix(".audit.json").read_text())
    assert saved["verdict"]["feature_set"] == "text-length" and saved["verdict"]["label"] == "predictable"


def test_a_feature_set_entry_point_may_name_a_class_or_a_feature_set(installed: Path) -> None:
    from_class, from_set = get_feature_set("text-length"), get_feature_set("text-length-words")
    assert (from_class.level, from_class.description) == ("item", "Length of each text in characters and in words.")
    assert list(from_class.make().fit(["a b"]).get_feature_names_out()) == ["characters", "words"]
    assert from_set.make().fit(["a b c"]).transform(["a b c"]).tolist() == [[3.0]]


def test_score_with_the_plugin_backend_and_rule_in_a_fresh_process(installed: Path, animals: Path) -> None:
    # The backend scores -1 per character, so cloze-word picks the shortest option: right on the 30 "ox" items.
    out = animals.parent / "score.json"
    command = [sys.executable, "-c", "from pfungst.cli import main; main()", "score", str(animals)]
    command += ["--model", "char-counter", "--rule", "cloze-word", "--cache", str(animals.parent / "cache.sqlite")]
    command += ["--json", str(out), "--quiet"]
    path = os.pathsep.join([str(installed), str(Path(pfungst.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert result["accuracy"]["value"] == 0.75 and result["n_items"] == 40
    assert (result["provenance"]["settings"]["rule"], result["model"]) == ("cloze-word", "char-counter:cost=1.0")


def test_a_plugin_provider_spec_runs_end_to_end_through_the_cli(installed: Path, animals: Path) -> None:
    out = animals.parent / "score-chars.json"
    _cli(
        "score",
        str(animals),
        "--model",
        "chars:2.5",
        "--rule",
        "cloze-word",
        "--cache",
        str(animals.parent / "c.sqlite"),
        "--json",
        str(out),
        "--quiet",
    )
    result = json.loads(out.read_text())
    assert (result["model"], result["accuracy"]["value"]) == ("char-counter:cost=2.5", 0.75)


def test_a_plugin_provider_lists_close_matches_and_reports_its_own_errors(installed: Path, animals: Path) -> None:
    typo = runner.invoke(app, ["score", str(animals), "--model", "chrs:1", "--quiet"])
    assert typo.exit_code == 2 and "Unknown model provider 'chrs'. Did you mean: chars?" in typo.output
    malformed = runner.invoke(
        app, ["score", str(animals), "--model", "chars:heavy", "--cache", str(animals.parent / "c.sqlite"), "--quiet"]
    )
    assert malformed.exit_code == 2 and "write chars:<cost>, a number" in malformed.output


def test_stress_with_the_plugin_perturbation_backend_and_rule(installed: Path, animals: Path) -> None:
    # cloze-word under char-counter picks the shortest option wherever it is shown: right on the 30 "ox" items.
    benchmark = pfungst.load(animals)
    result = pfungst.stress.stress(
        benchmark, "char-counter", rule="cloze-word", perturbations=("reversed",), cache=False
    )
    reversed_outcomes = [o for o in result.outcomes if o.perturbation == "reversed"]
    assert len(reversed_outcomes) == 40 and {o.order for o in reversed_outcomes} == {(2, 1, 0)}
    found = result.analysis("pfungst-plugin.reversed")
    assert found.accuracy.value == result.accuracy_of("reversed").accuracy.value == 0.75
    assert [cost.perturbation for cost in result.costs] == ["identity", "reversed"]
    assert type(result.from_dict(result.to_dict()).analysis("pfungst-plugin.reversed")) is type(found)


def test_stress_cli_runs_the_plugin_perturbation_with_its_parameter(installed: Path, animals: Path) -> None:
    out, cache = animals.parent / "rotated.json", str(animals.parent / "rotated-cache.sqlite")
    args = ["stress", str(animals), "--model", "char-counter", "--rule", "cloze-word", "--cache", cache]
    items = animals.parent / "rotated.jsonl"
    _cli(*args, "-p", "rotated:shift=2", "--n-bootstrap", "50", "--json", str(out), "--items", str(items), "--quiet")
    result = pfungst.StressResult.from_dict(json.loads(out.read_text()))
    assert {"name": "rotated", "params": {"shift": 2}} in result.provenance.settings["perturbations"]
    rotated = [o for o in read_outcomes(items) if o.perturbation == "rotated"]
    assert len(rotated) == 40 and {(o.variant, o.order) for o in rotated} == {("shift 2", (2, 0, 1))}
    found = result.analysis("pfungst-plugin.rotated")
    assert (found.shift, found.accuracy.value) == (2, 0.75)  # the shortest option is chosen wherever it is shown


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("rotated:shift=0", "perturbation 'rotated': parameter 'shift' must be a whole number of at least 1, got 0"),
        ("rotated:shift=two", "perturbation 'rotated': parameter 'shift' must be a whole number, got 'two'"),
        ("rotated:shfit=2", "perturbation 'rotated' has no parameter 'shfit'. Did you mean: shift? Its parameters"),
    ],
)
def test_a_bad_plugin_parameter_exits_2_naming_it(installed: Path, animals: Path, spec: str, message: str) -> None:
    result = runner.invoke(app, ["stress", str(animals), "--model", "char-counter", "-p", spec, "--quiet"])
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output


def test_a_plugin_result_file_is_read_back_typed_and_rendered_in_a_report(
    installed: Path, animals: Path, tmp_path: Path
) -> None:
    from pfungst_plugin_example.tally import AnswerTally

    from pfungst.report import load_results, render_markdown

    tally = AnswerTally.of(pfungst.load(animals))
    path = tmp_path / "tally.json"
    path.write_text(json.dumps(tally.to_dict()))
    read = pfungst.read_result(path)
    assert isinstance(read, AnswerTally) and read.to_dict() == tally.to_dict()
    assert RESULTS.distribution(AnswerTally.KIND) == DISTRIBUTION
    page = " ".join(render_markdown(load_results([path])).split())
    assert "Answer tally: animals" in page and "Gold answers per position" in page  # its own chapter
    assert f"most common gold position share {read.majority.value:.3f}" in page  # its board row and headline
    assert "pfungst-plugin-example.answer-tally" in page and "tallied" in page
    broken = {**tally.to_dict(), "counts": {"1": "twenty"}}
    path.write_text(json.dumps(broken))
    with pytest.raises(pfungst.ReaderError, match=r"tally\.json: field 'counts\.1': expected a whole number"):
        pfungst.read_result(path)


def test_without_the_plugin_its_names_are_unknown_again(installed: Path) -> None:
    sys.path.remove(str(installed))
    try:
        _forget_plugin()
        assert "qa-text" not in READERS and "char-counter" not in MODELS and "reversed" not in PERTURBATIONS
        assert "chars" not in PROVIDERS
        assert "rotated" not in PERTURBATIONS
        assert "pfungst-plugin-example.answer-tally" not in RESULTS
    finally:
        sys.path.insert(0, str(installed))
        _forget_plugin()
