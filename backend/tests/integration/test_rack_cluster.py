"""`e3 cluster up --mode rack` (root): two emulated type1-smartnic servers in network namespaces, each
a real e3-nic (DPDK af_packet on two wire veths, memif to its host) and a real e3-agent behind it (its
only data path is memif), registered with the real controller over the management bridge. A two-node
DAG (gateway on the hosts, kvs on the NICs) answers requests sent to a host's IP; the ToR's ECMP
route brings them in through both ports of the host's NIC. `e3 cluster down` leaves nothing behind."""

import json
import os
from pathlib import Path

import pytest
from helpers import wait_for_job, wait_until

from e3.dataplane import udp
from e3.emulation import netns

pytestmark = pytest.mark.skipif(netns.netns_supported() is not None,
                                reason=f"needs network namespaces: {netns.netns_supported()}")

NAME = "duo"
APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "rack-gw-kv"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"},
                        "config": {"keys": "k1", "rate": "100000", "burst": "100000"}},
                       {"id": "kv", "service": "kvs", "replicas": 0, "constraints": {"platform": "smartnic"}}],
             "edges": [{"from": "gw", "to": "kv"}]},
}


@pytest.fixture
def rack(rack_of):
    return rack_of(NAME, 2)


def _placement(client, deployment_id: str) -> list[dict]:
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    assert not [i for i in items if i["state"] == "failed"], items
    return items if all(i["state"] == "running" for i in items) else []


def test_requests_to_a_host_arrive_through_either_port_of_its_nic(client, worker, rack, e3):
    programs = rack["programs"]
    assert sorted(p["kind"] for p in programs) == ["host", "host", "nic", "nic"]
    assert all(p["registered"] for p in programs)
    nodes = client.get(f"/api/v1/clusters/{NAME}/nodes").json()["items"]
    assert len(nodes) == 4 and all(n["agent_id"] for n in nodes), nodes

    assert client.post("/api/v1/applications", json=APP).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "rack-gw-kv", "cluster": NAME})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    items = wait_until(lambda: _placement(client, r.json()["deployment_id"]), timeout=30, what="instances running")
    gw = next(i for i in items if i["dag_node"] == "gw")
    kv = next(i for i in items if i["dag_node"] == "kv")
    assert gw["node_kind"] == "host" and gw["address"].endswith(".1")  # a host IP, 10.3.<i>.1
    assert kv["node_kind"] == "smartnic"

    def ask(text: str):
        reply = udp.send(gw["address"], gw["port"], text.encode(), timeout_s=2)
        return reply.ok, reply.body.decode()

    # host -> its NIC (memif) -> ToR -> the kvs's NIC -> and back; the first may wait for ARP
    wait_until(lambda: ask("k1 c1\nPUT colour blue") == (True, "ALLOW\nOK"), timeout=15, what="a reply")
    for i in range(60):  # a new socket each: 60 flows, which the ToR's L4 hash spreads over both ports
        assert ask(f"k1 c{i}\nGET colour") == (True, "ALLOW\nVALUE blue")

    server = int(gw["address"].split(".")[2])
    stats_file = rack["folder"] / f"e3-{NAME}-s{server}-nic0.stats.json"
    ports = wait_until(lambda: (s := json.loads(stats_file.read_text()))["host_tx"] >= 61 and s["wire_rx_port"],
                       timeout=5, what="the NIC's counters")
    assert ports[0] > 0 and ports[1] > 0, ports  # requests for the host came in through both ports

    down = e3("cluster", "down", NAME, "--output", "json", extra_env=rack["env"])
    assert sorted(p["kind"] for p in json.loads(down.stdout)) == ["host", "host", "nic", "nic"]
    assert not [ns for ns in netns.list_netns() if ns.startswith(f"e3-{NAME}-")]
    assert not [d for d in os.listdir("/var/run/dpdk") if d.startswith(f"e3-{NAME}-")] \
        if os.path.isdir("/var/run/dpdk") else True
    assert not Path(f"/run/e3/{NAME}").exists()


def test_issue19_item5_the_racks_agent_tokens_are_one_per_server_and_revoked_at_down(client, rack_of, e3):
    rack = rack_of("idr", 2)

    def tokens():
        return [t for t in client.get("/api/v1/tokens", params={"limit": 1000}).json()["items"]
                if t["name"].startswith("rack-idr.")]

    servers = sorted({n["server"] for n in client.get("/api/v1/clusters/idr/nodes").json()["items"]})
    issued = tokens()
    assert sorted(s for t in issued for s in t["servers"]) == servers and all(len(t["servers"]) == 1 for t in issued)
    assert all(t["revoked_at"] is None for t in issued) and all(p["registered"] for p in rack["programs"])

    e3("cluster", "down", "idr", "--output", "json", extra_env=rack["env"])
    assert len(tokens()) == len(servers) and all(t["revoked_at"] for t in tokens())
