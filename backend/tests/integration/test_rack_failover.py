"""Failover on the emulated rack (root): 3 type1-smartnic servers, a gateway on the hosts and a kvs with one
backup on the SmartNICs. `kill -9` of the e3-nic running the kvs primary: the node goes down, the backup on
another server's NIC is promoted and answers through the gateway for the keys written before, and a new
backup is seeded on the third server's NIC and follows the promoted primary."""

import os
import signal
import time

import pytest
from helpers import wait_for_job, wait_until

from e3.dataplane import udp
from e3.emulation import netns

pytestmark = pytest.mark.skipif(netns.netns_supported() is not None,
                                reason=f"needs network namespaces: {netns.netns_supported()}")

NAME = "fo3"
APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "rack-failover"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"},
                        "config": {"keys": "k1", "rate": "100000", "burst": "100000"}},
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


def test_kill_9_of_a_nic_fails_its_kvs_primary_over_to_the_backup(client, worker, rack_of):
    rack = rack_of(NAME, 3)
    assert client.post("/api/v1/applications", json=APP).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "rack-failover", "cluster": NAME})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    deployment = r.json()["deployment_id"]
    placed = wait_until(lambda: _instances(client, deployment), timeout=30, what="instances running")
    kv, backup, gw = placed["kv"], placed["kv-backup"], placed["gw"]
    if gw["server"] == kv["server"]:  # a type1 host's data path is its NIC: keep the gateway off the victim
        other = next(n["name"] for n in client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]
                     if n["kind"] == "host" and n["server"] != kv["server"])
        assert client.post(f"/api/v1/instances/{gw['id']}/migrations", json={"target_node": other}).status_code == 202
        gw = wait_until(lambda: (p := _instances(client, deployment)) and p["gw"]["node"] == other and p["gw"],
                        timeout=30, what="the gateway off the kvs primary's server")
    wait_until(lambda: _ask(gw, "k1 c0\nPUT warm up") == "ALLOW\nOK", timeout=15, what="a first reply (ARP)")
    for i in range(200):
        assert _ask(gw, f"k1 c{i}\nPUT pre{i} {i}") == "ALLOW\nOK", i
    wait_until(lambda: _ask(backup, "GET pre199") == "VALUE 199", what="the backup caught up")

    nic = next(p for p in rack["programs"] if p["node"] == kv["node"])
    assert nic["kind"] == "nic"
    killed = time.monotonic()
    os.kill(nic["pid"], signal.SIGKILL)
    wait_until(lambda: _ask(gw, "k1 c1\nGET pre7") == "ALLOW\nVALUE 7", timeout=15,
               what="the primary's keys answered again through the gateway")
    print(f"kill -9 of {kv['node']}'s e3-nic -> its backup answering through the gateway: "
          f"{time.monotonic() - killed:.2f} s")

    after = wait_until(lambda: _instances(client, deployment), timeout=60, what="the new backup running")
    promoted, fresh = after["kv"], after["kv-backup"]
    assert promoted["id"] == backup["id"] and fresh["node_kind"] == "smartnic"
    assert fresh["server"] not in (kv["server"], promoted["server"])
    for i in range(0, 200, 11):
        assert _ask(gw, f"k1 c2\nGET pre{i}") == f"ALLOW\nVALUE {i}", i
    seeds = wait_until(lambda: (m := client.get("/api/v1/migrations", params={"instance_id": fresh["id"]})
                                .json()["items"]) and m[0]["state"] == "succeeded" and m, timeout=30,
                       what="the seed migration succeeded")
    print("seed steps (ms):", {s["name"]: s["ms"] for s in seeds[0]["steps"]})
    assert _ask(gw, "k1 c3\nPUT after yes") == "ALLOW\nOK"
    wait_until(lambda: _ask(fresh, "GET after") == "VALUE yes", what="the new backup follows the promoted primary")
    nodes = {n["name"]: n["state"] for n in client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]}
    assert nodes[kv["node"]] == "down"
