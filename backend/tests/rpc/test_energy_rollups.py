"""The energy history written by a real controller from the heartbeats agents stream: the stored rows hold
exactly the energy and requests of the heartbeats they cover, attributed to labelled instances; a late
heartbeat's energy is added to its step's stored row."""

import math
import time
import uuid

import pytest
from helpers import agent_auth as auth
from helpers import deploy_on_new_cluster
from sqlalchemy import select

from e3 import catalog
from e3.core.db import session_scope
from e3.energy.ledger import MAX_INTERVAL_S, STEP_S
from e3.energy.server_split import smartnic_idle_watts
from e3.models import ComputeNode, Instance, energy_rollups
from e3.rpc.pb import agent_pb2

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "metered"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0},
                       {"id": "store", "service": "kvs", "replicas": 0}],
             "edges": [{"from": "gw", "to": "store"}]},
}


def register(stub, token, node_name, agent_id, cluster):
    request = agent_pb2.RegisterRequest(agent_id=agent_id, node=agent_pb2.NodeIdentity(
        name=node_name, cluster_name=cluster, software_version="test-agent 0"))
    return stub.Register(request, metadata=auth(token), timeout=10).node_id


def beat(node_id, t, watts, instances, source=agent_pb2.POWER_SOURCE_MODEL, cpu=0.5):
    return agent_pb2.Heartbeat(
        node_id=node_id, timestamp_unix_ns=round(t * 1e9), cpu_utilization=cpu, power_watts=watts, power_source=source,
        instances=[agent_pb2.InstanceStats(instance_id=iid, requests_completed=n, exec_time_us=10.0,
                                           exec_time_ema_us=10.0, cpu_share=share) for iid, n, share in instances])


def stream(stub, token, agent, beats):
    summary = stub.StreamHeartbeats(iter([agent_pb2.HeartbeatBatch(agent_id=agent, sequence=1, heartbeats=beats)]),
                                    metadata=auth(token), timeout=10)
    assert (summary.accepted, summary.rejected) == (len(beats), 0)


def close_steps(controller):
    return controller.call(controller.controller.hub.energy_rollups.tick(math.inf))


def rows():
    with session_scope() as session:
        return [r._asdict() for r in session.execute(select(energy_rollups).order_by(
            energy_rollups.c.ts, energy_rollups.c.node_id, energy_rollups.c.instance_id.nulls_first()))]


@pytest.fixture
def placed(client, worker):
    """The application placed on a 3-server type1-smartnic cluster: its instances by DAG node, with their nodes."""
    deploy_on_new_cluster(client, "meter", APP)
    with session_scope() as session:
        found = session.execute(select(Instance.dag_node, Instance.id, ComputeNode.name, ComputeNode.kind)
                                .join(ComputeNode, ComputeNode.id == Instance.node_id)).all()
    return {dag_node: (str(iid), node, kind) for dag_node, iid, node, kind in found}


def test_stored_rows_hold_the_heartbeats_energy_attributed_to_labelled_instances(controller, stub, agent_token,
                                                                                placed):
    (gw, gw_node, gw_kind), (store, store_node, _) = placed["gw"], placed["store"]
    agent = "meter-agent"
    node_ids = {name: register(stub, agent_token, name, agent, "meter") for name in {gw_node, store_node}}
    start = (time.time() // STEP_S - 3) * STEP_S  # a whole step, 30 s ago
    gw_id = node_ids[gw_node]
    beats, expected = [], 0.0
    for k in range(21):  # 20 intervals of 50 ms, the first heartbeat has none
        watts = 40.0 + k
        beats.append(beat(gw_id, start + 1 + k * 0.05, watts, [(gw, 7, 0.25)]))
        expected += 0.0 if k == 0 else watts * 0.05
    if store_node != gw_node:
        beats.append(beat(node_ids[store_node], start + 1, 30.0, [(store, 5, 0.1)]))
    else:
        beats[-1].instances.append(agent_pb2.InstanceStats(instance_id=store, requests_completed=5, cpu_share=0.1))
    stream(stub, agent_token, agent, beats)
    assert close_steps(controller) > 0

    stored = rows()
    node_row = next(r for r in stored if r["node_id"] == uuid.UUID(gw_id) and r["instance_id"] is None)
    assert math.isclose(node_row["joules"], expected, rel_tol=1e-9)
    assert node_row["heartbeats"] == 21 and node_row["source"] == "model" and node_row["watts_max"] == 60.0
    assert node_row["seconds"] == pytest.approx(1.0)
    gw_row = next(r for r in stored if r["instance_id"] == uuid.UUID(gw))
    assert (gw_row["application"], gw_row["dag_node"], gw_row["counts_requests"]) == ("metered", "gw", True)
    assert gw_row["requests"] == 7 * 21
    store_row = next(r for r in stored if r["instance_id"] == uuid.UUID(store))
    assert (store_row["dag_node"], store_row["counts_requests"]) == ("store", False)  # not an entry: 1 request, once
    # the node's parts add up to it, and idle is the node's modelled idle over the time covered
    on_gw_node = [r for r in stored if r["node_id"] == uuid.UUID(gw_id) and r["instance_id"] is not None]
    assert math.isclose(sum(r["joules"] for r in on_gw_node) + node_row["unattributed_joules"], node_row["joules"],
                        rel_tol=1e-9)
    idle = smartnic_idle_watts() if gw_kind == "smartnic" else (
        catalog.server_types()["type1-smartnic"].idle_watts - smartnic_idle_watts())
    assert node_row["idle_joules"] == pytest.approx(min(idle * 1.0, expected))
    # the counters /metrics reads agree with the rows
    ledger = controller.controller.hub.energy
    assert math.isclose(ledger.nodes[gw_id].joules_by_source["model"], expected, rel_tol=1e-9)
    assert ledger.instances[gw].labels[1:] == ("metered", "gw")


def one_node(stub, token, lab, agent):
    """A registered node of `lab`, its agent, and a step start 30 s ago."""
    return register(stub, token, lab[0]["name"], agent, "lab"), (time.time() // STEP_S - 3) * STEP_S


def node_row_after(controller, stub, token, agent, beats):
    """Stream `beats`, close every step, and return the one node row stored."""
    stream(stub, token, agent, beats)
    close_steps(controller)
    (row,) = [r for r in rows() if r["instance_id"] is None]
    return row


def test_a_late_heartbeat_is_added_to_its_steps_stored_row(controller, stub, agent_token, lab):
    node_id, start = one_node(stub, agent_token, lab, "late-agent")
    first = node_row_after(controller, stub, agent_token, "late-agent",
                           [beat(node_id, start + 1, 10.0, []), beat(node_id, start + 1.5, 10.0, [])])
    assert first["joules"] == pytest.approx(5.0) and first["heartbeats"] == 2
    # a heartbeat of the same step, arriving after it was stored, with another source
    row = node_row_after(controller, stub, agent_token, "late-agent",
                         [beat(node_id, start + 1.6, 20.0, [], source=agent_pb2.POWER_SOURCE_RAPL)])
    assert row["joules"] == pytest.approx(5.0 + 20.0 * 0.1)
    assert (row["heartbeats"], row["watts_max"], row["source"]) == (3, 20.0, "mixed")


def test_a_long_silence_is_charged_at_most_the_interval_cap(controller, stub, agent_token, lab):
    node_id, start = one_node(stub, agent_token, lab, "gap-agent")
    row = node_row_after(controller, stub, agent_token, "gap-agent",
                         [beat(node_id, start + 1, 10.0, []), beat(node_id, start + 8, 50.0, [])])
    assert row["joules"] == pytest.approx(50.0 * MAX_INTERVAL_S)
