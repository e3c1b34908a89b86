"""Three local agents (`e3 cluster up --mode local`, beefy servers) running gw -> kvs (one backup): the
application and the helpers the integration tests share (requests to instances, a writer under load)."""

import threading

from helpers import REPO_ROOT

from e3.dataplane import udp

AGENT = REPO_ROOT / "build/agents/e3-agent/e3-agent"
KEY = "secret-key"
APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "mig-kv"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0,
                        "config": {"keys": KEY, "rate": "1000000", "burst": "1000000"}},
                       {"id": "kv", "service": "kvs", "replicas": 1}],
             "edges": [{"from": "gw", "to": "kv"}]},
}


def running(client, deployment_id):
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    assert not [i for i in items if i["state"] == "failed"], items
    if all(i["state"] == "running" for i in items):
        return {i["dag_node"] if i["role"] == "primary" else f"{i['dag_node']}-backup": i for i in items}
    return None


def ask(instance: dict, text: str, timeout_s: float = 1.0) -> tuple[bool, str]:
    reply = udp.send(instance["address"], instance["port"], text.encode(), timeout_s=timeout_s)
    return reply.ok, reply.body.decode()


def third_host(client, placed) -> str:
    taken = {placed["kv"]["server"], placed["kv-backup"]["server"]}
    nodes = client.get("/api/v1/clusters/trio/nodes").json()["items"]
    return next(n["name"] for n in nodes if n["server"] not in taken)


class Writer(threading.Thread):
    """PUT k<i> v<i> through the gateway, one after another, remembering which ones were acknowledged."""

    def __init__(self, gw: dict):
        super().__init__(daemon=True)
        self.gw, self.acked, self.failed, self.stop = gw, [], 0, threading.Event()

    def run(self):
        i = 0
        while not self.stop.is_set():
            i += 1
            try:
                ok, body = ask(self.gw, f"{KEY} client-1\nPUT k{i} v{i}", timeout_s=0.3)
            except udp.RequestFailed:
                ok, body = False, ""
            if ok and body == "ALLOW\nOK":
                self.acked.append(i)
            else:
                self.failed += 1
