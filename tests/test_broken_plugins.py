"""A broken plugin breaks nothing else: it is left out with one warning naming its package; asked for, it is exit 2.

``tests/fixtures/pfungst_plugin_broken`` is an installed distribution as ``importlib.metadata`` finds one (its
``.dist-info`` folder beside its package), put on ``sys.path`` while these tests run. Each of its parts fails in
one way: ``broken-import`` (a reader), ``broken-features`` and ``broken-model`` name a module whose import raises;
``broken-init`` (a reader), ``broken-rule`` and ``broken-perturbation`` have a constructor that raises;
``broken-sniff`` is a reader whose ``sniff`` raises on every file.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.audit.feature_sets import FEATURE_SETS
from pfungst.cli import app
from pfungst.data import detect_format
from pfungst.data.readers import READERS
from pfungst.errors import ConfigError
from pfungst.evaluate.scoring import SCORING_RULES
from pfungst.models.providers import PROVIDERS
from pfungst.models.registry import MODELS
from pfungst.registry import Registry
from pfungst.stress.perturbations import PERTURBATIONS

BROKEN = Path(__file__).resolve().parent / "fixtures" / "pfungst_plugin_broken"
PACKAGE = "pfungst-plugin-broken 0.2.0"
REGISTRIES: tuple[Registry[object], ...] = (READERS, FEATURE_SETS, SCORING_RULES, MODELS, PROVIDERS, PERTURBATIONS)

runner = CliRunner()


def _refresh() -> None:
    importlib.invalidate_caches()
    for registry in REGISTRIES:
        registry.refresh()


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The broken plugin installed (on ``sys.path``) for one test."""
    monkeypatch.syspath_prepend(str(BROKEN))
    _refresh()
    yield
    monkeypatch.undo()
    _refresh()


def _items(folder: Path, name: str = "items.jsonl") -> Path:
    path = folder / name
    path.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    return path


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


@pytest.mark.parametrize(
    ("what", "builtin", "failed"),
    [
        ("readers", "mmlu", {"broken-import": "RuntimeError", "broken-init": "ValueError"}),
        ("feature-sets", "1-grams_presence", {"broken-features": "RuntimeError"}),
        ("rules", "cloze-byte", {"broken-rule": "ZeroDivisionError"}),
        ("perturbations", "cyclic", {"broken-perturbation": "AttributeError"}),
        ("providers", "openai", {"broken-provider": "RuntimeError"}),
    ],
)
def test_formats_lists_the_rest_and_warns_once_per_broken_plugin(
    broken: None, what: str, builtin: str, failed: dict[str, str]
) -> None:
    result = runner.invoke(app, ["formats", "--what", what])
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert builtin in listed and not set(failed) & set(listed)
    lines = _warnings(" ".join(result.stderr.split()).replace(" warning:", "\nwarning:"))
    assert len(lines) == len(failed), result.stderr
    for line, (name, error) in zip(lines, failed.items(), strict=True):
        assert f"'{name}' from the plugin {PACKAGE} (entry point pfungst." in line
        assert f": {error}: " in line and line.endswith("It is skipped.")


def test_formats_lists_a_reader_whose_only_fault_is_its_sniff(broken: None) -> None:
    result = runner.invoke(app, ["formats", "--what", "readers"])
    assert "broken-sniff: its sniff raises on every file (plugin: pfungst-plugin-broken)" in result.stdout


def test_detection_skips_a_reader_whose_sniff_raises_with_one_warning(broken: None, tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = [detect_format(_items(tmp_path, f"items{index}.jsonl")) for index in range(3)]
    assert found == ["jsonl"] * 3
    messages = [str(warning.message) for warning in caught]
    assert [m for m in messages if "'broken-sniff'" in m] == [
        f"format 'broken-sniff' from the plugin {PACKAGE} (entry point pfungst.readers: broken-sniff = "
        "pfungst_plugin_broken.parts:SniffRaisesReader) failed on sniff: KeyError: 'sniff of items0.jsonl failed "
        "(on purpose)'. Fix or uninstall pfungst-plugin-broken. It is skipped."
    ]


def test_inspect_detects_the_format_beside_broken_plugins(broken: None, tmp_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(_items(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "read as: jsonl" in result.stdout
    assert "broken-sniff" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["inspect", "{data}", "--reader", "broken-import"],
            "format 'broken-import' .* failed on import: RuntimeError",
        ),
        (["inspect", "{data}", "--reader", "broken-init"], "format 'broken-init' .* failed on construction: ValueErr"),
        (["audit", "{data}", "--feature-set", "broken-features"], "feature set 'broken-features' .* on import"),
        (["score", "{data}", "--model", "broken-model"], "model 'broken-model' .* failed on import: RuntimeError"),
        (["score", "{data}", "--model", "broken-model", "--threads", "2"], "model 'broken-model' .* on import"),
        (["score", "{data}", "--model", "broken-provider:m"], "provider 'broken-provider' .* on import: RuntimeError"),
        (["stress", "{data}", "--model", "raising:m"], "provider 'raising' .* on construction: ValueError: no model"),
        (["stress", "{data}", "--perturbation", "broken-perturbation"], "'broken-perturbation' .* AttributeError"),
        (["stress", "{data}", "--rules", "broken-rule", "-p", "rules"], "'broken-rule' .* ZeroDivisionError"),
    ],
)
def test_a_requested_name_whose_plugin_failed_is_exit_2_naming_it(
    broken: None, tmp_path: Path, args: list[str], message: str
) -> None:
    data = str(_items(tmp_path))
    result = runner.invoke(app, [arg.replace("{data}", data) for arg in args])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in text and f"from the plugin {PACKAGE} (entry point pfungst." in text
    assert re.search(message, text), text


def test_resolving_a_plugin_that_fails_to_import_raises_a_config_error_each_time(broken: None) -> None:
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"^format 'broken-import' from the plugin pfungst-plugin-broken 0\.2\.0"):
            READERS.resolve("broken-import")
