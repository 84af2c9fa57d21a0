"""Shared fixtures: the real benchmark files in ../shared/data, and a sweepable seed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
