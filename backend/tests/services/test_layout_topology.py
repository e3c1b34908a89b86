"""The layout's racks, servers and nodes as PostgreSQL writes them (services/layout_topology.py) are the ones the
layout's Python builder writes from the cluster's rows (services/cluster_layout.py `layout_columns`, which replay
uses): the same order, server and rack indexes, reservations (a migration's on its target too) and recorded
states."""

import json

from helpers import deploy_on_new_cluster
from pydantic_core import to_json
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import ComputeNode, Instance, Migration
from e3.services.cluster_layout import layout_columns
from e3.services.cluster_read import read_cluster
from e3.services.clusters import get_cluster

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "wide"},
       "spec": {"nodes": [{"id": "flows", "service": "flow_monitor", "shards": 3, "replicas": 1},
                          {"id": "kv", "service": "kvs", "shards": 2, "replicas": 1}],
                "edges": [{"from": "flows", "to": "kv"}]}}


def test_the_layout_postgres_writes_is_the_one_built_from_rows(client, worker):
    deploy_on_new_cluster(client, "two-racks", APP, servers=41)
    with session_scope() as session:
        moving = session.scalars(select(Instance).order_by(Instance.ordinal)).first()
        target = session.scalars(select(ComputeNode).where(ComputeNode.id != moving.node_id)
                                 .order_by(ComputeNode.name.desc())).first()
        session.add(Migration(instance_id=moving.id, cluster_id=target.cluster_id, source_node_id=moving.node_id,
                              target_node_id=target.id, reason="manual", state="running"))
        target.state = "suspect"
        target_id = str(target.id)
        expected_cores = moving.cpu_cores + sum(session.scalars(select(Instance.cpu_cores)
                                                                .where(Instance.node_id == target.id)))
    with session_scope() as session:
        cluster = get_cluster(session, "two-racks")
        read = read_cluster(session, cluster.id, usage=True, placed=True, columns=True)
        from_rows = json.loads(to_json(layout_columns(cluster.name, read.nodes, read.usage_of, read.deployments,
                                                      read.instances, node_state=lambda node: node.state)))

    served = client.get("/api/v1/clusters/two-racks/layout").json()

    assert len(served["racks"]) == 2 and len(served["servers"]) == 41 and len(served["nodes"]) == 82
    for part in ("racks", "servers", "nodes", "deployments"):
        assert served[part] == from_rows[part], part
    assert served["instances"]["node"] == from_rows["instances"]["node"]
    shown = next(n for n in served["nodes"] if n["id"] == target_id)
    assert shown["state"] == "suspect" and shown["used_cores"] == expected_cores  # the move's reservation too


def test_a_cluster_with_nothing_placed_has_empty_columns(client):
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "beefy",
                                                 "name": "bare"}).status_code == 201
    served = client.get("/api/v1/clusters/bare/layout").json()
    assert [n["used_cores"] for n in served["nodes"]] == [0, 0]
    assert served["deployments"] == [] and served["instances"]["id"] == [] and served["instances"]["node"] == []
