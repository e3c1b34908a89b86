"""The node table the ingest front mirrors (docs/controller-scale-out.md §2): which agent, under which credential
and lease epoch, runs each node this controller tracks, and the power figure it measured for it.

The front checks heartbeats against its copy. The hub reports each change here (`changed`, `removed`,
`revoked`); every change gets the next version, and goes to every watcher (the front's WatchNodes call). A
Register's answer carries the node's change as well (rpc.servicer), so the front holds the node before the agent
sends its first heartbeat: the front applies a change to a node only if it is newer than the last it applied to
that node, so the same change arriving twice, or an older one late, does nothing.
"""

import asyncio
import dataclasses
import logging
import uuid
from collections.abc import AsyncIterator, Mapping

from e3.orchestrator.detection import DetectionPolicy
from e3.rpc.pb import front_pb2

log = logging.getLogger(__name__)
MAX_QUEUED = 100_000  # changes a watcher may have unread; past it the watch ends and the front calls again


def front_node(node) -> front_pb2.FrontNode:
    """A TrackedNode (controller.agent_hub) as the front's intake reads it."""
    message = front_pb2.FrontNode(node_id=str(node.node_id), cluster_id=str(node.cluster_id), agent_id=node.agent_id,
                                  token_id=str(node.token_id) if node.token_id else "", kind=node.kind,
                                  lease_epoch=node.lease_epoch, bandwidth_mbps=node.bandwidth_mbps)
    if node.power_override is not None:
        watts, source, valid_until = node.power_override
        message.has_power_override = True
        message.override_watts, message.override_source, message.override_valid_until_s = watts, source, valid_until
    return message


class FrontTable:
    def __init__(self, nodes: Mapping):
        """`nodes`: the hub's tracked nodes (node UUID -> TrackedNode), the snapshot a new watcher starts from."""
        self.nodes = nodes
        self.version = 0
        self._watchers: set[asyncio.Queue] = set()
        self._detection: front_pb2.DetectionSettings | None = None  # None: the front does not judge

    def _send(self, change: front_pb2.NodeTableChange) -> front_pb2.NodeTableChange:
        for queue in list(self._watchers):
            if queue.qsize() >= MAX_QUEUED:
                log.warning("the ingest front reads the node table too slowly: its watch ends, it calls again")
                self._watchers.discard(queue)
                queue.put_nowait(None)
            else:
                queue.put_nowait(change)
        return change

    def _next(self) -> int:
        self.version += 1
        return self.version

    def changed(self, node) -> front_pb2.NodeTableChange:
        """The node was added or changed (registration, lease epoch, power figure); returns the change."""
        return self._send(self.current(node))

    def current(self, node) -> front_pb2.NodeTableChange:
        """The node as it is now, as a change sent to nobody (a Register's answer carries it)."""
        return front_pb2.NodeTableChange(version=self._next(), upsert=front_node(node))

    def removed(self, node_id: uuid.UUID) -> None:
        self._send(front_pb2.NodeTableChange(version=self._next(), remove_node_id=str(node_id)))

    def revoked(self, token_id: uuid.UUID, message: str) -> None:
        """The credential is no longer valid: the front ends its heartbeat streams UNAUTHENTICATED with `message`."""
        self._send(front_pb2.NodeTableChange(version=self._next(),
                                             revoke=front_pb2.Revocation(token_id=str(token_id), message=message)))

    def set_detection(self, policy: DetectionPolicy, judging: bool) -> None:
        """The detector's policy, and whether the front judges heartbeats at all (not in orchestrator mode `off`);
        every watch starts with it."""
        self._detection = front_pb2.DetectionSettings(judging=judging, **dataclasses.asdict(policy))
        self._detector(settings=self._detection)

    def detector_forget(self, node_id: uuid.UUID) -> None:
        self._detector(forget_node_id=str(node_id))

    def detector_cool_down(self, node_id: uuid.UUID, t: float) -> None:
        self._detector(cool_down=front_pb2.CoolDown(node_id=str(node_id), t=t))

    def detector_reset(self) -> None:
        self._detector(reset=True)

    def _detector(self, **change) -> None:
        self._send(front_pb2.NodeTableChange(version=self._next(), detector=front_pb2.DetectorChange(**change)))

    async def watch(self) -> AsyncIterator[front_pb2.NodeTableChange]:
        """Every node, `synced`, then each change as it comes (until the watcher falls MAX_QUEUED behind). The front
        drops, at `synced`, the nodes it holds that the snapshot did not name, unless it applied a newer change to
        them (a registration answered meanwhile)."""
        queue: asyncio.Queue = asyncio.Queue()
        self._watchers.add(queue)
        # versioned now, at once: a change made while they are sent is newer than the snapshot it changes
        snapshot = [] if self._detection is None else [front_pb2.NodeTableChange(
            version=self._next(), detector=front_pb2.DetectorChange(settings=self._detection))]
        snapshot += [self.current(node) for node in self.nodes.values()]
        snapshot.append(front_pb2.NodeTableChange(version=self._next(), synced=True))
        try:
            for change in snapshot:
                yield change
            while (change := await queue.get()) is not None:
                yield change
        finally:
            self._watchers.discard(queue)
