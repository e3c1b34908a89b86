"""A delivery the ingest front sends again (its call failed after the controller had applied it) is answered without
being applied twice; its flush is still honoured, since a stream's summary waits for it."""

import asyncio
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
