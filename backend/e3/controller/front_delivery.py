"""What the ingest front took, applied to the controller (docs/controller-scale-out.md §2).

With E3_INGEST_FRONT the agents' heartbeat streams end at the front (agents/e3-ingest): it checks each heartbeat,
counts it in its node's energy and 1 s rollup steps, and encodes its live item, as the Python intake would
(controller.heartbeat_intake, whose tested rules it ports). What is left to the controller arrives here, one
e3.internal.v1.Delivery at a time (rpc.front_servicer): the counts refused (for /metrics), the nodes heard (for
membership), how far behind the front runs (the youngest live item's timestamp), the Redis commands it made of
the live items (written as they are; the items themselves stay in the front, its raw tail, which it serves as
e3.internal.v1.TelemetryTail: the controller's own RawTail stays empty), the rollup rows (Postgres, and the energy
ledger), the streams that ended, and whether to answer only once the rollups are written (a stream's summary
promises `accepted` heartbeats are). What the front's detector found in the SmartNIC heartbeats comes apart, as soon
as it is found (`detected`, IngestBackend.Detected), for the orchestrator to decide on (controller.front_detector):
in a delivery it waited behind the one in flight, which waits for the database and Redis.
"""

import asyncio
import json
import logging
import time
import uuid
from operator import attrgetter

from e3.orchestrator.detection import Detection
from e3.rollup.steps import InstanceRollup, NodeRollup

# a row message's fields in the dataclass's order, read at once (a generator of getattr calls per row cost a tenth of
# the controller's time at 86,000 heartbeats/s)
_NODE_FIELDS = attrgetter(*NodeRollup.__dataclass_fields__)
_INSTANCE_FIELDS = attrgetter(*InstanceRollup.__dataclass_fields__)
_MAX_IDS = 200_000  # node id texts kept parsed
# Rows converted or counted between two turns of the event loop: at 1,000 servers a second's rows (5,000 nodes',
# 10,000 instances') counted at once held the loop 80-1,000 ms (p50 ~170 ms), and every detection, registration and
# delivery waited behind them.
CHUNK_ROWS = 500
log = logging.getLogger(__name__)


async def converted(rows, make, fields) -> list:
    """`rows` (a delivery's repeated row messages) as `make` dataclasses, CHUNK_ROWS at a time with a turn of the
    event loop in between."""
    out = []
    for first in range(0, len(rows), CHUNK_ROWS):
        if first:
            await asyncio.sleep(0)
        out.extend([make(*fields(row)) for row in rows[first:first + CHUNK_ROWS]])
    return out


class FrontDeliveries:
    def __init__(self, hub):
        """`hub`: the controller's AgentHub."""
        self.hub = hub
        self._ids: dict[str, uuid.UUID] = {}
        self._front_id, self._applied = "", 0  # the front process and the number of the last delivery applied
        self._reporter, self._reported = "", 0  # the same for its detection reports (numbered apart)
        self._applying: asyncio.Task | None = None  # the delivery being applied

    def _node(self, text: str):
        return self.hub.nodes.get(self._ids.get(text) or self._parsed(text))

    def _parsed(self, text: str) -> uuid.UUID:
        if len(self._ids) > _MAX_IDS:
            self._ids.clear()
        node_id = self._ids[text] = uuid.UUID(text)
        return node_id

    async def apply(self, delivery) -> None:
        """Waits while the database or Redis is behind (the front sends no more meanwhile: backpressure), then
        applies all of it (nothing of a delivery is applied unless all is: once begun, it is applied in full even
        if its call is cancelled meanwhile), then, asked to, waits for the rollups to be written."""
        if self._applying is not None and not self._applying.done():  # a cancelled call's delivery: that first
            await asyncio.wait([self._applying])
        if delivery.front_id == self._front_id and delivery.sequence <= self._applied:
            log.warning("the ingest front sent delivery %d again (its call failed after it was applied): answered, "
                        "not applied twice", delivery.sequence)
        else:
            await self._room(delivery)
            before = self._front_id, self._applied
            self._front_id, self._applied = delivery.front_id, delivery.sequence
            self._applying = asyncio.ensure_future(self._apply(delivery))
            self._applying.add_done_callback(lambda task: self._failed(task, before))
            await asyncio.shield(self._applying)  # a cancel ends the call, not the applying
        if delivery.flush:  # a repeat's too: its summary waits for the rollups
            await self.hub.flush()

    def _failed(self, task: asyncio.Task, before: tuple[str, int]) -> None:
        """A delivery that failed part way (a fault here), its call waiting or cancelled: not counted as applied,
        so the front's resend applies it again (what the failed attempt counted may count twice). Runs before the
        next delivery's call, which waits for this one, looks at the number."""
        if task.cancelled() or task.exception() is None:
            return
        self._front_id, self._applied = before
        log.error("applying the ingest front's delivery failed part way; it is applied again when sent again",
                  exc_info=task.exception())

    def detected(self, report) -> None:
        """What the front's detector found, handed to the orchestrator at once (each decision is then made on the
        loop when the cluster's view is kept: controller.orchestrator). A report sent again is not acted on twice."""
        if report.front_id == self._reporter and report.sequence <= self._reported:
            log.warning("the ingest front reported detections %d again (its call failed after they were taken): "
                        "not acted on twice", report.sequence)
            return
        self._reporter, self._reported = report.front_id, report.sequence
        orchestrator = self.hub.orchestrator
        for found in report.detections:
            node = self._node(found.node_id)
            if node is not None and orchestrator.mode != "off":
                detection = Detection(found.kind, node.node_id, found.t, json.loads(found.detail_json),
                                      found.instance_id or None)
                orchestrator.detected(node, detection, found.detected_unix_ns / 1e9)

    async def _room(self, delivery) -> None:
        if delivery.items:
            await self.hub.rollup_writer.room()
            await self.hub.live.room()

    async def _apply(self, delivery) -> None:
        hub = self.hub
        if delivery.rejected:
            hub.rejected.update(dict(delivery.rejected))
        now = hub.clock()
        ids, nodes = self._ids, hub.nodes  # inline: once per heartbeat stream's node, every delivery
        for text in delivery.heard_node_ids:
            node = nodes.get(ids.get(text) or self._parsed(text))
            if node is not None:
                node.last_seen = now
        if delivery.items:  # the youngest item's age now, the wait for this delivery included
            hub.intake.heard_aged((time.time_ns() - delivery.youngest_item_unix_ns) / 1e9)
            hub.live.add_commands(delivery.live_commands, delivery.live_replies, delivery.items)
        if delivery.node_rollups:
            await self._count_rollups(await converted(delivery.node_rollups, NodeRollup, _NODE_FIELDS),
                                      await converted(delivery.instance_rollups, InstanceRollup, _INSTANCE_FIELDS))
        for end in delivery.ended:
            token_id = uuid.UUID(end.token_id) if end.token_id else None
            if token_id is not None:
                hub.credentials.front_closed(token_id)
            if end.agent_id:
                hub.stream_ended(token_id, end.agent_id)

    async def _count_rollups(self, nodes: list[NodeRollup], instances: list[InstanceRollup]) -> None:
        """Into the rollup writer, and the energy ledger (per node, its account as the intake opens it), CHUNK_ROWS
        node rows (and their instances') at a time."""
        hub = self.hub
        by_step: dict[tuple[str, int], list[InstanceRollup]] = {}
        for row in instances:
            by_step.setdefault((row.node_id, row.start), []).append(row)
        # instance rows without their node's row in this delivery (the front makes none): handed with the first chunk
        node_steps = {(row.node_id, row.start) for row in nodes}
        alone = [row for step, rows in by_step.items() if step not in node_steps for row in rows]
        for first in range(0, len(nodes), CHUNK_ROWS):
            if first:
                await asyncio.sleep(0)
            chunk = nodes[first:first + CHUNK_ROWS]
            hub.rollups.hand(chunk, [i for row in chunk for i in by_step.get((row.node_id, row.start), ())] + alone)
            alone = []
            for row in chunk:
                account = hub.energy.nodes.get(row.node_id)
                if account is None:  # its first row: the account as the intake opens it
                    tracked = self._node(row.node_id)
                    kind, name = (tracked.kind, tracked.name) if tracked is not None else ("host", row.node_id)
                    account = hub.energy.account(row.node_id, row.cluster_id, kind, name)
                account.add_rollup(row, by_step.get((row.node_id, row.start), ()))
