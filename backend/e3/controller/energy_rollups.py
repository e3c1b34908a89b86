"""The energy history's writer (docs/energy.md "Energy history").

Every `every_s` it closes the ledger's steps (e3.energy.ledger) that ended at least `grace_s` ago by the
controller's wall clock, so that heartbeats still in flight from the agents reach their step first; then it
labels the rows (each instance's application and DAG node, each node's idle watts: services.energy_labels,
cached) and adds them to `energy_rollups` (services.energy_rollup_writes). A heartbeat later still opens
its step again, and its energy is added to the stored row.

A write that fails (the database restarting) keeps its rows, first in line, and is retried on the next
tick; at most `max_pending_rows` are held, beyond which the oldest are dropped and counted in
`dropped_rows` and the log: the history then under-counts, and says so there. On `stop()` every open
step is closed and written. Hourly, rows older than the retention are deleted
(services.energy_history.drop_expired_rollups), by the leading controller only.
"""

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timezone

from e3.core.aio import cancel_and_wait
from e3.controller.periodic_writer import RetentionSchedule, write_periodically
from e3.core.db import in_session
from e3.energy.ledger import EnergyLedger, EnergyRow
from e3.services import cluster_moments, energy_history, energy_labels, energy_rollup_writes
from e3.services.energy_labels import InstanceLabels

log = logging.getLogger(__name__)
# Nodes whose ended steps are closed between two turns of the event loop: at 1,000 servers closing every node's at
# once held the loop 150-500 ms a second (controller.front_delivery's CHUNK_ROWS, for the same reason).
CLOSE_NODES = 500
GRACE_S = 2.0  # heartbeats are batched by the agents and may wait in the intake: a step closes this late
# a node or instance the database did not have is looked up again after this long, not at every tick: heartbeats of
# an instance removed (or not known here) name it every second, and looking up thousands each tick took a twelfth
# of a saturated controller's time (py-spy, 1,000 servers)
UNKNOWN_RECHECK_S = 60.0


class EnergyRollups:
    def __init__(self, ledger: EnergyLedger, every_s: float = 1.0, grace_s: float = GRACE_S,
                 clock: Callable[[], float] = time.time, max_pending_rows: int = 200_000,
                 retention_every_s: float = 3600.0, leads: Callable[[], bool] = lambda: True):
        """`leads()`: whether this controller leads (controller.leadership): only the leader applies retention."""
        self.ledger, self.every_s, self.grace_s, self.clock = ledger, every_s, grace_s, clock
        self.max_pending_rows = max_pending_rows
        self.retention_every_s = retention_every_s
        self.retention = RetentionSchedule(retention_every_s, leads)
        self._idle: dict[str, float] = {}  # node id -> modelled idle watts
        self._labels: dict[str, InstanceLabels] = {}  # instance id -> labels (found ones only)
        self._unknown: dict[str, float] = {}  # node or instance id not found -> when it was looked up (clock)
        self._pending: deque[list[energy_rollup_writes.StoredRow]] = deque()
        self._pending_rows = 0
        self._task: asyncio.Task | None = None
        self._lock = asyncio.Lock()
        self.written_rows = 0
        self.dropped_rows = 0
        self.failures = 0

    async def tick(self, before: float | None = None) -> int:
        """Close the steps that ended by `before` (default: now - grace), write what is pending. Returns the
        rows written. One tick at a time: a pending batch must never be written twice."""
        async with self._lock:
            return await self._tick(before)

    async def _tick(self, before: float | None) -> int:
        before = self.clock() - self.grace_s if before is None else before
        nodes, instances = self.ledger.closable(before)
        if nodes:
            await self._learn(nodes, instances)
            ordered = [n for n in self.ledger.nodes if n in nodes]  # the ledger's order, as one close gives it
            for first in range(0, len(ordered), CLOSE_NODES):
                if first:
                    await asyncio.sleep(0)
                rows = self.ledger.close(before, lambda n: self._idle.get(n, 0.0), self._reserved,
                                         ordered[first:first + CLOSE_NODES])
                self._hold([self._stored(r) for r in rows])
        return await self._write()

    def counts_requests(self, instance_id: str) -> bool | None:
        """Whether the instance's requests are its application's (an entry primary); None until it is labelled
        (its /metrics series say so in their `entry` label)."""
        labels = self._labels.get(instance_id)
        return labels.counts_requests if labels else None

    def _reserved(self, instance_id: str) -> float | None:
        labels = self._labels.get(instance_id)
        return labels.reserved_cores if labels else None

    async def _learn(self, nodes: set[str], instances: set[str]) -> None:
        """Look up the nodes and instances not known yet, but not those not found within UNKNOWN_RECHECK_S (a failure
        leaves them unknown: idle 0, no labels)."""
        now = self.clock()
        if self._unknown:
            self._unknown = {k: t for k, t in self._unknown.items() if now - t < UNKNOWN_RECHECK_S}
        new_nodes = [n for n in nodes if n not in self._idle and n not in self._unknown]
        new_instances = [i for i in instances if i not in self._labels and i not in self._unknown]
        if not (new_nodes or new_instances):
            return
        try:
            idle, labels = await asyncio.to_thread(in_session, _look_up, new_nodes, new_instances)
        except Exception:
            log.exception("energy history: looking up %d nodes and %d instances failed", len(new_nodes),
                          len(new_instances))
            return
        self._idle.update(idle)
        self._labels.update(labels)
        self._unknown.update((k, now) for k in new_nodes if k not in idle)
        self._unknown.update((k, now) for k in new_instances if k not in labels)

    def _stored(self, row: EnergyRow) -> energy_rollup_writes.StoredRow:
        """The row with its instance's labels, which its totals (for /metrics) take too."""
        labels = self._labels.get(row.instance_id) if row.instance_id else None
        if labels is not None and (totals := self.ledger.instances.get(row.instance_id)) is not None:
            totals.labels = (labels.deployment_id, labels.application, labels.dag_node)
        return energy_rollup_writes.StoredRow(row, labels)

    def _hold(self, rows: list[energy_rollup_writes.StoredRow]) -> None:
        if not rows:
            return
        self._pending.append(rows)
        self._pending_rows += len(rows)
        while self._pending_rows > self.max_pending_rows and len(self._pending) > 1:
            dropped = self._pending.popleft()
            self._pending_rows -= len(dropped)
            self.dropped_rows += len(dropped)
            log.error("energy history: dropped %d rows (the database has not taken them; %d held)", len(dropped),
                      self._pending_rows)

    async def _write(self) -> int:
        written = 0
        while self._pending:
            rows = self._pending[0]
            try:
                await asyncio.to_thread(in_session, energy_rollup_writes.add_rows, rows)
            except Exception:
                self.failures += 1
                log.exception("energy history: writing %d rows failed; %d rows held, retrying", len(rows),
                              self._pending_rows)
                break
            self._pending.popleft()
            self._pending_rows -= len(rows)
            written += len(rows)
        self.written_rows += written
        return written

    async def apply_retention(self) -> int:
        """Delete the rollups older than the retention (E3_ENERGY_RETENTION_DAYS); a failure is logged."""
        self.retention.ran()
        try:
            dropped = await asyncio.to_thread(in_session, _drop_expired)
        except Exception:
            log.exception("energy history retention failed; will retry in %.0f s", self.retention_every_s)
            return 0
        if dropped:
            log.info("energy history retention deleted %d rows", dropped)
        return dropped

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            write_periodically(self.every_s, self.tick, self.retention, self.apply_retention, "energy history tick"),
            name="energy-rollups")

    async def stop(self, timeout_s: float = 10.0) -> None:
        """Close every open step and write it (giving up after `timeout_s`), then stop."""
        await cancel_and_wait(self._task)
        self._task = None
        try:
            await asyncio.wait_for(self.tick(float("inf")), timeout_s)
        except TimeoutError:
            pass  # what is still held is said below
        if self._pending_rows:
            log.error("energy history: %d rows not written at stop (the database did not take them)",
                      self._pending_rows)


def _drop_expired(session) -> int:
    """The energy rollups and instance history past their retention (replay reads both): rows deleted."""
    now = datetime.now(timezone.utc)
    return energy_history.drop_expired_rollups(session, now) + cluster_moments.drop_expired_history(session, now)


def _look_up(session, nodes: list[str], instances: list[str]) -> tuple[dict[str, float], dict[str, InstanceLabels]]:
    return energy_labels.idle_watts(session, nodes), energy_labels.instance_labels(session, instances)
