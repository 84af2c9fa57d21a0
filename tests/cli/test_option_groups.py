"""Options shared by several commands read and behave alike in each: one declaration (an option group) per set."""

from typing import Any

import pytest
import typer

from pfungst.cli import app

SHARED = {
    "data": (
        ("inspect",),
        ("audit",),
        ("score",),
        ("stress",),
        ("export", "lm-eval"),
    ),
    "model": (("score",), ("stress",)),
    "sampling": (("stress",), ("export", "lm-eval")),
    "audit": (("audit",), ("suite",)),
    "gate": (("audit",), ("suite",)),
}
"""Each option group and the commands that take it."""

OPTIONS = {
    "data": ("--reader", "--map", "--on-error", "--strict"),
    "model": (
        "--cache",
        "--chunk-size",
        "--threads",
        "--weights",
        "--prefix-trie",
        "--timeout",
        "--deadline",
        "--retries",
    ),
    "sampling": ("--limit", "--sample", "--seed", "--n-bootstrap"),
    "audit": (
        "--feature-set",
        "--detect-label-set",
        "--seed",
        "--n-repeats",
        "--n-splits",
        "--n-bootstrap",
        "--n-permutations",
        "--threshold",
        "--max-items",
        "--selection-max-items",
        "--c-grid",
        "--solvers",
        "--grid-patience",
        "--n-jobs",
        "--parallel",
        "--cluster",
    ),
    "gate": ("--fail-on", "--card"),
}


def _options(words: tuple[str, ...]) -> dict[str, Any]:
    command: Any = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]
    return {parameter.opts[0]: parameter for parameter in command.params}


def _shown(option: Any) -> tuple[Any, ...]:
    """What a user sees of an option and what it accepts: names, help, default, repeatable or a flag."""
    return (
        tuple(option.opts),
        tuple(option.secondary_opts),
        option.help,
        option.default,
        option.multiple,
        option.is_flag,
    )


def test_a_shared_option_reads_the_same_in_every_command_that_takes_it() -> None:
    differing = {}
    for group, commands in SHARED.items():
        options = {words: _options(words) for words in commands}
        for name in OPTIONS[group]:
            seen = {words: _shown(found[name]) for words, found in options.items()}
            if len(set(seen.values())) > 1:
                differing[name] = seen
    assert not differing


def test_an_option_group_refuses_a_command_option_of_the_same_name() -> None:
    from pfungst.cli.option_groups import DataOptions, with_option_groups

    def command(data_options: DataOptions, reader: str = "") -> None:  # annotations evaluated: DataOptions is local
        """A command declaring --reader twice."""

    with pytest.raises(TypeError, match="an option name is declared twice"):
        with_option_groups(command)


def test_the_audit_options_say_the_size_limit_and_the_c_grid_the_audit_uses() -> None:
    from pfungst.audit.classifiers import DEFAULT_C_GRID
    from pfungst.audit.size_defaults import MEDIUM_ITEMS, REPEAT_ITEMS

    options = _options(("audit",))
    assert f"past {REPEAT_ITEMS:,} items" in options["--all-feature-sets"].help
    assert f"past {MEDIUM_ITEMS:,}" in options["--all-feature-sets"].help
    assert options["--c-grid"].default == ",".join(f"{c:g}" for c in DEFAULT_C_GRID)
