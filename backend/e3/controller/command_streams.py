"""The controller's open StreamCommands: one per node, fed from `node_commands` in version order.

New commands are found three ways: when a stream opens (everything after the agent's applied
version), when Postgres NOTIFYs `e3_commands` with the nodes concerned (services.commands.notify,
sent at commit by the worker, the API or the controller itself), and by a slow poll that covers a
notification missed while the LISTEN connection was down. The poll also sweeps (services.commands.sweep),
on the leading controller only. Used from the controller's asyncio loop;
database reads run in worker threads.
"""

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session, libpq_url
from e3.services import commands

log = logging.getLogger(__name__)
_END = object()
# Why the controller ended a stream, as the agent is told (FAILED_PRECONDITION with the code and the words).
LEASE_LAPSED = "lease_lapsed"
NODE_MOVED = "node_moved"
ENDED_BECAUSE = {
    LEASE_LAPSED: "this controller's lease lapsed (paused or cut off from the database past it): register again",
    NODE_MOVED: "the node is registered at another controller now: register again",
}


@dataclass
class CommandStream:
    node_id: uuid.UUID
    sent: int  # highest version queued to the agent
    lease_epoch: int = 0  # the node's lease epoch its controller holds: every command carries it
    lease_holder: uuid.UUID | None = None  # the controller id that took the node at that epoch
    ended_because: str | None = None  # why the controller ended it (ENDED_BECAUSE), if it did
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def next(self) -> dict | None:
        """The next command for the agent, or None when the stream is ended."""
        item = await self.queue.get()
        return None if item is _END else item


class CommandStreams:
    def __init__(self, database_url: str | None, poll_s: float = 5.0, leads: Callable[[], bool] = lambda: True):
        """`leads()`: whether this controller leads (controller.leadership): only the leader sweeps."""
        self.database_url = database_url
        self.poll_s, self.leads = poll_s, leads
        self.streams: dict[uuid.UUID, CommandStream] = {}
        self._tasks: list[asyncio.Task] = []
        self._refills: set[asyncio.Task] = set()  # held until done: the loop keeps only weak references

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._poll(), name="command-poll")]
        if self.database_url:
            self._tasks.append(loop.create_task(self._listen(), name="command-listen"))

    async def stop(self) -> None:
        await cancel_and_wait(*self._tasks, *self._refills)
        for node_id in list(self.streams):
            self.end(node_id)

    def open(self, node_id: uuid.UUID, applied_version: int, lease_epoch: int = 0,
             lease_holder: uuid.UUID | None = None) -> CommandStream:
        """A new stream for the node (ending any older one), filled with what the agent has not applied."""
        self.end(node_id)
        stream = self.streams[node_id] = CommandStream(node_id, applied_version, lease_epoch, lease_holder)
        self._refill_soon(stream)
        return stream

    def close(self, stream: CommandStream) -> None:
        if self.streams.get(stream.node_id) is stream:
            del self.streams[stream.node_id]

    def end(self, node_id: uuid.UUID, because: str | None = None) -> None:
        stream = self.streams.pop(node_id, None)
        if stream is not None:
            stream.ended_because = because
            stream.queue.put_nowait(_END)

    def _refill_soon(self, stream: CommandStream) -> None:
        task = asyncio.get_running_loop().create_task(self.refill(stream))
        self._refills.add(task)
        task.add_done_callback(self._refills.discard)

    async def refill(self, stream: CommandStream) -> None:
        """Queue the node's commands newer than those already queued."""
        async with stream.lock:
            while True:
                try:
                    batch = await asyncio.to_thread(in_session, commands.commands_after, stream.node_id, stream.sent)
                except Exception:
                    log.exception("reading the commands of node %s failed; the poll will retry", stream.node_id)
                    return
                for command in batch:
                    stream.queue.put_nowait(command)
                    stream.sent = command["version"]
                if len(batch) < commands.COMMANDS_PER_READ:
                    return

    def wake(self, node_ids) -> None:
        """New commands exist for these nodes: refill the streams that are open."""
        for node_id in node_ids:
            stream = self.streams.get(node_id)
            if stream is not None:
                self._refill_soon(stream)

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(libpq_url(self.database_url),
                                                                 autocommit=True) as conn:
                    await conn.execute(f"LISTEN {commands.NOTIFY_CHANNEL}")
                    self.wake(list(self.streams))  # anything issued while we were not listening
                    async for note in conn.notifies():
                        self.wake(_node_ids(note.payload))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("LISTEN %s failed; retrying in 1 s", commands.NOTIFY_CHANNEL)
                await asyncio.sleep(1)

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.poll_s)
            if self.leads():
                try:
                    await asyncio.to_thread(in_session, commands.sweep)  # its NOTIFY wakes the streams concerned
                except Exception:
                    log.exception("deploying instances left `placed` on agent-run nodes failed")
            if not self.streams:
                continue
            try:
                latest = await asyncio.to_thread(in_session, commands.latest_versions, list(self.streams))
            except Exception:
                log.exception("polling for commands failed")
                continue
            self.wake([n for n, version in latest.items() if n in self.streams and version > self.streams[n].sent])


def _node_ids(payload: str) -> list[uuid.UUID]:
    out = []
    for part in payload.split(","):
        try:
            out.append(uuid.UUID(part))
        except ValueError:
            log.warning("ignoring %r in a %s notification", part, commands.NOTIFY_CHANNEL)
    return out
