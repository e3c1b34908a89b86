"""e3-nic's Table 1 calibration agrees with the catalogue the placement engine uses (no drift)."""

import json
import subprocess

import pytest

from e3 import catalog
from e3.emulation.binaries import nic_binary


def test_nic_calibration_matches_the_catalogue():
    out = subprocess.run([str(nic_binary()), "--print-calibration"], check=True, capture_output=True, text=True)
    rows = {r["service"]: r for r in map(json.loads, out.stdout.splitlines())}
    services = catalog.service_types()
    assert set(rows) == set(services)
    for name, row in rows.items():
        cal = services[name].calibration
        assert row["host_rps"] == pytest.approx(cal["host_dpdk"].rps), name
        assert row["host_cores"] == cal["host_dpdk"].cores, name
        assert row["nic_rps"] == pytest.approx(cal["smartnic"].rps), name
        assert row["nic_active_watts"] == pytest.approx(cal["smartnic"].active_watts), name
    slow = {n for n, r in rows.items() if r["pace_factor"] > 1.0}
    assert {"top_ranker", "bayes", "sql", "api_gateway"} <= slow
    assert rows["ipsec"]["pace_factor"] == 1.0 and rows["kvs"]["pace_factor"] == 1.0
