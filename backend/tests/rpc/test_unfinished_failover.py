"""A failover nobody finished is the leader's: a node that is down with instances still on it and that no live
controller holds (the controller that took it down died, or lost its lease, before failing it over) is failed over
by the leading controller, once."""

from helpers import deploy_on_new_cluster, wait_until
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, Instance

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "undone"},
    "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 1, "constraints": {"platform": "host"}}],
             "edges": []},
}


def test_the_leader_fails_over_a_down_node_its_controller_left(client, worker, controller):
    # two servers: the lost primary's backup is promoted and no new backup finds room, so no seed migration is left
    # running in the worker when the test ends
    deploy_on_new_cluster(client, "undone", APP, servers=2)
    with session_scope() as session:
        by = {i.replica: i for i in session.scalars(select(Instance))}
        primary, backup = by[0], by[1]
        for port, inst in enumerate((primary, backup), start=21000):
            inst.state, inst.port = "running", port
        lost = session.get(ComputeNode, primary.node_id)
        # its agent's node, taken down by a controller that died before failing it over: no lease left
        lost.agent_id, lost.address, lost.state = "agent-gone", "10.0.0.1", "down"
        lost_id, primary_id, backup_id = lost.id, primary.id, backup.id

    def promoted():
        with session_scope() as session:
            inst = session.get(Instance, backup_id)
            return session.get(Instance, primary_id) is None and inst.role == "primary"

    wait_until(promoted, timeout=20, what="the backup promoted by the leader")
    with session_scope() as session:
        started = session.scalars(select(Event).where(Event.kind == "failover.started",
                                                      Event.subject == f"node/{lost_id}")).all()
        assert len(started) == 1
        assert session.scalars(select(Event.kind).where(Event.kind == "failover.unprotected")).all()
