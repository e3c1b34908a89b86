"""The controller's IPMI side: each configured server's BMC polled, its reading split into the server's nodes
and given to their heartbeats (docs/energy.md "IPMI DCMI").

For a cluster whose power precedence puts ipmi first (services.power_config), every server with a BMC is
read every POLL_PERIOD_S, in a thread (the readers block). A good reading is split with
e3.energy.server_split (the host gets what its SmartNICs' model leaves) and set on each node as
`TrackedNode.power_override = (watts, "ipmi-split", valid_until)`; the heartbeat intake uses it instead of
the agent's figure while `valid_until` (this clock) is ahead. So:

- a BMC that times out, answers garbage or refuses the credentials: its nodes' overrides are cleared at
  once, so their next heartbeat carries the agent's own source; an event says why
  (`power.source_changed`, or `power.source_unavailable` when IPMI never worked), and another when IPMI
  answers again;
- a BMC that hangs: the reading is VALID_S old at most when used, then expires by itself. A stale reading
  is never shown as current.

The tracked node is looked up afresh at each reading (a registration replaces it). The configuration is
read again every REFRESH_S, so a PUT of the cluster's power takes effect within that.
"""

import asyncio
import logging
import uuid
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session
from e3.energy import ipmi, server_split
from e3.services import events, power_config
from e3.services.power_config import BmcTarget

log = logging.getLogger(__name__)

POLL_PERIOD_S = 1.0
READ_TIMEOUT_S = 2.0  # a reading not back by then is a BMC that does not answer
VALID_S = 2.5  # a reading is used this long after its request was sent, no longer
REFRESH_S = 5.0  # how often the configuration is read again
AGENT_SOURCE = "agent"  # in events: the node's own figure, as its agent reports it (rapl or model)


def reader_for(bmc: dict, timeout_s: float = READ_TIMEOUT_S):
    """The reader of a BmcModel's fields: LAN (RMCP+) or in-band (/dev/ipmi0)."""
    if bmc["interface"] == "open":
        return ipmi.InBandReader(timeout_s=timeout_s)
    return ipmi.LanReader(bmc["address"], bmc["port"], bmc["credentials_file"], timeout_s=timeout_s)


@dataclass
class _Poll:
    target: BmcTarget
    task: asyncio.Task
    working: bool | None = None  # None until the first answer or failure


class PowerReadings:
    """Polls the BMCs for an AgentHub's tracked nodes (`nodes`: node UUID -> TrackedNode; `clock`: its clock)."""

    def __init__(self, nodes: MutableMapping, clock: Callable[[], float], period_s: float = POLL_PERIOD_S,
                 valid_s: float = VALID_S, refresh_s: float = REFRESH_S, make_reader=reader_for,
                 record_event: Callable[..., None] | None = None,
                 changed: Callable[[object], None] = lambda node: None):
        """`changed(node)`: a node's power_override was set or cleared (the ingest front's table follows it)."""
        self.nodes, self.clock, self.changed = nodes, clock, changed
        self.period_s, self.valid_s, self.refresh_s = period_s, valid_s, refresh_s
        self.make_reader = make_reader
        self.record_event = record_event or _record_event
        self._polls: dict[tuple[uuid.UUID, str], _Poll] = {}
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._follow_config(), name="power-readings")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        for key in list(self._polls):
            await self._end(key)

    async def _follow_config(self) -> None:
        while True:
            try:
                await self.apply(await asyncio.to_thread(in_session, power_config.polled_servers))
            except Exception:
                log.exception("reading the clusters' power configuration failed")
            await asyncio.sleep(self.refresh_s)

    async def apply(self, targets: list[BmcTarget]) -> None:
        """Poll exactly these servers: start the new, restart the changed, end the gone."""
        wanted = {(t.cluster_id, t.server): t for t in targets}
        for key in [k for k, p in self._polls.items() if wanted.get(k) != p.target]:
            await self._end(key)
        for key, target in wanted.items():
            if key not in self._polls:
                task = asyncio.get_running_loop().create_task(self._poll(target), name=f"bmc-{target.server}")
                self._polls[key] = _Poll(target, task)

    async def _end(self, key) -> None:
        poll = self._polls.pop(key)
        await cancel_and_wait(poll.task)
        self._clear(poll.target)

    async def _poll(self, target: BmcTarget) -> None:
        reader = self.make_reader(target.bmc)
        try:
            while True:
                sent = self.clock()
                try:
                    reading = await asyncio.to_thread(reader.read)
                except ipmi.IpmiError as e:
                    await self._failed(target, e.reason)
                else:
                    await self._measured(target, reading, sent)
                await asyncio.sleep(max(0.0, sent + self.period_s - self.clock()))
        finally:
            close = getattr(reader, "close", None)
            if close is not None:
                close()

    async def _measured(self, target: BmcTarget, reading: ipmi.PowerReading, sent: float) -> None:
        split = server_split.split_server(float(reading.current_watts), str(target.host_node_id), target.smartnics)
        valid_until = sent + self.valid_s
        for part in split.nodes:
            node = self.nodes.get(uuid.UUID(part.node_id))
            if node is not None:
                node.power_override = (part.watts, part.source, valid_until)
                self.changed(node)
        poll = self._polls.get((target.cluster_id, target.server))
        if poll is not None and poll.working is not True:
            was = poll.working
            poll.working = True
            reason = f"BMC answers: {reading.current_watts} W for the server" + (" again" if was is False else "")
            log.info("server %s: power from IPMI (%s)", target.server, reason)
            await self._event(target, "power.source_changed", AGENT_SOURCE, server_split.NODE_SOURCE, reason,
                              watts=reading.current_watts)

    async def _failed(self, target: BmcTarget, reason: str) -> None:
        self._clear(target)
        poll = self._polls.get((target.cluster_id, target.server))
        if poll is None or poll.working is False:
            return
        was, poll.working = poll.working, False
        log.warning("server %s: no power from IPMI: %s", target.server, reason)
        if was:
            await self._event(target, "power.source_changed", server_split.NODE_SOURCE, AGENT_SOURCE, reason)
        else:
            await self._event(target, "power.source_unavailable", server_split.NODE_SOURCE, AGENT_SOURCE, reason)

    def _clear(self, target: BmcTarget) -> None:
        for node_id in (target.host_node_id, *(uuid.UUID(n.node_id) for n in target.smartnics)):
            node = self.nodes.get(node_id)
            if node is not None and node.power_override is not None:
                node.power_override = None
                self.changed(node)

    async def _event(self, target: BmcTarget, kind: str, source_from: str, source_to: str, reason: str,
                     **data) -> None:
        nodes = [str(target.host_node_id), *(n.node_id for n in target.smartnics)]
        try:
            await asyncio.to_thread(self.record_event, kind, f"server/{target.server}", target.cluster_id,
                                    server=target.server, nodes=nodes, reason=reason, **{"from": source_from,
                                                                                          "to": source_to}, **data)
        except Exception:
            log.exception("recording the power event of server %s failed", target.server)


def _record_event(kind: str, subject: str, cluster_id: uuid.UUID, **data) -> None:
    in_session(events.emit, kind, subject, cluster_id, **data)
