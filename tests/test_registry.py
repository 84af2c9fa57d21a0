"""The one registry mechanism: lazy ``module:Name`` entries, entry points from installed packages, clear errors."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from pfungst import registry as registry_module
from pfungst.errors import ConfigError, MissingDependency
from pfungst.registry import Registry, resolve_target

GROUP = "pfungst.test_things"


def _entry_points(points: list[metadata.EntryPoint]) -> Any:
    def entry_points(*, group: str) -> list[metadata.EntryPoint]:
        return [point for point in points if point.group == group]

    return entry_points


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> list[metadata.EntryPoint]:
    """Entry points an installed package would declare in ``GROUP`` (append to the list before first use)."""
    points: list[metadata.EntryPoint] = []
    monkeypatch.setattr(registry_module.metadata, "entry_points", _entry_points(points))
    return points


def test_a_string_entry_is_imported_only_when_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pfungst_lazy_example.py").write_text("class Rule:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rules = Registry("scoring rule", {"lazy": "pfungst_lazy_example:Rule"}, group=None)
    assert rules["lazy"] == "pfungst_lazy_example:Rule" and list(rules) == ["lazy"] and len(rules) == 1
    assert "pfungst_lazy_example" not in sys.modules
    assert rules.resolve("lazy").__name__ == "Rule"
    monkeypatch.delitem(sys.modules, "pfungst_lazy_example")


def test_an_object_entry_resolves_to_itself() -> None:
    things = Registry("thing", {"one": 1}, group=None)
    assert things.resolve("one") == 1 and dict(things) == {"one": 1}


def test_an_unknown_name_lists_close_matches_and_every_name() -> None:
    things = Registry("colour", {"red": 1, "green": 2}, group=None)
    with pytest.raises(ConfigError, match=r"^Unknown colour 'gren'\. Did you mean: green\? Available: green, red$"):
        things.resolve("gren")
    with pytest.raises(ConfigError, match=r"^Unknown colour 'blue'\. Available: green, red$"):
        things.check("blue")


@pytest.mark.parametrize("name", [None, 3, ["red"]])
def test_a_name_that_is_not_text_is_a_config_error_not_a_crash(name: Any) -> None:
    things = Registry("colour", {"red": 1, "green": 2}, group=None)
    with pytest.raises(ConfigError, match=r"^a colour name must be text, found .*Available: green, red$"):
        things.resolve(name)


def test_entry_points_of_the_group_follow_the_builtin_entries(plugins: list[metadata.EntryPoint]) -> None:
    plugins += [
        metadata.EntryPoint("errors", "pfungst.errors", GROUP),
        metadata.EntryPoint("other", "pfungst.errors:ConfigError", "pfungst.other_group"),
    ]
    things = Registry("thing", {"one": 1}, group=GROUP)
    assert list(things) == ["one", "errors"]
    assert things.is_plugin("errors") and not things.is_plugin("one") and not things.is_plugin("absent")
    assert things.distribution("one") is None and things.distribution("errors") == ""
    assert things.resolve("errors").__name__ == "pfungst.errors"


def test_a_registry_without_a_group_reads_no_entry_points(plugins: list[metadata.EntryPoint]) -> None:
    plugins.append(metadata.EntryPoint("errors", "pfungst.errors", GROUP))
    assert list(Registry("thing", {"one": 1}, group=None)) == ["one"]


def test_a_builtin_name_wins_over_a_plugin_with_a_warning(plugins: list[metadata.EntryPoint]) -> None:
    plugins += [
        metadata.EntryPoint("one", "pfungst.errors:ConfigError", GROUP),
        metadata.EntryPoint("two", "pfungst.errors:DataError", GROUP),
        metadata.EntryPoint("two", "pfungst.errors:ReaderError", GROUP),
    ]
    things = Registry("thing", {"one": 1}, group=GROUP)
    with pytest.warns(UserWarning) as caught:
        assert things.resolve("one") == 1
    assert things.resolve("two").__name__ == "DataError"
    messages = [str(warning.message) for warning in caught]
    assert messages == [
        "thing 'one' from entry point 'pfungst.errors:ConfigError' (unknown) is ignored: a built-in one has that name",
        "thing 'two' from entry point 'pfungst.errors:ReaderError' (unknown) is ignored: another one has that name",
    ]


def test_refresh_reads_entry_points_installed_since(plugins: list[metadata.EntryPoint]) -> None:
    things = Registry("thing", {}, group=GROUP)
    assert "late" not in things
    plugins.append(metadata.EntryPoint("late", "pfungst.errors:ConfigError", GROUP))
    assert "late" not in things  # read once, on first use
    things.refresh()
    assert things.resolve("late") is ConfigError


def test_resolve_target_takes_the_forms_of_an_entry_point() -> None:
    assert resolve_target("pfungst.errors:ConfigError") is ConfigError
    assert resolve_target("pfungst.errors:ConfigError.__name__") == "ConfigError"
    assert resolve_target("pfungst.errors").__name__ == "pfungst.errors"


@pytest.mark.parametrize("target", ["", ":Name", "pfungst.errors:"])
def test_resolve_target_rejects_a_malformed_reference(target: str) -> None:
    with pytest.raises(ConfigError, match=r"is not a 'module:Name' reference"):
        resolve_target(target)


def test_a_missing_module_is_a_missing_dependency_and_a_missing_name_a_config_error() -> None:
    with pytest.raises(MissingDependency, match=r"needs the module 'pfungst_absent_module', which is not installed"):
        resolve_target("pfungst_absent_module:Thing")
    with pytest.raises(ConfigError, match=r"module 'pfungst.errors' has no attribute 'Absent'"):
        resolve_target("pfungst.errors:Absent")


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("pfungst.data.readers", "READERS"),
        ("pfungst.audit.feature_sets", "FEATURE_SETS"),
        ("pfungst.evaluate.scoring", "SCORING_RULES"),
        ("pfungst.models.registry", "MODELS"),
        ("pfungst.models.providers", "PROVIDERS"),
        ("pfungst.results", "RESULTS"),
        ("pfungst.results", "DERIVED"),
    ],
)
def test_every_extension_point_is_a_registry_read_from_its_entry_point_group(module: str, name: str) -> None:
    extension_point = getattr(__import__(module, fromlist=[name]), name)
    assert isinstance(extension_point, Registry) and extension_point.group in registry_module.ENTRY_POINT_GROUPS
    for entry in extension_point:
        assert extension_point.resolve(entry) is not None


@pytest.mark.parametrize(
    ("lookup", "name", "message"),
    [
        ("pfungst.audit.feature_sets:get_feature_set", "1-grams_tff", r"Unknown feature set '1-grams_tff'\. Did"),
        ("pfungst.audit.classifiers:CLASSIFIERS.check", "l2_C2", r"Unknown classifier 'l2_C2'\. Did you mean: .*l2_C1"),
        (
            "pfungst.data.synthetic:make_synthetic",
            "contrl",
            r"Unknown synthetic benchmark 'contrl'\. Did you mean: control",
        ),
        (
            "pfungst.evaluate.scoring:get_scoring_rule",
            "pmii",
            r"Unknown scoring rule 'pmii'\. Did you mean: pmi\? Available",
        ),
    ],
)
def test_each_registry_names_its_kind_in_an_unknown_name_message(lookup: str, name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_target(lookup)(name)


def test_a_builtin_entry_that_raises_is_a_bug_not_a_skipped_plugin(plugins: list[metadata.EntryPoint]) -> None:
    plugins.append(metadata.EntryPoint("late", "pfungst_absent_module:Thing", GROUP))
    things = Registry("thing", {"one": "pfungst_absent_module:Thing"}, group=GROUP)
    with pytest.raises(MissingDependency, match=r"needs the module 'pfungst_absent_module'"):
        things.skip_if_broken("one", "import", things.resolve, "one")
    with pytest.warns(UserWarning, match=r"^thing 'late' from the plugin an unknown package \(entry point "):
        assert things.skip_if_broken("late", "import", things.resolve, "late") is None
