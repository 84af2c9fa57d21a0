"""The package's public surface and the direction of its imports (STYLE.md rules 3 and 4)."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

import pfungst
from pfungst.errors import MissingDependency

SOURCE = Path(pfungst.__file__).parent

# Stages from left to right; a module may import only its own stage, stages to its left, and the shared modules.
STAGES = ["data", "audit", "models", "evaluate", "stress", "integrations", "reliance", "report", "demo", "cli"]
SHARED = {
    "errors",
    "settings",
    "stats",
    "environment",
    "provenance",
    "registry",
    "blocks",
    "schema",
    "serialization",
    "path_checks",
    "folder_walk",
    "lazy",
    "display",
    "results",
    "drawing",
    "html_view",
}
"""Shared modules and packages (``stats/``): every stage may import them, and they import no stage (``display`` renders
a result in a notebook from the result's own sections, through ``html_view``)."""


def test_public_api_is_exactly_the_documented_one() -> None:
    assert sorted(pfungst.__all__) == sorted(
        [
            "AuditConfig",
            "AuditResult",
            "Benchmark",
            "ConfigError",
            "DataError",
            "Item",
            "PfungstError",
            "Provenance",
            "ReaderError",
            "RelianceConfig",
            "RunConfig",
            "ScoreResult",
            "StressConfig",
            "StressResult",
            "__version__",
            "audit",
            "load",
            "read_result",
            "reliance",
            "score",
            "stress",
            "summarize",
        ]
    )
    for name in pfungst.__all__:
        assert hasattr(pfungst, name)


UNCHECKED = {"__main__": "runs the command line: after the last stage, it may import every other"}
"""Top-level modules in neither a stage nor the shared set, and why; any other such module is reported."""


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(source: str, top_level: bool = False) -> list[str]:
    """The ``pfungst`` modules ``source`` imports; with ``top_level``, only those imported when it loads (not inside
    functions or ``if TYPE_CHECKING:``)."""
    tree = ast.parse(source)
    found = []
    for node in tree.body if top_level else ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pfungst"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("pfungst")]
    return found


def _sources(root: Path = SOURCE) -> dict[str, str]:
    """Every module of the package under ``root``: dotted name (a package by its own name) -> source text."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        found[".".join(("pfungst", *parts))] = path.read_text()
    return found


def wrong_imports(sources: dict[str, str]) -> list[str]:
    """Every import against the stage order, as ``"module imports target"``: a stage importing a stage to its right,
    a shared module importing any stage, and a top-level module that is in no stage, not shared, not in UNCHECKED.
    Left-only imports also rule out every import cycle between stages."""
    wrong = []
    for module, source in sources.items():
        own = _stage(module)
        if own in ("", "__init__") or own in UNCHECKED:
            continue
        if own not in SHARED and own not in STAGES:
            wrong.append(f"{module} is in no stage and not shared")
            continue
        for target in _imports(source):
            other = _stage(target)
            if other in SHARED or other in ("", "__init__"):
                continue
            if own in SHARED or other not in STAGES or STAGES.index(other) > STAGES.index(own):
                wrong.append(f"{module} imports {target}")
    return wrong


def import_cycles(sources: dict[str, str]) -> list[list[str]]:
    """Each cycle of imports run when modules load (top-level statements), as the modules on it, sorted."""
    graph = {
        module: sorted({t for t in _imports(source, top_level=True) if t in sources and t != module})
        for module, source in sources.items()
    }
    cycles: set[tuple[str, ...]] = set()
    done: set[str] = set()

    def visit(path: list[str]) -> None:
        for target in graph[path[-1]]:
            if target in path:
                cycles.add(tuple(sorted(path[path.index(target) :])))
            elif target not in done:
                visit([*path, target])
        done.add(path[-1])

    for module in sorted(graph):
        if module not in done:
            visit([module])
    return [list(cycle) for cycle in sorted(cycles)]


def test_imports_point_left_only() -> None:
    assert wrong_imports(_sources()) == []


def test_no_modules_import_each_other_when_they_load() -> None:
    assert import_cycles(_sources()) == []


def test_evaluate_never_imports_stress() -> None:
    """The engine serves every model run; the perturbations that stress it sit on top, never below."""
    found = [
        f"{module} imports {target}"
        for module, source in _sources().items()
        if _stage(module) == "evaluate"
        for target in _imports(source)
        if _stage(target) == "stress"
    ]
    assert found == []


def test_an_upward_import_is_reported() -> None:
    """The check can fail: each kind of wrong import in a synthetic tree is reported, and only those."""
    sources = {
        "pfungst.data.records": "import json\nfrom pfungst.errors import DataError\n",
        "pfungst.data.loader": "from pfungst.report.html import render_html\n",
        "pfungst.evaluate.engine": "def run():\n    from pfungst.stress.suite import SUITE\n",
        "pfungst.stats.intervals": "from pfungst.stats.estimate import Estimate\nimport pfungst.audit.probe\n",
        "pfungst.errors": "from pfungst.cli import app\n",
        "pfungst.cli.main": "from pfungst.report import build_report\nfrom pfungst.data import load\n",
        "pfungst.plugins": "from pfungst.errors import DataError\n",
    }
    assert wrong_imports(sources) == [
        "pfungst.data.loader imports pfungst.report.html",
        "pfungst.evaluate.engine imports pfungst.stress.suite",
        "pfungst.stats.intervals imports pfungst.audit.probe",
        "pfungst.errors imports pfungst.cli",
        "pfungst.plugins is in no stage and not shared",
    ]


def test_an_import_cycle_is_reported() -> None:
    """The check can fail: modules that import each other when they load are reported; an import inside a function
    (run later) is no cycle."""
    sources = {
        "pfungst.audit.probe": "from pfungst.audit.features import FEATURES\n",
        "pfungst.audit.features": "import pfungst.audit.grid\n",
        "pfungst.audit.grid": "from pfungst.audit.probe import fit\n",
        "pfungst.audit.result": "from pfungst.audit.probe import fit\n",
        "pfungst.stress.pride": "from pfungst.stress.suite import run\n",
        "pfungst.stress.suite": "def run():\n    from pfungst.stress.pride import pride\n",
    }
    assert import_cycles(sources) == [["pfungst.audit.features", "pfungst.audit.grid", "pfungst.audit.probe"]]


def _exports(source: str) -> dict[str, str]:
    """A package's names -> the module each one comes from: its imports (``TYPE_CHECKING`` included) and the lazy
    ``"name": "module"`` (or ``"module:Name"``) strings of its ``__getattr__``."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pfungst"):
            found.update({alias.asname or alias.name: node.module for alias in node.names})
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                target = value.value if isinstance(value, ast.Constant) else None
                if isinstance(key, ast.Constant) and isinstance(target, str) and target.startswith("pfungst"):
                    found[str(key.value)] = target.partition(":")[0]
    return found


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module -> the ``pfungst`` modules it imports anywhere: at module level, under ``TYPE_CHECKING`` and inside
    functions (an import that runs late still ties the two modules together). ``from package import name`` points at
    the module the package takes ``name`` from, following its re-exports; a submodule imported by name, at that
    submodule. Optional extras (torch, transformers, llama_cpp, dask) are no ``pfungst`` modules and registry
    ``"module:Name"`` strings no imports, so neither is an edge."""
    packages = {module for module in sources if any(other.startswith(f"{module}.") for other in sources)}
    exports = {package: _exports(sources[package]) for package in packages}

    def resolve(module: str, name: str) -> str:
        if f"{module}.{name}" in sources:
            return f"{module}.{name}"
        seen = set()
        while module in exports and name in exports[module] and module not in seen:
            seen.add(module)
            module = exports[module][name]
        return module

    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        targets = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pfungst"):
                targets |= {resolve(node.module, alias.name) for alias in node.names}
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names if alias.name.startswith("pfungst")}
        graph[module] = {t for t in targets if t in sources and t != module}
    return graph


def _folder(module: str, sources: dict[str, str]) -> str:
    """The folder a module's file sits in, as a dotted name (a package is its own folder)."""
    is_package = any(other.startswith(f"{module}.") for other in sources)
    return module if is_package else module.rpartition(".")[0]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: set[str] = set()
                    while node not in component:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                    components.append(component)
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return components


def folder_cycles(sources: dict[str, str]) -> list[str]:
    """Each import cycle that joins modules of different folders, as ``a -> b -> ... -> a``: one per group of modules
    that import each other (a strongly connected component of :func:`import_graph` spanning two folders or more),
    through the first import in it that crosses folders."""
    graph = import_graph(sources)
    found = []
    for component in _strongly_connected(graph):
        crossing = sorted(
            (module, target)
            for module in component
            for target in graph[module] & component
            if _folder(module, sources) != _folder(target, sources)
        )
        if not crossing:
            continue
        start, target = crossing[0]
        paths = {target: [start, target]}
        queue = [target]
        while start not in paths or len(paths[start]) < 2:  # breadth first, back to the start within the component
            node = queue.pop(0)
            for following in sorted(graph[node] & component):
                if following == start:
                    paths[start] = [*paths[node], start]
                    break
                if following not in paths:
                    paths[following] = [*paths[node], following]
                    queue.append(following)
        found.append(" -> ".join(paths[start]))
    return sorted(found)


def test_no_import_cycle_joins_modules_of_different_folders() -> None:
    """Issue 38: no import, wherever it stands in a module, closes a cycle between folders."""
    assert folder_cycles(_sources()) == []


def test_an_import_cycle_between_folders_is_reported_wherever_its_imports_stand() -> None:
    """The check can fail: a cycle closed by a function-level import, or by a type-only one through a package's
    re-export, is reported once with its path; a cycle inside one folder is not."""
    sources = {
        "pfungst.stress.perturbations": 'PERTURBATIONS = {"pride": "pfungst.stress.perturbations.pride:Pride"}\n',
        "pfungst.stress.perturbations.base": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pfungst.stress import StressConfig\n"
        ),
        "pfungst.stress": 'from pfungst.lazy import lazy_exports\n_E = {"StressConfig": "pfungst.stress.config"}\n',
        "pfungst.stress.config": "def names():\n    from pfungst.stress.perturbations.base import Perturbation\n",
        "pfungst.stress.result": "from pfungst.stress.sections import render\n",
        "pfungst.stress.sections": "def render():\n    from pfungst.stress.result import Result\n",
        "pfungst.stats.estimate": "def read():\n    from pfungst.schema import Fields\n",
        "pfungst.schema": "from pfungst.stats.estimate import Estimate\n",
        "pfungst.lazy": "",
    }
    assert folder_cycles(sources) == [
        "pfungst.schema -> pfungst.stats.estimate -> pfungst.schema",
        "pfungst.stress.config -> pfungst.stress.perturbations.base -> pfungst.stress.config",
    ]


MODE_DEFINITIONS = (
    "pfungst.data.option_kind",
    "pfungst.audit.probe_protocol",
    "pfungst.audit.crossfit_protocol",
    "pfungst.audit.pacchiardi2024_protocol",
)
"""Where the option layout (:class:`~pfungst.data.option_kind.OptionKind`) and the probe protocols are defined: the
only modules that may tell one mode from another by itself (STYLE rule 15a)."""

_MODE_NAMES = "per_item|shared_labels|crossfit|pacchiardi2024"
_MODE_COMPARISON = re.compile(
    rf"""(option_kind|protocol)\b["')\]]*\s*(==|!=)"""  # kind == ..., settings.get("protocol") != ...
    rf"""|(==|!=)\s*[\w.]*\b(option_kind|protocol)\b"""  # ... == benchmark.option_kind
    rf"""|["']({_MODE_NAMES})["']\s*(==|!=|in\b)"""  # "per_item" == ..., "crossfit" in names
    rf"""|(==|!=)\s*["']({_MODE_NAMES})["']"""  # ... != "pacchiardi2024"
    rf"""|\bin\s*[(\[{{][^)\]}}]*["']({_MODE_NAMES})["']"""  # protocol in ("crossfit", ...)
)


def mode_comparisons(sources: dict[str, str]) -> list[str]:
    """Every line outside :data:`MODE_DEFINITIONS` that compares an option kind or a protocol by name (or by
    identity with a name), as ``"module:line: text"``."""
    found = []
    for module, source in sources.items():
        if module.startswith(MODE_DEFINITIONS):
            continue
        for number, line in enumerate(source.splitlines(), start=1):
            code = line.split("#", 1)[0]
            if _MODE_COMPARISON.search(code):
                found.append(f"{module}:{number}: {line.strip()}")
    return found


def test_no_code_compares_an_option_kind_or_a_protocol_by_name() -> None:
    """Issue 38: code asks the mode object (``benchmark.option_kind.has_positions``, ``config.protocol.plan(...)``);
    a new layout or protocol is then one definition, not a hunt for every comparison."""
    assert mode_comparisons(_sources()) == []


def test_a_mode_comparison_is_reported() -> None:
    """The check can fail: each form of comparison in a synthetic tree is reported, and only outside the
    definitions."""
    sources = {
        "pfungst.audit.heuristics": 'if benchmark.option_kind == "per_item":\n    pass\nkind = benchmark.option_kind\n',
        "pfungst.audit.run": 'note = NOTE if config.protocol != "pacchiardi2024" else ""\n',
        "pfungst.report.card": 'flag = settings.get("protocol", "crossfit") != "crossfit"\n',
        "pfungst.data.summary": 'x = "shared_labels" == kind\nok = protocol in ("crossfit", "pacchiardi2024")\n',
        "pfungst.reliance.paper": "wrong = [p for p in probes if PAPER != p.protocol]\n",
        "pfungst.data.option_kind": 'return self is OptionKind.PER_ITEM or self == "per_item"\n',
        "pfungst.audit.pacchiardi2024_protocol": 'return _NOTE if statistic == "kappa" else ""\n',
    }
    assert [line.split(":")[0:2] for line in mode_comparisons(sources)] == [
        ["pfungst.audit.heuristics", "1"],
        ["pfungst.audit.run", "1"],
        ["pfungst.report.card", "1"],
        ["pfungst.data.summary", "1"],
        ["pfungst.data.summary", "2"],
        ["pfungst.reliance.paper", "1"],
    ]


COMPUTING_STAGES = ("audit", "models", "evaluate", "stress", "reliance")
"""The stages that compute; the report layer may take their results and the results' parts, nothing else."""


def report_computations(sources: dict[str, str]) -> list[str]:
    """Every import in a ``pfungst.report`` module of anything but a result type from a computing stage, as
    ``"module imports target"`` (``target.name`` for a name): a function, a class that is no dataclass (a result and
    its parts are frozen dataclasses), a whole module, a constant (issue 38: wording a report shows comes from the
    result, e.g. ``PositionArtifact.fix``). STYLE.md rule 25: results compute, reports render."""
    import dataclasses
    import importlib

    found = []
    for module, source in sources.items():
        if _stage(module) != "report":
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found += [
                    f"{module} imports {alias.name}" for alias in node.names if _stage(alias.name) in COMPUTING_STAGES
                ]
            elif isinstance(node, ast.ImportFrom) and node.module and _stage(node.module) in COMPUTING_STAGES:
                target = importlib.import_module(node.module)
                for alias in node.names:
                    value = getattr(target, alias.name)
                    if not (isinstance(value, type) and dataclasses.is_dataclass(value)):
                        found.append(f"{module} imports {node.module}.{alias.name}")
    return found


def test_the_report_layer_imports_no_computation() -> None:
    """Reports render results and compute nothing: a report module that imports a stage's function or constant is
    reported (the check can fail), and none in the package does; results that pair up reach a report through the
    shared ``pfungst.results.derive``."""
    sources = {
        "pfungst.report.fake": (
            "from pfungst.reliance.choices_only import ChoicesOnlyComparison, CLASSIFIER_PROBE\n"
            "from pfungst.audit.result import AuditResult\n"
            "def pair(results):\n"
            "    from pfungst.reliance.choices_only import choices_only_comparisons\n"
            "    import pfungst.stress.stress_result\n"
        ),
        "pfungst.cli.fake": "from pfungst.reliance.choices_only import choices_only_comparisons\n",
    }
    assert report_computations(sources) == [
        "pfungst.report.fake imports pfungst.reliance.choices_only.CLASSIFIER_PROBE",
        "pfungst.report.fake imports pfungst.reliance.choices_only.choices_only_comparisons",
        "pfungst.report.fake imports pfungst.stress.stress_result",
    ]
    assert report_computations(_sources()) == []


def _shared_files(name: str) -> list[Path]:
    """The source files of a shared module (``errors.py``) or package (``stats/``)."""
    package = SOURCE / name
    return sorted(package.rglob("*.py")) if package.is_dir() else [SOURCE / f"{name}.py"]


def test_shared_modules_import_no_stage() -> None:
    shared = {module: source for module, source in _sources().items() if _stage(module) in SHARED}
    assert {_stage(module) for module in shared} == SHARED
    assert wrong_imports(shared) == []


def test_every_module_of_the_stats_package_is_checked() -> None:
    """``stats`` is a package: every module in it is read, and an import of a stage from one is reported."""
    files = _shared_files("stats")
    assert SOURCE / "stats" / "__init__.py" in files and SOURCE / "stats" / "intervals.py" in files
    assert {"pfungst.stats", "pfungst.stats.intervals"} <= set(_sources())
    source = "from pfungst.stats.estimate import Estimate\nfrom pfungst.evaluate.outcome import Outcome\n"
    assert wrong_imports({"pfungst.stats.intervals": source}) == [
        "pfungst.stats.intervals imports pfungst.evaluate.outcome"
    ]


ENTRY_STAGES = ("audit", "stress", "reliance")
"""The stage packages whose entry function has the package's name (``pfungst.audit.audit``)."""


def test_no_public_name_shadows_a_submodule() -> None:
    """``import pfungst.stress.multiprompt as multiprompt`` must give the module: a package attribute of the same
    name as one of its modules (a re-exported function) would replace it."""
    import importlib

    shadowed = []
    for path in SOURCE.rglob("*.py"):
        parts = path.relative_to(SOURCE).with_suffix("").parts
        if parts[-1] == "__main__" or (parts[-1] == "__init__" and len(parts) < 2):
            continue
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        parent = importlib.import_module("pfungst." + ".".join(parts[:-1]) if len(parts) > 1 else "pfungst")
        try:
            module = importlib.import_module("pfungst." + ".".join(parts))
        except MissingDependency:  # a module of an optional extra that is not installed (pfungst[inspect])
            continue
        if getattr(parent, parts[-1]) is not module:
            shadowed.append(".".join(parts))
    assert shadowed == []


@pytest.mark.parametrize("stage", ENTRY_STAGES)
def test_a_stage_imports_as_its_package_in_every_form(stage: str) -> None:
    import importlib
    import inspect

    package = importlib.import_module(f"pfungst.{stage}")
    assert inspect.ismodule(package) and package.__name__ == f"pfungst.{stage}"
    assert getattr(pfungst, stage) is package
    bound = {}
    exec(f"import pfungst.{stage} as bound", {}, bound)  # the form that gave the entry function
    assert bound["bound"] is package
    assert inspect.isfunction(getattr(package, stage)), f"pfungst.{stage}.{stage} is the entry function"


def test_an_entry_function_runs_as_documented(tmp_path: Path) -> None:
    """``pfungst.audit.audit(benchmark)`` after a bare ``import pfungst``, in a fresh interpreter."""
    import subprocess
    import sys

    script = (
        "import pfungst\n"
        "from pfungst.data.synthetic import make_synthetic\n"
        "bench = make_synthetic('gold-position', 40, seed=1)\n"
        "result = pfungst.audit.audit(bench, feature_sets=('options',), heuristics=False, n_bootstrap=20,"
        " n_permutations=20)\n"
        "print(type(result).__name__, result.verdict.label)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SOURCE.parent)},
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("AuditResult ")


def test_the_command_line_starts_without_the_heavy_libraries() -> None:
    """Issue 15: `pfungst --version`, `--help`, `audit --help` and `formats` took 1.9 s because SciPy, scikit-learn
    and pandas were imported at start; each command now imports what it runs when it runs (timed in
    benchmarks/startup_time.py)."""
    import subprocess
    import sys

    heavy = ["scipy", "sklearn", "pandas", "numpy", "matplotlib", "tiktoken", "textstat", "llama_cpp", "httpx"]
    probe = (
        "import sys, contextlib, io\n"
        "from pfungst.cli import main\n"
        "for args in (['--version'], ['--help'], ['audit', '--help'], ['stress', '--help'], ['formats']):\n"
        "    sys.argv = ['pfungst', *args]\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        main()\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
