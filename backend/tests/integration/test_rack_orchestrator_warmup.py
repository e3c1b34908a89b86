"""The data-plane orchestrator on the emulated rack (root), in its default `migrate` mode: a kvs primary freshly
deployed on a SmartNIC and sent nothing stays there; under light traffic (one request at a time) it is never judged,
neither before its warm-up (before the fix, such a kvs was judged overloaded against the execution time of its first
requests and moved within a second) nor after it (the noise floor: on the loaded CI machine its per-request time
wobbled 25% above its baseline, and it was moved); once warmed up and driven past the NIC's capacity, the orchestrator
still moves a replica of it from its troubled NIC to a host: the primary judged overloaded, or the backup whose NIC
starves under the primary's replication (seen in CI: a standing queue of 692-4096 packets on an idle link), whichever
the shared machine's scheduling makes first (docs/orchestrator.md, "Warm-up" and "Noise floor")."""

import subprocess
import time

import pytest
from helpers import wait_for_job, wait_until

from e3.dataplane import udp
from e3.emulation import netns
from e3.emulation.binaries import loadgen_binary

pytestmark = pytest.mark.skipif(netns.netns_supported() is not None,
                                reason=f"needs network namespaces: {netns.netns_supported()}")

NAME = "warm"
APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "warm-kv"},
       "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 1}], "edges": []}}
IDLE_S = 10.0
LIGHT_S = 5.0  # sequential PUTs: 100 heartbeats with traffic, 80 of them judged after the warm-up's 20
LIGHT_KEYS = 64
OVERLOAD_S = 45  # under the whole suite's load on 2 cores a detection and its move took longer than 25 s


def _replicas(client, deployment_id: str) -> dict[int, dict] | None:
    """The kvs's instances by replica (0 the primary), once all run."""
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    assert not [i for i in items if i["state"] == "failed"], items
    if not items or any(i["state"] != "running" for i in items):
        return None
    return {i["replica"]: i for i in items}


def _orchestrator_events(client) -> list[dict]:
    return client.get("/api/v1/events", params={"kind": "orchestrator.", "limit": 100}).json()["items"]


def _migrations(client, replicas: dict[int, dict]) -> list[dict]:
    return [m for r in replicas.values()
            for m in client.get("/api/v1/migrations", params={"instance_id": r["id"]}).json()["items"]]


def _nodes(replicas: dict[int, dict]) -> dict[int, str]:
    return {replica: r["node"] for replica, r in replicas.items()}


def _put(kv: dict, i: int) -> bool:
    """A PUT of one of LIGHT_KEYS keys: light use, not a table that keeps growing (a kvs whose table grows by
    thousands of keys a second does get slower per request, and may rightly be judged for it)."""
    try:
        return udp.send(kv["address"], kv["port"], f"PUT w{i % LIGHT_KEYS} v".encode(), timeout_s=0.5).ok
    except udp.RequestFailed:
        return False


def test_issue19_item8_a_fresh_kvs_idle_or_lightly_used_stays_on_its_nic_an_overloaded_one_moves(client, worker,
                                                                                                  rack_of):
    # migrate mode, whatever an earlier test of the session set (the mode is kept in Redis, not the database)
    assert client.put("/api/v1/orchestrator", json={"mode": "migrate"}).status_code == 200
    rack_of(NAME, 2)
    assert client.post("/api/v1/applications", json=APP).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "warm-kv", "cluster": NAME})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    deployment = r.json()["deployment_id"]
    replicas = wait_until(lambda: _replicas(client, deployment), timeout=30, what="the kvs running")
    kv = replicas[0]
    assert {r["node_kind"] for r in replicas.values()} == {"smartnic"}, replicas

    # Freshly deployed and sent nothing: no verdict, no migration (issue 19, item 8: moved ~2 s after each deploy).
    time.sleep(IDLE_S)
    print("orchestrator events while idle:", _orchestrator_events(client))
    assert _migrations(client, replicas) == []
    assert [e for e in _orchestrator_events(client) if e["kind"] == "orchestrator.detection"] == []
    assert _nodes(_replicas(client, deployment)) == _nodes(replicas)

    # Light traffic first (the warm-up: a baseline from heartbeats with requests), then far more than the NIC takes.
    # No verdict during the warm-up's 20 heartbeats with traffic (before that fix, a kvs was judged against its first
    # requests within a second), nor after it: on this shared 2-core machine a kvs's per-request time can stay 20%
    # above its baseline for 3 heartbeats (seen in CI: 1.38 -> 1.73 us), below the noise floor (docs/reliability.md,
    # "Orchestrator warm-up and noise floor").
    wait_until(lambda: _put(kv, 0), timeout=15, what="a first reply (ARP)")
    light_until, answered = time.monotonic() + LIGHT_S, 0
    while time.monotonic() < light_until:
        answered += _put(kv, answered + 1)
    verdicts = [e for e in _orchestrator_events(client) if e["kind"] == "orchestrator.detection"]
    print(f"{answered} PUTs answered one after another in {LIGHT_S} s; verdicts: {verdicts}")
    assert verdicts == [] and _migrations(client, replicas) == []
    assert _nodes(_replicas(client, deployment)) == _nodes(replicas)
    load = subprocess.Popen([str(loadgen_binary()), "--target", f"{kv['address']}:{kv['port']}", "--mode", "closed",
                             "--connections", "64", "--duration", str(OVERLOAD_S), "--warmup", "0",
                             "--payload", "PUT lg{seq} v"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    load_started = time.monotonic()
    try:
        moved = wait_until(lambda: [m for m in _migrations(client, replicas) if m["state"] == "succeeded"],
                           timeout=OVERLOAD_S, what="a replica of the overloaded kvs migrated")
    except AssertionError as exc:  # what the orchestrator saw, and any migration that did not succeed
        raise AssertionError(f"{exc}; orchestrator events: {_orchestrator_events(client)}; "
                             f"migrations: {_migrations(client, replicas)}") from None
    finally:
        load.kill()
        load.communicate()
    print(f"moved {time.monotonic() - load_started:.1f} s after the load started; orchestrator events under load:",
          _orchestrator_events(client))
    assert moved[0]["reason"] in ("overload", "host_starvation"), moved[0]
    replica = next(n for n, r in replicas.items() if r["id"] == moved[0]["instance_id"])
    decisions = [e for e in _orchestrator_events(client) if e["kind"] == "orchestrator.decision"
                 and e["data"]["instance_id"] == moved[0]["instance_id"]]
    assert decisions and decisions[0]["subject"] == f"node/{replicas[replica]['node_id']}", decisions  # off its NIC
    assert _replicas(client, deployment)[replica]["node_kind"] == "host"
