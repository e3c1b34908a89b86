"""Benchmarks on the emulated rack (root): ECMP over a type2 server's four NICs and failover after one
NIC dies, counted from the NICs' own counters; NFV-FIN with HCM's placement beside the same DAG forced
onto the hosts (the paper's Figure 5 direction).

Each runs a real `e3 up` (E3_CLUSTER_MODE=rack, no demo load) in a temporary data directory on free
ports, and works through its REST API as a user would; `e3 up` is stopped at the end (its rack taken
down) also on Ctrl-C or error. Everything runs on EMULATED SmartNICs; energy is the power model's
(source: model), never a measurement.
"""

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from e3 import catalog
from e3.emulation import rack_cluster
from e3.client.api import Api
from e3.core.embedded import free_tcp_port
from e3.core.envfile import read_env_file
from e3.dataplane import udp
from e3.emulation import netns
from e3.emulation.binaries import loadgen_binary
from e3.emulation.rack_plan import plan_rack
from e3.emulation.rack_processes import nic_stats_path
from e3.emulation.rack_supervisor import load_status
from e3.energy.joules import joules_per_request
from e3.schemas.dag import ApplicationSpec

RACK = "rack"  # the cluster `e3 up` names its rack
UP_TIMEOUT_S = 300.0
RUNNING_TIMEOUT_S = 120.0
STATS_PERIOD_S = 1.0  # the NICs rewrite their counters every second
ECMP_TARGET = 0.15  # within ±15% of even
Report = Callable[[str], None]


@contextmanager
def rack_up(servers: int, server_type: str, report: Report, extra_env: dict[str, str] | None = None) -> Iterator[Api]:
    """`e3 up` with an emulated rack of `servers` x `server_type` (`extra_env` added to its environment, e.g.
    E3_ORCHESTRATOR); yields an admin Api to it."""
    reason = netns.netns_supported()
    if reason:
        raise RuntimeError(f"the rack benchmarks need an emulated rack: {reason}")
    if any(rack_cluster.RACKS_ROOT.glob(f"*/{rack_cluster.RACK_FILE}")):
        raise RuntimeError(f"a rack is already up on this machine (see {rack_cluster.RACKS_ROOT}); "
                           "one rack per machine: take it down first (`e3 cluster down NAME`)")
    workdir = Path(tempfile.mkdtemp(prefix="e3-bench-rack-"))
    data = workdir / "data"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "E3_URL", "E3_TOKEN")}
    env.update(E3_DATA_DIR=str(data), E3_API_PORT=str(free_tcp_port()), E3_CONTROLLER_PORT=str(free_tcp_port()),
               E3_CLUSTER_MODE="rack", E3_RACK_SERVERS=str(servers), E3_RACK_TYPE=server_type, E3_DEMO_RATE="0")
    env.update(extra_env or {})
    log = workdir / "up.log"
    report(f"starting e3 up with a rack of {servers} {server_type} (log {log}) ...")
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "e3", "up"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                cwd=workdir, start_new_session=True)
    try:
        deadline = time.monotonic() + UP_TIMEOUT_S
        while "E3 is up" not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"e3 up did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
        if "programs registered" not in log.read_text(errors="replace"):
            raise RuntimeError(f"e3 up started without its rack: {log.read_text(errors='replace')[-2000:]}")
        values = read_env_file(data / "env")
        yield Api(values["E3_URL"], values["E3_TOKEN"])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def deploy(api: Api, doc: dict, cluster: str = RACK) -> tuple[str, list[dict]]:
    """Create the application and deploy it with HCM; the deployment's id and its instances once all run."""
    from e3.client.deployments import place, wait_running

    api.post("/api/v1/applications", json=doc)
    deployment = place(api, doc["metadata"]["name"], cluster)
    return deployment, wait_running(api, deployment, RUNNING_TIMEOUT_S)


# --- ECMP and failover ---------------------------------------------------------------------------


def _wire_rx(stats_files: list[Path]) -> list[int]:
    return [json.loads(f.read_text())["wire_rx"] if f.is_file() else 0 for f in stats_files]


def _connections(address: str, port: int, count: int) -> int:
    """`count` requests, each from a new socket (a new flow); how many were answered."""
    answered = 0
    for i in range(count):
        try:
            udp.send(address, port, f"GET k{i}".encode(), timeout_s=0.5)
            answered += 1
        except udp.RequestFailed:
            pass
    return answered


def _spread(counts: list[int]) -> float:
    """The largest relative deviation from an even spread."""
    mean = sum(counts) / len(counts)
    return max(abs(c / mean - 1) for c in counts) if mean else float("inf")


def ecmp_section(connections: int, report: Report) -> dict:
    """Host connections over a type2 server's 4 NICs (NIC counters), then again after killing NIC 0."""
    plan = plan_rack(RACK, 1, "type2-smartnic")
    stats = [nic_stats_path(rack_cluster.folder(RACK), nic) for nic in plan.nics()]
    app = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "bench-ecmp"},
           "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 0, "constraints": {"platform": "host"}}],
                    "edges": []}}
    with rack_up(1, "type2-smartnic", report) as api:
        kv = deploy(api, app)[1][0]
        _connections(kv["address"], kv["port"], 8)  # ARP on every port
        time.sleep(STATS_PERIOD_S * 1.5)
        before = _wire_rx(stats)
        report(f"ecmp: {connections} connections to the host {kv['address']} ...")
        answered = _connections(kv["address"], kv["port"], connections)
        time.sleep(STATS_PERIOD_S * 1.5)
        spread = [a - b for a, b in zip(_wire_rx(stats), before)]
        status = load_status(rack_cluster.folder(RACK))
        victim = next(p for p in status["processes"] if p["kind"] == "nic" and p["node"].endswith("/nic0"))
        report(f"ecmp: killing {victim['node']} (pid {victim['pid']}) ...")
        os.kill(victim["pid"], signal.SIGKILL)
        time.sleep(1.0)  # the supervisor sets its ports down; the ToR drops them from the route
        before = _wire_rx(stats)
        answered_after = _connections(kv["address"], kv["port"], connections)
        time.sleep(STATS_PERIOD_S * 1.5)
        after = [a - b for a, b in zip(_wire_rx(stats), before)]
    return {"section": "ecmp", "connections": connections, "answered": answered, "per_nic": spread,
            "spread": _spread(spread), "target": ECMP_TARGET,
            "after_kill": {"answered": answered_after, "per_nic": after, "spread_over_survivors": _spread(after[1:])}}


# --- NFV-FIN: HCM vs hosts ----------------------------------------------------------------------


NFV_CONFIG = {"ipsec": {"key": "000102030405060708090a0b0c0d0e0f", "auth_key": "0102030405060708090a0b0c0d0e0f10"},
              "nids": {"patterns": "attack,exploit,evil"}}
NFV_REQUEST = "ADD 10.0.0.1:80>10.0.0.2:5000/6\\nGET /index.html HTTP/1.1\\nGET /index.html HTTP/1.1"


def nfv_fin(on_hosts: bool) -> dict:
    """NFV-FIN from the catalogue with its services' configuration; `on_hosts` pins every node to hosts."""
    spec = ApplicationSpec.from_document(catalog.template("nfv-fin"))
    nodes = [dataclasses.replace(n, config=dict(NFV_CONFIG.get(n.service, n.config)),
                                 platform="host" if on_hosts else n.platform)
             for n in spec.nodes]
    return dataclasses.replace(spec, name="nfv-fin-hosts" if on_hosts else "nfv-fin", nodes=nodes).to_document()


def _cluster_watts(api: Api) -> float:
    nodes = api.all_pages(f"/api/v1/clusters/{RACK}/nodes")
    power = [n["telemetry"]["power"] for n in nodes if n.get("telemetry")]
    if any(p["source"] != "model" for p in power):
        raise RuntimeError("expected modelled power on an emulated rack")
    return sum(p["watts"] for p in power)


def _measure(api: Api, instances: list[dict], seconds: float, connections: int) -> dict:
    entry = next(i for i in instances if i["dag_node"] == "flow" and i["role"] == "primary")
    argv = [str(loadgen_binary()), "--target", f"{entry['address']}:{entry['port']}", "--mode", "closed",
            "--connections", str(connections), "--duration", f"{seconds:g}", "--payload", NFV_REQUEST]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    time.sleep(min(seconds / 2, 5))
    watts = _cluster_watts(api)  # under load
    out, _ = proc.communicate(timeout=seconds + 60)
    run = json.loads(out)
    rps = run["throughput_rps"]
    return {"throughput_rps": rps, "p99_us": run["latency_us"]["p99"], "errors": run["errors"],
            "timeouts": run["timeouts"], "watts": watts, "joules_per_request": joules_per_request(watts, rps),
            "on_nics": sum(i["node_kind"] == "smartnic" for i in instances), "instances": len(instances)}


def nfv_fin_section(seconds: float, connections: int, report: Report) -> dict:
    """NFV-FIN on 3 x type1-smartnic: HCM's placement, then the same DAG forced onto the hosts."""
    result = {"section": "nfv-fin", "seconds": seconds, "connections": connections, "energy_source": "model"}
    with rack_up(3, "type1-smartnic", report) as api:
        for label, on_hosts in (("hcm", False), ("hosts", True)):
            report(f"nfv-fin: {label} placement ...")
            deployment, instances = deploy(api, nfv_fin(on_hosts))
            result[label] = _measure(api, instances, seconds, connections)
            api.request("DELETE", f"/api/v1/deployments/{deployment}")  # room for the next placement
    return result
