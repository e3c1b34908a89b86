"""The node table the ingest front mirrors (controller.front_table): a watcher gets every node, `synced`, then each
change in order, every change newer than the last; a change made while the snapshot is read is newer than it."""

import asyncio
import uuid

import pytest

from e3.controller.agent_hub import TrackedNode
from e3.controller.front_table import FrontTable


def tracked(name: str, **fields) -> TrackedNode:
    return TrackedNode(uuid.uuid4(), uuid.uuid4(), name, f"agent-{name}", 0.0, token_id=uuid.uuid4(), **fields)


def test_a_watcher_reads_the_snapshot_then_every_change_each_newer_than_the_last():
    async def run():
        a, b = tracked("a", kind="smartnic", lease_epoch=3), tracked("b")
        table = FrontTable({a.node_id: a, b.node_id: b})
        watch = table.watch()
        first = await anext(watch)  # the snapshot is versioned when the watch starts
        table.removed(b.node_id)  # made while the snapshot is being read
        a.power_override = (12.5, "ipmi-split", 99.0)
        table.changed(a)
        token = uuid.uuid4()
        table.revoked(token, "invalid, revoked or expired token")
        rest = [await anext(watch) for _ in range(5)]
        await watch.aclose()
        return a, b, token, [first, *rest]

    a, b, token, changes = asyncio.run(run())
    assert [c.WhichOneof("change") for c in changes] == ["upsert", "upsert", "synced", "remove_node_id", "upsert",
                                                         "revoke"]
    versions = [c.version for c in changes]
    assert versions == sorted(versions) and len(set(versions)) == 6
    snapshot = {c.upsert.node_id: c.upsert for c in changes[:2]}
    assert snapshot[str(a.node_id)].kind == "smartnic" and snapshot[str(a.node_id)].lease_epoch == 3
    assert snapshot[str(a.node_id)].token_id == str(a.token_id) and snapshot[str(b.node_id)].kind == "host"
    assert changes[3].remove_node_id == str(b.node_id)  # newer than b's snapshot entry: the front drops b
    power = changes[4].upsert
    assert power.has_power_override and (power.override_watts, power.override_source,
                                         power.override_valid_until_s) == (12.5, "ipmi-split", 99.0)
    assert (changes[5].revoke.token_id, changes[5].revoke.message) == (str(token), "invalid, revoked or expired token")


def test_a_registrations_answer_carries_a_change_newer_than_any_sent_before():
    node = tracked("n")
    table = FrontTable({node.node_id: node})
    sent = table.changed(node)
    answer = table.current(node)
    assert answer.version > sent.version and answer.upsert == sent.upsert


def test_the_front_detector_is_told_its_policy_first_in_every_watch_then_what_the_orchestrator_does():
    from e3.controller.front_detector import FrontDetector
    from e3.controller.orchestrator import DataplaneOrchestrator
    from e3.orchestrator.detection import DetectionPolicy

    async def run():
        nic = tracked("nic", kind="smartnic", bandwidth_mbps=25_000.0)
        table = FrontTable({nic.node_id: nic})
        orchestrator = DataplaneOrchestrator("observe", DetectionPolicy(window=5))
        detector = FrontDetector(table, orchestrator.detector.policy, orchestrator.mode)
        orchestrator.detector = detector
        orchestrator.mode_listeners.append(detector.mode_changed)
        watch = table.watch()
        first = [await anext(watch) for _ in range(3)]  # settings, the node, synced
        orchestrator.forget(nic.node_id)
        detector.cool_down(nic.node_id, 12.5)
        detector.reset()
        for listener in orchestrator.mode_listeners:  # as follow_mode does on a change to `off`
            listener("off")
        rest = [await anext(watch) for _ in range(4)]
        await watch.aclose()
        return nic, first, rest

    nic, first, rest = asyncio.run(run())
    settings = first[0].detector.settings
    assert settings.judging and settings.window == 5 and settings.queue_threshold == 32
    assert first[1].upsert.bandwidth_mbps == 25_000.0 and first[2].synced
    assert [c.detector.WhichOneof("change") for c in rest] == ["forget_node_id", "cool_down", "reset", "settings"]
    assert rest[0].detector.forget_node_id == str(nic.node_id)
    assert (rest[1].detector.cool_down.node_id, rest[1].detector.cool_down.t) == (str(nic.node_id), 12.5)
    assert not rest[3].detector.settings.judging and rest[3].detector.settings.window == 5  # mode off: judge nothing
    versions = [c.version for c in first + rest]
    assert versions == sorted(versions)
    with pytest.raises(RuntimeError, match="the front judges"):  # never a heartbeat judged twice
        FrontDetector.observe(None, None)
