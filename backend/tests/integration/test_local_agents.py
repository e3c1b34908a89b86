"""Two real e3-agent processes (`e3 cluster up --mode local`) with the real controller, API, worker,
Postgres and Redis: deploy api_gateway -> kvs, send requests through the pipeline, read the
heartbeats back (requests and watts with their source), survive a controller restart with the
instances' state, and stop cleanly with `e3 cluster down`."""

import json
import time

from helpers import wait_for_job, wait_until

from e3.dataplane import udp

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "gw-kvs"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0,
                        "config": {"keys": "secret-key", "rate": "100000", "burst": "100000"}},
                       {"id": "kv", "service": "kvs", "replicas": 1}],
             "edges": [{"from": "gw", "to": "kv"}]},
}


def _running_placement(client, deployment_id):
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    if all(i["state"] == "running" for i in items):
        return {i["dag_node"] if i["role"] == "primary" else f"{i['dag_node']}-backup": i for i in items}
    assert not [i for i in items if i["state"] == "failed"], items
    return None


def _request(entry, text):
    reply = udp.send(entry["address"], entry["port"], text.encode(), timeout_s=3)
    return reply.ok, reply.body.decode()


def test_a_local_cluster_runs_a_dag_end_to_end_and_survives_a_controller_restart(
        client, e3, worker, controller, local_cluster, tmp_path):
    assert [a["node"] for a in local_cluster["agents"]] == [n["name"] for n in
                                                             client.get("/api/v1/clusters/duo/nodes").json()["items"]]
    assert client.post("/api/v1/applications", json=APP).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "gw-kvs", "cluster": "duo", "algorithm": "hcm"})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    deployment_id = r.json()["deployment_id"]
    placed = wait_until(lambda: _running_placement(client, deployment_id), timeout=20, what="instances running")
    gw = placed["gw"]
    shown = client.get(f"/api/v1/deployments/{deployment_id}").json()
    assert (shown["status"], shown["status_reason"], shown["refusals"]) == ("running", None, [])

    assert _request(gw, "secret-key client-1\nPUT colour blue") == (True, "ALLOW\nOK")
    assert _request(gw, "secret-key client-1\nGET colour") == (True, "ALLOW\nVALUE blue")
    backup = placed["kv-backup"]
    assert backup["node_id"] != placed["kv"]["node_id"]  # on the other server: replicated over UDP
    wait_until(lambda: _request(backup, "GET colour") == (True, "VALUE blue"), what="the backup has the update")
    assert _request(gw, "stolen-key client-1\nPUT colour red") == (False, "UNAUTHORIZED")  # stops at the gate
    assert _request(gw, "secret-key client-1\nGET colour") == (True, "ALLOW\nVALUE blue")
    assert _request(gw, "secret-key client-1\nDROP colour")[0] is False  # kvs refuses: an error comes back
    answer = json.loads(e3("request", deployment_id, "--data", "secret-key client-3\\nGET colour", "--count", "3",
                           "--output", "json").stdout)
    assert (answer["sent"], answer["ok"], answer["reply"]) == (3, 3, "ALLOW\nVALUE blue")
    refused = e3("request", deployment_id, "--data", "bad-key client-3\\nGET colour", check=False)
    assert refused.returncode == 1 and "UNAUTHORIZED" in refused.stderr
    for _ in range(50):
        _request(gw, "secret-key client-2\nGET colour")

    def busy_node():
        nodes = client.get("/api/v1/clusters/duo/nodes").json()["items"]
        node = next(n for n in nodes if n["id"] == gw["node_id"])
        return node if node["telemetry"] and node["telemetry"]["requests"] >= 52 else None

    node = wait_until(busy_node, timeout=15, what="requests in the stored heartbeats")
    assert node["telemetry"]["power"]["source"] in ("rapl", "model") and node["telemetry"]["power"]["watts"] > 0
    series = client.get(f"/api/v1/nodes/{gw['node_id']}/telemetry", params={"limit": 5000}).json()["items"]
    assert sum(p["requests"] for p in series) >= 52

    def gw_latencies():
        """The gateway's latencies, arrival -> OK reply (its kvs call included), measured by its agent, once they
        cover the 50 GETs: a reply (and its timing) comes after the request counts as completed, so the
        heartbeat that carries it can be one period later."""
        points = client.get(f"/api/v1/nodes/{gw['node_id']}/telemetry", params={"limit": 5000}).json()["items"]
        timed = [i for p in points for i in p["instances"] if i["instance_id"] == gw["id"] and i["latency_count"]]
        return timed if sum(i["latency_count"] for i in timed) >= 50 else None

    at_gw = wait_until(gw_latencies, timeout=15, what="the gateway's 50 GETs timed in its heartbeats")
    assert all(0 < i["latency_avg_us"] <= i["latency_p99_us"] * 1.04 for i in at_gw)

    def listed_up():  # a heartbeat delayed on a busy machine may make a node briefly suspect
        listed = json.loads(e3("get", "nodes", "--cluster", "duo", "--output", "json").stdout)
        return {n["state"] for n in listed} == {"up"} and all(n["telemetry"] for n in listed)

    wait_until(listed_up, what="`e3 get nodes`: every node up with telemetry")

    # A deploy the agent cannot run is NACKed, and the deployment says why: the API checks each value's
    # format, but not that every knn point has the same dimension; the service does.
    mixed = {**APP, "metadata": {"name": "mixed-dims"},
             "spec": {"nodes": [{"id": "cls", "service": "knn", "replicas": 0,
                                 "config": {"points": "0,0:low|1:high"}}], "edges": []}}
    assert client.post("/api/v1/applications", json=mixed).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "mixed-dims", "cluster": "duo"})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"  # placing it was fine

    def refused():
        items = client.get(f"/api/v1/deployments/{r.json()['deployment_id']}/placement").json()["items"]
        return items[0] if items[0]["state"] == "failed" else None

    failed = wait_until(refused, timeout=15, what="the agent's NACK on the instance")
    assert failed["error"]["code"] == "bad_config" and "coordinates" in failed["error"]["message"]
    assert failed["port"] is None
    refused_deployment = client.get(f"/api/v1/deployments/{r.json()['deployment_id']}").json()
    assert refused_deployment["instance_states"] == {"failed": 1}
    # Placed is not running: every screen reads the status, and it names the agent's reason.
    assert refused_deployment["state"] == "placed" and refused_deployment["status"] == "failed"
    assert refused_deployment["status_reason"].startswith("1 of 1 instances refused by their agents: bad_config: ")
    assert [(x["code"], x["instances"]) for x in refused_deployment["refusals"]] == [("bad_config", 1)]
    listed = json.loads(e3("get", "deployments", "--output", "json").stdout)
    assert {d["application"]: d["status"] for d in listed} == {"gw-kvs": "running", "mixed-dims": "failed"}
    # `e3 apply --wait` follows the deployment until its agents answered, and fails with their reason.
    spec = tmp_path / "mixed-dims.json"
    spec.write_text(json.dumps({**mixed, "metadata": {"name": "mixed-dims-apply"}}))
    applied = e3("apply", "-f", str(spec), "--cluster", "duo", "--wait", check=False)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert "failed: 1 of 1 instances refused by their agents: bad_config:" in applied.stderr

    controller.restart()
    restarted = time.time()
    assert _request(gw, "secret-key client-1\nGET colour") == (True, "ALLOW\nVALUE blue")  # state kept

    def heard_since_restart():
        points = client.get(f"/api/v1/nodes/{gw['node_id']}/telemetry", params={"limit": 5000}).json()["items"]
        return [p for p in points if _epoch(p["ts"]) > restarted + 0.5]

    wait_until(heard_since_restart, timeout=20, what="heartbeats after the controller restart")

    stopped = json.loads(e3("cluster", "down", "duo", "--output", "json", extra_env=local_cluster["env"]).stdout)
    assert {s["stopped"] for s in stopped} == {"terminated"}  # SIGTERM was enough
    wait_until(lambda: {n["state"] for n in client.get("/api/v1/clusters/duo/nodes").json()["items"]} == {"down"},
               timeout=10, what="nodes down after `e3 cluster down`")


def _epoch(ts: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(ts).timestamp()
