"""An audit and each of its probes share one set of probe settings (ProbeSettings): declared and checked once."""

from __future__ import annotations

import dataclasses

import pytest

from pfungst.audit import AuditConfig, ProbeConfig, ProbeSettings
from pfungst.audit.pacchiardi2024_protocol import Pacchiardi2024
from pfungst.errors import ConfigError

CHANGED = {
    "protocol": Pacchiardi2024(),
    "n_splits": 3,
    "n_repeats": 4,
    "seed": 11,
    "n_bootstrap": 123,
    "n_permutations": 45,
    "level": 0.9,
    "selection_max_items": 500,
    "c_grid": (0.1, 10.0),
    "solvers": "sklearn",
    "warm_start": True,
    "grid_patience": 2,
    "n_jobs": 2,
    "parallel": "threads",
}
"""A value other than the default for every probe setting."""


def test_every_probe_setting_of_an_audit_reaches_its_probes() -> None:
    assert set(CHANGED) == {field.name for field in dataclasses.fields(ProbeSettings)}
    probe = AuditConfig(**CHANGED).probe_config()  # type: ignore[arg-type]
    assert {name: getattr(probe, name) for name in CHANGED} == CHANGED
    assert probe.classifiers == ProbeConfig().classifiers and probe.top_k == ProbeConfig().top_k


@pytest.mark.parametrize("config_type", [AuditConfig, ProbeConfig])
def test_an_audit_and_a_probe_name_an_out_of_range_level_alike(config_type: type[ProbeSettings]) -> None:
    with pytest.raises(ConfigError, match=r"^level must lie strictly between 0 and 1, not 1\.5$"):
        config_type(level=1.5).validate()
