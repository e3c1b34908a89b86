"""A delivery the ingest front sends again (its call failed after the controller had applied it) is answered without
being applied twice; its flush is still honoured, since a stream's summary waits for it. Its detection reports, numbered
apart, are not acted on twice either."""

import asyncio
import uuid
from collections import Counter
from types import SimpleNamespace

from e3.controller.front_delivery import FrontDeliveries
from e3.rpc.pb import front_pb2


def _counting_deliveries(hand, add_rollup=lambda row, instances: None) -> FrontDeliveries:
    """Deliveries applied to a hub that hands their rollup rows to `hand(nodes, instances)` and accounts each node
    row's energy through `add_rollup(row, instances)`."""
    account = SimpleNamespace(add_rollup=add_rollup)
    hub = SimpleNamespace(rejected=Counter(), clock=lambda: 0.0, nodes={}, rollups=SimpleNamespace(hand=hand),
                          energy=SimpleNamespace(nodes={}, account=lambda *args: account))
    return FrontDeliveries(hub)


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


def test_a_delivery_whose_call_is_cancelled_while_its_rows_are_counted_is_counted_once_in_full(monkeypatch):
    monkeypatch.setattr("e3.controller.front_delivery.CHUNK_ROWS", 1)  # a turn of the loop after each row
    handed, added = [], []
    deliveries = _counting_deliveries(
        lambda nodes, instances: handed.append(([n.node_id for n in nodes], [i.instance_id for i in instances])),
        lambda row, instances: added.append((row.node_id, len(instances))))
    ids = [str(uuid.uuid4()) for _ in range(3)]
    delivery = front_pb2.Delivery(
        front_id="a", sequence=1,
        node_rollups=[front_pb2.NodeRollupRow(node_id=n, cluster_id="c", start=10, step_s=1) for n in ids],
        instance_rollups=[front_pb2.InstanceRollupRow(instance_id=f"i{k}", node_id=n, cluster_id="c", start=10,
                                                      step_s=1) for k, n in enumerate(ids)]
        + [front_pb2.InstanceRollupRow(instance_id="alone", node_id=ids[0], cluster_id="c", start=9, step_s=1)])

    async def run():
        call = asyncio.ensure_future(deliveries.apply(delivery))
        while not added:
            await asyncio.sleep(0)
        assert len(added) < 3  # under way
        call.cancel()  # the front's call fails: it sends the delivery again
        await deliveries.apply(delivery)

    asyncio.run(run())
    assert [n for nodes, _ in handed for n in nodes] == ids and len(added) == 3  # all of it, once
    assert sorted(i for _, instances in handed for i in instances) == ["alone", "i0", "i1", "i2"]


def test_a_delivery_whose_applying_fails_part_way_is_applied_when_sent_again():
    handed, failures = [], [1]

    def hand(nodes, instances):
        if failures:
            failures.pop()
            raise RuntimeError("a fault while counting")
        handed.extend(n.node_id for n in nodes)

    deliveries = _counting_deliveries(hand)
    node = str(uuid.uuid4())
    delivery = front_pb2.Delivery(front_id="a", sequence=1, node_rollups=[
        front_pb2.NodeRollupRow(node_id=node, cluster_id="c", start=10, step_s=1)])

    async def run():
        try:
            await deliveries.apply(delivery)
        except RuntimeError:
            pass  # the call fails: the front sends the delivery again
        await deliveries.apply(delivery)

    asyncio.run(run())
    assert handed == [node]  # applied by the second call, not answered as a repeat


def test_a_delivery_that_fails_after_its_call_was_cancelled_is_applied_when_sent_again(monkeypatch):
    monkeypatch.setattr("e3.controller.front_delivery.CHUNK_ROWS", 1)  # a turn of the loop after each row
    handed = []

    def hand(nodes, instances):
        if len(handed) == 1:
            handed.append("fault")
            raise RuntimeError("a fault while counting the second row")
        handed.extend(n.node_id for n in nodes)

    deliveries = _counting_deliveries(hand)
    ids = [str(uuid.uuid4()) for _ in range(2)]
    delivery = front_pb2.Delivery(front_id="a", sequence=1, node_rollups=[
        front_pb2.NodeRollupRow(node_id=n, cluster_id="c", start=10, step_s=1) for n in ids])

    async def run():
        call = asyncio.ensure_future(deliveries.apply(delivery))
        while not handed:
            await asyncio.sleep(0)
        call.cancel()  # the front's call fails first; the applying goes on, and then fails
        await deliveries.apply(delivery)  # sent again: applied again, not answered as a repeat

    asyncio.run(run())
    assert handed == [ids[0], "fault", ids[0], ids[1]]
