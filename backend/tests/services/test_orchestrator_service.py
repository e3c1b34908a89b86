"""The controller's orchestrator acting on detections against a real database: events for the detection and
the decision, the migration it requests (migrate mode) or not (observe mode), and the reasons nothing moves;
each event about an instance names its application.
Also the heartbeat side: which heartbeats reach the detector, one action per node at a time, the cool-down."""

import asyncio
import dataclasses
import time
import uuid
from types import SimpleNamespace

import pytest
from helpers import deploy_on_new_cluster
from sqlalchemy import select, update

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, Instance, Migration
from e3.orchestrator.decision import ClusterView
from e3.orchestrator.detection import HOST_STARVATION, OVERLOAD, Detection, DetectionPolicy, InstanceSample
from e3.rpc.pb import agent_pb2
from e3.services.migration import runner
from e3.controller.cluster_view_cache import ClusterViewCache
from e3.controller.orchestrator import Acted, DataplaneOrchestrator, act_on_detection
from e3.services.cluster_views import cluster_view

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "orch"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0},
                       {"id": "pinned", "service": "count", "replicas": 0, "constraints": {"platform": "smartnic"}}],
             "edges": [{"from": "gw", "to": "pinned"}]},
}


@pytest.fixture
def on_a_nic(client, worker):
    """The gateway (free to move) and a count pinned to SmartNICs, both running on one NIC of a 3-server rack
    whose nodes are all agent-run."""
    deploy_on_new_cluster(client, "o3", APP)
    with session_scope() as session:
        nic = session.scalars(select(ComputeNode).where(ComputeNode.kind == "smartnic")
                              .order_by(ComputeNode.name)).first()
        session.execute(update(ComputeNode).where(ComputeNode.cluster_id == nic.cluster_id)
                        .values(agent_id="a", address="10.0.0.1", control_address="10.0.0.1"))
        session.execute(update(Instance).values(node_id=nic.id, state="running", port=21000))
        ids = {i.dag_node: i.id for i in session.scalars(select(Instance))}
        return SimpleNamespace(nic=nic.id, server=nic.server_id, cluster=nic.cluster_id, gw=ids["gw"],
                               pinned=ids["pinned"])


def _starvation(nic, shares) -> Detection:
    return Detection(HOST_STARVATION, nic, 1000.0, {"queue_lengths": [200] * 3, "cpu_shares": shares})


def _events(prefix="orchestrator."):
    with session_scope() as session:
        return [(e.kind, e.data) for e in session.scalars(select(Event).where(Event.kind.startswith(prefix))
                                                           .order_by(Event.id))]


def test_starvation_moves_the_busiest_movable_instance_to_the_same_servers_host(on_a_nic):
    shares = {str(on_a_nic.gw): 0.3, str(on_a_nic.pinned): 0.6}  # the pinned count is busier but may not move
    with session_scope() as session:
        acted = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, shares), "migrate")
    assert acted.decided and acted.migration_id is not None
    kinds = [k for k, _ in _events()]
    assert kinds == ["orchestrator.detection", "orchestrator.decision"]
    decision = _events()[1][1]
    assert decision["instance_id"] == str(on_a_nic.gw) and decision["level"] == 1  # PCIe: the same server's host
    assert decision["detail"]["refused"] == {str(on_a_nic.pinned): "constrained to smartnic"}
    with session_scope() as session:
        m = session.get(Migration, acted.migration_id)
        target = session.get(ComputeNode, m.target_node_id)
        assert (m.instance_id, m.state, m.reason, m.requested_by) == (on_a_nic.gw, "pending", HOST_STARVATION,
                                                                      "orchestrator")
        assert (target.kind, target.server_id) == ("host", on_a_nic.server)
    assert [k for k, _ in _events("migration.")] == ["migration.requested"]


def test_a_decision_and_a_finding_of_none_say_when_they_were_made(on_a_nic):
    detected_at = time.time()
    with session_scope() as session:
        act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, {str(on_a_nic.gw): 0.3}), "observe",
                         detected_at)
        # the only movable instance is pinned: nothing to decide
        act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, {str(on_a_nic.pinned): 0.6}),
                         "observe", detected_at)
    (_, decision), (_, none) = [e for e in _events() if e[0] != "orchestrator.detection"]
    for timing in (decision["timing"], none["timing"]):
        assert timing["heartbeat_at"] == 1000.0 and timing["detected_at"] == detected_at
        assert detected_at <= timing["decided_at"] <= time.time()
        assert timing["view_read_ms"] > 0 and timing["decide_ms"] > 0
        # the steps fit in the time from the detection to the decision
        assert timing["view_read_ms"] + timing["decide_ms"] <= (timing["decided_at"] - detected_at) * 1000 + 0.01


def test_a_kept_view_holds_the_decisions_acted_on_and_a_refused_one_drops_it(on_a_nic):
    views = ClusterViewCache(cluster_view, fresh_s=60, stale_s=120)
    stale = ClusterViewCache(cluster_view, fresh_s=60, stale_s=120)  # read before the first decision is acted on
    with session_scope() as session:
        stale.get(session, on_a_nic.cluster)
    shares = {str(on_a_nic.gw): 0.3}
    with session_scope() as session:
        first = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, shares), "migrate", None, views)
    with session_scope() as session:  # the same node again, on the view kept: the gateway is already moving
        second = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, shares), "migrate", None, views)
    assert first.migration_id is not None and not second.decided and views.reads == 1
    assert "no instance" in _events()[-1][1]["reason"] and _events()[-1][1]["timing"]["view_read_ms"] < 50

    with session_scope() as session:  # it still shows the gateway free to move: the request says no
        refused = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, shares), "migrate", None,
                                   stale)
    assert refused.decided and refused.migration_id is None
    assert _events()[-1][1]["reason"].startswith("migration refused")
    with session_scope() as session:  # the view that proposed it is dropped: the next decision reads the truth
        stale.get(session, on_a_nic.cluster)
    assert stale.reads == 2


def test_a_suspect_node_is_decided_for_and_a_suspect_host_is_not_a_target(on_a_nic):
    with session_scope() as session:
        own_host = session.scalar(select(ComputeNode.id).where(ComputeNode.server_id == on_a_nic.server,
                                                               ComputeNode.kind == "host"))
        session.execute(update(ComputeNode).where(ComputeNode.id.in_([on_a_nic.nic, own_host]))
                        .values(state="suspect"))
    with session_scope() as session:
        acted = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, {str(on_a_nic.gw): 0.3}),
                                 "observe")
    assert acted.decided
    decision = _events()[-1][1]
    assert decision["instance_id"] == str(on_a_nic.gw) and decision["target_node_id"] != str(own_host)
    assert decision["level"] > 1  # not its own server's host: another server's


def test_the_events_of_a_decision_and_its_migration_name_the_application(on_a_nic):
    shares = {str(on_a_nic.gw): 0.3}
    with session_scope() as session:
        acted = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, shares), "migrate")
    with session_scope() as session:  # the migration's first steps, as the API issues them
        assert runner.begin(session, acted.migration_id)
    (_, detection), (_, decision) = _events()
    assert "application" not in detection  # a starving host concerns the node, not one application
    assert decision["application"] == "orch"
    steps = _events("migration.")
    assert [k for k, _ in steps][:2] == ["migration.requested", "migration.step"]
    assert {d["application"] for _, d in steps} == {"orch"}
    # the UI gathers a migration's events by its id, and the agents' answers by the commands a step issued
    assert {d["migration_id"] for _, d in steps} == {str(acted.migration_id)}
    with session_scope() as session:
        recorded = {s["name"]: s["commands"] for s in session.get(Migration, acted.migration_id).steps}
    assert {d["step"]: d["commands"] for k, d in steps if k == "migration.step"} == recorded
    assert all(recorded.values())


def test_observe_mode_records_the_decision_and_moves_nothing(on_a_nic):
    with session_scope() as session:
        acted = act_on_detection(session, on_a_nic.cluster, _starvation(on_a_nic.nic, {}), "observe")
    assert acted == Acted(True)
    assert [k for k, _ in _events()] == ["orchestrator.detection", "orchestrator.decision"]
    assert _events()[1][1]["mode"] == "observe"
    with session_scope() as session:
        assert session.scalars(select(Migration)).all() == []


def test_nothing_moves_when_no_instance_may_and_the_reason_is_an_event(on_a_nic):
    with session_scope() as session:  # the gateway is migrating already; the count is pinned
        session.add(Migration(id=uuid.uuid4(), instance_id=on_a_nic.gw, cluster_id=on_a_nic.cluster,
                              source_node_id=on_a_nic.nic, target_node_id=on_a_nic.nic, reason="manual",
                              state="running", steps=[], stateful=False))
    overload = Detection(OVERLOAD, on_a_nic.nic, 1000.0, {"cpu_shares": {}}, str(on_a_nic.pinned))
    with session_scope() as session:
        acted = act_on_detection(session, on_a_nic.cluster, overload, "migrate")
    assert acted == Acted(False)
    (_, detection), (kind, why) = _events()
    assert detection["trouble"] == OVERLOAD and detection["instance_id"] == str(on_a_nic.pinned)
    assert kind == "orchestrator.no_decision" and "may move" in why["reason"]
    assert detection["application"] == why["application"] == "orch"  # an overload is one instance's
    assert why["detail"]["refused"] == {str(on_a_nic.gw): "already migrating",
                                        str(on_a_nic.pinned): "constrained to smartnic"}


# --- the heartbeat side, with the action replaced (a unit test of the feed) ---------------------------------


def _beat(t, queue, rx):
    return SimpleNamespace(timestamp_unix_ns=int(t * 1e9), queue_length=queue, rx_bytes=rx, tx_bytes=rx,
                           instances=[SimpleNamespace(instance_id="i", exec_time_us=10.0, exec_time_ema_us=10.0,
                                                      cpu_share=0.5, requests_completed=100)])


def _node(kind="smartnic"):
    return SimpleNamespace(node_id=uuid.uuid4(), cluster_id=uuid.uuid4(), name="n", kind=kind, bandwidth_mbps=10_000)


def test_a_standing_queue_is_acted_on_once_then_the_node_cools_down(monkeypatch):
    monkeypatch.setattr("e3.controller.orchestrator.in_session", lambda fn, *args: fn(None, *args))  # no database
    calls = []

    def act(session, cluster_id, detection, mode, detected_at, decided):
        assert detected_at >= detection.t  # the controller saw the heartbeat after it was stamped
        calls.append((cluster_id, detection.kind, mode))
        return Acted(True)

    async def run():
        orch = DataplaneOrchestrator("migrate", DetectionPolicy(cooldown_s=1.0), act=act)
        nic, host = _node(), _node("host")
        for k in range(40):  # 2 s of a standing queue on an idle link, and the same on a host
            for node in (nic, host):
                orch.observe(node, _beat(1000 + k * 0.05, 200, 10**6 + k * 1000))
            await asyncio.sleep(0.01)
        await orch.stop()
        return orch, nic

    orch, nic = asyncio.run(run())
    # one detection on the NIC (the host is not judged); the decision's cool-down and the latch hold it
    assert calls == [(nic.cluster_id, HOST_STARVATION, "migrate")] and orch.detections == 1


def test_a_detection_is_decided_on_the_loop_when_the_clusters_view_is_kept(monkeypatch):
    monkeypatch.setattr("e3.controller.orchestrator.in_session", lambda fn, *args: fn(None, *args))  # no database
    decided = []

    def act(session, cluster_id, detection, mode, detected_at, early):
        decided.append(early)
        return Acted(False)

    async def run():
        views = ClusterViewCache(lambda session, cluster_id: ClusterView([], []), fresh_s=60, stale_s=120)
        orch = DataplaneOrchestrator("observe", DetectionPolicy(cooldown_s=0.0), act=act, views=views)
        nic = _node()
        for k, queue in enumerate([200] * 4 + [0] * 2 + [200] * 4):  # trouble, cleared, trouble again
            if k == 6:
                views.get(None, nic.cluster_id)  # a worker read the view meanwhile: it is kept
            orch.observe(nic, _beat(1000 + k * 0.05, queue, 10**6 + k * 1000))
            await asyncio.sleep(0.01)
        await orch.stop()

    asyncio.run(run())
    first, second = decided
    assert first is None  # no view kept: the worker reads it and decides
    assert second is not None and second.view_read_s == 0.0
    assert second.outcome.reason.endswith("not in the cluster view")


def test_no_decision_on_a_view_older_than_its_fresh_age_is_looked_for_again_on_a_fresh_read(monkeypatch):
    monkeypatch.setattr("e3.controller.orchestrator.in_session", lambda fn, *args: fn(None, *args))  # no database
    decided, now = [], [100.0]

    def act(session, cluster_id, detection, mode, detected_at, early):
        decided.append(early)
        return Acted(False)

    async def run():
        views = ClusterViewCache(lambda session, cluster_id: ClusterView([], []), fresh_s=1.0, stale_s=120,
                                 clock=lambda: now[0], in_background=lambda work: None)
        orch = DataplaneOrchestrator("observe", DetectionPolicy(cooldown_s=0.0), act=act, views=views)
        nic = _node()
        views.get(None, nic.cluster_id)  # read at 100 s
        for k, queue in enumerate([200] * 4 + [0] * 2 + [200] * 4):  # trouble, cleared, trouble again
            now[0] = 100.5 if k < 6 else 102.0
            orch.observe(nic, _beat(1000 + k * 0.05, queue, 10**6 + k * 1000))
            await asyncio.sleep(0.01)
        await orch.stop()
        return views, nic

    views, nic = asyncio.run(run())
    first, second = decided
    assert first is not None and first.outcome.reason.endswith("not in the cluster view")  # 0.5 s old: final
    assert second is None and views.kept(nic.cluster_id) is None  # 2 s old: the worker reads the view again


def test_the_detector_judges_a_heartbeat_message_as_the_agent_sent_it():
    orch = DataplaneOrchestrator("migrate", act=lambda *a: pytest.fail("acted"))
    samples = []
    orch.detector.observe = samples.append  # detects nothing, keeps the sample
    nic = _node()
    hb = agent_pb2.Heartbeat(node_id=str(nic.node_id), timestamp_unix_ns=1_700_000_000_050_000_000, queue_length=40,
                             rx_bytes=10, tx_bytes=20, rx_packets=1, tx_packets=2)
    hb.instances.add(instance_id="i1", requests_completed=9, exec_time_us=12.5, exec_time_ema_us=10.0, cpu_share=0.25)
    orch.observe(nic, hb)
    (s,) = samples
    assert s.node_id == nic.node_id and s.kind == "smartnic" and s.bandwidth_mbps == nic.bandwidth_mbps
    assert s.t == pytest.approx(1_700_000_000.05) and s.queue_length == 40 and (s.rx_bytes, s.tx_bytes) == (10, 20)
    (inst,) = s.instances  # the agent's InstanceStats, read by the detector as an InstanceSample
    assert [getattr(inst, f.name) for f in dataclasses.fields(InstanceSample)] == ["i1", 12.5, 10.0, 0.25, 9]


def test_off_mode_judges_nothing():
    orch = DataplaneOrchestrator("off", act=lambda *a: pytest.fail("acted"))
    for k in range(10):
        orch.observe(_node(), _beat(1000 + k * 0.05, 500, k))
    assert len(orch.detector) == 0
    with pytest.raises(ValueError, match="migrate, observe, off"):
        DataplaneOrchestrator("sometimes")

