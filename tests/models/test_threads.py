"""CPU threads of an in-process model when none is given: the free cores, never fewer than one, said on stderr."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pfungst.models import threads
from pfungst.models.threads import choose_threads


@pytest.mark.parametrize(
    ("cores", "load", "threads"),
    [(2, 0.0, 2), (2, 0.4, 1), (2, 2.4, 1), (2, 11.0, 1), (16, 3.5, 12), (8, 0.0, 8), (1, 0.0, 1)],
)
def test_threads_are_the_free_cores_rounded_down_and_at_least_one(cores: int, load: float, threads: int) -> None:
    assert choose_threads(cores=cores, load=load).threads == threads


def _fake_loadavg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, running: int) -> None:
    path = tmp_path / "loadavg"
    path.write_text(f"3.10 2.50 1.90 {running}/456 12345\n")  # a high one-minute average, whatever runs now
    monkeypatch.setattr(threads, "_LOADAVG", path)


@pytest.mark.parametrize(("running", "chosen"), [(1, 2), (2, 1), (3, 1)])
def test_the_tasks_running_now_count_not_the_last_minutes_load(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, running: int, chosen: int
) -> None:
    # Runnable tasks include this process: alone, both cores are free though the one-minute average says 3.1.
    _fake_loadavg(monkeypatch, tmp_path, running)
    choice = choose_threads(cores=2)
    assert (choice.threads, choice.load, choice.source) == (chosen, running - 1, "running")


def test_the_choice_from_what_runs_now_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fake_loadavg(monkeypatch, tmp_path, 2)
    assert choose_threads(cores=2).describe() == "1 CPU thread (2 cores, 1 other task running); --threads N sets it"


def test_without_proc_the_one_minute_load_average_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(threads, "_LOADAVG", tmp_path / "absent")
    monkeypatch.setattr(os, "getloadavg", lambda: (2.4, 1.0, 0.5))
    choice = choose_threads(cores=2)
    assert (choice.threads, choice.source) == (1, "load average")
    assert choice.describe() == "1 CPU thread (2 cores, load 2.4); --threads N sets it"


def test_without_either_every_core_is_taken_as_free(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def no_load() -> tuple[float, float, float]:
        raise OSError("no load average here")

    monkeypatch.setattr(threads, "_LOADAVG", tmp_path / "absent")
    monkeypatch.setattr(os, "getloadavg", no_load)
    choice = choose_threads(cores=4)
    assert (choice.threads, choice.load) == (4, None)
    assert choice.describe() == "4 CPU threads (4 cores, load unknown); --threads N sets it"


def test_a_given_load_is_shown_as_a_load() -> None:
    assert choose_threads(cores=2, load=2.4).describe() == "1 CPU thread (2 cores, load 2.4); --threads N sets it"


def test_a_llama_cpp_model_without_n_threads_chooses_them_and_says_so_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pfungst.models.embedded import smollm2

    loaded = smollm2(n_ctx=64)
    try:
        assert 1 <= loaded.n_threads <= choose_threads().cores
    finally:
        loaded.close()
    err = capsys.readouterr().err
    assert f"llama.cpp: {loaded.n_threads} CPU thread" in err and "--threads N (n_threads=N) sets it" in err
    smollm2(n_ctx=64, n_threads=1).close()
    assert "CPU thread" not in capsys.readouterr().err
