"""The README and the docs site: short entry point, no history in user docs, generated parts that track the code.

The site itself is built by ``make docs`` (``mkdocs build --strict``, run by ``make test``); these tests check what a
build cannot: the README's length and first lines, the words the docs must not use, and that the generated parts
and the included example plugin follow the code.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
USER_DOCS = [README, *sorted(DOCS.rglob("*.md"))]
PLUGIN = ROOT / "tests" / "fixtures" / "pfungst_plugin_example"

HISTORY = {
    "wave": r"\bwaves?\b",
    "stop N": r"\bstop \d+\b",
    "issue N": r"\bissues? #?\d+\b",
    "no longer": r"\bno longer\b",
    "before/after": r"\bbefore/after\b|\bbefore and after\b",
    "this session": r"\bthis session\b",
    "earlier sessions": r"\bearlier (sessions?|runs?|waves?)\b",
}


def test_readme_is_at_most_150_lines() -> None:
    assert len(README.read_text().splitlines()) <= 150


def test_readme_starts_with_the_two_commands_that_work_on_a_fresh_machine() -> None:
    lines = [line for line in README.read_text().splitlines() if line.strip()]
    assert lines[0].startswith("# ")
    assert lines[1] == "```bash"
    assert lines[2].startswith("make demo")
    assert lines[3].startswith("make test")


def test_the_makefile_keeps_demo_and_test_and_test_builds_the_docs_before_pytest() -> None:
    """The docs build runs first so that pytest's summary closes the log CI reads."""
    makefile = (ROOT / "Makefile").read_text()
    test_recipe = re.search(r"^test:.*?\n((?:\t.*\n)+)", makefile, re.M)
    assert test_recipe is not None
    steps = test_recipe.group(1)
    assert "pytest" in steps
    assert steps.index("docs") < steps.index("pytest")
    assert re.search(r"^demo:", makefile, re.M)
    assert re.search(r"^docs:.*\n\t.*mkdocs build --strict", makefile, re.M)


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_user_docs_tell_what_is_not_how_it_came_to_be(path: Path) -> None:
    text = path.read_text()
    found = {name: match.group(0) for name, pattern in HISTORY.items() if (match := re.search(pattern, text, re.I))}
    assert not found, f"{path.relative_to(ROOT)} uses history words: {found}"


def test_every_docs_page_is_in_the_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", config, re.M))
    pages = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    assert pages == listed


COMMANDS = ("pfungst ", "pip ", "python ", "make ", "cd ", "export ", "#")
"""How a line of a tutorial's shell block starts: a command (or a comment), never a copied output."""


@pytest.mark.parametrize("tutorial", sorted(path.stem for path in (DOCS / "tutorials").glob("*.md")))
def test_tutorials_generate_their_output_when_the_site_is_built(tutorial: str) -> None:
    text = (DOCS / "tutorials" / f"{tutorial}.md").read_text()
    assert '```python exec="on"' in text
    blocks = re.findall(r"^```([^\n]*)\n(.*?)^```$", text, re.M | re.S)
    for opener, body in blocks:  # output comes from markdown-exec; a shell block lists commands only
        assert opener.startswith('python exec="on"') or opener == "bash", f"{tutorial}: static block ```{opener}"
        if opener == "bash":
            lines = [line for line in body.splitlines() if line.strip()]
            assert all(line.startswith(COMMANDS) for line in lines), f"{tutorial}: output in a shell block: {body}"


def test_the_site_opens_from_disk_and_wraps_its_code_blocks() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    assert re.search(r"^use_directory_urls: false$", config, re.M)  # page.html links, which a file:// page follows
    sheets = re.findall(r"^extra_css:\n((?:  - .+\n)+)", config, re.M)
    css = "".join((DOCS / line.strip()[2:]).read_text() for block in sheets for line in block.splitlines())
    assert re.search(r"pre > code \{[^}]*white-space: pre-wrap", css)


def test_the_plugin_guide_includes_the_tested_example_instead_of_a_copy() -> None:
    guide = (DOCS / "guides" / "plugins.md").read_text()
    included = set(re.findall(r'--8<-- "([^"]+)"', guide))
    modules = {
        str(path.relative_to(ROOT))
        for path in (PLUGIN / "pfungst_plugin_example").glob("*.py")
        if path.name != "__init__.py"
    }
    assert modules | {str((PLUGIN / "pyproject.toml").relative_to(ROOT))} <= included
    assert "class QaTextReader" not in guide


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pfungst_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_registry_pages_list_every_registered_name(hooks: ModuleType) -> None:
    from pfungst.evaluate.scoring import SCORING_RULES
    from pfungst.stress.perturbations import PERTURBATIONS

    page = hooks.on_page_markdown("<!-- pfungst:registry rules -->\n\n<!-- pfungst:registry perturbations -->\n")
    for name in [*SCORING_RULES, *PERTURBATIONS]:
        assert f"| `{name}` |" in page


def test_the_api_pages_document_every_public_name_once(hooks: ModuleType) -> None:
    import pfungst

    top = hooks.on_page_markdown("<!-- pfungst:api pfungst -->\n\n<!-- pfungst:api pfungst.errors -->\n")
    for name in pfungst.__all__:
        value = getattr(pfungst, name)
        if callable(value):
            path = f"{value.__module__}.{value.__qualname__}"
            assert f"::: {path}\n" in top or f"#{path})" in top, name
    pages = [top] + [
        hooks.on_page_markdown(f"<!-- pfungst:api pfungst.{package} -->\n") for package in hooks.API_PACKAGES
    ]
    blocks = [path for page in pages for path in re.findall(r"^::: (\S+)$", page, re.M)]
    assert len(blocks) > 100
    assert len(blocks) == len(set(blocks)), [path for path in set(blocks) if blocks.count(path) > 1]


def test_the_schema_page_lists_every_result_kind(hooks: ModuleType) -> None:
    from pfungst.schema import SCHEMA_VERSIONS

    page = hooks.on_page_markdown("<!-- pfungst:schemas -->\n")
    for version in SCHEMA_VERSIONS.values():
        assert f"`{version}`" in page


def test_the_cli_page_documents_every_command_and_option(hooks: ModuleType) -> None:
    page = hooks.on_page_markdown("<!-- pfungst:cli -->\n")
    for command in ("audit", "suite", "stress", "reliance", "validity", "report", "export lm-eval"):
        assert f"## `pfungst {command}`" in page
    assert "`--fail-on <str>`" in page or "`--fail-on" in page
