"""The controller's IPMI side: a server's BMC reading split into its nodes and carried by their heartbeats
while fresh; a failing BMC clears the nodes' figures at once (the agent's stand again) with an event saying
why; an override past its validity is never used."""

import asyncio
import json
import time
import uuid

import pytest

from e3.controller.agent_hub import TrackedNode
from e3.controller.heartbeat_intake import HeartbeatIntake
from e3.controller.power_readings import PowerReadings
from e3.energy import ipmi
from e3.energy.ledger import EnergyLedger
from e3.energy.server_split import SmartNicLoad, smartnic_model_watts
from e3.rollup.steps import RollupSteps
from e3.rpc.pb import agent_pb2
from e3.services.power_config import BmcTarget


def _beat(node_id, watts=17.5, source=agent_pb2.POWER_SOURCE_MODEL):
    hb = agent_pb2.Heartbeat(node_id=str(node_id), timestamp_unix_ns=time.time_ns(), power_watts=watts,
                             power_source=source)
    hb.instances.add(instance_id="i-0", requests_completed=1)
    return hb


def _encoded_power(intake, accepted):
    """(watts, source) as the live item (also the node's latest state in Redis) and the stored rollup say them."""
    live = json.loads(accepted[0].live_items[0])
    [step], _ = intake.rollups.take()
    return {(step.power_watts_sum / step.heartbeats, step.power_source), (live["power_watts"], live["power_source"])}


def test_a_fresh_override_replaces_the_agents_figure_in_all_its_encodings_and_an_expired_one_does_not():
    node_id = uuid.uuid4()
    now = [100.0]
    nodes = {node_id: TrackedNode(node_id, uuid.uuid4(), "s/host", "agent-a", 0.0)}
    intake = HeartbeatIntake(nodes, lambda: now[0], time.time_ns, energy=EnergyLedger(), rollups=RollupSteps())
    assert _encoded_power(intake, intake.accept("agent-a", [_beat(node_id)])) == {(17.5, "model")}
    nodes[node_id].power_override = (231.25, "ipmi-split", 102.5)
    assert _encoded_power(intake, intake.accept("agent-a", [_beat(node_id)])) == {(231.25, "ipmi-split")}
    now[0] = 102.5  # valid_until is not "now or later": at it, the reading is too old
    assert _encoded_power(intake, intake.accept("agent-a", [_beat(node_id)])) == {(17.5, "model")}


class ScriptedReader:
    """A BMC's answers in order: a number of watts, or an IpmiError's reason."""

    def __init__(self, answers):
        self.answers = list(answers)

    def read(self):
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, str):
            raise ipmi.IpmiError(answer)
        return ipmi.PowerReading(answer, answer, answer, answer, 0, 1000)


def _server():
    cluster_id, host, nic = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    nodes = {n: TrackedNode(n, cluster_id, name, "agent", 0.0) for n, name in ((host, "s/host"), (nic, "s/nic0"))}
    target = BmcTarget(cluster_id, "s", {"interface": "lanplus"}, host, (SmartNicLoad(str(nic), frozenset({"kvs"})),))
    return nodes, target, host, nic


async def _run(readings: PowerReadings, target, until, timeout=5.0):
    await readings.apply([target])
    deadline = time.monotonic() + timeout
    reached = until()
    while not reached and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
        reached = until()
    await readings.stop()
    assert reached, "the condition was not reached"


def test_a_reading_is_split_into_the_servers_nodes_with_its_validity_on_the_hubs_clock():
    nodes, target, host, nic = _server()
    clock = [50.0]
    recorded = []
    readings = PowerReadings(nodes, lambda: clock[0], period_s=0.01, valid_s=2.5,
                             make_reader=lambda bmc: ScriptedReader([300]), record_event=lambda *a, **k: recorded.append((a, k)))
    asyncio.run(_run(readings, target, lambda: nodes[host].power_override is not None and recorded))
    nic_watts = smartnic_model_watts(SmartNicLoad(str(nic), frozenset({"kvs"})))
    # stop() clears the figures: read them from the event and a fresh run instead
    assert recorded[0][0][:3] == ("power.source_changed", "server/s", target.cluster_id)
    assert recorded[0][1]["from"] == "agent" and recorded[0][1]["to"] == "ipmi-split" and recorded[0][1]["watts"] == 300

    seen = {}
    readings = PowerReadings(nodes, lambda: clock[0], period_s=0.01, valid_s=2.5,
                             make_reader=lambda bmc: ScriptedReader([300]), record_event=lambda *a, **k: None)

    def captured():
        if nodes[host].power_override and nodes[nic].power_override:
            seen.update({host: nodes[host].power_override, nic: nodes[nic].power_override})
        return bool(seen)

    asyncio.run(_run(readings, target, captured))
    assert seen[host] == pytest.approx((300 - nic_watts, "ipmi-split", 52.5))
    assert seen[nic] == pytest.approx((nic_watts, "ipmi-split", 52.5))
    assert nodes[host].power_override is None  # no longer polled: nothing left behind


@pytest.mark.parametrize("reason", ["BMC 10.0.0.1:623: no answer within 2 s",
                                    "the power reading is 3 bytes long, 18 expected",
                                    "BMC 10.0.0.1:623: the BMC refused the credentials (Unauthorized name in RAKP2)"])
def test_a_failing_bmc_clears_the_figures_at_once_and_says_why_then_says_when_it_is_back(reason):
    nodes, target, host, nic = _server()
    recorded = []
    # good, then failing (twice: one event), then good again
    reader = ScriptedReader([300, reason, reason, 310])
    states = []

    def record(*args, **data):
        recorded.append((args[0], data))

    readings = PowerReadings(nodes, time.monotonic, period_s=0.01, make_reader=lambda bmc: reader, record_event=record)

    def watch():
        states.append(nodes[host].power_override is not None)
        return len(recorded) >= 3

    asyncio.run(_run(readings, target, watch))
    kinds = [(kind, d["from"], d["to"]) for kind, d in recorded]
    assert kinds == [("power.source_changed", "agent", "ipmi-split"), ("power.source_changed", "ipmi-split", "agent"),
                     ("power.source_changed", "agent", "ipmi-split")]
    assert recorded[1][1]["reason"] == reason and recorded[1][1]["nodes"] == [str(host), str(nic)]
    assert "again" in recorded[2][1]["reason"]
    assert True in states and False in states[states.index(True):]  # cleared in between


def test_a_bmc_that_never_answers_is_reported_once_and_no_figure_is_set():
    nodes, target, host, _ = _server()
    recorded = []
    readings = PowerReadings(nodes, time.monotonic, period_s=0.01, make_reader=lambda bmc: ScriptedReader(["no answer"]),
                             record_event=lambda *a, **k: recorded.append((a[0], k)))
    calls = [0]

    def polled_a_while():
        calls[0] += 1
        return calls[0] > 200

    asyncio.run(_run(readings, target, polled_a_while))
    assert [(k, d["reason"]) for k, d in recorded] == [("power.source_unavailable", "no answer")]
    assert nodes[host].power_override is None


def test_a_node_registered_again_gets_the_next_reading():
    nodes, target, host, _ = _server()
    readings = PowerReadings(nodes, time.monotonic, period_s=0.01, make_reader=lambda bmc: ScriptedReader([300]),
                             record_event=lambda *a, **k: None)
    replaced = []

    def reregistered_and_covered():
        if not replaced and nodes[host].power_override:
            replaced.append(nodes[host])
            nodes[host] = TrackedNode(host, target.cluster_id, "s/host", "agent-2", 0.0)  # a new registration
        return replaced and nodes[host].power_override is not None

    asyncio.run(_run(readings, target, reregistered_and_covered))
