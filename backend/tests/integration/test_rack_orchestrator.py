"""Migration and failover on the emulated rack (root): 3 type1-smartnic servers, a gateway on the hosts and a
kvs with one backup on the SmartNICs.

- A manual migration of the kvs primary to another server's NIC while a writer and e3-loadgen keep sending
  PUTs through the gateway: every PUT the writer saw acknowledged is readable afterwards, and the store holds
  at least as many of e3-loadgen's keys as it saw acknowledged (at most as many as it sent without an error).
- `kill -9` of the e3-nic running the kvs primary (a chaos test): the node goes down, its server's host
  agent runs on, the backup on another server's NIC is promoted and answers through the gateway for the keys written before, and a new backup is seeded on
  the third server's NIC and follows the promoted primary."""

import json
import os
import signal
import subprocess
import time

import pytest
from helpers import wait_for_job, wait_until
from local_trio import KEY, Writer

from e3.dataplane import udp
from e3.emulation import netns
from e3.emulation.binaries import loadgen_binary

pytestmark = pytest.mark.skipif(netns.netns_supported() is not None,
                                reason=f"needs network namespaces: {netns.netns_supported()}")

NAME = "fo3"
APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "rack-failover"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"},
                        "config": {"keys": KEY, "rate": "1000000", "burst": "1000000"}},
                       {"id": "kv", "service": "kvs", "replicas": 1, "constraints": {"platform": "smartnic"}}],
             "edges": [{"from": "gw", "to": "kv"}]},
}


def _instances(client, deployment_id: str) -> dict | None:
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    assert not [i for i in items if i["state"] == "failed"], items
    if all(i["state"] == "running" for i in items):
        return {i["dag_node"] if i["role"] == "primary" else f"{i['dag_node']}-backup": i for i in items}
    return None


def _ask(instance: dict, text: str) -> str | None:
    try:
        reply = udp.send(instance["address"], instance["port"], text.encode(), timeout_s=0.3)
    except udp.RequestFailed:
        return None
    return reply.body.decode() if reply.ok else None


def _placed(client, rack_of) -> tuple[dict, str]:
    """The rack up, the application running, the gateway on a host of another server than the kvs primary's
    (a type1 host's data path is its NIC); the rack's programs, the instances and the deployment's id."""
    rack = rack_of(NAME, 3)
    assert client.post("/api/v1/applications", json=APP).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "rack-failover", "cluster": NAME})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    deployment = r.json()["deployment_id"]
    placed = wait_until(lambda: _instances(client, deployment), timeout=30, what="instances running")
    kv, backup, gw = placed["kv"], placed["kv-backup"], placed["gw"]
    if gw["server"] == kv["server"]:
        other = next(n["name"] for n in client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]
                     if n["kind"] == "host" and n["server"] != kv["server"])
        assert client.post(f"/api/v1/instances/{gw['id']}/migrations", json={"target_node": other}).status_code == 202
        gw = wait_until(lambda: (p := _instances(client, deployment)) and p["gw"]["node"] == other and p["gw"],
                        timeout=30, what="the gateway off the kvs primary's server")
    wait_until(lambda: _ask(gw, f"{KEY} c0\nPUT warm up") == "ALLOW\nOK", timeout=15, what="a first reply (ARP)")
    return dict(programs=rack["programs"], kv=kv, backup=backup, gw=gw), deployment


def _loadgen_puts(gw: dict, seconds: float) -> subprocess.Popen:
    """e3-loadgen writing one key `lg<n>` per request through the gateway for `seconds` (JSON on stdout)."""
    return subprocess.Popen([str(loadgen_binary()), "--target", f"{gw['address']}:{gw['port']}", "--connections", "8",
                             "--warmup", "0", "--duration", str(seconds), "--timeout-ms", "1000",
                             "--payload", f"{KEY} lg\\nPUT lg{{seq}} v"], stdout=subprocess.PIPE, text=True)


def test_a_kvs_primary_migrates_between_nics_under_load_without_losing_an_acknowledged_put(client, worker, rack_of):
    placed, deployment = _placed(client, rack_of)
    kv, backup, gw = placed["kv"], placed["backup"], placed["gw"]
    target = next(n["name"] for n in client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]
                  if n["kind"] == "smartnic" and n["server"] not in (kv["server"], backup["server"]))
    writer = Writer(gw)
    writer.start()
    loadgen = _loadgen_puts(gw, seconds=8)
    wait_until(lambda: len(writer.acked) >= 50, timeout=10, what="PUTs acknowledged before the migration")
    r = client.post(f"/api/v1/instances/{kv['id']}/migrations", json={"target_node": target})
    assert r.status_code == 202, r.json()
    url = f"/api/v1/migrations/{r.json()['migration_id']}"
    m = wait_until(lambda: (x := client.get(url).json())["state"] not in ("pending", "running") and x, timeout=60,
                   what="the migration ended")
    before_stop = len(writer.acked)
    wait_until(lambda: len(writer.acked) >= before_stop + 50, timeout=10, what="PUTs acknowledged after it")
    writer.stop.set()
    writer.join()
    out, _ = loadgen.communicate(timeout=30)
    assert loadgen.returncode == 0, out
    lg = json.loads(out)
    assert m["state"] == "succeeded", m
    stored = _ask(gw, f"{KEY} c9\nCOUNT lg")
    print("rack migration steps (ms):", {s["name"]: s["ms"] for s in m["steps"]},
          f"writer: acked {len(writer.acked)}, unanswered {writer.failed};",
          f"e3-loadgen: sent {lg['sent']}, acknowledged {lg['completed']}, errors {lg['errors']},",
          f"timeouts {lg['timeouts']}; kvs {stored!r}")
    assert stored is not None and stored.startswith("ALLOW\nCOUNT "), stored
    count = int(stored.rsplit(" ", 1)[1])
    assert lg["completed"] > 0
    assert lg["completed"] <= count <= lg["completed"] + lg["timeouts"], (count, lg)
    moved = _instances(client, deployment)["kv"]
    assert (moved["id"], moved["node"]) == (kv["id"], target)
    for i in writer.acked:  # every acknowledged PUT, read back through the gateway
        assert _ask(gw, f"{KEY} c9\nGET k{i}") == f"ALLOW\nVALUE v{i}", i


@pytest.mark.chaos
def test_kill_9_of_a_nic_fails_its_kvs_primary_over_to_the_backup(client, worker, rack_of):
    placed, deployment = _placed(client, rack_of)
    kv, backup, gw = placed["kv"], placed["backup"], placed["gw"]
    for i in range(200):
        assert _ask(gw, f"{KEY} c{i}\nPUT pre{i} {i}") == "ALLOW\nOK", i
    wait_until(lambda: _ask(backup, "GET pre199") == "VALUE 199", what="the backup caught up")

    nic = next(p for p in placed["programs"] if p["node"] == kv["node"])
    assert nic["kind"] == "nic"
    host_node = next(n["name"] for n in client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]
                     if n["server"] == kv["server"] and n["kind"] == "host")
    host = next(p for p in placed["programs"] if p["node"] == host_node)
    killed = time.monotonic()
    os.kill(nic["pid"], signal.SIGKILL)
    wait_until(lambda: _ask(gw, f"{KEY} c1\nGET pre7") == "ALLOW\nVALUE 7", timeout=15,
               what="the primary's keys answered again through the gateway")
    print(f"kill -9 of {kv['node']}'s e3-nic -> its backup answering through the gateway: "
          f"{time.monotonic() - killed:.2f} s")

    after = wait_until(lambda: _instances(client, deployment), timeout=60, what="the new backup running")
    promoted, fresh = after["kv"], after["kv-backup"]
    assert promoted["id"] == backup["id"] and fresh["node_kind"] == "smartnic"
    assert fresh["server"] not in (kv["server"], promoted["server"])
    for i in range(0, 200, 11):
        assert _ask(gw, f"{KEY} c2\nGET pre{i}") == f"ALLOW\nVALUE {i}", i
    seeds = wait_until(lambda: (m := client.get("/api/v1/migrations", params={"instance_id": fresh["id"]})
                                .json()["items"]) and m[0]["state"] == "succeeded" and m, timeout=30,
                       what="the seed migration succeeded")
    print("seed steps (ms):", {s["name"]: s["ms"] for s in seeds[0]["steps"]})
    assert _ask(gw, f"{KEY} c3\nPUT after yes") == "ALLOW\nOK"
    wait_until(lambda: _ask(fresh, "GET after") == "VALUE yes", what="the new backup follows the promoted primary")
    nodes = {n["name"]: n["state"] for n in client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]}
    assert nodes[kv["node"]] == "down"
    # The host whose host link ended in the killed NIC runs on (its memif peer left mid-burst: libe3dp memguard).
    os.kill(host["pid"], 0)
    assert nodes[host_node] == "up"
