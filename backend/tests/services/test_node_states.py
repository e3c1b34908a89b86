"""Membership transitions of many nodes at once (services.agents.set_node_states): one event per node that
changes, naming the applications with instances on it, none for a node already in that state."""

from helpers import deploy_on_new_cluster
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, Instance
from e3.services import agents

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "states"},
       "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0}], "edges": []}}


def test_many_nodes_change_state_each_with_its_event_and_applications(client, worker):
    deploy_on_new_cluster(client, "states", APP)
    with session_scope() as session:
        busy = session.scalar(select(Instance.node_id))
        idle, already = session.scalars(select(ComputeNode.id).where(ComputeNode.id != busy)
                                        .order_by(ComputeNode.name).limit(2)).all()
        session.get(ComputeNode, already).state = "suspect"
    with session_scope() as session:
        previous = agents.set_node_states(session, {busy: "suspect", idle: "suspect", already: "suspect"})
    assert previous == {busy: "up", idle: "up", already: "suspect"}
    with session_scope() as session:
        assert {n.id: n.state for n in session.scalars(select(ComputeNode).where(
            ComputeNode.id.in_([busy, idle, already])))} == dict.fromkeys([busy, idle, already], "suspect")
        changed = {e.subject: e.data for e in session.scalars(select(Event).where(Event.kind == "node.suspect"))}
    assert set(changed) == {f"node/{busy}", f"node/{idle}"}  # none for the node already suspect
    assert changed[f"node/{busy}"]["applications"] == ["states"] and changed[f"node/{busy}"]["previous"] == "up"
    assert "applications" not in changed[f"node/{idle}"]
