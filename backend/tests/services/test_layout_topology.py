"""The layout's racks, servers and nodes as PostgreSQL writes them (services/layout_topology.py): in topology order,
with what is reserved on each node (a migration's reservation on its target too) and its state, now or as it was at
a past moment (replay reads the same query with the moment's reservations and states)."""

import uuid
from datetime import datetime, timezone

from helpers import deploy_on_new_cluster
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import ComputeNode, Instance, Migration

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "wide"},
       "spec": {"nodes": [{"id": "flows", "service": "flow_monitor", "shards": 3, "replicas": 1},
                          {"id": "kv", "service": "kvs", "shards": 2, "replicas": 1}],
                "edges": [{"from": "flows", "to": "kv"}]}}


def _reserved(session, node_id) -> float:
    return sum(session.scalars(select(Instance.cpu_cores).where(Instance.node_id == node_id)))


def test_nodes_in_topology_order_with_their_reservations_and_states(client, worker):
    deploy_on_new_cluster(client, "two-racks", APP, servers=41)
    with session_scope() as session:
        moving = session.scalars(select(Instance).order_by(Instance.ordinal)).first()
        target = session.scalars(select(ComputeNode).where(ComputeNode.id != moving.node_id)
                                 .order_by(ComputeNode.name.desc())).first()
        session.add(Migration(instance_id=moving.id, cluster_id=target.cluster_id, source_node_id=moving.node_id,
                              target_node_id=target.id, reason="manual", state="running"))
        target.state = "suspect"
        reserved = {str(n.id): _reserved(session, n.id) for n in session.scalars(select(ComputeNode))}
        reserved[str(target.id)] += moving.cpu_cores  # the move's reservation on its target
        names = {str(n.id): n.name for n in session.scalars(select(ComputeNode))}
        target_id = str(target.id)

    layout = client.get("/api/v1/clusters/two-racks/layout").json()

    assert [r["name"] for r in layout["racks"]] == ["r0000", "r0001"]
    assert [s["rack"] for s in layout["servers"]] == [0] * 40 + [1]
    assert len(layout["nodes"]) == 82
    servers = [n["server"] for n in layout["nodes"]]
    assert servers == sorted(servers) and set(servers) == set(range(41))
    for node in layout["nodes"]:
        server = layout["servers"][node["server"]]["name"]
        assert node["name"] == names[node["id"]] and node["name"].startswith(server + "/")
        assert node["used_cores"] == reserved[node["id"]], node["name"]
        assert node["state"] == ("suspect" if node["id"] == target_id else "up")
    nodes = [n["id"] for n in layout["nodes"]]
    with session_scope() as session:
        placed = dict(session.execute(select(Instance.id, Instance.node_id)).all())
    for instance, node in zip(layout["instances"]["id"], layout["instances"]["node"]):
        assert nodes[node] == str(placed[uuid.UUID(instance)])


def test_a_moment_replayed_now_shows_what_the_layout_shows(client, worker):
    deploy_on_new_cluster(client, "now", APP, servers=3)
    layout = client.get("/api/v1/clusters/now/layout").json()
    moment = client.get("/api/v1/clusters/now/moment",
                        params={"at": datetime.now(timezone.utc).isoformat()}).json()["layout"]
    for part in ("cluster", "racks", "servers", "nodes", "deployments"):
        assert moment[part] == layout[part], part
    for column in ("id", "node", "deployment", "dag_node", "service", "shard", "replica", "state"):
        assert moment["instances"][column] == layout["instances"][column], column


def test_a_cluster_with_nothing_placed_has_empty_columns(client):
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "beefy",
                                                 "name": "bare"}).status_code == 201
    served = client.get("/api/v1/clusters/bare/layout").json()
    assert [n["used_cores"] for n in served["nodes"]] == [0, 0]
    assert served["deployments"] == [] and served["instances"]["id"] == [] and served["instances"]["node"] == []
