"""The package's public surface and the direction of its imports (STYLE.md rules 3 and 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import pfungst
from pfungst.errors import MissingDependency

SOURCE = Path(pfungst.__file__).parent

# Stages from left to right; a module may import only its own stage, stages to its left, and the shared modules.
STAGES = ["data", "audit", "models", "evaluate", "stress", "integrations", "reliance", "report", "demo", "cli"]
SHARED = {
    "errors",
    "stats",
    "environment",
    "registry",
    "blocks",
    "deprecation",
    "schema",
    "serialization",
    "path_checks",
    "lazy",
}
"""Shared modules and packages (``stats/``): every stage may import them, and they import no stage."""


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
            "ScoreConfig",
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


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pfungst"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("pfungst")]
    return found


def test_imports_point_left_only() -> None:
    wrong = []
    for path in SOURCE.rglob("*.py"):
        module = "pfungst." + ".".join(path.relative_to(SOURCE).with_suffix("").parts)
        own = _stage(module)
        if own in SHARED or own in ("__init__", ""):
            continue
        for target in _imports(path):
            other = _stage(target)
            if other in SHARED or other in ("", "__init__") or own not in STAGES or other not in STAGES:
                continue
            if STAGES.index(other) > STAGES.index(own):
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_evaluate_never_imports_stress() -> None:
    """The engine serves every model run; the perturbations that stress it sit on top, never below."""
    found = [
        f"{path.relative_to(SOURCE)} imports {target}"
        for path in (SOURCE / "evaluate").rglob("*.py")
        for target in _imports(path)
        if _stage(target) == "stress"
    ]
    assert found == []


def test_an_upward_import_is_caught() -> None:
    """The checks above can fail: an engine module importing the stress suite is reported."""
    assert _stage("pfungst.stress.suite") == "stress"
    assert STAGES.index("stress") > STAGES.index("evaluate")


def _shared_files(name: str) -> list[Path]:
    """The source files of a shared module (``errors.py``) or package (``stats/``)."""
    package = SOURCE / name
    return sorted(package.rglob("*.py")) if package.is_dir() else [SOURCE / f"{name}.py"]


def _stage_imports(paths: list[Path]) -> list[str]:
    """Each import of a stage (anything not shared) in ``paths``, as ``"file imports module"``."""
    return [
        f"{path.name} imports {target}" for path in paths for target in _imports(path) if _stage(target) not in SHARED
    ]


def test_shared_modules_import_no_stage() -> None:
    assert _stage_imports([path for name in sorted(SHARED) for path in _shared_files(name)]) == []


def test_a_stage_import_in_a_stats_module_is_caught(tmp_path: Path) -> None:
    """``stats`` is a package: every module in it is read, and an import of a stage from one is reported."""
    files = _shared_files("stats")
    assert SOURCE / "stats" / "__init__.py" in files and SOURCE / "stats" / "intervals.py" in files
    module = tmp_path / "intervals.py"
    module.write_text("from pfungst.stats.estimate import Estimate\nfrom pfungst.evaluate.outcome import Outcome\n")
    assert _stage_imports([module]) == ["intervals.py imports pfungst.evaluate.outcome"]


# pfungst.audit, pfungst.stress and pfungst.reliance are functions named after their packages (pfungst/__init__.py).
ENTRY_POINTS = {"audit", "stress", "reliance"}


def test_no_public_name_shadows_a_submodule() -> None:
    """``import pfungst.stress.pride as pride`` must give the module: a package attribute of the same name as one of
    its modules (a re-exported function) would replace it. The three entry-point functions are the one exception,
    and ``import ... as`` still reaches every module below them."""
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
        if len(parts) == 1 and parts[0] in ENTRY_POINTS:
            continue
        if getattr(parent, parts[-1]) is not module:
            shadowed.append(".".join(parts))
    assert shadowed == []


def test_entry_points_are_functions_and_their_modules_stay_importable() -> None:
    import importlib
    import inspect

    for name in sorted(ENTRY_POINTS):
        function = getattr(pfungst, name)
        assert inspect.isfunction(function), name
        assert function is getattr(importlib.import_module(f"pfungst.{name}"), name)
    import pfungst.audit.probe as probe
    import pfungst.reliance.families as families
    import pfungst.stress.pride as pride
    from pfungst.audit import AuditConfig

    assert (probe.__name__, pride.__name__, families.__name__) == (
        "pfungst.audit.probe",
        "pfungst.stress.pride",
        "pfungst.reliance.families",
    )
    assert AuditConfig is pfungst.AuditConfig


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
