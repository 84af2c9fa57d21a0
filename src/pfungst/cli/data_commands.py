"""Commands about data: ``formats``, ``inspect`` and the built-in ``demo``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from pfungst.cli.common import (
    READ,
    WRITE,
    WRITE_FOLDER,
    QuietOption,
    app,
    progress_bar,
    results_console,
    stdout,
    user_errors,
    write_json,
)
from pfungst.cli.option_groups import DataOptions, with_option_groups
from pfungst.cli.result_output import VerboseOption, show_result
from pfungst.errors import ConfigError, unknown_name_message
from pfungst.path_checks import check_outputs

if TYPE_CHECKING:
    from pfungst.demo import DemoResult
    from pfungst.registry import Registry

__all__ = ["demo", "formats", "inspect"]


@app.command()
def formats(
    what: Annotated[
        str | None,
        typer.Option(
            help="List only: readers, layouts, prompts, perturbations, rules, models, providers or feature-sets "
            "(default: readers and prompts)."
        ),
    ] = None,
) -> None:
    """List the data readers and prompt formats (or the table layouts read without --map, stress perturbations,
    scoring rules, models, model providers, feature sets), one line each; an entry from an installed plugin says
    which package it comes from."""
    with user_errors():
        from pfungst.report.console import render_readers

        if what is not None and what not in _LISTS:
            raise ConfigError(unknown_name_message("list", what, _LISTS))
        if what is not None:
            render_readers(_LISTS[what](), stdout)
            return
        for index, name in enumerate(("readers", "prompts")):
            stdout.print(("\n" if index else "") + _HEADINGS[name], highlight=False)
            render_readers(_LISTS[name](), stdout)


def _origin(registry: Registry[Any], name: str) -> str:
    """`` (plugin: DISTRIBUTION)`` for an entry from an installed package's entry point, else nothing."""
    distribution = registry.distribution(name)
    return "" if distribution is None else f" (plugin: {distribution or 'unknown package'})"


def _rows(registry: Registry[Any], describe: Callable[[str], str]) -> list[tuple[str, str]]:
    """``(name, description (plugin: PACKAGE))`` for each entry; a plugin that fails is left out with a warning."""
    rows = []
    for name in registry:
        description = registry.skip_if_broken(name, "listing", describe, name)
        if description is not None:
            rows.append((name, description + _origin(registry, name)))
    return rows


def _reader_rows() -> list[tuple[str, str]]:
    from pfungst.data.readers import READERS, get_reader

    return _rows(READERS, lambda name: get_reader(name).description)


def _layout_rows() -> list[tuple[str, str]]:
    """Each common table layout (tried in this order) with its columns and how they are read."""
    from pfungst.data.layout_catalog import layout_rows

    return layout_rows()


def _prompt_rows() -> list[tuple[str, str]]:
    """Each built-in prompt format shown on a two-option item, newlines as ``\\n``."""
    from pfungst.data.item import Item
    from pfungst.evaluate.arrangement import ArrangedItem
    from pfungst.evaluate.formats import BUILTIN_FORMATS

    example = ArrangedItem.identity(Item("example", "2 + 2 =", ("3", "4"), 1))
    return [(name, prompt.render(example).text.replace("\n", "\\n")) for name, prompt in BUILTIN_FORMATS.items()]


def _perturbation_rows() -> list[tuple[str, str]]:
    from pfungst.stress.perturbations import PERTURBATIONS, get_perturbation
    from pfungst.stress.perturbations.params import perturbation_spec, spec_text

    def describe(name: str) -> str:
        perturbation = get_perturbation(name)
        spec = perturbation_spec(perturbation)  # its parameters at their defaults: -p name:key=value changes them
        return perturbation.description + (f"; default {spec_text(spec)}" if spec["params"] else "")

    return _rows(PERTURBATIONS, describe)


def _rule_rows() -> list[tuple[str, str]]:
    from pfungst.evaluate.scoring import SCORING_RULES, get_scoring_rule

    return _rows(SCORING_RULES, lambda name: (get_scoring_rule(name).__doc__ or "").strip().split("\n")[0])


def _model_rows() -> list[tuple[str, str]]:
    from pfungst.models.registry import MODELS

    return [(name, f"{target}{_origin(MODELS, name)}") for name, target in MODELS.items()] + [
        ("PATH.gguf", "any GGUF file, run by llama.cpp (as llamacpp:PATH.gguf)"),
        ("FOLDER", "a transformers model folder (as hf:FOLDER; pfungst[hf])"),
        ("PROVIDER:TARGET", "a model of a provider: openai:<base_url>#<model>, ... (pfungst formats --what providers)"),
    ]


def _provider_rows() -> list[tuple[str, str]]:
    """Each ``provider:`` prefix with how its specs are written."""
    from pfungst.models.providers import PROVIDERS

    def describe(name: str) -> str:
        provider = PROVIDERS.resolve(name)
        return f"{provider.form}: {provider.description}" if provider.description else provider.form

    return _rows(PROVIDERS, describe)


def _feature_set_rows() -> list[tuple[str, str]]:
    from pfungst.audit.feature_sets import FEATURE_SETS, get_feature_set

    return _rows(FEATURE_SETS, lambda name: f"{get_feature_set(name).description} ({get_feature_set(name).sees})")


_LISTS: dict[str, Callable[[], list[tuple[str, str]]]] = {
    "readers": _reader_rows,
    "layouts": _layout_rows,
    "prompts": _prompt_rows,
    "perturbations": _perturbation_rows,
    "rules": _rule_rows,
    "models": _model_rows,
    "providers": _provider_rows,
    "feature-sets": _feature_set_rows,
}
_HEADINGS = {
    "readers": "Data readers (--reader; detected when omitted):",
    "prompts": "Prompt formats (--prompt of score and stress), shown on a two-option item:",
}


@app.command()
@with_option_groups
def inspect(
    data: Annotated[
        Path, typer.Argument(help="Benchmark file or directory (or a hub name with --reader huggingface)."), READ
    ],
    data_options: DataOptions,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write the summary as JSON here ('-': stdout)."), WRITE
    ] = None,
) -> None:
    """Summarise a benchmark: items, options, label and gold-position histograms, lengths, duplicates, provenance."""
    with user_errors():
        from pfungst.data.summary import summarize
        from pfungst.report.console_blocks import render_to_console

        check_outputs([data], {"--json": json_path})
        summary = summarize(data_options.load(data))
        render_to_console(summary, results_console(json_path))
        write_json(json_path, summary.save_json)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the generated benchmarks."), WRITE_FOLDER] = Path(
        "pfungst-demo"
    ),
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives the same files.")] = 0,
    items: Annotated[int, typer.Option(help="Items per synthetic benchmark.")] = 400,
    stress_items: Annotated[
        int, typer.Option(help="gold-position items (the first) the embedded model is stressed on.")
    ] = 24,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """The built-in job: generate benchmarks with planted artifacts, audit each, stress the embedded model on one of
    them, write the results and report.html. Prints each result's short answer (every table with --verbose)."""
    with user_errors():
        from pfungst.audit.summary_lines import verdict_line
        from pfungst.data.synthetic import SYNTHETIC
        from pfungst.demo import run_demo
        from pfungst.report.console_blocks import render_to_console

        check_outputs([], {}, folders={"--out": out})
        with progress_bar(quiet, "writing the benchmarks") as report:
            result = run_demo(out, seed=seed, n_items=items, stress_items=stress_items, progress=report)
        for name, summary in result.summaries.items():
            stdout.rule(f"{name}: planted {escape(SYNTHETIC.resolve(name).planted)}")
            if verbose:
                render_to_console(summary, stdout)
            show_result(result.audits[name], stdout, verbose)
        stdout.rule("demo: verdicts")
        for name, audited in result.audits.items():
            stdout.print(escape(verdict_line(name, audited)))
        stdout.rule("demo: the model stressed on gold-position")
        show_result(result.stress, stdout, verbose)
        for line in result.conclusion:
            stdout.print(escape(line))
        _say_where_the_demo_wrote(result, out, seed)


def _say_where_the_demo_wrote(result: DemoResult, out: Path, seed: int) -> None:
    """The demo's files, by kind, and its report page (on standard output: what a first-time user opens next)."""
    stdout.rule("demo: written")
    names = ", ".join(path.name for path in result.paths.values())
    stdout.print(f"in {escape(str(out))}/ (seed {seed}):", highlight=False, soft_wrap=True)
    stdout.print(f"  benchmarks: {escape(names)}", highlight=False, soft_wrap=True)
    stdout.print("  audits: <benchmark>.audit.json beside each", highlight=False)
    stdout.print(f"  stress run: {escape(result.stress_path.name)}", highlight=False)
    stdout.print(
        f"report: {escape(str(result.report_path))} (one self-contained page; open it in a browser; "
        "every table here: --verbose)",
        highlight=False,
        soft_wrap=True,
    )
