"""An emulated SmartNIC in a real rack (root): one type1-smartnic server in network namespaces with
its ToR, a real e3-nic (DPDK af_packet on the server's veths) registered with the real controller
over the management network; HCM places a SmartNIC-pinned kvs on it; requests from the machine go
through the uplink and the ToR to the NIC's IP and back; frames for no instance are dropped and
counted; SIGTERM stops the NIC cleanly and the rack's teardown leaves nothing behind."""

import json
import os
import subprocess

import pytest
from helpers import start_process, stop_process, wait_for_job, wait_until

from e3.core.embedded import free_tcp_port
from e3.dataplane import udp
from e3.emulation import netns, rack_network
from e3.emulation.rack_plan import plan_rack
from e3.emulation.rack_processes import REGISTERED, nic_argv, nic_stats_path

CLUSTER = "nicrack"
APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "nic-kv"},
       "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 0, "constraints": {"platform": "smartnic"}}],
                "edges": []}}

pytestmark = pytest.mark.skipif(netns.netns_supported() is not None,
                                reason=f"needs network namespaces: {netns.netns_supported()}")


@pytest.fixture
def rack(tmp_path):
    """The rack's network (namespaces, veths, ECMP ToR, uplink, management bridge); destroyed after."""
    plan = plan_rack(CLUSTER, 1, "type1-smartnic", rack_network.mgmt_network())
    state = tmp_path / "rack.json"
    rack_network.create(plan, state)
    try:
        yield plan
    finally:
        rack_network.destroy(state)


@pytest.fixture
def controller(backing_services, rack):
    """The controller, bound on every address so that the servers' namespaces reach it."""
    port = free_tcp_port()
    proc = start_process(["controller", "--host", "0.0.0.0", "--port", str(port)], backing_services,
                         "controller.log", lambda log: b"controller listening" in log)
    yield f"{rack.mgmt_gateway}:{port}"
    stop_process(proc)


def test_a_request_reaches_a_kvs_on_the_emulated_nic_through_the_tor(client, worker, controller, rack, tmp_path):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1,
                                              "server_type": "type1-smartnic", "name": CLUSTER})
    assert r.status_code == 201, r.text
    api_server = client.get(f"/api/v1/clusters/{CLUSTER}/nodes").json()["items"][0]["server"]
    token = client.post("/api/v1/tokens", json={"name": "rack-nic", "scopes": ["agent"]}).json()["token"]
    token_file = tmp_path / "token"
    token_file.write_text(token)
    server = rack.servers[0]
    nic = server.nics[0]
    log = tmp_path / "nic.log"
    argv = nic_argv(rack, server, nic, api_server, controller, token_file, tmp_path)
    proc = subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: REGISTERED in log.read_text() or proc.poll() is not None, timeout=30,
                   what="e3-nic registered")
        assert proc.poll() is None, log.read_text()
        assert "EMULATED SmartNIC" in log.read_text()

        assert client.post("/api/v1/applications", json=APP).status_code == 201
        r = client.post("/api/v1/deployments", json={"application": "nic-kv", "cluster": CLUSTER})
        assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"

        def running():
            items = client.get(f"/api/v1/deployments/{r.json()['deployment_id']}/placement").json()["items"]
            assert not [i for i in items if i["state"] == "failed"], items
            return items[0] if items[0]["state"] == "running" else None

        kv = wait_until(running, timeout=20, what="kvs running on the NIC")
        assert kv["address"] == nic.ip  # the NIC's own IP, routed by the ToR straight to its port

        def ask(text):
            reply = udp.send(kv["address"], kv["port"], text.encode(), timeout_s=2)
            return reply.ok, reply.body.decode()

        # the first datagram may wait for the ToR's ARP; retry until the path is up
        wait_until(lambda: ask("PUT colour blue") == (True, "OK"), timeout=10, what="a reply through the ToR")
        assert ask("GET colour") == (True, "VALUE blue")
        with pytest.raises(udp.RequestFailed):  # no instance on that port: dropped, no answer
            udp.send(kv["address"], kv["port"] + 1, b"nobody here", timeout_s=0.3)

        def counted():
            stats = json.loads(nic_stats_path(tmp_path, nic).read_text())
            return stats if stats["drops"]["no_instance"] >= 1 else None

        stats = wait_until(counted, timeout=5, what="the NIC's counters")
        assert stats["emulated"] is True
        assert stats["to_workers"] >= 2 and stats["arp_replies"] >= 1
        assert stats["wire_rx_port"][0] >= 3  # the NIC's own IP is routed via its first port

        node = wait_until(lambda: next((n for n in client.get(f"/api/v1/clusters/{CLUSTER}/nodes").json()["items"]
                                        if n["id"] == kv["node_id"] and n["telemetry"]), None),
                          timeout=10, what="the NIC's heartbeats")
        assert node["telemetry"]["power"]["source"] == "model"
        assert node["telemetry"]["power"]["watts"] > 0

        # the energy history: the controller closes each 10 s step 2 s after it ends and stores it
        def history():
            answer = client.get("/api/v1/applications/nic-kv/energy", params={"step": 60}).json()
            return answer if (answer["totals"]["requests"] or 0) >= 2 else None

        energy = wait_until(history, timeout=30, what="the application's energy history")
        assert energy["totals"]["joules"] > 0 and energy["totals"]["sources"] == ["model"]
        assert energy["totals"]["joules_per_request"] > 0
        nic_energy = client.get(f"/api/v1/nodes/{kv['node_id']}/energy", params={"step": 60}).json()
        assert nic_energy["totals"]["joules"] >= energy["totals"]["joules"]  # the kvs's share of its NIC's
    finally:
        proc.terminate()
        try:
            code = proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
    assert code == 0, log.read_text()[-3000:]
    assert not os.path.exists(f"/var/run/dpdk/{nic.file_prefix}")  # the NIC removed its runtime files
