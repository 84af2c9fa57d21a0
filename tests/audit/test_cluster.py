"""Distributed and parallel audits give the serial run's results, bit for bit."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.audit import AuditConfig
from pfungst.audit.cluster import check_cluster_address
from pfungst.audit.run import audit
from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

SMALL = AuditConfig(
    fields=("hypothesis",),
    feature_sets=("1-grams_presence", "readability"),
    n_bootstrap=200,
    n_permutations=200,
    cues=False,
    heuristics=False,
    seed=3,
)


def _figures(config: AuditConfig) -> str:
    """Everything the audit found as JSON (NaN compares equal there), less what says how it ran: timings, job
    settings, environment."""
    result = audit(make_synthetic("cue-word", 160), config).to_dict()
    for probe in result["probes"]:
        probe.pop("seconds")
        probe["settings"]["config"].pop("n_jobs")
        probe["settings"]["config"].pop("parallel")
    result["provenance"].pop("environment")
    result["provenance"]["settings"].pop("n_jobs")
    result["provenance"]["settings"].pop("parallel")
    result["provenance"]["settings"].pop("cluster")
    return json.dumps(result, sort_keys=True, default=str)


@pytest.fixture(scope="module")
def serial() -> str:
    return _figures(SMALL)


def test_two_joblib_workers_match_the_serial_run(serial: str) -> None:
    assert _figures(AuditConfig(**{**SMALL.__dict__, "n_jobs": 2})) == serial


def test_two_threads_match_the_serial_run(serial: str) -> None:
    assert _figures(AuditConfig(**{**SMALL.__dict__, "n_jobs": 2, "parallel": "threads"})) == serial


def test_threads_count_each_fits_convergence_warnings_as_the_serial_run_does() -> None:
    """Fits stopped at 3 iterations warn; threads count them per job (catch_warnings is process-wide)."""
    from pfungst.audit.feature_sets import get_feature_set
    from pfungst.audit.inputs import ItemInputs
    from pfungst.audit.probe import ProbeConfig, run_probes

    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 160), fields=("hypothesis",))
    requests = [(get_feature_set(name), inputs) for name in ("1-grams_tf", "2-grams_presence")]
    config = ProbeConfig(max_iter=3, n_bootstrap=50, n_permutations=50)
    with pytest.warns(Warning):
        serial = [(probe.convergence_warnings, probe.folds) for probe in run_probes(requests, config)]
    with pytest.warns(Warning):
        threaded = run_probes(requests, replace(config, n_jobs=2, parallel="threads"))
    assert serial[0][0] > 0
    assert [(probe.convergence_warnings, probe.folds) for probe in threaded] == serial


def test_threads_and_a_cluster_are_refused_together() -> None:
    with pytest.raises(ConfigError, match="parallel='threads' runs the jobs in this process"):
        audit(make_synthetic("cue-word", 40), SMALL, cluster="local", parallel="threads")


def test_a_local_dask_cluster_with_two_workers_matches_the_serial_run(serial: str) -> None:
    pytest.importorskip("distributed", reason="--cluster needs the extra pfungst[dask]")
    distributed_run = _figures(AuditConfig(**{**SMALL.__dict__, "n_jobs": 2, "cluster": "local"}))
    assert distributed_run == serial
    assert json.loads(serial)["verdict"]["label"] == "predictable"  # the planted cue word is found either way


def test_a_cluster_address_without_a_scheme_is_refused_before_any_fit() -> None:
    with pytest.raises(ConfigError, match=r"--cluster '10\.0\.0\.5:8786'.*tcp://10\.0\.0\.5:8786"):
        check_cluster_address("10.0.0.5:8786")
    with pytest.raises(ConfigError, match="--cluster 'lokal'"):
        audit(make_synthetic("cue-word", 40), SMALL, cluster="lokal")


def test_a_running_scheduler_given_by_address_matches_the_serial_run(serial: str) -> None:
    distributed = pytest.importorskip("distributed", reason="--cluster needs the extra pfungst[dask]")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        assert _figures(AuditConfig(**{**SMALL.__dict__, "cluster": cluster.scheduler_address})) == serial


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_job_on_a_dask_scheduler_started_from_the_shell(serial: str) -> None:
    """``dask scheduler`` and ``dask worker`` as separate processes on 127.0.0.1; one worker is SIGKILLed while it
    runs a fold job: Dask reschedules the job and the audit's result is the serial run's, bit for bit."""
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    distributed = pytest.importorskip("distributed", reason="--cluster needs the extra pfungst[dask]")
    address = f"tcp://127.0.0.1:{_free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    port = address.rsplit(":")[-1]
    scheduler_command = ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"]
    worker_command = ["distributed.cli.dask_worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"]
    scheduler = subprocess.Popen([sys.executable, "-m", *scheduler_command], **quiet)
    worker = subprocess.Popen([sys.executable, "-m", *worker_command], **quiet)
    try:
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            outcome: dict[str, str] = {}
            run = threading.Thread(target=lambda: outcome.update(figures=_figures(replace(SMALL, cluster=address))))
            run.start()
            killed = None
            deadline = time.monotonic() + 60
            while killed is None and run.is_alive() and time.monotonic() < deadline:
                busy = [addr for addr, tasks in client.processing().items() if tasks]
                if busy:
                    killed = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                    os.kill(killed, signal.SIGKILL)
                time.sleep(0.02)
            run.join(timeout=300)
        assert killed is not None, "no fold job was seen running, so no worker could be killed mid-run"
        assert outcome.get("figures") == serial
    finally:
        for process in (worker, scheduler):
            process.terminate()
            process.wait(timeout=30)


def _benchmark_file(folder: Path) -> Path:
    path = folder / "items.jsonl"
    rows = [{"question": f"q{index}", "choices": ["a", "b"], "answer": index % 2} for index in range(20)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("not-an-address", "no scheme"),
        ("tcp://", "no host"),
        ("foo:bar:baz", "no scheme"),
        ("tcp://10.0.0.5:port", "the port is not a number from 1 to 65535"),
        ("http://10.0.0.5:8786", "unknown scheme 'http' (Dask speaks tcp, tls, inproc, ucx, ws, wss)"),
    ],
)
def test_a_malformed_cluster_address_is_exit_2_giving_the_expected_form(
    tmp_path: Path, address: str, problem: str
) -> None:
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["audit", str(_benchmark_file(tmp_path)), "--cluster", address, "--quiet"])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"--cluster '{address}': {problem}; give 'local'" in text
    assert "a Dask scheduler address of the form tcp://HOST:PORT" in text and "Traceback" not in text
    assert time.perf_counter() - started < 10


def test_a_cluster_address_where_no_scheduler_listens_is_exit_2_within_seconds(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="--cluster needs the extra pfungst[dask]")
    address = f"tcp://127.0.0.1:{_free_port()}"  # bound, then closed: nothing listens there
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["audit", str(_benchmark_file(tmp_path)), "--cluster", address, "--quiet"])
    elapsed = time.perf_counter() - started
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"--cluster {address}: no Dask scheduler answered there within 5 s" in text
    assert "Start one with `dask scheduler`" in text and "or drop --cluster" in text and "Traceback" not in text
    assert elapsed < 15
