"""Every setting is declared once, in its config dataclass, and every command is narrow (STYLE rules 2 and 15b).

The command line's options for a config's fields are generated from the fields' declarations (:mod:`pfungst.settings`);
these tests read every command the way a user meets it (typer's click command) and fail when an option and the field
it sets disagree: names, help, default, type, choices, repeatable or not.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Iterator
from typing import Any, Literal

import pytest
import typer
from typer.testing import CliRunner

from pfungst.audit.audit_config import AuditConfig
from pfungst.audit.suite_config import SuiteConfig
from pfungst.cli import app
from pfungst.cli.settings_options import Settings, settings_marker
from pfungst.evaluate.run_config import RunConfig
from pfungst.reliance.reliance_config import RelianceConfig
from pfungst.reliance.validity_config import ValidityConfig
from pfungst.settings import Setting, check_settings, setting_of
from pfungst.stress.stress_config import StressConfig

MAX_PARAMETERS = 8
"""STYLE rule 2: a command takes at most this many parameters, an option group counting once."""
CONFIGS = (AuditConfig, SuiteConfig, RunConfig, StressConfig, RelianceConfig, ValidityConfig)
"""Every config with settings users give on the command line."""

runner = CliRunner()


def _commands() -> Iterator[tuple[str, typer.models.CommandInfo]]:
    def walk(group: typer.Typer, prefix: str) -> Iterator[tuple[str, typer.models.CommandInfo]]:
        for info in group.registered_commands:
            assert info.callback is not None
            yield f"{prefix}{info.name or info.callback.__name__.lower().replace('_', '-')}", info
        for sub in group.registered_groups:
            assert sub.typer_instance is not None
            yield from walk(sub.typer_instance, f"{prefix}{sub.name} ")

    return walk(app, "")


def _click_params(name: str) -> dict[str, Any]:
    command: Any = typer.main.get_command(app)
    for word in name.split():
        command = command.commands[word]
    return {param.name: param for param in command.params}


def _declared(config: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any, Setting, Any]]:
    """``(path, field, setting, default)`` for each declared field of ``config`` and of its nested configs."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        declared = setting_of(field)
        if declared is not None:
            yield (*path, field.name), field, declared, value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            yield from _declared(value, (*path, field.name))


def _config_parameters(info: typer.models.CommandInfo) -> list[tuple[type, Settings]]:
    command = inspect.unwrap(info.callback)  # type: ignore[arg-type]
    hints = typing.get_type_hints(command, include_extras=True)
    return [found for name in inspect.signature(command).parameters if (found := settings_marker(hints.get(name)))]


COMMANDS = dict(_commands())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_takes_at_most_eight_parameters(name: str) -> None:
    command = inspect.unwrap(COMMANDS[name].callback)  # type: ignore[arg-type]
    parameters = list(inspect.signature(command).parameters)
    assert len(parameters) <= MAX_PARAMETERS, f"pfungst {name} takes {len(parameters)}: {parameters}"


def _expected_type(field_type: Any, declared: Setting) -> str:
    """The name of the option's type a field's declaration calls for: a list of texts for a repeatable field, text
    for a parsed one or a choice of names, else the field's own scalar type."""
    if declared.repeat:
        return "list[str]"
    if declared.parse is not None or typing.get_origin(field_type) is Literal:
        return "str"
    members = [m for m in typing.get_args(field_type) if m is not type(None)] or [field_type]
    if typing.get_origin(members[0]) is Literal:
        return str
    return next(kind.__name__ for kind in (bool, float, int, str) if kind in members)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_generated_option_says_what_its_config_field_declares(name: str) -> None:
    params = _click_params(name)
    for config_type, marker in _config_parameters(COMMANDS[name]):
        default = marker.default() if marker.default else config_type()
        for path, field, declared, value in _declared(default):
            if path[-1] in marker.exclude:
                assert path[-1] not in params, f"{name}: {path[-1]} is excluded but offered"
                continue
            param = params[path[-1]]
            hints = typing.get_type_hints(type(_owner(default, path)))
            where = f"pfungst {name} {param.opts[0]} ({config_type.__name__}.{'.'.join(path)})"
            assert param.opts[0] == declared.option(field.name), where
            assert list(param.opts) == list(declared.flags or [declared.option(field.name)]), where
            assert param.help == declared.help, where
            assert param.multiple == declared.repeat, where
            assert _type_name(param.bare_type()) == _expected_type(hints[field.name], declared), where
            shown = None if declared.repeat or value is None else (declared.show(value) if declared.parse else value)
            assert param.default == shown, where
            if declared.parse is not None and value is not None:
                assert declared.parse(param.default) == value, f"{where}: its default does not read back"


def _type_name(kind: Any) -> str:
    return kind if isinstance(kind, str) else kind.__name__


def _owner(config: Any, path: tuple[str, ...]) -> Any:
    for name in path[:-1]:
        config = getattr(config, name)
    return config


@pytest.mark.parametrize("config_type", CONFIGS, ids=lambda config: config.__name__)
def test_a_field_declares_the_choices_its_type_allows_and_its_default_passes_its_checks(config_type: type) -> None:
    config = config_type()
    check_settings(config)
    hints = typing.get_type_hints(config_type)
    for field in dataclasses.fields(config_type):
        declared = setting_of(field)
        if declared is None:
            continue
        literal = [
            m for m in (hints[field.name], *typing.get_args(hints[field.name])) if typing.get_origin(m) is Literal
        ]
        if literal:
            assert declared.choices == typing.get_args(literal[0]), f"{config_type.__name__}.{field.name}"
        assert declared.help.strip() and declared.help.rstrip().endswith((".", ")")), field.name


def test_every_declared_field_is_offered_by_some_command() -> None:
    offered: set[tuple[str, str]] = set()
    for name, info in COMMANDS.items():
        params = _click_params(name)
        for config_type, marker in _config_parameters(info):
            default = marker.default() if marker.default else config_type()
            for path, _, _, _ in _declared(default):
                owner = type(_owner(default, path)).__name__
                if path[-1] in params:
                    offered.add((owner, path[-1]))
    declared = {(c.__name__, f.name) for c in CONFIGS for f in dataclasses.fields(c) if setting_of(f) is not None}
    assert declared - offered == set()


def test_a_hand_written_option_never_shadows_a_config_field() -> None:
    """An option a command declares itself may not carry the name of a field of a config the same command takes: the
    setting would then be declared twice (and `with_option_groups` refuses two parameters of one name)."""
    from pfungst.cli.option_groups import with_option_groups

    def command(settings: AuditConfig, seed: int = 0) -> None:
        """A command declaring --seed beside the audit's."""

    with pytest.raises(TypeError, match="an option name is declared twice"):
        with_option_groups(command)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["audit", "{data}", "--parallel", "fibers"], r"parallel \(--parallel\) must be 'processes' or 'threads'"),
        (["audit", "{data}", "--grid-patience", "5000"], r"grid_patience \(--grid-patience\) must be at most 1000"),
        (["suite", "{data}", "--on-error", "halt"], r"on_error \(--on-error\) must be 'raise' or 'skip', not 'halt'"),
        (["suite", "{data}", "--fdr", "2"], r"alpha must be a false discovery rate in \(0, 1\)"),
        (["reliance", "{data}", "--outcomes", "{data}", "--test", "exact"], r"test \(--test\) must be 'fisher' or"),
    ],
)
def test_a_value_outside_its_declaration_exits_2_naming_the_option(
    tmp_path: Any, args: list[str], message: str
) -> None:
    import re

    data = tmp_path / "items.jsonl"
    data.write_text("".join(f'{{"question": "q{i}", "choices": ["a", "b"], "answer": {i % 2}}}\n' for i in range(6)))
    result = runner.invoke(app, [arg.replace("{data}", str(data)) for arg in args])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in text
    assert re.search(message, text), text
