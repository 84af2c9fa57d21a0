"""Distributed and parallel audits give the serial run's results, bit for bit."""

from __future__ import annotations

import json

import pytest

from pfungst.audit import AuditConfig
from pfungst.audit.cluster import check_cluster_address
from pfungst.audit.run import audit
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
    result.pop("environment")
    result["settings"].pop("n_jobs")
    result["settings"].pop("cluster")
    return json.dumps(result, sort_keys=True, default=str)


@pytest.fixture(scope="module")
def serial() -> str:
    return _figures(SMALL)


def test_two_joblib_workers_match_the_serial_run(serial: str) -> None:
    assert _figures(AuditConfig(**{**SMALL.__dict__, "n_jobs": 2})) == serial


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
