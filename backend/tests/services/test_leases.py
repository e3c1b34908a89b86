"""Controllers' leases and node leases (services.leases): a node's epoch grows only when it changes controller; a
lease is renewed only while it has not expired; an orderly stop frees the controller's nodes."""

import time
import uuid

from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import ComputeNode, controllers, node_leases
from e3.services import leases


def _node_id(client) -> uuid.UUID:
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1, "server_type": "beefy",
                                              "name": "leased"})
    assert r.status_code == 201
    with session_scope() as session:
        return session.scalars(select(ComputeNode.id)).first()


def test_a_nodes_epoch_grows_only_when_it_changes_controller(client):
    node = _node_id(client)
    with session_scope() as session:
        a = leases.start_controller(session, "a", "127.0.0.1:1", 2.0)
        b = leases.start_controller(session, "b", "127.0.0.1:2", 2.0)
    epochs = []
    for controller, agent in ((a, "x"), (a, "x"), (a, "y"), (b, "y"), (b, "y"), (a, "y")):
        with session_scope() as session:
            epochs.append(leases.acquire_node(session, node, controller, agent))
    assert epochs == [1, 1, 1, 2, 2, 3]  # a reconnect, even by another agent, keeps it; a move adds one
    with session_scope() as session:
        leases.end_controller(session, a)
        held = session.execute(select(node_leases)).one()
    assert (held.controller_id, held.epoch, held.agent_id) == (None, 3, "y")  # free, its epoch kept


def test_a_lease_is_renewed_only_before_it_expires(backing_services):
    with session_scope() as session:
        me = leases.start_controller(session, "me", "127.0.0.1:1", 0.2)
    with session_scope() as session:
        assert leases.renew_controller(session, me, 0.2)
    time.sleep(0.4)
    with session_scope() as session:
        assert not leases.renew_controller(session, me, 0.2)  # lapsed: it stays lapsed
    with session_scope() as session:
        assert not leases.renew_controller(session, me, 60.0)
        leases.end_controller(session, me)
        assert session.execute(select(controllers)).all() == []


def test_after_a_lapse_only_the_nodes_nobody_took_and_not_down_are_taken_over(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 3, "server_type": "beefy",
                                              "name": "lapsed"})
    assert r.status_code == 201
    with session_scope() as session:
        kept, moved, down = session.scalars(select(ComputeNode.id).order_by(ComputeNode.name)).all()[:3]
        old = leases.start_controller(session, "old", "127.0.0.1:1", 2.0)
        other = leases.start_controller(session, "other", "127.0.0.1:2", 2.0)
        new = leases.start_controller(session, "new", "127.0.0.1:3", 2.0)
        for node in (kept, moved, down):
            leases.acquire_node(session, node, old, "a")
        leases.acquire_node(session, moved, other, "a")  # its agent went to another controller meanwhile
        session.get(ComputeNode, down).state = "down"  # the leader took it down meanwhile
    with session_scope() as session:
        taken = leases.take_over(session, old, new)
    assert taken == {kept: 2}  # a new controller: a new epoch
    with session_scope() as session:
        held = {row.node_id: (row.controller_id, row.epoch) for row in session.execute(select(node_leases))}
    assert held == {kept: (new, 2), moved: (other, 2), down: (old, 1)}


def test_who_may_change_a_nodes_state():
    me, other = uuid.uuid4(), uuid.uuid4()
    may = leases.may_change_state
    assert may(leases.LeaseHolder(me, True), me, leading=False)  # its live holder
    assert not may(leases.LeaseHolder(me, False), me, leading=False)  # its holder, whose lease expired unnoticed
    assert not may(leases.LeaseHolder(other, True), me, leading=True)  # held live elsewhere: not even the leader
    assert may(leases.LeaseHolder(other, False), me, leading=True)  # an orphan: the leader's
    assert may(leases.LeaseHolder(None, False), me, leading=True) and not may(leases.LeaseHolder(None, False), me,
                                                                            leading=False)
