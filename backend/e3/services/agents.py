"""Agents: register their computing nodes, validate their heartbeats, record ACKs.

Used by the controller's gRPC servicers (e3.rpc), which only translate messages and status codes (an agent's
token is checked as every other: services.tokens.authorize_bearer, with the `agent` scope; the nodes it may run
are services.agent_credentials).
Blocking (database) functions take a Session; the controller calls them from a worker thread.
"""

import ipaddress
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from e3.core.errors import BadRequest, NotFound
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS
from e3.models import Cluster, ComputeNode, Server, controllers, node_leases
from e3.services import commands, events, leases

if TYPE_CHECKING:
    from e3.services.agent_credentials import AgentCredential

AGENT_SCOPE = "agent"
MAX_HEARTBEATS_PER_BATCH = 1000
MAX_INSTANCES_PER_HEARTBEAT = 64
MAX_ID_CHARS = 64
# Heartbeat timestamps must be recent: an agent's clock may be off a little, not by days (a bogus
# timestamp would also create a partition far outside retention).
MAX_CLOCK_AHEAD_S = 300
MAX_AGE_S = 24 * 3600


@dataclass(frozen=True)
class RegisteredNode:
    node_id: uuid.UUID
    cluster_id: uuid.UUID
    name: str
    previous_state: str
    kind: str  # host | smartnic
    bandwidth_mbps: int
    server: str
    token_id: uuid.UUID | None  # the agent credential that registered it last
    # its lease (services.leases): the controller holding it, for which agent, and whether that controller's lease
    # is live (None, None, False: no lease)
    lease_controller: uuid.UUID | None = None
    lease_agent: str | None = None
    lease_live: bool = False


def check_agent_id(agent_id: str) -> None:
    if not agent_id or len(agent_id) > MAX_ID_CHARS:
        raise BadRequest(f"agent_id must be 1-{MAX_ID_CHARS} characters")


def find_node(session: Session, cluster_name: str, node_name: str, kind: str | None,
              server_name: str | None) -> RegisteredNode:
    """The node an agent claims to run; NotFound / BadRequest when it does not match the record."""
    if not cluster_name or not node_name:
        raise BadRequest("node.cluster_name and node.name are required")
    found = session.execute(select(ComputeNode.id, ComputeNode.cluster_id, ComputeNode.name, ComputeNode.state,
                                   ComputeNode.kind, ComputeNode.bandwidth_mbps, Server.name,
                                   ComputeNode.agent_token_id, node_leases.c.controller_id, node_leases.c.agent_id,
                                   func.coalesce(controllers.c.lease_expires_at > func.now(), False))
                            .join(Cluster, Cluster.id == ComputeNode.cluster_id)
                            .join(Server, Server.id == ComputeNode.server_id)
                            .outerjoin(node_leases, node_leases.c.node_id == ComputeNode.id)
                            .outerjoin(controllers, controllers.c.id == node_leases.c.controller_id)
                            .where(Cluster.name == cluster_name, ComputeNode.name == node_name)).one_or_none()
    if found is None:  # one query when the node is there; the second only says which name is wrong
        if session.scalar(select(Cluster.id).where(Cluster.name == cluster_name)) is None:
            raise NotFound(f"cluster {cluster_name!r} not found (create it through the API first)")
        raise NotFound(f"node {node_name!r} not found in cluster {cluster_name!r}")
    node = RegisteredNode(*found)
    if kind and kind != node.kind:
        raise BadRequest(f"node {node_name!r} is a {node.kind}, not a {kind}")
    if server_name and server_name != node.server:
        raise BadRequest(f"node {node_name!r} is on server {node.server!r}, not {server_name!r}")
    return node


@dataclass(frozen=True)
class AgentRunNode:
    node_id: uuid.UUID
    cluster_id: uuid.UUID
    name: str
    agent_id: str
    state: str
    kind: str
    bandwidth_mbps: int
    token_id: uuid.UUID | None


def orphaned_nodes(session: Session) -> list[AgentRunNode]:
    """Every node an agent has registered that is not down and that no live controller holds (services.leases):
    it has no lease, its controller stopped (its row is gone), or its controller's lease expired (killed, paused,
    cut off). What the leading controller watches until its agent registers somewhere, or it goes down."""
    live = select(controllers.c.id).where(controllers.c.lease_expires_at > func.now())
    rows = session.execute(select(ComputeNode.id, ComputeNode.cluster_id, ComputeNode.name, ComputeNode.agent_id,
                                  ComputeNode.state, ComputeNode.kind, ComputeNode.bandwidth_mbps,
                                  ComputeNode.agent_token_id)
                           .outerjoin(node_leases, node_leases.c.node_id == ComputeNode.id)
                           .where(ComputeNode.agent_id.is_not(None), ComputeNode.state != "down",
                                  or_(node_leases.c.controller_id.is_(None),
                                      node_leases.c.controller_id.not_in(live))))
    return [AgentRunNode(*row) for row in rows]


def check_address(address: str) -> str:
    """The node's address as an IP (what routes to its instances use)."""
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        raise BadRequest(f"node.address {address[:64]!r} is not an IP address") from None


@dataclass(frozen=True)
class Registration:
    """A node's agent registering it (the RegisterRequest, its caller's credential and address, and the
    controller taking the node's lease, if any)."""
    node: RegisteredNode
    agent_id: str
    credential: "AgentCredential"
    software_version: str
    address: str
    control_address: str | None = None
    controller_id: uuid.UUID | None = None


def mark_registered(session: Session, registrations: list[Registration]) -> list[int]:
    """Each node is up, run by its agent under its credential at its address: state, a `node.registered` event
    (naming the credential, not the agent id: events are read-scope reading), `node.up` if it was not, its lease
    the registering controller's (services.leases), and then, once per cluster, the commands for instances
    already placed on the nodes (sent when the transaction commits). Returns each one's lease epoch (0: none
    taken). One transaction for many: agents resuming together after a controller's failure are taken in a
    few transactions, not one per node, each locking its cluster for the deploys (controller.registrations)."""
    clusters: list[uuid.UUID] = []
    rows = {row.id: row for row in session.scalars(  # not FOR UPDATE: see commands.lock_cluster
        select(ComputeNode).where(ComputeNode.id.in_({r.node.node_id for r in registrations})))}
    # rows in node id order, as every writer of several nodes' rows takes them (agent_hub's membership check):
    # two transactions never wait on each other's rows crosswise (a deadlock); the flush updates in key order too
    for r in sorted(registrations, key=lambda r: r.node.node_id):
        row = rows.get(r.node.node_id)
        if row is None:
            continue  # deleted meanwhile; its heartbeats will be refused by nobody and stored harmlessly
        previous = row.state
        row.state, row.agent_id, row.agent_token_id, row.address = "up", r.agent_id, r.credential.token_id, r.address
        row.control_address = r.control_address or r.address
        subject = f"node/{r.node.node_id}"
        events.emit(session, "node.registered", subject, r.node.cluster_id, name=r.node.name,
                    credential=r.credential.name, software_version=r.software_version, address=r.address)
        if previous != "up":
            events.emit(session, "node.up", subject, r.node.cluster_id, name=r.node.name, previous=previous)
        if r.node.cluster_id not in clusters:
            clusters.append(r.node.cluster_id)
    session.flush()
    # the last registration of a node in the batch names its lease's agent (as one transaction per Register would)
    takes = {r.node.node_id: (r.node.node_id, r.controller_id, r.agent_id)
             for r in registrations if r.controller_id and r.node.node_id in rows}
    epochs = leases.acquire_nodes(session, list(takes.values()))
    for cluster_id in sorted(clusters):  # one order for every transaction: no deadlock between two controllers
        commands.notify(session, commands.issue_deploys(session, cluster_id))
    return [epochs.get(r.node.node_id, 0) if r.controller_id else 0 for r in registrations]


def set_node_state(session: Session, node_id: uuid.UUID, state: str) -> str | None:
    """Record a membership transition (state + `node.<state>` event, naming the applications with instances on
    the node). Returns the previous state (None: no such node)."""
    return set_node_states(session, {node_id: state}).get(node_id)


def set_node_states(session: Session, changes: dict[uuid.UUID, str]) -> dict[uuid.UUID, str]:
    """`set_node_state` for many nodes: their rows in one query, the applications on them in another, rows
    changed in node id order (as every writer of several nodes' rows). Returns each found node's previous state."""
    if not changes:
        return {}
    rows = {row.id: row for row in session.scalars(select(ComputeNode).where(ComputeNode.id.in_(list(changes))))}
    moving = [node_id for node_id in sorted(rows) if rows[node_id].state != changes[node_id]]
    applications = events.applications_on_nodes(session, moving) if moving else {}
    previous = {node_id: row.state for node_id, row in rows.items()}
    for node_id in moving:
        row, state = rows[node_id], changes[node_id]
        row.state = state
        events.emit(session, f"node.{state}", f"node/{node_id}", row.cluster_id, name=row.name,
                    previous=previous[node_id], applications=applications.get(node_id) or None)
    session.flush()
    return previous


def heartbeat_problem(hb: dict, now: datetime) -> str | None:
    """Why a heartbeat (already known to come from its node's agent) is malformed, or None when it is fine.

    `hb` has the Heartbeat message's fields by their proto names, with power_source as "rapl" | "ipmi" |
    "model" | None. These are the rules, each field's bounds being e3.heartbeat_record's; the controller's
    hot path (controller.heartbeat_intake) checks the same bounds with a quicker test and asks this function
    for the reason when that test fails (tests/services/test_heartbeat_intake.py compares them).
    """
    if hb["timestamp_unix_ns"] <= 0:
        return "timestamp_unix_ns must be set"
    age = now.timestamp() - hb["timestamp_unix_ns"] / 1e9
    if age > MAX_AGE_S or age < -MAX_CLOCK_AHEAD_S:
        return f"timestamp is {age:+.0f} s from the controller's clock (allowed: -{MAX_CLOCK_AHEAD_S}..{MAX_AGE_S})"
    for f in NODE_FIELDS:
        if (problem := f.problem(hb[f.proto])) is not None:
            return f"{f.proto} {problem}"
    if len(hb["instances"]) > MAX_INSTANCES_PER_HEARTBEAT:
        return f"{len(hb['instances'])} instances (at most {MAX_INSTANCES_PER_HEARTBEAT} per heartbeat)"
    for i, inst in enumerate(hb["instances"]):
        if not inst["instance_id"] or len(inst["instance_id"]) > MAX_ID_CHARS or not inst["instance_id"].isprintable():
            return f"instances[{i}].instance_id must be 1-{MAX_ID_CHARS} printable characters"
        for f in INSTANCE_FIELDS:
            if (problem := f.problem(inst[f.proto])) is not None:
                return f"instances[{i}].{f.proto} {problem}"
    return None
