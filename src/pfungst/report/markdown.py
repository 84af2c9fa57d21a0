"""``render_markdown``: the report as GitHub-flavoured Markdown, for CI logs, pull requests and papers.

The same sections, tables and figures as the HTML page (:func:`~pfungst.report.document.build_report`). Text from
the results is untrusted: ``<``, ``>`` and ``&`` become HTML entities (so a Markdown renderer that passes HTML
through shows them as text), Markdown's own punctuation is escaped where it could start a link, emphasis, code or a
table cell, and settings (JSON, with ``<``, ``>`` and ``&`` written as JSON escapes) sit in a code fence longer
than any run of backticks inside them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pfungst.blocks import Block, Board, Code, Facts, Figure, Table, Text
from pfungst.report.document import build_report

__all__ = ["escape_markdown", "render_markdown"]

_PUNCTUATION = re.compile(r"([\\`*|~])")
"""Characters that start code, emphasis, strike-through or a new table cell."""
_LINK = re.compile(r"\](?=[(\[:])|!(?=\[)")
"""A ``]`` that would close a link's text (``](``, ``][``, ``]:``) or a ``!`` that would open an image: with these
escaped, brackets alone (as in the intervals ``[0.41, 0.61]``) form no link."""
_LOOSE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
"""Underscores that could open or close emphasis (GFM ignores those inside words, as in ``1-grams_tf``)."""
_BLOCK_START = re.compile(r"^(>|(#{1,6}|[-+*=]|\d{1,9}[.)])(\s|$)|([-*_=]\s*){3,}$)")
"""What would make a paragraph a heading, quote, list or rule."""


def escape_markdown(text: Any) -> str:
    """``text`` as one line of inert Markdown: entities for HTML, backslashes before Markdown punctuation.

    Example:
        >>> escape_markdown('<script>alert(1)</script> [x](javascript:y) a|b *c* 1-grams_tf')
        '&lt;script&gt;alert(1)&lt;/script&gt; [x\\\\](javascript:y) a\\\\|b \\\\*c\\\\* 1-grams_tf'
    """
    text = " ".join(str(text).split())
    text = _PUNCTUATION.sub(r"\\\1", html.escape(text, quote=False))
    text = _LOOSE_UNDERSCORE.sub(r"\\_", text)
    text = _LINK.sub(lambda match: "\\" + match.group(0), text)
    return "\\" + text if _BLOCK_START.match(text) else text


def render_markdown(
    results: Iterable[Any], *, title: str | None = None, figure_paths: Sequence[str | Path] = ()
) -> str:
    """The report on ``results`` as Markdown: headings, tables, facts, settings; figures where their files are given.

    Args:
        results: Loaded result files, result dicts or result objects, as for
            :func:`~pfungst.report.html.render_html`.
        title: The report's title; by default one naming the benchmarks.
        figure_paths: The report's figures as files, in order (what :func:`~pfungst.report.plots.write_plots`
            returns, relative to where the Markdown will live); without them figures are left out (the tables hold
            every figure anyway).

    Raises:
        ConfigError: an input of an unknown kind or schema.

    Example:
        >>> summary = {"schema_version": "pfungst.summary/2", "benchmark": {"name": "toy", "n_items": 4},
        ...            "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> print(render_markdown([summary]).splitlines()[0])
        # pfungst report: toy
    """
    report = build_report(results, title=title)
    paths = iter(figure_paths)
    lines = [f"# {escape_markdown(report.title)}", ""]
    for section in report.sections:
        lines += [f"{'#' * section.level} {escape_markdown(section.title)}", ""]
        for block in section.blocks:
            path = next(paths, None) if isinstance(block, Figure) else None
            lines += _block(block, path)
    return "\n".join(lines).rstrip() + "\n"


def _block(block: Block, figure_path: str | Path | None) -> list[str]:
    if isinstance(block, Text):
        prefix = "> " if block.tone else ""
        return [prefix + escape_markdown(block.text), ""]
    if isinstance(block, Facts):
        return [*(f"- **{escape_markdown(label)}**: {escape_markdown(value)}" for label, value in block.pairs), ""]
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Board):
        rows = tuple(cells for _, cells in block.cells())
        return _table(Table(block.caption, block.columns, rows, text_columns=len(block.columns)))
    if isinstance(block, Figure):
        if figure_path is None:
            return []
        return [f"![{escape_markdown(block.title)}]({quote(str(figure_path))})", ""]
    if isinstance(block, Code):
        # JSON's own escapes keep markup out even of a viewer that ignores the fence; the JSON stays the same JSON
        text = block.text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        caption = [f"{escape_markdown(block.caption)}:", ""] if block.caption else []
        return [*caption, f"{fence}json", text, fence, ""]
    return []


def _table(table: Table) -> list[str]:
    lines = [f"**{escape_markdown(table.caption)}**", ""] if table.caption else []
    lines.append("| " + " | ".join(escape_markdown(column) for column in table.columns) + " |")
    lines.append("|" + "|".join("---:" if k >= table.text_columns else "---" for k in range(len(table.columns))) + "|")
    lines += ["| " + " | ".join(escape_markdown(cell) for cell in row) + " |" for row in table.rows]
    lines.append("")
    if table.note:
        lines += [f"Method: {escape_markdown(table.note)}", ""]
    return lines
