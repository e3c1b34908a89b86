"""A delivery the ingest front sends again (its call failed after the controller had applied it) is answered without
being applied twice; its flush is still honoured, since a stream's summary waits for it. Its detection reports, numbered
apart, are not acted on twice either."""

import asyncio
import uuid
from collections import Counter
from types import SimpleNamespace

from e3.controller.front_delivery import FrontDeliveries
from e3.rpc.pb import front_pb2


def test_a_repeated_delivery_is_not_counted_twice_and_a_new_front_starts_afresh():
    flushes = []

    async def flush():
        flushes.append(1)

    hub = SimpleNamespace(rejected=Counter(), clock=lambda: 0.0, nodes={}, flush=flush)
    deliveries = FrontDeliveries(hub)
    first = front_pb2.Delivery(front_id="a", sequence=1, rejected={"invalid": 2}, flush=True)

    async def run():
        await deliveries.apply(first)
        await deliveries.apply(first)  # sent again: answered, flushed, not counted
        await deliveries.apply(front_pb2.Delivery(front_id="a", sequence=2, rejected={"invalid": 1}))
        await deliveries.apply(front_pb2.Delivery(front_id="b", sequence=1, rejected={"invalid": 4}))  # a new front

    asyncio.run(run())
    assert hub.rejected["invalid"] == 2 + 1 + 4
    assert len(flushes) == 2


def test_a_repeated_detection_report_is_not_acted_on_twice_and_mode_off_acts_on_none():
    node = SimpleNamespace(node_id=uuid.uuid4(), name="nic-1")
    acted = []
    orchestrator = SimpleNamespace(mode="migrate", detected=lambda n, d, at: acted.append((n.name, d.kind, d.t, at)))
    deliveries = FrontDeliveries(SimpleNamespace(nodes={node.node_id: node}, orchestrator=orchestrator))

    def report(front_id, sequence, t, node_id=str(node.node_id)):
        found = front_pb2.FrontDetection(node_id=node_id, kind="overload", t=t, instance_id="i", detail_json="{}",
                                         detected_unix_ns=2_000_000_000)
        return front_pb2.DetectionReport(front_id=front_id, sequence=sequence, detections=[found])

    deliveries.detected(report("a", 1, 1.0))
    deliveries.detected(report("a", 1, 1.0))  # sent again after a failed call: not acted on
    deliveries.detected(report("a", 2, 2.0, node_id=str(uuid.uuid4())))  # a node this controller does not run
    deliveries.detected(report("b", 1, 3.0))  # a new front process numbers from 1
    orchestrator.mode = "off"
    deliveries.detected(report("b", 2, 4.0))
    assert acted == [("nic-1", "overload", 1.0, 2.0), ("nic-1", "overload", 3.0, 2.0)]
