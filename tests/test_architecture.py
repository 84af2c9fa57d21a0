"""The package's public surface and the direction of its imports (STYLE.md rules 3 and 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import pfungst

SOURCE = Path(pfungst.__file__).parent

# Stages from left to right; a module may import only its own stage, stages to its left, and the shared modules.
STAGES = ["data", "audit", "models", "evaluate", "stress", "reliance", "report", "demo", "cli"]
SHARED = {"errors", "stats", "environment", "significance", "registry", "blocks"}


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
            "ScoreConfig",
            "ScoreResult",
            "StressConfig",
            "StressResult",
            "__version__",
            "audit",
            "load",
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


def test_shared_modules_import_no_stage() -> None:
    for name in SHARED:
        for target in _imports(SOURCE / f"{name}.py"):
            assert _stage(target) in SHARED, f"pfungst.{name} imports {target}"


def test_no_public_name_shadows_a_submodule() -> None:
    """``import pfungst.stress.pride as pride`` must give the module: a package attribute of the same name as one of
    its modules (a re-exported function) would replace it."""
    import importlib
    import types

    shadowed = []
    for path in SOURCE.rglob("*.py"):
        parts = path.relative_to(SOURCE).with_suffix("").parts
        if parts[-1] in ("__init__", "__main__") or len(parts) < 2:
            continue
        parent = importlib.import_module("pfungst." + ".".join(parts[:-1]))
        importlib.import_module("pfungst." + ".".join(parts))
        if not isinstance(getattr(parent, parts[-1]), types.ModuleType):
            shadowed.append(".".join(parts))
    assert shadowed == []
