"""A plugin cannot end a command: ``sys.exit(0)`` or ``KeyboardInterrupt`` raised while importing it, building it or
in its ``sniff`` is reported with its name (exit 2), and a release gate fails closed instead of passing with exit 0.

``tests/fixtures/pfungst_plugin_exits`` is an installed distribution as ``importlib.metadata`` finds one, put on
``sys.path`` while these tests run: ``exits-import`` (a reader whose module calls ``sys.exit(0)``),
``interrupts-import`` (a feature set whose module raises ``KeyboardInterrupt``), ``exits-sniff`` and
``interrupts-sniff`` (readers whose ``sniff`` does).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.audit.feature_sets import FEATURE_SETS
from pfungst.cli import app
from pfungst.data.readers import READERS
from pfungst.errors import PluginError

EXITS = Path(__file__).resolve().parent / "fixtures" / "pfungst_plugin_exits"
PACKAGE = "pfungst-plugin-exits 0.1.0"
runner = CliRunner()


def _refresh() -> None:
    importlib.invalidate_caches()
    for registry in (READERS, FEATURE_SETS):
        registry.refresh()


@pytest.fixture
def exits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The plugin installed (on ``sys.path``) for one test."""
    monkeypatch.syspath_prepend(str(EXITS))
    _refresh()
    yield
    monkeypatch.undo()
    _refresh()


@pytest.fixture
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(f'{{"question": "q{i}", "choices": ["a", "b"], "answer": {i % 2}}}\n' for i in range(40)))
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["inspect", "{data}", "--reader", "exits-import"],
            r"format 'exits-import' .* failed on import: SystemExit: 0",
        ),
        (["inspect", "{data}"], r"format 'exits-(import|sniff)' .* failed on (import|sniff): SystemExit: 0"),
        (
            ["audit", "{data}", "--feature-set", "interrupts-import"],
            r"'interrupts-import' .* on import: KeyboardInterr",
        ),
        (["audit", "{data}", "--fail-on", "predictable"], r"format 'exits-(import|sniff)' .* SystemExit: 0"),
        (["formats"], r"format 'exits-import' .* failed on (import|listing): SystemExit: 0"),
    ],
)
def test_a_plugin_that_ends_the_run_is_exit_2_naming_it(
    exits: None, items: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, [arg.replace("{data}", str(items)) for arg in args])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output  # the release gate (--fail-on) fails closed, never exit 0
    assert "Traceback" not in text and "interrupted" not in text
    assert f"from the plugin {PACKAGE} (entry point pfungst." in text and "(a plugin may not end the run)" in text
    assert re.search(message, text), text


@pytest.mark.parametrize("name", ["exits-sniff", "interrupts-sniff"])
def test_a_sniff_that_ends_the_run_is_a_plugin_error_never_skipped(exits: None, items: Path, name: str) -> None:
    reader = READERS.create(name)
    with pytest.raises(PluginError, match=rf"format '{name}' from the plugin {PACKAGE} .* failed on sniff: "):
        READERS.skip_if_broken(name, "sniff", reader.sniff, items)
    with pytest.raises(PluginError):  # and again: it is not remembered as skipped
        READERS.skip_if_broken(name, "sniff", reader.sniff, items)
