"""Clusters from a generator or a spec, topology readback, pagination, bad input, deletion rules."""

CLUSTER_YAML = b"""
apiVersion: e3/v1
kind: Cluster
metadata: {name: lab}
spec:
  racks:
    - name: ra
      servers: [{type: type2-smartnic, count: 2}, {type: beefy}]
    - name: rb
      pod: 1
      servers: [{type: wimpy, count: 2}]
"""


def test_generator_builds_racks_servers_and_nodes(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 85, "server_type": "type2-smartnic",
                                              "servers_per_rack": 40, "name": "big"})
    assert r.status_code == 201
    body = r.json()
    assert (body["racks"], body["servers"], body["nodes"]) == (3, 85, 85 * 5)
    detail = client.get("/api/v1/clusters/big").json()
    assert [len(rack["servers"]) for rack in detail["topology"]] == [40, 40, 5]
    server = detail["topology"][0]["servers"][0]
    kinds = [n["kind"] for n in server["nodes"]]
    assert kinds == ["host", "smartnic", "smartnic", "smartnic", "smartnic"]
    host, nic = server["nodes"][0], server["nodes"][1]
    assert (host["cores"], host["memory_mb"]) == (16, 128 * 1024)  # Table 4: 144 GB less 4 x 4 GB NICs
    assert (nic["cores"], nic["memory_mb"], nic["bandwidth_mbps"]) == (12, 4096, 10000)


def test_cluster_from_yaml_spec(client):
    r = client.post("/api/v1/clusters", content=CLUSTER_YAML, headers={"Content-Type": "application/yaml"})
    assert r.status_code == 201, r.json()
    assert r.json()["server_types"] == {"type2-smartnic": 2, "beefy": 1, "wimpy": 2}
    detail = client.get("/api/v1/clusters/lab").json()
    assert [(rack["name"], rack["pod"]) for rack in detail["topology"]] == [("ra", 0), ("rb", 1)]
    nodes = client.get("/api/v1/clusters/lab/nodes", params={"kind": "smartnic"}).json()
    assert nodes["total"] == 8 and all(n["kind"] == "smartnic" for n in nodes["items"])


def test_list_is_paginated(client):
    for i in range(5):
        client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1, "server_type": "beefy",
                                              "name": f"c{i}"})
    page = client.get("/api/v1/clusters", params={"limit": 2, "offset": 2}).json()
    assert (page["total"], page["limit"], page["offset"]) == (5, 2, 2)
    assert [c["name"] for c in page["items"]] == ["c2", "c3"]
    assert client.get("/api/v1/clusters", params={"limit": 0}).status_code == 422


def test_unknown_server_type_names_the_field_and_lists_valid_types(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 3, "server_type": "type9"})
    assert r.status_code == 422
    err = r.json()["errors"][0]
    assert err["field"] == "server_type"
    assert "type1-smartnic" in err["message"]
    assert client.get("/api/v1/clusters").json()["total"] == 0


def test_zero_servers_is_refused(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 0, "server_type": "beefy"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "servers"


def test_duplicate_name_is_a_conflict(client):
    spec = {"generator": "fattree", "servers": 1, "server_type": "beefy", "name": "dup"}
    assert client.post("/api/v1/clusters", json=spec).status_code == 201
    r = client.post("/api/v1/clusters", json=spec)
    assert r.status_code == 409 and r.json()["code"] == "already_exists"


def test_missing_cluster_is_404(client):
    r = client.get("/api/v1/clusters/nope")
    assert r.status_code == 404 and "nope" in r.json()["message"]


def test_delete_removes_the_whole_topology(client):
    client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "type1-smartnic",
                                          "name": "gone"})
    assert client.delete("/api/v1/clusters/gone").status_code == 204
    assert client.get("/api/v1/clusters/gone").status_code == 404
    from sqlalchemy import func, select

    from e3.core.db import session_scope
    from e3.models import ComputeNode, Server

    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(ComputeNode)) == 0
        assert session.scalar(select(func.count()).select_from(Server)) == 0


def test_thousand_server_fattree(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1000,
                                              "server_type": "type2-smartnic", "servers_per_rack": 40})
    assert r.status_code == 201
    assert (r.json()["racks"], r.json()["nodes"]) == (25, 5000)
    nodes = client.get("/api/v1/clusters/fattree-1000-type2-smartnic/nodes", params={"limit": 1000, "offset": 4500})
    assert nodes.json()["total"] == 5000 and len(nodes.json()["items"]) == 500


def test_list_counts_the_nodes_agents_run(client):
    import uuid

    from sqlalchemy import select, update

    from e3.core.db import session_scope
    from e3.models import ComputeNode

    for name in ("aaa", "run"):
        client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "type1-smartnic",
                                              "name": name})
    run = uuid.UUID(client.get("/api/v1/clusters/run").json()["id"])
    with session_scope() as session:
        some = session.scalars(select(ComputeNode.id).where(ComputeNode.cluster_id == run).limit(3)).all()
        session.execute(update(ComputeNode).where(ComputeNode.id.in_(some)).values(agent_id="agent-1"))
    listed = {c["name"]: c["agent_nodes"] for c in client.get("/api/v1/clusters").json()["items"]}
    assert listed == {"aaa": 0, "run": 3}
    assert client.get("/api/v1/clusters/run").json()["agent_nodes"] == 3
