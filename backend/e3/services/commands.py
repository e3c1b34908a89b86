"""Commands for agent-run nodes: what a placement implies, versioned per node, and their outcomes.

A placed instance whose node is run by an agent (the node has registered) gets a DeployInstance
command on that node, with a UDP port on the node's address; every agent-run node of the cluster
then gets the whole route table (SetRoutes). Deleting a deployment removes its instances the same
way. Commands are rows of `node_commands`; the controller streams them (StreamCommands) and
records each ACK/NACK here, which moves the instance to `running` or `failed` (with the agent's
reason). Writers call `notify` in the same transaction: Postgres delivers the NOTIFY on commit, so
the controller never hears of a command that was rolled back.

Blocking functions taking a Session: used by the worker (placement), the API (deletion) and the
controller (registration, ACKs) from worker threads.
"""

import logging
import uuid
from collections.abc import Iterable
from datetime import datetime, timezone

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from e3 import catalog
from e3.core.errors import BadRequest
from e3.models import (
    ApplicationVersion,
    Cluster,
    ComputeNode,
    Deployment,
    Instance,
    Migration,
    NodeCommand,
)
from e3.models.migration import ACTIVE_MIGRATION_STATES
from e3.schemas.dag import ApplicationSpec
from e3.services import events

log = logging.getLogger(__name__)
NOTIFY_CHANNEL = "e3_commands"
PORT_RANGE = range(21000, 30000)  # UDP ports handed to instances, per node address
DOWNSTREAM_KEY = "e3.downstream"  # agent-level config keys (agent.proto, DeployInstance)
FORWARD_IF_KEY = "e3.forward_if"
BACKUPS_KEY = "e3.backups"
# Services whose response is a verdict: only the passing one lets a request on down the DAG
# (an api_gateway that says UNAUTHORIZED or RATE_LIMITED ends the request there).
GATES = {"api_gateway": "ALLOW"}


class NoFreePort(Exception):
    pass


def lock_cluster(session: Session, cluster_id: uuid.UUID) -> None:
    """Every writer of commands holds its cluster's row: versions and ports are handed out one
    writer at a time. (Placement holds it already.) Node rows are never locked here, so an agent
    registering its node cannot deadlock with a placement that references it."""
    session.execute(select(Cluster.id).where(Cluster.id == cluster_id).with_for_update())


def _agent_nodes(session: Session, cluster_id: uuid.UUID) -> list[ComputeNode]:
    return list(session.scalars(select(ComputeNode).where(ComputeNode.cluster_id == cluster_id,
                                                          ComputeNode.agent_id.is_not(None))
                                .order_by(ComputeNode.name)))


def _placed_on_agents(cluster_id: uuid.UUID):
    """The cluster's instances still `placed` on nodes that agents run."""
    return (select(Instance).join(ComputeNode, ComputeNode.id == Instance.node_id)
            .where(Instance.state == "placed", ComputeNode.agent_id.is_not(None), ComputeNode.cluster_id == cluster_id))


def _next_versions(session: Session, node_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, int]:
    """The next command version of each node (callers hold the node rows locked)."""
    ids = list(node_ids)
    latest = dict(session.execute(select(NodeCommand.node_id, func.max(NodeCommand.version))
                                  .where(NodeCommand.node_id.in_(ids)).group_by(NodeCommand.node_id)).all())
    return {node_id: (latest.get(node_id) or 0) + 1 for node_id in ids}


class _Batch:
    """Commands appended in one transaction, with per-node versions handed out in order."""

    def __init__(self, session: Session, node_ids: Iterable[uuid.UUID]):
        self.session = session
        self.versions = _next_versions(session, node_ids)
        self.touched: set[uuid.UUID] = set()

    def add(self, node_id: uuid.UUID, kind: str, payload: dict, instance_id: uuid.UUID | None = None) -> None:
        version = self.versions[node_id]
        self.versions[node_id] = version + 1
        self.session.add(NodeCommand(node_id=node_id, version=version, kind=kind, payload=payload,
                                     instance_id=instance_id, state="pending"))
        self.touched.add(node_id)


def _used_ports(session: Session, address: str) -> set[int]:
    """Ports taken on `address`: its instances', and those migrations under way hold for their target copy."""
    taken = set(session.scalars(select(Instance.port).join(ComputeNode, ComputeNode.id == Instance.node_id)
                                .where(ComputeNode.address == address, Instance.port.is_not(None))))
    return taken | set(session.scalars(select(Migration.target_port)
                                       .join(ComputeNode, ComputeNode.id == Migration.target_node_id)
                                       .where(ComputeNode.address == address, Migration.target_port.is_not(None),
                                              Migration.state.in_(ACTIVE_MIGRATION_STATES))))


def _free_port(used: set[int]) -> int:
    port = next((p for p in PORT_RANGE if p not in used), None)
    if port is None:
        raise NoFreePort(f"no free port in {PORT_RANGE.start}-{PORT_RANGE.stop - 1}")
    used.add(port)
    return port


def _dag_facts(session: Session, deployment_ids: set[uuid.UUID]) -> tuple[dict, dict]:
    """From each deployment's application: (deployment, DAG node) -> service config, and -> child DAG nodes."""
    configs: dict[tuple[uuid.UUID, str], dict] = {}
    children: dict[tuple[uuid.UUID, str], list[str]] = {}
    rows = session.execute(select(Deployment.id, ApplicationVersion.spec)
                           .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id)
                           .where(Deployment.id.in_(deployment_ids)))
    for dep_id, document in rows:
        spec = ApplicationSpec.from_document(document)
        for node in spec.nodes:
            configs[(dep_id, node.id)] = node.config
        for edge in spec.edges:
            children.setdefault((dep_id, edge.from_), []).append(edge.to)
    return configs, children


class _Wiring:
    """What a DeployInstance says beyond the instance itself, for the instances of some deployments:
    the DAG node's service config, the next hop's primaries (e3.downstream) and a stateful primary's
    backups (e3.backups)."""

    def __init__(self, session: Session, deployment_ids: set[uuid.UUID]):
        self.configs, self.children = _dag_facts(session, deployment_ids)
        self.primaries: dict[tuple[uuid.UUID, str], list[str]] = {}
        self.backups: dict[tuple[uuid.UUID, str, int], list[str]] = {}
        for inst in session.scalars(select(Instance).where(Instance.deployment_id.in_(deployment_ids))
                                    .order_by(Instance.ordinal)):
            if inst.role == "primary":
                self.primaries.setdefault((inst.deployment_id, inst.dag_node), []).append(str(inst.id))
            else:
                self.backups.setdefault((inst.deployment_id, inst.dag_node, inst.shard), []).append(str(inst.id))

    def payload(self, inst: Instance, port: int, **agent_keys: str) -> dict:
        """The DeployInstance fields of `inst` serving on `port`; `agent_keys` are more e3.* keys."""
        config = dict(self.configs.get((inst.deployment_id, inst.dag_node), {}))
        downstream = [i for child in self.children.get((inst.deployment_id, inst.dag_node), [])
                      for i in self.primaries.get((inst.deployment_id, child), [])]
        if downstream:
            config[DOWNSTREAM_KEY] = ",".join(downstream)
            if inst.service in GATES:
                config[FORWARD_IF_KEY] = GATES[inst.service]
        if inst.role == "primary" and catalog.service_types()[inst.service].stateful:
            backups = self.backups.get((inst.deployment_id, inst.dag_node, inst.shard), [])
            if backups:
                config[BACKUPS_KEY] = ",".join(backups)  # a stateful primary's replication log goes to these
        config.update(agent_keys)
        return dict(instance_id=str(inst.id), service_type=inst.service, shard=inst.shard, role=inst.role,
                    port=port, config=config, epoch=inst.epoch or 1)


def issue_deploys(session: Session, cluster_id: uuid.UUID) -> set[uuid.UUID]:
    """Deploy every `placed` instance of the cluster that sits on an agent-run node, then send every
    agent-run node the new route table. Returns the nodes that got commands (for `notify`)."""
    if session.scalar(_placed_on_agents(cluster_id).limit(1)) is None:
        return set()  # the common case (an agent registering into an idle cluster) takes no lock
    lock_cluster(session, cluster_id)
    nodes = {n.id: n for n in _agent_nodes(session, cluster_id)}
    waiting = list(session.scalars(_placed_on_agents(cluster_id).order_by(Instance.deployment_id, Instance.ordinal)))
    if not waiting:
        return set()
    wiring = _Wiring(session, {i.deployment_id for i in waiting})
    used: dict[str, set[int]] = {}
    batch = _Batch(session, nodes)
    for inst in waiting:
        address = nodes[inst.node_id].address
        inst.port = _free_port(used.setdefault(address, _used_ports(session, address)))
        inst.state, inst.error = "deploying", None
        batch.add(inst.node_id, "deploy_instance", wiring.payload(inst, inst.port), inst.id)
    session.flush()
    _add_routes(session, batch, nodes.values())
    return batch.touched


def issue_removals(session: Session, deployment: Deployment) -> set[uuid.UUID]:
    """Remove a deployment's instances from their agents (before the deployment row is deleted),
    then send the remaining route table. Returns the nodes that got commands."""
    lock_cluster(session, deployment.cluster_id)
    nodes = {n.id: n for n in _agent_nodes(session, deployment.cluster_id)}
    leaving = [i for i in deployment.instances if i.node_id in nodes and i.state in ("deploying", "running")]
    if not leaving:
        return set()
    batch = _Batch(session, nodes)
    for inst in leaving:
        batch.add(inst.node_id, "remove_instance", dict(instance_id=str(inst.id)), inst.id)
        inst.port = None  # off the route table and the port is free again
    session.flush()
    _add_routes(session, batch, nodes.values())
    return batch.touched


def _add_routes(session: Session, batch: _Batch, nodes: Iterable[ComputeNode]) -> None:
    nodes = list(nodes)
    rows = session.execute(select(Instance.id, ComputeNode.address, Instance.port, Instance.aliases)
                           .join(ComputeNode, ComputeNode.id == Instance.node_id)
                           .where(ComputeNode.id.in_([n.id for n in nodes]), Instance.port.is_not(None))
                           .order_by(Instance.id))
    # an instance's aliases (primaries it took over in a failover) lead to it too
    routes = [dict(instance_id=name, address=address, port=port)
              for i, address, port, aliases in rows for name in (str(i), *(aliases or ()))]
    for node in nodes:
        batch.add(node.id, "set_routes", dict(routes=routes))


def issue(session: Session, cluster_id: uuid.UUID, node_id: uuid.UUID, kind: str, payload: dict,
          instance_id: uuid.UUID | None = None) -> int:
    """One command for one node (delivered when the transaction commits); returns its version."""
    lock_cluster(session, cluster_id)
    batch = _Batch(session, [node_id])
    batch.add(node_id, kind, payload, instance_id)
    session.flush()
    notify(session, batch.touched)
    return batch.versions[node_id] - 1


def issue_routes(session: Session, cluster_id: uuid.UUID) -> dict[uuid.UUID, int]:
    """Send every agent-run node of the cluster the route table as the instance rows now say; returns the
    version of the SetRoutes each node got."""
    lock_cluster(session, cluster_id)
    nodes = _agent_nodes(session, cluster_id)
    batch = _Batch(session, [n.id for n in nodes])
    _add_routes(session, batch, nodes)
    session.flush()
    notify(session, batch.touched)
    return {node_id: version - 1 for node_id, version in batch.versions.items()}


def deploy_payload(session: Session, inst: Instance, port: int, **agent_keys: str) -> dict:
    """The DeployInstance of `inst` on another node, serving on `port` (a migration's target copy)."""
    return _Wiring(session, {inst.deployment_id}).payload(inst, port, **agent_keys)


def free_port(session: Session, address: str) -> int:
    """A UDP port no instance (nor a migration's target copy) holds on `address` (cluster lock held)."""
    return _free_port(_used_ports(session, address))


def sweep(session: Session) -> set[uuid.UUID]:
    """Deploy what is still `placed` on agent-run nodes in any cluster: the safety net for a node that
    registered while a placement onto it was being committed (each saw the other's change too late)."""
    clusters = set(session.scalars(select(ComputeNode.cluster_id).join(Instance, Instance.node_id == ComputeNode.id)
                                   .where(Instance.state == "placed", ComputeNode.agent_id.is_not(None))
                                   .distinct()))
    touched: set[uuid.UUID] = set()
    for cluster_id in clusters:
        touched |= issue_deploys(session, cluster_id)
    notify(session, touched)
    return touched


def notify(session: Session, node_ids: Iterable[uuid.UUID]) -> None:
    """Tell the controller these nodes have new commands (delivered when the transaction commits)."""
    payload = ",".join(sorted(str(n) for n in node_ids))
    if payload:
        session.execute(text("SELECT pg_notify(:channel, :payload)"),
                        {"channel": NOTIFY_CHANNEL, "payload": payload})


COMMANDS_PER_READ = 1000  # a stream is refilled in reads of at most this many commands


def commands_after(session: Session, node_id: uuid.UUID, version: int, limit: int = COMMANDS_PER_READ) -> list[dict]:
    """The node's commands with a higher version than `version`, oldest first."""
    rows = session.scalars(select(NodeCommand).where(NodeCommand.node_id == node_id, NodeCommand.version > version)
                           .order_by(NodeCommand.version).limit(limit))
    return [dict(version=c.version, node_id=str(c.node_id), kind=c.kind, payload=c.payload) for c in rows]


def latest_versions(session: Session, node_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, int]:
    ids = list(node_ids)
    if not ids:
        return {}
    return dict(session.execute(select(NodeCommand.node_id, func.max(NodeCommand.version))
                                .where(NodeCommand.node_id.in_(ids)).group_by(NodeCommand.node_id)).all())


def _promote_refused(session: Session, cluster_id: uuid.UUID | None, command: NodeCommand, error: dict) -> None:
    """A promoted backup's agent refused its PromoteInstance (failover): the copy still answers on its port, but its
    backups are not told to refuse the lost primary, which could serve on behind a partition (docs/agents.md, "Never
    two primaries"). Not retried (the agent would refuse the same command again): said loudly instead."""
    log.error("PromoteInstance of %s NACKed by node %s: %s: %s; the lost primary is not fenced", command.instance_id,
              command.node_id, error["code"], error["message"])
    events.emit(session, "failover.promote_refused", f"instance/{command.instance_id}", cluster_id,
                application=events.application_of(session, instance_id=command.instance_id),
                epoch=command.payload.get("epoch"), error_code=error["code"], error_message=error["message"])


STALE_CONTROLLER = "stale_controller"  # the agent's NACK of a command carrying a lease epoch below the node's

def record_outcome(session: Session, cluster_id: uuid.UUID | None, node_id: uuid.UUID, version: int,
                   ok: bool, error_code: str, error_message: str) -> NodeCommand:
    """An ACK or NACK: the command's state, its instance's state, and a `command.ack|nack` event.
    BadRequest, and nothing recorded, when the node has no command of that version (never sent to it).
    A `stale_controller` NACK records nothing either: the agent refused a copy sent by a controller that had
    lost the node and left the version open for the node's owner, so it is not the command's outcome."""
    command = session.scalar(select(NodeCommand).where(NodeCommand.node_id == node_id, NodeCommand.version == version)
                             .with_for_update())
    if command is None:
        raise BadRequest(f"version {version} is no command of node {node_id}: an agent ACKs only what it was sent")
    if not ok and error_code == STALE_CONTROLLER:
        return command
    error = None if ok else dict(code=error_code or "error", message=error_message or error_code)
    command.state, command.error = ("acked" if ok else "nacked"), error
    command.answered_at = datetime.now(timezone.utc)
    data = dict(version=version, command=command.kind,
                instance_id=str(command.instance_id) if command.instance_id else None,
                application=events.application_of(session, instance_id=command.instance_id))
    if command.kind == "deploy_instance" and command.instance_id:
        instance = session.get(Instance, command.instance_id, with_for_update=True)
        # a seeding backup is the seed migration's to mark running, once its state is in (port routed)
        if instance is not None and instance.node_id == node_id and instance.state != "seeding":
            instance.state, instance.error = ("running", None) if ok else ("failed", error)
            if not ok:
                instance.port = None
    if error:
        data.update(error_code=error["code"], error_message=error["message"])
    events.emit(session, "command.ack" if ok else "command.nack", f"node/{node_id}", cluster_id, **data)
    if command.kind == "promote_instance" and not ok:
        _promote_refused(session, cluster_id, command, error)
    return command
