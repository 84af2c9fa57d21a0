"""Shared fixtures: the real benchmark files in ../shared/data, and a sweepable seed (for property tests too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run unless PFUNGST_TEST_SEED asks for a sweep (then Hypothesis
# draws afresh each run), so CI never fails on a lucky draw while a sweep still searches.
settings.register_profile("pfungst", derandomize="PFUNGST_TEST_SEED" not in os.environ)
settings.load_profile("pfungst")

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
