"""Service configuration against the real services: what each catalogue schema fills in, and values at its
bounds, are accepted by the C code in real e3-agent processes (a local duo); and a DAG drawn by hand, with
no configuration written, deploys and serves requests through its gateway with the generated key, on the
local duo and on an emulated rack (root: SmartNICs emulated by e3-nic in network namespaces)."""

import pytest
from helpers import wait_for_job, wait_until
from local_trio import ask, running

from e3 import catalog
from e3.dataplane import udp
from e3.emulation import netns

# Values the schemas accept away from the defaults: their bounds and their less common formats.
BOUNDS = {
    "api_gateway": {"keys": "k1,k2", "rate": "0.5", "burst": "1"},
    "bayes": {"train": " ab :text|c:|", "alpha": "0.01"},
    "bm25": {"docs": "d1:the fox| d2:a dog|", "k1": "0", "b": "1", "top": "500"},
    "count": {"bits": "64"},
    "ddos": {"window": "1", "threshold": "-1"},
    "ema": {"alpha": "1"},
    "flow_monitor": {"width": "1", "depth": "32", "seed": str(2 ** 63 - 1)},
    "ipsec": {"key": "000102030405060708090a0b0c0d0e0F", "auth_key": "ab" * 64, "iv": "f" * 32},
    "knn": {"points": "1.5 -2e3\t.5: a |3,4,5:b|", "k": "1"},
    "kvs": {"max_value": "65530"},
    "natv4": {"rules": " 10.1.2.3/32>172.16.0.9:8080 , 0.0.0.0/0>1.2.3.4:65535,"},
    "nids": {"patterns": r"a\,b,\x3b\\,GET /"},
    "recommend": {},
    "spike": {"threshold": "0.1"},
    "sql": {"columns": " id : int , name:text,temp:real,"},
    "top_ranker": {},
}


# Drawn by hand: services only, no configuration (the api_gateway -> kvs -> sql -> count).
DRAWN = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "drawn"},
         "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0},
                            {"id": "kv", "service": "kvs"},
                            {"id": "db", "service": "sql", "replicas": 0},
                            {"id": "cnt", "service": "count", "replicas": 0}],
                  "edges": [{"from": "gw", "to": "kv"}, {"from": "kv", "to": "db"}, {"from": "db", "to": "cnt"}]}}


def _application(name: str, configs: dict[str, dict]) -> dict:
    nodes = [{"id": service.replace("_", "-"), "service": service, "replicas": 0,
              **({"config": configs[service]} if configs.get(service) else {})} for service in sorted(configs)]
    return {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": name},
            "spec": {"nodes": nodes, "edges": []}}


def _deploy(client, application: dict, cluster: str = "duo") -> tuple[str, dict]:
    created = client.post("/api/v1/applications", json=application)
    assert created.status_code == 201, created.json()
    r = client.post("/api/v1/deployments", json={"application": application["metadata"]["name"], "cluster": cluster})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    deployment_id = r.json()["deployment_id"]
    return deployment_id, wait_until(lambda: running(client, deployment_id), timeout=30, what="instances running")


def _serves_the_drawn_dag(client, deployment_id: str, gw: dict) -> None:
    """The drawn DAG, running, answers through its gateway with the key generated at save."""
    shown = client.get(f"/api/v1/deployments/{deployment_id}").json()
    assert (shown["status"], shown["refusals"]) == ("running", [])
    stored = client.get("/api/v1/applications/drawn").json()["spec"]["spec"]["nodes"]
    key = next(n for n in stored if n["id"] == "gw")["config"]["keys"]  # generated at save, read back

    def put():  # on a rack the first request may wait for ARP
        try:
            return ask(gw, f"{key} client-1\nPUT colour blue\nINSERT id=7 value=21.5\nADD alice")
        except udp.RequestFailed:
            return None

    assert wait_until(put, timeout=15, what="a reply through the gateway") == (True, "ALLOW\nOK\nOK 1\n\nNEW")
    assert ask(gw, f"{key} client-1\nGET colour\nSELECT WHERE id = 7\nCOUNT") == \
        (True, "ALLOW\nVALUE blue\n7\t21.5\n\nCOUNT 1")
    assert ask(gw, "guessed-key client-1\nGET colour") == (False, "UNAUTHORIZED")


def test_every_service_runs_with_what_its_schema_fills_in_and_with_values_at_its_bounds(client, worker,
                                                                                          local_cluster):
    assert set(BOUNDS) == set(catalog.service_types())
    _, defaults = _deploy(client, _application("defaults", {service: {} for service in BOUNDS}))
    assert len(defaults) == 16  # running() fails on any instance its agent refused
    assert ask(defaults["knn"], "0.1,0.2") == (True, "low\n")  # the default model
    assert ask(defaults["bayes"], "buy cheap pills")[1].startswith("spam ")
    assert ask(defaults["sql"], "INSERT id=1 value=2.5") == (True, "OK 1\n")  # the default table
    assert ask(defaults["sql"], "SELECT WHERE id = 1") == (True, "1\t2.5\n")

    _, bounds = _deploy(client, _application("bounds", BOUNDS))
    assert len(bounds) == 16
    assert ask(bounds["knn"], "3 4 5") == (True, "b\n")
    assert ask(bounds["sql"], "INSERT id=1 name='x' temp=2") == (True, "OK 1\n")


def test_a_dag_drawn_by_hand_with_no_configuration_deploys_and_serves_requests(client, worker, local_cluster):
    deployment_id, placed = _deploy(client, DRAWN)
    _serves_the_drawn_dag(client, deployment_id, placed["gw"])


@pytest.mark.skipif(netns.netns_supported() is not None, reason=f"needs network namespaces: {netns.netns_supported()}")
def test_a_dag_drawn_by_hand_serves_requests_on_the_emulated_rack(client, worker, rack_of):
    rack_of("drawn", 2)
    deployment_id, placed = _deploy(client, DRAWN, cluster="drawn")
    assert {i["node_kind"] for i in placed.values()} == {"host", "smartnic"}  # sql on a host, the others anywhere
    _serves_the_drawn_dag(client, deployment_id, placed["gw"])
