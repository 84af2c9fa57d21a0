"""``pfungst.stats`` re-exports exactly the public names of its modules, so callers import from one place."""

from __future__ import annotations

import importlib
import pkgutil

import pfungst.stats


def test_the_package_exports_every_public_name_of_its_modules_and_nothing_else() -> None:
    modules = [
        importlib.import_module(f"pfungst.stats.{info.name}") for info in pkgutil.iter_modules(pfungst.stats.__path__)
    ]
    public = sorted(name for module in modules for name in module.__all__)
    assert sorted(pfungst.stats.__all__) == public
    assert len(public) == len(set(public))  # one home per name
    for module in modules:
        for name in module.__all__:
            assert getattr(pfungst.stats, name) is getattr(module, name)
