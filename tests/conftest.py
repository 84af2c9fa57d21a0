"""Shared fixtures: the real benchmark files in ../shared/data, a sweepable seed (for property tests too), and a
model cache of each test's own."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run unless PFUNGST_TEST_SEED asks for a sweep (then Hypothesis
# draws afresh each run), so CI never fails on a lucky draw while a sweep still searches.
settings.register_profile("pfungst", derandomize="PFUNGST_TEST_SEED" not in os.environ)
settings.load_profile("pfungst")

# Nothing is fetched from the Hugging Face hub: the tests of the 'hf' backend build their model from the embedded GGUF.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

SHARED_DATA = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data").resolve()


@pytest.fixture
def shared_data() -> Path:
    """The folder of real benchmark files; tests that need it skip with a reason where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real benchmark files not found at {SHARED_DATA} (../shared/data beside the checkout)")
    return SHARED_DATA


@pytest.fixture
def seed() -> int:
    """A fixed seed by default; set PFUNGST_TEST_SEED to sweep it so no test depends on a lucky seed."""
    return int(os.environ.get("PFUNGST_TEST_SEED", "0"))


_CACHES = itertools.count()


@pytest.fixture(autouse=True)
def own_model_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default model cache (``$PFUNGST_CACHE``) is a fresh file for each test, subprocesses included: no test
    reads another's answers or the user's ``~/.cache/pfungst``, and parallel workers never share one database."""
    path = _cache_folder(tmp_path_factory) / f"cache-{next(_CACHES)}.sqlite"
    monkeypatch.setenv("PFUNGST_CACHE", str(path))
    return path


def _cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.getbasetemp() / "model-caches"
    folder.mkdir(exist_ok=True)
    return folder


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files that hold a ``slow`` test first, then the others, each group by its number of tests (most first);
    a file's tests stay together in their order. ``make test`` runs ``--dist loadfile --no-loadscope-reorder``, so
    pytest-xdist hands the files out in this order: the two workers take the long files first and end together,
    where ordering by test count alone left a file of two tests taking two minutes for the end."""
    per_file = Counter(item.path for item in items)
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: (item.path not in slow, -per_file[item.path]))
