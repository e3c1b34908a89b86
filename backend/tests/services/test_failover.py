"""Failover of a node that went down, against a real database (the seeding itself runs against real agents in
tests/integration/test_failover_local.py): the backup promoted under the lost primary's id, a new backup
placed in another fault domain with its seed migration, a stateless instance placed again, the routes, and
the down node told to forget its instances; an instance with no backup placed again, its state said lost."""

import time
import uuid
from types import SimpleNamespace

import pytest
from helpers import deploy_on_new_cluster
from sqlalchemy import select, update

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, Instance, Migration, NodeCommand, node_leases
from e3.services import events, leases
from e3.services.agents import set_node_state
from e3.services.commands import record_outcome
from e3.services.migration import failover
from e3.services.migration.failover import fail_over

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "fo"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"}},
                       {"id": "kv", "service": "kvs", "replicas": 1, "constraints": {"platform": "host"}}],
             "edges": [{"from": "gw", "to": "kv"}]},
}


@pytest.fixture
def running(client, worker):
    """gw and the kvs primary on one host, its backup on another; every node agent-run, everything running."""
    deploy_on_new_cluster(client, "f3", APP)
    with session_scope() as session:
        nodes = list(session.scalars(select(ComputeNode).order_by(ComputeNode.name)))
        for k, n in enumerate(nodes):
            n.agent_id, n.address, n.control_address = f"agent-{k}", f"10.0.0.{k + 1}", f"10.0.0.{k + 1}"
        by = {(i.dag_node, i.replica): i for i in session.scalars(select(Instance))}
        primary, backup, gw = by[("kv", 0)], by[("kv", 1)], by[("gw", 0)]
        gw.node_id = primary.node_id
        for port, inst in enumerate((primary, backup, gw), start=21000):
            inst.state, inst.port = "running", port
        lost = session.get(ComputeNode, primary.node_id)
        lost.state = "down"
        return SimpleNamespace(lost=lost.id, lost_server=lost.server_id, primary=primary.id, backup=backup.id,
                               backup_node=backup.node_id, gw=gw.id, cluster=lost.cluster_id)


def test_the_backup_is_promoted_under_the_lost_primarys_id_and_a_new_backup_is_seeded_elsewhere(running):
    with session_scope() as session:
        seeds = fail_over(session, running.lost)
    with session_scope() as session:
        assert session.get(Instance, running.primary) is None  # lost with its node
        promoted = session.get(Instance, running.backup)
        assert (promoted.replica, promoted.role, promoted.node_id, promoted.state) == (0, "primary",
                                                                                       running.backup_node, "running")
        assert promoted.aliases == [str(running.primary)]
        fresh = session.scalars(select(Instance).where(Instance.dag_node == "kv", Instance.role == "backup")).one()
        assert (fresh.replica, fresh.state, fresh.port) == (1, "seeding", None)
        servers = dict(session.execute(select(ComputeNode.id, ComputeNode.server_id)).all())
        assert servers[fresh.node_id] not in (servers[promoted.node_id], running.lost_server)  # fault domains
        (seed,) = [session.get(Migration, s) for s in seeds]
        assert (seed.kind, seed.instance_id, seed.source_instance_id, seed.source_node_id, seed.target_node_id,
                seed.reason, seed.state) == ("seed", fresh.id, promoted.id, promoted.node_id, fresh.node_id,
                                             "failover", "pending")
        gw = session.get(Instance, running.gw)  # no backup: placed again, same id, deployed afresh (empty)
        assert servers[gw.node_id] != running.lost_server  # not even the failed NIC's host: one fault domain
        assert gw.state == "deploying" and gw.port is not None

        def latest(node_id, kind):
            return session.scalars(select(NodeCommand).where(NodeCommand.node_id == node_id, NodeCommand.kind == kind)
                                   .order_by(NodeCommand.version.desc())).first()

        # its agent is told, before the routes lead to it: its epoch, whom it supersedes, its backups (none left)
        promote = latest(promoted.node_id, "promote_instance")
        assert promote.payload == dict(instance_id=str(promoted.id), epoch=promoted.epoch, replaces=[str(running.primary)],
                                       backups="")
        assert promoted.epoch == 2 and promote.version < latest(promoted.node_id, "set_routes").version
        routes = {r["instance_id"]: (r["address"], r["port"])
                  for r in latest(promoted.node_id, "set_routes").payload["routes"]}
        # the old primary's id leads to the promoted backup; the seeding backup is not routed yet
        assert routes[str(running.primary)] == routes[str(promoted.id)]
        assert str(fresh.id) not in routes and str(gw.id) in routes
        forgotten = {c.payload["instance_id"] for c in session.scalars(
            select(NodeCommand).where(NodeCommand.node_id == running.lost, NodeCommand.kind == "remove_instance"))}
        assert forgotten == {str(running.primary), str(running.gw)}
        failover_events = list(session.scalars(select(Event).where(Event.kind.startswith("failover."))
                                               .order_by(Event.id)))
        kinds = [e.kind for e in failover_events]
        # each event about an instance names its application; the node's own ones name the applications it
        # had instances of, which a timeline filtered by application needs once they have moved away
        assert {(e.kind, e.data.get("application")) for e in failover_events} == {
            ("failover.started", None), ("failover.done", None), ("failover.backup_placed", "fo"),
            ("failover.promoted", "fo"), ("failover.replaced", "fo"), ("failover.state_lost", "fo")}
        assert [e.data["applications"] for e in failover_events if e.subject == f"node/{running.lost}"] == [["fo"]] * 2
        assert [e["kind"] for e in events.list_events(session, kind="failover.", application="fo")] == kinds
    assert kinds[0] == "failover.started" and kinds[-1] == "failover.done"
    # api_gateway keeps state (its rate limiter) and had no backup: its state is lost, and said so
    assert sorted(kinds[1:-1]) == ["failover.backup_placed", "failover.promoted", "failover.replaced",
                                   "failover.state_lost"]


def test_a_node_state_change_names_the_applications_on_the_node(running):
    with session_scope() as session:
        assert set_node_state(session, running.lost, "up") == "down"
        up = session.scalars(select(Event).where(Event.kind == "node.up")).one()
        assert up.data["applications"] == ["fo"]
        assert [e["kind"] for e in events.list_events(session, kind="node.", application="fo")] == ["node.up"]
        assert events.list_events(session, kind="node.", application="another") == []


def test_a_refused_promotion_is_an_event_naming_the_agents_reason(running):
    with session_scope() as session:
        fail_over(session, running.lost)
    with session_scope() as session:
        promote = session.scalars(select(NodeCommand).where(NodeCommand.kind == "promote_instance")).one()
        record_outcome(session, running.cluster, promote.node_id, promote.version, False, "not_serving",
                       "instance awaits its state")
    with session_scope() as session:
        (refused,) = session.scalars(select(Event).where(Event.kind == "failover.promote_refused"))
        assert refused.subject == f"instance/{running.backup}"
        assert (refused.data["error_code"], refused.data["epoch"], refused.data["application"]) == (
            "not_serving", 2, "fo")
        assert session.get(Instance, running.backup).state == "running"  # it answers on its port all the same


def test_a_lost_backup_is_replaced_and_nothing_happens_twice(running):
    with session_scope() as session:  # the backup's node goes down instead; the primary's comes back up
        session.execute(update(ComputeNode).where(ComputeNode.id == running.lost).values(state="up"))
        session.execute(update(ComputeNode).where(ComputeNode.id == running.backup_node).values(state="down"))
    with session_scope() as session:
        seeds = fail_over(session, running.backup_node)
    with session_scope() as session:
        assert session.get(Instance, running.backup) is None
        primary = session.get(Instance, running.primary)
        assert (primary.replica, primary.aliases) == (0, None)
        (seed,) = [session.get(Migration, s) for s in seeds]
        assert seed.source_instance_id == primary.id and seed.kind == "seed"
    with session_scope() as session:
        assert fail_over(session, running.backup_node) == []  # nothing is left on it


def test_a_node_that_is_up_is_not_failed_over(running):
    with session_scope() as session:
        session.execute(update(ComputeNode).where(ComputeNode.id == running.lost).values(state="up"))
    with session_scope() as session:
        assert fail_over(session, running.lost) == []
        assert session.get(Instance, running.primary) is not None


def test_a_stale_controller_nack_is_not_the_commands_outcome(running):
    """The agent refused a copy from a controller that lost the node and keeps the version open for the owner:
    the command stays as it was, no event says it was NACKed."""
    with session_scope() as session:
        fail_over(session, running.lost)
    with session_scope() as session:
        promote = session.scalars(select(NodeCommand).where(NodeCommand.kind == "promote_instance")).one()
        state_before = promote.state
        record_outcome(session, running.cluster, promote.node_id, promote.version, False, "stale_controller",
                       "lease epoch 1 is below 2")
    with session_scope() as session:
        promote = session.scalars(select(NodeCommand).where(NodeCommand.kind == "promote_instance")).one()
        assert (promote.state, promote.error, promote.answered_at) == (state_before, None, None)
        nacked = select(Event).where(Event.kind.in_(("command.nack", "failover.promote_refused")))
        assert session.scalars(nacked).all() == []


def _held_by(node_id, lease_s: float = 30.0):
    """A controller holding the node's lease for `lease_s`, as when its agent registered there."""
    with session_scope() as session:
        controller = leases.start_controller(session, f"c-{lease_s}", "127.0.0.1:1", lease_s)
        leases.acquire_node(session, node_id, controller, "agent-0")
    return controller


def test_a_controller_fails_over_only_a_node_it_still_holds(running):
    lapsed = _held_by(running.lost, lease_s=0.05)  # judged the node down, then paused past its lease
    time.sleep(0.2)
    with session_scope() as session:
        assert fail_over(session, running.lost, leases.Acting(lapsed, leading=False)) is None
    with session_scope() as session:
        assert session.get(Instance, running.primary) is not None  # nothing failed over
        assert not list(session.scalars(select(Event).where(Event.kind.startswith("failover."))))
    # nor by another controller that does not hold it, even the leader, while its holder is live
    holder = _held_by(running.lost)
    with session_scope() as session:
        assert fail_over(session, running.lost, leases.Acting(uuid.uuid4(), leading=True)) is None
        assert session.get(Instance, running.primary) is not None
    with session_scope() as session:  # its live holder does
        assert len(fail_over(session, running.lost, leases.Acting(holder, leading=False))) == 1
    with session_scope() as session:
        assert session.get(Instance, running.primary) is None


def test_the_leader_fails_over_a_node_no_live_controller_holds(running):
    _held_by(running.lost, lease_s=0.05)  # its controller died
    time.sleep(0.2)
    with session_scope() as session:
        assert len(fail_over(session, running.lost, leases.Acting(uuid.uuid4(), leading=True))) == 1


def test_a_down_node_with_instances_and_no_live_holder_is_a_failover_left_undone(running):
    with session_scope() as session:
        assert failover.unfinished(session) == [(running.lost, session.get(ComputeNode, running.lost).name)]
    holder = _held_by(running.lost)  # a live holder will do it (or lets it go): not the leader's
    with session_scope() as session:
        assert failover.unfinished(session) == []
        fail_over(session, running.lost, leases.Acting(holder, leading=False))
    with session_scope() as session:
        session.execute(update(node_leases).values(controller_id=None))  # its holder stopped since
    with session_scope() as session:
        assert failover.unfinished(session) == []  # done: nothing left on it
