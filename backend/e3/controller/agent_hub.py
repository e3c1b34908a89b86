"""The controller's live side: which agent runs which node, heartbeat intake, failure detection, ACKs.

One AgentHub per controller process, used from its asyncio loop; database work runs in worker threads.
The pure decisions (when a node is suspect or down) are in e3.orchestrator.membership.
"""

import asyncio
import logging
import os
import socket
import time
import uuid
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis

from e3.core.aio import cancel_and_wait, every
from e3.core.config import get_settings
from e3.core.db import in_session
from e3.core.errors import BadRequest, Conflict, Forbidden, PreconditionFailed, ServiceUnavailable
from e3.energy.ledger import EnergyLedger
from e3.orchestrator.membership import MembershipPolicy, seen_if_lost, transitions
from e3.services import agent_credentials, agents, commands, leases, tokens
from e3.services.agent_credentials import AgentCredential
from e3.services.migration import failover
from e3.controller import live_publisher
from e3.live import channel
from e3.controller.command_streams import LEASE_LAPSED, NODE_MOVED, CommandStream, CommandStreams
from e3.controller.controller_lease import ControllerLease
from e3.controller.energy_rollups import EnergyRollups
from e3.controller.credential_watch import CredentialWatch
from e3.controller.heartbeat_intake import NOT_REGISTERED, OUT_OF_ORDER, STALE_EPOCH
from e3.controller.front_delivery import FrontDeliveries
from e3.controller.front_table import FrontTable
from e3.controller.heartbeat_intake import HeartbeatIntake
from e3.controller.leadership import Leadership
from e3.controller.orchestrator import DataplaneOrchestrator
from e3.controller.raw_tail import RawTail
from e3.controller.registrations import Registrations
from e3.controller.rollup_writer import RollupWriter
from e3.rollup.steps import RollupSteps

log = logging.getLogger(__name__)
MAX_REPORTED_REJECTIONS = 100
ORPHAN_CHECK_S = 0.5  # how often the leader looks for nodes no live controller holds
FAILOVER_RETRY_S = 10.0  # the leader tries an unfinished failover again at most this often
VIEW_WARM_S = 1.0  # how often the orchestrator's cluster views are checked for age (controller.cluster_view_cache)
# Silence is counted from the youngest heartbeat taken, at most this far back: a controller further behind
# than this still judges, and every agent's clock lagging this much (none checked, NTP keeps them within ms)
# would delay a down node by no more.
MAX_BACKLOG_S = 10.0
BEHIND_LOG_EVERY_S = 10.0


@dataclass
class TrackedNode:
    node_id: uuid.UUID
    cluster_id: uuid.UUID
    name: str
    agent_id: str
    last_seen: float  # controller's monotonic clock, seconds
    state: str = "up"
    kind: str = "host"  # host | smartnic
    bandwidth_mbps: float = 0.0  # its link rate per direction (the starvation detector's "under-utilised")
    token_id: uuid.UUID | None = None  # the agent credential that registered it: its owner
    heard: bool = True  # False for a node taken over from before this controller started, until it registers
    latest_ts_ns: int = 0  # the latest accepted heartbeat's timestamp: one not after it is refused (out of order)
    lease_epoch: int = 0  # the node's lease epoch this controller holds (services.leases; 0: none)
    lease_holder: uuid.UUID | None = None  # the controller id (controller_lease) that took that epoch
    # (watts, source, valid_until on this clock): a figure the controller measured for the node (its share
    # of the server's IPMI reading, controller.power_readings) that replaces the agent's until valid_until
    power_override: tuple[float, str, float] | None = None

    def run_by(self, credential: AgentCredential, agent_id: str) -> bool:
        return self.agent_id == agent_id and self.token_id == credential.token_id


def rejection_kind(reason: str) -> str:
    """A refused heartbeat's reason as a bounded label: not_registered | out_of_order | stale_epoch | invalid
    (besides, counted where they are decided: oversized, a batch too long; forbidden, a batch naming another
    credential's node)."""
    if reason == NOT_REGISTERED:
        return "not_registered"
    if reason.startswith(OUT_OF_ORDER):
        return "out_of_order"
    return "stale_epoch" if reason.startswith(STALE_EPOCH) else "invalid"


@dataclass
class Rejection:
    index: int
    node_id: str
    reason: str


class AgentHub:
    def __init__(self, policy: MembershipPolicy, redis_url: str, clock=time.monotonic,
                 orchestrator: DataplaneOrchestrator | None = None, resume_grace_s: float | None = None,
                 address: str = ""):
        """`address`: where agents reach this controller (its row in `controllers`)."""
        self.policy = policy
        self.resume_grace_s = policy.down_after_s if resume_grace_s is None else resume_grace_s
        self.orchestrator = orchestrator or DataplaneOrchestrator(mode="off")
        self.redis = aioredis.Redis.from_url(redis_url)
        self.live = live_publisher.LivePublisher(redis_url)
        self.clock = clock
        self.nodes: dict[uuid.UUID, TrackedNode] = {}
        self.energy = EnergyLedger()
        self.rejected: Counter[str] = Counter()  # heartbeats refused, by rejection_kind (for /metrics)
        name = f"{socket.gethostname()}/{os.getpid()}"
        self.lease = ControllerLease(name, address, get_settings().controller_lease_ms / 1000,
                                     get_settings().controller_renew_ms / 1000, on_lapse=self._lease_lapsed)
        self.leadership = Leadership(get_settings().database_url, name, controller_id=lambda: self.lease.id)
        leads = lambda: self.leadership.is_leader  # noqa: E731
        self.rollups = RollupSteps()
        self.tail = RawTail(get_settings().raw_tail_s, policy.period_s)
        self.intake = HeartbeatIntake(self.nodes, lambda: self.clock(), time.time_ns, energy=self.energy,
                                      rollups=self.rollups, tail=self.tail)
        self.rollup_writer = RollupWriter(self.rollups, every_s=get_settings().rollup_flush_ms / 1000,
                                          retention_days=get_settings().heartbeat_retention_days, leads=leads)
        self.energy_rollups = EnergyRollups(self.energy, leads=leads)
        self.commands = CommandStreams(get_settings().database_url, leads=leads)
        self.front_table = FrontTable(self.nodes)  # what the ingest front checks heartbeats against
        self.front = FrontDeliveries(self)  # what it took
        self.credentials = CredentialWatch(on_front_revoked=self.front_table.revoked)
        self.registrations = Registrations()
        self._monitor: asyncio.Task | None = None
        self._orphans: asyncio.Task | None = None
        self._membership_tick_s = max(0.01, self.policy.period_s / 2)
        self._checked_at: float | None = None  # when the membership loop last ran (self.clock)
        self._behind_logged_at = float("-inf")
        self._backlogs: deque[tuple[float, float]] = deque()  # (turn, the intake's backlog then), recent turns
        self._mode: asyncio.Task | None = None
        self._views: asyncio.Task | None = None
        self._failovers: set[asyncio.Task] = set()
        self._failing: set[uuid.UUID] = set()  # the nodes being failed over
        self._failover_tried: dict[uuid.UUID, float] = {}  # finish_failovers: when it last tried each node

    @property
    def heartbeat_period_ms(self) -> int:
        return round(self.policy.period_s * 1000)

    async def start(self) -> None:
        await self.lease.start()
        self.registrations.start()
        self.leadership.start()
        self.rollup_writer.start()
        self.energy_rollups.start()
        self.commands.start()
        self.credentials.start()
        loop = asyncio.get_running_loop()
        self._monitor = loop.create_task(every(self._membership_tick_s, self._membership_step, log,
                                               "membership check"), name="membership")
        self._orphans = loop.create_task(every(ORPHAN_CHECK_S, self.adopt_orphans, log,
                                               "looking for nodes no controller holds"), name="orphans")
        self._mode = asyncio.get_running_loop().create_task(self.orchestrator.follow_mode(self.redis),
                                                            name="orchestrator-mode")
        self._views = loop.create_task(every(VIEW_WARM_S, self._warm_views, log, "keeping the cluster views read"),
                                       name="cluster-views")

    async def stop(self) -> None:
        await cancel_and_wait(self._monitor, self._orphans)
        await cancel_and_wait(self._mode, self._views)
        await self.orchestrator.stop()
        await asyncio.gather(*self._failovers, return_exceptions=True)  # a failover under way is finished
        await self.credentials.stop()
        await self.registrations.stop()
        await self.commands.stop()
        await self.rollup_writer.stop()
        await self.energy_rollups.stop()
        await self.leadership.stop()
        await self.lease.stop()
        await self.live.close()
        await self.redis.aclose()

    async def _warm_views(self) -> None:
        """The views of the clusters whose SmartNICs this controller runs, read before a decision needs them."""
        self.orchestrator.keep_views(self.nodes.values())

    async def authenticate(self, authorization: str | None, how_to_send: str) -> AgentCredential:
        """The credential of an agent's `Bearer <token>`; it must hold the `agent` scope."""
        return await asyncio.to_thread(in_session, agent_credentials.authorize, authorization, how_to_send)

    # --- Register -------------------------------------------------------------------------------
    async def register(self, credential: AgentCredential, agent_id: str, cluster_name: str, node_name: str,
                       kind: str | None, server_name: str | None, software_version: str, address: str,
                       control_address: str | None = None) -> uuid.UUID:
        """`control_address`: the IP the agent called from, where other agents reach it (state transfers).

        Refusals name no agent id (a refused caller must learn nothing that identifies the node's agent)."""
        agents.check_agent_id(agent_id)
        address = agents.check_address(address)
        node = await asyncio.to_thread(in_session, agents.find_node, cluster_name, node_name, kind, server_name)
        if not credential.may_run(node.cluster_id, node.server):
            raise Forbidden(f"agent credential {credential.name!r} is not for node {node.name!r}")
        held = self.nodes.get(node.node_id)
        owner = held.token_id if held else node.token_id
        if owner not in (None, credential.token_id) and await asyncio.to_thread(in_session, tokens.still_valid,
                                                                                 [owner]):
            raise Forbidden(f"node {node.name!r} is registered under another agent credential; an admin revokes "
                            f"that one to hand the node over")
        now = self.clock()
        same_agent = held is not None and held.run_by(credential, agent_id)
        if held and held.heard and not same_agent and held.token_id in (None, credential.token_id) \
                and now - held.last_seen <= self.policy.down_after_s:
            raise Conflict(f"node {node.name!r} is run by another live agent "
                           f"(heard from {now - held.last_seen:.2f} s ago)")
        if held is None:
            await self._refuse_if_run_elsewhere(node, agent_id)
        previous = held.state if held else node.previous_state
        if held and not same_agent:
            self._end_commands(node.node_id)  # the old agent's command stream belongs to a dead agent
        tracked = TrackedNode(node.node_id, node.cluster_id, node.name, agent_id, now, kind=node.kind,
                              bandwidth_mbps=node.bandwidth_mbps, token_id=credential.token_id,
                              latest_ts_ns=held.latest_ts_ns if same_agent else 0)
        self.nodes[node.node_id] = tracked
        if not await self.lease.confirm():
            raise ServiceUnavailable("this controller cannot confirm its lease with the database: try another one "
                                     "or again later")
        holder = self.lease.id
        tracked.lease_epoch = await self.registrations.mark(agents.Registration(
            node, agent_id, credential, software_version, address, control_address, holder))
        tracked.lease_holder = holder
        self.front_table.changed(tracked)
        if previous != "up":
            await self._publish_state(self.nodes[node.node_id], previous)
        log.info("node %s (%s) registered by agent %s", node.name, node.node_id, agent_id)
        return node.node_id

    async def _refuse_if_run_elsewhere(self, node: agents.RegisteredNode, agent_id: str) -> None:
        """Conflict when another live controller holds the node for another agent that was heard from within
        E3_DOWN_AFTER_MS: the node's latest heartbeat in Redis (`e3:latest`, by the heartbeat's own timestamp, the
        agent's clock). The same agent registering here is a move, not a conflict; Redis unreachable, the
        registration goes on (as before the check: the lease moves)."""
        if not node.lease_live or node.lease_controller == self.lease.id or node.lease_agent in (None, agent_id):
            return
        try:
            item = await self.redis.hget(channel.latest_key(node.cluster_id), str(node.node_id))
        except Exception as exc:
            log.warning("node %s: cannot tell whether another controller's agent still runs it (%s)", node.name, exc)
            return
        heard_s = channel.seconds_since_heartbeat(item, time.time()) if item else None
        if heard_s is not None and heard_s <= self.policy.down_after_s:
            raise Conflict(f"node {node.name!r} is run by another live agent at another controller "
                           f"(heard from {max(heard_s, 0.0):.2f} s ago)")

    # --- Heartbeats -----------------------------------------------------------------------------
    def watches(self, node_id: str) -> bool:
        """Whether this controller watches the node because its agent registered here (not only as an orphan)."""
        node = self._tracked(node_id)
        return node is not None and node.heard

    def _tracked(self, node_id: str) -> TrackedNode | None:
        try:
            return self.nodes.get(uuid.UUID(node_id))
        except ValueError:
            return None

    def _is_foreign(self, credential: AgentCredential, node_id: str) -> bool:
        """`node_id` is registered under another credential (an impostor, not a stale agent)."""
        node = self._tracked(node_id)
        return node is not None and node.token_id not in (None, credential.token_id)

    def _refuse_foreign(self, credential: AgentCredential, node_id: str) -> None:
        if self._is_foreign(credential, node_id):
            raise Forbidden(f"node {node_id} is registered under another agent credential")

    async def accept_batch(self, credential: AgentCredential, agent_id: str,
                           heartbeats: Sequence) -> tuple[int, list[Rejection]]:
        """Validate each heartbeat (Heartbeat messages) and keep the good ones: live state in Redis at once,
        rollups in the database within E3_ROLLUP_FLUSH_MS. Waits while the rollup writer (or Redis) is full:
        backpressure. Forbidden when it names a node of another credential: that node's heartbeats are never
        kept and are counted `forbidden` (the batch's heartbeats of the agent's own nodes are kept: they were
        read in the same pass)."""
        if len(heartbeats) > agents.MAX_HEARTBEATS_PER_BATCH:
            reason = f"batch of {len(heartbeats)} heartbeats (at most {agents.MAX_HEARTBEATS_PER_BATCH})"
            self.rejected["oversized"] += len(heartbeats)
            return 0, [Rejection(i, hb.node_id, reason) for i, hb in enumerate(heartbeats)]
        # accepted nodes are marked seen now (a node of another credential is never accepted)
        encoded, rejected = self.intake.accept(agent_id, heartbeats, credential.token_id)
        foreign = {node_id for _, node_id, reason in rejected
                   if reason == NOT_REGISTERED and self._is_foreign(credential, node_id)}
        self.rejected.update("forbidden" if node_id in foreign else rejection_kind(reason)
                             for _, node_id, reason in rejected)
        if foreign:  # the stream ends refused; the agent's own heartbeats of the batch were kept
            raise Forbidden(f"node {min(foreign)} is registered under another agent credential")
        if encoded.accepted:
            await self.rollup_writer.room()  # the stream reads no further until the database catches up
            await self.live.room()
            self.live.add(encoded.nodes, encoded.live_items)
            if self.orchestrator.mode != "off":  # it judges SmartNICs only
                observe = self.orchestrator.observe
                for node, hb in encoded.smartnics:
                    observe(node, hb)
        return encoded.accepted, [Rejection(*r) for r in rejected]

    async def flush(self) -> None:
        """Return once every heartbeat accepted so far is in the database (in its rollups)."""
        await self.rollup_writer.flush()

    # --- Failure detection ----------------------------------------------------------------------
    def connection_lost(self, credential: AgentCredential, agent_id: str) -> None:
        """`agent_id`'s heartbeat stream broke: its nodes go down `lost_grace_s` from now unless it is heard
        from again (a killed process is down within that, not the whole silence timeout)."""
        self.stream_ended(credential.token_id, agent_id)

    def stream_ended(self, token_id: uuid.UUID | None, agent_id: str) -> None:
        """connection_lost, for a stream the ingest front ended (controller.front_delivery)."""
        now = self.clock()
        for node in self.nodes.values():
            if node.agent_id == agent_id and node.token_id == token_id:
                node.last_seen = seen_if_lost(node.last_seen, now, self.policy)

    async def _membership_step(self) -> None:
        """The membership loop's turn. Silence while this controller itself did not run (paused past a few
        periods, or starved of CPU) is not its nodes': their heartbeats of that time wait in its sockets. So a
        turn that comes late moves every node's last-seen time on by the delay before judging. Nor is silence
        while it runs behind its agents (heartbeats queued in its sockets, the intake taking ones sent a while
        ago): nodes are judged that far back (_backlog)."""
        now = self.clock()
        late = 0.0 if self._checked_at is None else now - self._checked_at - self._membership_tick_s
        self._checked_at = now
        if late > self.policy.suspect_after_s:
            for node in self.nodes.values():
                node.last_seen = min(now, node.last_seen + late)
            log.warning("this controller did not run for %.2f s: its nodes' silence meanwhile is not counted", late)
        behind = self._backlog(now)
        if behind > self.policy.suspect_after_s and now - self._behind_logged_at >= BEHIND_LOG_EVERY_S:
            self._behind_logged_at = now
            log.warning("this controller runs %.2f s behind its agents' heartbeats: their nodes' silence is counted "
                        "from then", behind)
        await self.check_membership(behind)

    def _backlog(self, now: float) -> float:
        """How far behind its agents the intake ran over the last down_after_s: the smallest of the turns' figures
        (a turn may take no heartbeat, and a stream's heartbeats come in bursts when the controller is behind), at
        most MAX_BACKLOG_S. Once it catches up, the next turn's small figure is the smallest at once."""
        taken = self.intake.take_backlog_s()
        if taken is not None:
            self._backlogs.append((now, taken))
        while self._backlogs and self._backlogs[0][0] < now - self.policy.down_after_s:
            self._backlogs.popleft()
        return min(min((age for _, age in self._backlogs), default=0.0), MAX_BACKLOG_S)

    async def check_membership(self, behind_s: float = 0.0) -> dict[uuid.UUID, str]:
        """Apply state changes due now (judged `behind_s` ago: how far the intake runs behind); returns them."""
        now = self.clock() - behind_s
        # Only a node heard from too long ago, or not up, can change state: one cheap pass over all of
        # them every half period, the full classification for the few that qualify.
        quiet_since = now - self.policy.suspect_after_s
        candidates = [n for n in self.nodes.values() if n.last_seen < quiet_since or n.state != "up"]
        changes = transitions({n.node_id: n.last_seen for n in candidates},
                              {n.node_id: n.state for n in candidates}, now, self.policy)
        if not changes:
            return {}
        me, leading = self.lease.id, self.leadership.is_leader

        def apply(session):
            """Only the node's live holder changes its state, or the leader once no live controller holds it
            (services.leases.may_change_state); a node another live controller holds has moved there."""
            held = leases.holders(session, list(changes))
            applied, moved = {}, []
            for node_id, state in sorted(changes.items()):
                holder = held[node_id]
                if leases.may_change_state(holder, me, leading):
                    applied[node_id] = state
                elif holder.live:
                    moved.append(node_id)
            agents.set_node_states(session, applied)  # rows in node id order (agents.mark_registered)
            return applied, moved

        changes, moved = await asyncio.to_thread(in_session, apply)
        for node_id in moved:
            self._forget(node_id, "its agent registered at another controller")
        for node_id, state in changes.items():
            node = self.nodes[node_id]
            previous, node.state = node.state, state
            log.info("node %s (%s): %s -> %s", node.name, node_id, previous, state)
            await self._publish_state(node, previous)
            if state == "down":
                self.orchestrator.forget(node_id)
                self._start_failover(node_id, node.name)
        return changes

    def _start_failover(self, node_id: uuid.UUID, name: str) -> None:
        """Fail the node over in a task of its own, unless one is under way for it already."""
        if node_id in self._failing:
            return
        self._failing.add(node_id)
        task = asyncio.get_running_loop().create_task(self._fail_over(node_id, name), name=f"failover-{name}")
        self._failovers.add(task)
        task.add_done_callback(self._failovers.discard)

    async def _fail_over(self, node_id: uuid.UUID, name: str) -> None:
        """Its primaries' backups take over, its instances are placed again (services.migration.failover), if this
        controller may still act for it when the transaction runs (its holder, or the leader for an orphan)."""
        try:
            acting = leases.Acting(self.lease.id, self.leadership.is_leader)  # checked again in the transaction
            seeds = await asyncio.to_thread(in_session, failover.fail_over_and_seed, node_id, acting)
            if seeds is not None:  # None: not this controller's to do any more (logged by the failover)
                log.info("node %s failed over (%d new backups being seeded)", name, seeds)
        except Exception:
            log.exception("failover of node %s failed", name)
        finally:
            self._failing.discard(node_id)

    async def finish_failovers(self) -> int:
        """On the leader: fail over the down nodes that still have instances and that no live controller holds
        (failover.unfinished): the controller that took them down died, or lost its lease, before failing them
        over, and no other would. Returns how many were started."""
        if not self.leadership.is_leader:
            return 0
        now = self.clock()
        self._failover_tried = {n: t for n, t in self._failover_tried.items() if t > now - FAILOVER_RETRY_S}
        left = [(node_id, name) for node_id, name in await asyncio.to_thread(in_session, failover.unfinished)
                if node_id not in self._failover_tried]
        for node_id, name in left:
            log.warning("node %s is down with instances left on it and no live controller: failing it over", name)
            self._failover_tried[node_id] = now
            self._start_failover(node_id, name)
        return len(left)

    def _forget(self, node_id: uuid.UUID, why: str) -> None:
        node = self.nodes.pop(node_id, None)
        if node is None:
            return
        self.front_table.removed(node_id)
        self.commands.end(node_id, NODE_MOVED)
        self.orchestrator.forget(node_id)
        log.info("node %s (%s): no longer watched here: %s", node.name, node_id, why)

    async def adopt_orphans(self) -> int:
        """On the leader, watch every node no live controller holds (services.agents.orphaned_nodes): each must
        register again within the resume grace (its agent moves to a live controller, or `e3 up` starts it
        again after an orderly stop), or it goes down and fails over. Until then another agent may take it (of
        its credential, or once that is revoked: docs/security.md): the one that ran it may be gone for good.
        A node watched so that registers elsewhere is let go; a controller that does not lead watches none.
        Returns how many nodes were taken up."""
        if not self.leadership.is_leader:
            for node_id in [n.node_id for n in self.nodes.values() if not n.heard]:
                self._forget(node_id, "this controller no longer leads")
            return 0
        await self.finish_failovers()
        orphans = await asyncio.to_thread(in_session, agents.orphaned_nodes)
        seen = self.clock() - self.policy.down_after_s + self.resume_grace_s
        taken = 0
        for node in orphans:
            if node.node_id not in self.nodes:
                self.nodes[node.node_id] = TrackedNode(node.node_id, node.cluster_id, node.name, node.agent_id, seen,
                                                       node.state, node.kind, node.bandwidth_mbps,
                                                       token_id=node.token_id, heard=False)
                self.front_table.changed(self.nodes[node.node_id])
                taken += 1
        still = {node.node_id for node in orphans}
        for node_id in [n.node_id for n in self.nodes.values() if not n.heard and n.node_id not in still]:
            self._forget(node_id, "it registered at a live controller, or went down")
        if taken:
            log.info("watching %d nodes no live controller holds, for %.1f s", taken, self.resume_grace_s)
        return taken

    async def _publish_state(self, node: TrackedNode, previous: str | None) -> None:
        try:
            await live_publisher.publish_state(self.redis, node.node_id, node.cluster_id, node.name, node.state, previous)
        except Exception:
            log.exception("publishing the state of node %s to Redis failed", node.node_id)

    # --- Commands -------------------------------------------------------------------------------
    def _require_owned(self, credential: AgentCredential, agent_id: str, node_id: str) -> TrackedNode:
        """The node when this agent (under this credential) runs it: Forbidden when another credential does,
        FailedPrecondition when it is not registered by this agent (e.g. its old agent after a restart)."""
        self._refuse_foreign(credential, node_id)
        node = self._tracked(node_id)
        if node is None or not node.run_by(credential, agent_id):
            raise PreconditionFailed(f"node {node_id!r} is not registered by this agent")
        return node

    def open_commands(self, credential: AgentCredential, agent_id: str, node_id: str,
                      applied_version: int = 0, lease_epoch: int = 0) -> CommandStream:
        """The node's command stream, from the first version after `applied_version`, its commands carrying the
        node's lease epoch; a newer stream for the node ends the older one. FailedPrecondition when the agent
        names a lease epoch below the node's (it registered before the node moved)."""
        node = self._require_owned(credential, agent_id, node_id)
        if 0 < lease_epoch < node.lease_epoch:
            raise PreconditionFailed(f"node {node_id} is at lease epoch {node.lease_epoch}, not {lease_epoch}: "
                                     f"register again", code="stale_epoch")
        return self.commands.open(node.node_id, applied_version, node.lease_epoch, node.lease_holder)

    async def may_send(self, stream: CommandStream) -> bool:
        """Whether a command may go down `stream` now: this controller's lease holds (confirmed with the
        database once it is past what the controller counts on) and is the one the node was taken under. A
        controller paused past its lease, or whose lease lapsed, sends nothing (the agent's own epoch check
        is the second fence, for what is already in a socket)."""
        return await self.lease.confirm() and stream.lease_holder == self.lease.id

    async def _lease_lapsed(self, old_id: uuid.UUID | None, new_id: uuid.UUID | None) -> None:
        """controller_lease's on_lapse: the nodes taken under the old lease that nobody took meanwhile are taken
        over by the new one (leases.take_over: a new epoch each, which their open streams carry from now on);
        the others may be another controller's by now: their command streams end `lease_lapsed`, and each agent
        registers again, here or elsewhere. Without the database, every stream ends."""
        taken: dict[uuid.UUID, int] = {}
        if old_id is not None and new_id is not None:
            try:
                taken = await asyncio.to_thread(in_session, leases.take_over, old_id, new_id)
            except Exception:
                log.exception("taking the nodes over after the lease lapsed failed; their agents register again")
        ended = 0
        for node in self.nodes.values():
            if node.lease_holder is None or node.lease_holder == new_id:
                continue
            stream = self.commands.streams.get(node.node_id)
            if node.node_id in taken:
                node.lease_epoch, node.lease_holder = taken[node.node_id], new_id
                self.front_table.changed(node)
                if stream is not None:
                    stream.lease_epoch, stream.lease_holder = node.lease_epoch, new_id
            elif stream is not None:
                self.commands.end(node.node_id, LEASE_LAPSED)
                ended += 1
        log.error("controller lease lapsed: %d nodes taken over under new epochs, %d command streams ended (their "
                  "agents register again)", len(taken), ended)

    def close_commands(self, stream: CommandStream) -> None:
        self.commands.close(stream)

    def _end_commands(self, node_id: uuid.UUID) -> None:
        self.commands.end(node_id)

    async def ack(self, credential: AgentCredential, agent_id: str, node_id: str, version: int, ok: bool,
                  error_code: str, error_message: str) -> None:
        node = self._require_owned(credential, agent_id, node_id)
        if version < 1:
            raise BadRequest("version must be at least 1")
        if not ok and not (error_code or error_message):
            raise BadRequest("a NACK needs an error detail")
        await asyncio.to_thread(in_session, commands.record_outcome, node.cluster_id, node.node_id, version, ok,
                                error_code, error_message)
        if not ok and error_code == commands.STALE_CONTROLLER:
            log.info("node %s refused a copy of command %d from a controller that lost it (%s); the version stays "
                     "open for its owner", node.name, version, error_message)
            return
        if not ok:
            log.warning("node %s NACKed command %d: %s %s", node.name, version, error_code, error_message)
        try:
            await self.redis.hset(channel.node_key(node.node_id), mapping={
                "last_command_version": version, "last_command_ok": int(ok)})
        except Exception:
            log.exception("recording the ACK of node %s in Redis failed", node.node_id)
