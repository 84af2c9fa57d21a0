"""Console rendering with rich: tables for people, on stderr. Renders result objects; computes nothing."""

from __future__ import annotations

import math
from collections.abc import Mapping

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pfungst.data.summary import BenchmarkSummary
from pfungst.stats import Estimate

__all__ = ["render_summary", "render_readers"]


def _format_p(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "< 1e-4" if p < 1e-4 else f"{p:.4f}"


def _histogram(title: str, counts: Mapping[str, int], total: int) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column("value")
    table.add_column("items", justify="right")
    table.add_column("share", justify="right")
    for key, count in counts.items():
        table.add_row(escape(str(key)), str(count), f"{count / total:.1%}" if total else "-")
    return table


def _estimate_line(label: str, estimate: Estimate) -> str:
    ci = f" [{estimate.ci.low:.3f}, {estimate.ci.high:.3f}]" if estimate.ci else ""
    baseline = f", chance {estimate.baseline:.3f}" if not math.isnan(estimate.baseline) else ""
    return f"{label}: {estimate.value:.3f}{ci}{baseline} (n={estimate.n})"


def render_summary(summary: BenchmarkSummary, console: Console) -> None:
    """Print what ``pfungst inspect`` shows: sizes, histograms, tests, lengths, duplicates, provenance."""
    info = summary.benchmark
    provenance = info["provenance"]
    n = info["n_items"]
    console.print(
        f"[bold]{escape(info['name'])}[/bold]: {n} items, {escape(info['option_kind'])}"
        f" (format {escape(provenance['format'])})"
    )
    if info["labels"]:
        console.print("labels: " + ", ".join(escape(label) for label in info["labels"]))
    console.print(_histogram("options per item", info["option_counts"], n))
    title = "gold labels" if info["option_kind"] == "shared_labels" else "gold positions"
    console.print(_histogram(title, summary.gold_counts, n))
    test = summary.gold_uniformity
    console.print(f"{test.method}: chi2 = {test.value:.2f}, p = {_format_p(test.pvalue)}")
    console.print(_estimate_line("most frequent gold answer, share", summary.majority))
    console.print(
        f"text length: {summary.text_words.mean:.1f} words on average (median {summary.text_words.median:g}, "
        f"{summary.text_words.minimum}-{summary.text_words.maximum}); {summary.text_chars.mean:.0f} characters"
    )
    if info["option_kind"] == "per_item":
        console.print(
            f"option length: {summary.option_chars.mean:.1f} characters on average "
            f"({summary.option_chars.minimum}-{summary.option_chars.maximum})"
        )
    if summary.field_names:
        console.print("fields: " + ", ".join(f"{escape(k)} ({v})" for k, v in summary.field_names.items()))
    _render_provenance(provenance, console)


def _render_provenance(provenance: Mapping, console: Console) -> None:
    console.print(
        f"source: {escape(provenance['source'])}\n"
        f"sha256: {provenance['sha256'] or '-'}\n"
        f"rows read {provenance['rows_read']}, kept {provenance['rows_kept']}, "
        f"rejected {provenance['rows_rejected']}; duplicate texts {provenance['duplicate_texts']} "
        f"({provenance['conflicting_duplicates']} with a different answer); "
        f"duplicate ids {provenance['duplicate_ids']}"
    )
    for rejection in provenance["rejected"][:10]:
        console.print(f"  rejected: {escape(rejection['reason'])}", style="yellow")
    if len(provenance["rejected"]) > 10:
        console.print(f"  ... and {len(provenance['rejected']) - 10} more rejected rows", style="yellow")
    for warning in provenance["warnings"][:10]:
        console.print(f"  warning: {escape(warning)}", style="yellow")
    if len(provenance["warnings"]) > 10:
        console.print(f"  ... and {len(provenance['warnings']) - 10} more warnings", style="yellow")
    for step in provenance["steps"]:
        console.print(f"  step: {escape(step)}")


def render_readers(rows: list[tuple[str, str]], console: Console) -> None:
    """One line per reader: name and description."""
    width = max((len(name) for name, _ in rows), default=0)
    for name, description in rows:
        console.print(f"{name:<{width}}  {escape(description)}", highlight=False, soft_wrap=True)
