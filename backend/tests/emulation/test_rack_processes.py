"""The rack's command lines (pure) and its supervisor (with stand-in programs: shell one-liners that
print a `registered` line, so the supervisor's start order, status file, reaping and stop run for real)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import wait_until

from e3.emulation.rack_plan import plan_rack
from e3.emulation.rack_processes import (
    FANOUT_CLASH,
    HOST_REGISTERED,
    REGISTERED,
    ApiServer,
    ProcessSpec,
    host_power_w,
    rack_processes,
)
from e3.emulation.rack_supervisor import load_status, write_specs


@pytest.fixture(autouse=True)
def fake_binaries(tmp_path, monkeypatch):
    for name in ("E3_NIC_BIN", "E3_AGENT_BIN"):
        path = tmp_path / name.lower()
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        monkeypatch.setenv(name, str(path))


def _api_servers(count: int, nics: int) -> list[ApiServer]:
    return [ApiServer(f"r0-s{i:02d}", f"r0-s{i:02d}/host", [f"r0-s{i:02d}/nic{k}" for k in range(nics)])
            for i in range(count)]


def _value(argv: list[str], option: str) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv) if word == option]


def test_nics_start_before_hosts_and_each_host_teams_over_all_its_nics(tmp_path):
    plan = plan_rack("lab", 2, "type2-smartnic")
    specs = rack_processes(plan, _api_servers(2, 4), "10.255.0.1:50051", tmp_path / "token", tmp_path)
    assert [s.kind for s in specs] == ["nic"] * 8 + ["host"] * 2
    host = specs[8]
    assert host.node == "r0-s00/host" and host.ns == "e3-lab-s1" and host.registered == HOST_REGISTERED
    assert host.argv[:4] == ["ip", "netns", "exec", "e3-lab-s1"]
    assert _value(host.argv, "--memif") == [f"/run/e3/lab/s1-nic{k}.sock" for k in range(4)]
    assert _value(host.argv, "--address") == ["10.3.1.1"]
    assert _value(host.argv, "--file-prefix") == ["e3-lab-s1-host"]
    assert _value(host.argv, "--controller") == ["10.255.0.1:50051"]
    nic3 = specs[3]
    assert nic3.node == "r0-s00/nic3" and nic3.registered == REGISTERED and nic3.wire_ifnames == ["p3"]
    assert _value(nic3.argv, "--address") == ["10.3.1.13"]
    assert _value(nic3.argv, "--memif") == ["/run/e3/lab/s1-nic3.sock"]
    assert _value(nic3.argv, "--node") == ["r0-s00/nic3"]


def test_a_type1_nic_owns_both_ports():
    plan = plan_rack("lab", 1, "type1-smartnic")
    nic = rack_processes(plan, _api_servers(1, 1), "c:1", Path("t"), Path("/tmp"))[0]
    assert nic.wire_ifnames == ["p0", "p1"]
    assert _value(nic.argv, "--wire") == ["p0", "p1"]
    assert _value(nic.argv, "--gateway") == ["02:e3:01:01:00:00", "02:e3:01:01:01:00"]


def test_the_host_power_share_leaves_out_the_nics_idle_shares():
    assert host_power_w("type1-smartnic") == (83.0, 207.0)  # Table 4: 98 / 222 W, one LiquidIO at 15 W idle
    assert host_power_w("type2-smartnic") == (85.0, 192.0)  # 145 / 252 W, four


def test_an_api_cluster_of_another_shape_is_refused():
    plan = plan_rack("lab", 2, "type2-smartnic")
    with pytest.raises(ValueError, match="servers: the API cluster has 1"):
        rack_processes(plan, _api_servers(1, 4), "c:1", Path("t"), Path("/tmp"))
    with pytest.raises(ValueError, match="SmartNIC nodes"):
        rack_processes(plan, _api_servers(2, 1), "c:1", Path("t"), Path("/tmp"))


def _stand_in(kind: str, node: str, folder: Path, registered: str, script: str | None = None) -> ProcessSpec:
    """A program that prints its `registered` line and stays up (or runs `script` instead)."""
    script = script or f"echo '{registered} {node} as id-{node}'; sleep 600"
    return ProcessSpec(kind, node, ["sh", "-c", script], str(folder / f"{node}.log"), registered, "e3-none", ["p0"])


def _supervise(folder: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "e3.emulation.rack_supervisor", str(folder)],
                            stdout=(folder / "supervisor.log").open("wb"), stderr=subprocess.STDOUT)


def test_the_supervisor_starts_registers_reaps_and_stops(tmp_path):
    write_specs(tmp_path, [_stand_in("nic", "n0", tmp_path, REGISTERED), _stand_in("nic", "n1", tmp_path, REGISTERED),
                           _stand_in("host", "h0", tmp_path, HOST_REGISTERED)])
    proc = _supervise(tmp_path)
    try:
        status = wait_until(lambda: (s := load_status(tmp_path)) and s["state"] == "ready" and s, timeout=20,
                            what="supervisor ready")
        assert [p["registered"] for p in status["processes"]] == ["n0 as id-n0", "n1 as id-n1", "h0 as id-h0"]
        os.kill(status["processes"][1]["pid"], signal.SIGKILL)  # a NIC dies
        wait_until(lambda: load_status(tmp_path)["processes"][1]["exit_code"] == -9, timeout=10, what="reaped")
        assert "nic n1" in (tmp_path / "supervisor.log").read_text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        final = load_status(tmp_path)
        assert final["state"] == "stopped"
        assert [p["exit_code"] for p in final["processes"]] == [-15, -9, -15]
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_program_that_never_registers_fails_the_start_with_its_log(tmp_path):
    write_specs(tmp_path, [_stand_in("nic", "n0", tmp_path, REGISTERED, script="echo boom; exit 3")])
    proc = _supervise(tmp_path)
    assert proc.wait(30) == 1
    status = load_status(tmp_path)
    assert status["state"] == "failed"
    assert "nic n0 exited with code 3" in status["error"] and "boom" in status["error"]


def test_hosts_wait_for_their_nics(tmp_path):
    slow_nic = _stand_in("nic", "n0", tmp_path, REGISTERED, script=f"sleep 3; echo '{REGISTERED} n0'; sleep 600")
    write_specs(tmp_path, [slow_nic, _stand_in("host", "h0", tmp_path, HOST_REGISTERED)])
    proc = _supervise(tmp_path)
    try:
        # The supervisor's first status (a busy machine may take a while to write it), before the NIC registers.
        status = wait_until(lambda: load_status(tmp_path), timeout=2.5, what="the supervisor's first status")
        assert status["processes"][1]["pid"] is None  # the host is not started yet
        wait_until(lambda: load_status(tmp_path)["state"] == "ready", timeout=20, what="ready")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)


def test_a_start_that_fails_by_chance_is_tried_again(tmp_path):
    """A NIC whose first start hits the af_packet fanout clash (DPDK 22.11) registers on a later attempt."""
    marker = tmp_path / "tried"
    script = (f"if [ ! -e {marker} ]; then touch {marker}; echo '{FANOUT_CLASH} on p0'; exit 1; fi; "
              f"echo '{REGISTERED} n0'; sleep 600")
    spec = _stand_in("nic", "n0", tmp_path, REGISTERED, script=script)
    write_specs(tmp_path, [ProcessSpec(**{**spec.__dict__, "retry_if": FANOUT_CLASH})])
    proc = _supervise(tmp_path)
    try:
        wait_until(lambda: (s := load_status(tmp_path)) and s["state"] == "ready", timeout=20, what="ready after a retry")
        assert "starting it again" in (tmp_path / "supervisor.log").read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
