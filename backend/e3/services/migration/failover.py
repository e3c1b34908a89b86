"""Failover of a computing node that went down (paper §3.5): promote backups, re-place, re-protect.

Called by the controller when its failure detector marks a node down, in one transaction (the cluster's
row locked, like every writer of commands). For each instance that was on the node:

- a stateful primary with a backup running on a node that is up: the first such backup (lowest
  replica) is promoted. It becomes the shard's primary (replica 0), takes the lost primary's id as an
  alias (upstream instances deployed before still name it: the route table leads that id to the
  backup), and serves at once from the state the replication log gave it, at an epoch above the lost
  primary's (docs/agents.md, "Never two primaries"). Its agent is told so (PromoteInstance, in the same
  transaction): it serves at that epoch, replicates to the shard's other running backups, and names the
  lost primary (and its aliases) as superseded, so those backups refuse the lost primary's updates should it
  be alive behind a partition, and it stops serving. The lost row is deleted.
- a stateful backup: its row is deleted.
- anything else (a stateless instance, a stateful one with no live backup): it is placed again by HCM
  and deployed afresh, keeping its id; a stateful one starts empty (`failover.state_lost`).

Every lost backup, and the backup used up by a promotion, is replaced by a new backup (a new row,
`seeding`) placed by HCM on a server holding no other replica of its shard (a server and its
SmartNICs are one fault domain; nothing is placed again on the failed node's server), and seeded
by a `seed` migration: its primary's state copied, then its replication log (services.migration.runner).
When no node has room the shard runs with fewer backups (`failover.unprotected`). The route table goes
to every agent-run node; the down node gets a RemoveInstance for each of its instances, so that an
agent restarted there does not bring them back when its command history is replayed. A lost instance's move
under way ends `failed`, and its copy on the move's target (which may hold the state and serve already: the
source died before it heard the answer) is removed, so the promoted backup is the only copy that serves.

Done once: the controller that judged the node down fails it over only while it may still act for the node (its
live holder, or the leader for a node no live controller holds: `leases.still_may_act`, read in the failover's
transaction), and the leader finishes a failover nobody did (`unfinished`: down, instances left, no live holder).
"""

import logging
import uuid
from collections import defaultdict

from sqlalchemy import exists, func, or_, select
from sqlalchemy.orm import Session

from e3 import catalog
from e3.models import ApplicationVersion, ComputeNode, Deployment, Instance, Migration, controllers, node_leases
from e3.models.migration import ACTIVE_MIGRATION_STATES
from e3.placement import problem_from_document
from e3.placement.hcm import replace_instances
from e3.placement.model import NodeCapacity, PlacementProblem, copy_nodes
from e3.services import commands, events, leases
from e3.services.capacities import cluster_capacities
from e3.services.migration.queue import queue_migration

log = logging.getLogger(__name__)
LOST_STATES = ("placed", "deploying", "running", "seeding")
MAX_SUPERSEDED = 8  # ids a PromoteInstance names as replaced, at most (agent.proto; the most recent first)


def _stateful(inst: Instance) -> bool:
    return catalog.service_types()[inst.service].stateful


class _Deployment:
    """One deployment touched by the failure: its placement problem and where its instances are."""

    def __init__(self, session: Session, deployment: Deployment, up: list[NodeCapacity]):
        spec = session.get(ApplicationVersion, deployment.application_version_id).spec
        self.problem: PlacementProblem = problem_from_document(spec, anti_affinity=deployment.anti_affinity)
        self.instances = list(session.scalars(select(Instance).where(Instance.deployment_id == deployment.id)
                                              .order_by(Instance.ordinal)))
        self.up = up  # the cluster's nodes that are up, with every deployment's reservations
        self.application = events.application_of(session, deployment_id=deployment.id)  # for its events

    def place(self, keys: list[tuple], lost_node: uuid.UUID, down: set[uuid.UUID]) -> dict[tuple, uuid.UUID | None]:
        """Nodes for `keys` (dag node, shard, replica) by HCM, one at a time, the deployment's other instances
        staying where they are (and counting for the fault-domain rule); None for a key no node can take."""
        own = defaultdict(lambda: [0.0, 0, 0])
        fixed = {}
        for inst in self.instances:
            if inst.node_id not in down and inst.node_id != lost_node:
                fixed[(inst.dag_node, inst.shard, inst.replica)] = inst.node_id
                load = own[inst.node_id]
                load[0], load[1], load[2] = load[0] + inst.cpu_cores, load[1] + inst.memory_mb, \
                    load[2] + inst.bandwidth_mbps
        base = copy_nodes(self.up)
        for cap in base:  # the deployment's own load is reserved by the algorithm (problem.fixed), not in `used`
            cores, mem, bw = own.get(cap.id, (0.0, 0, 0))
            cap.used.update(cpu_cores=cap.used["cpu_cores"] - cores, memory_mb=cap.used["memory_mb"] - mem,
                            bandwidth_mbps=cap.used["bandwidth_mbps"] - bw)
        placed: dict[tuple, uuid.UUID | None] = {}
        for key in keys:  # a key that fits nowhere does not stop the others
            problem = PlacementProblem(instances=[i for i in self.problem.instances if i.key in fixed or i.key == key],
                                       edges=self.problem.edges, anti_affinity=self.problem.anti_affinity,
                                       fixed={**fixed, key: lost_node})
            try:
                node = replace_instances(problem, copy_nodes(base), [key]).assignments.get(key)
            except Exception as exc:  # no room under the rules: HCM says why
                log.warning("failover: no node for %s: %s", key, exc)
                node = None
            placed[key] = node
            if node is not None:
                fixed[key] = node  # the next keys see it (reserved as fixed, counted for fault domains)
        return placed


def fail_over(session: Session, node_id: uuid.UUID, acting: leases.Acting | None = None) -> list[uuid.UUID] | None:
    """Fail over every instance of `node_id` (down). Returns the seed migrations to queue once committed. With
    `acting` (the controller that judged the node down), nothing is done unless it may still act for the node
    (services.leases.still_may_act): a controller whose lease lapsed since (paused, cut off), or whose node
    registered at another controller meanwhile, leaves it to the node's holder or the leader; None then."""
    if acting is not None and not leases.still_may_act(session, node_id, acting):
        log.warning("failover of node %s not done: controller %s no longer holds it (its lease lapsed, or the node "
                    "registered elsewhere)", node_id, acting.me)
        return None
    node = session.get(ComputeNode, node_id)
    if node is None or node.state != "down":
        return []
    commands.lock_cluster(session, node.cluster_id)
    lost = list(session.scalars(select(Instance).where(Instance.node_id == node_id, Instance.state.in_(LOST_STATES))
                                .order_by(Instance.deployment_id, Instance.ordinal)))
    if not lost:
        return []
    subject, cluster_id = f"node/{node_id}", node.cluster_id
    applications = events.applications_on_node(session, node_id)  # before the lost instances move or go
    events.emit(session, "failover.started", subject, cluster_id, name=node.name, instances=len(lost),
                applications=applications)
    down = set(session.scalars(select(ComputeNode.id).where(ComputeNode.cluster_id == cluster_id,
                                                            ComputeNode.state == "down")))
    # A server and its SmartNICs are one fault domain: nothing is placed again on the failed node's server
    up = [n for n in cluster_capacities(session, cluster_id) if n.server != node.server_id]
    names = dict(session.execute(select(ComputeNode.id, ComputeNode.name)
                                 .where(ComputeNode.cluster_id == cluster_id)).all())
    _end_migrations(session, [i.id for i in lost], node.name)
    seeds: list[uuid.UUID] = []
    by_deployment = defaultdict(list)
    for inst in lost:
        by_deployment[inst.deployment_id].append(inst)
    for deployment_id, gone in by_deployment.items():
        dep = _Deployment(session, session.get(Deployment, deployment_id), up)
        seeds += _fail_over_deployment(session, dep, gone, down, names, cluster_id)
    session.flush()
    touched = commands.issue_deploys(session, cluster_id)  # the re-placed ones, and the route table
    touched |= set(commands.issue_routes(session, cluster_id))
    commands.notify(session, touched)
    events.emit(session, "failover.done", subject, cluster_id, name=node.name, seeds=len(seeds),
                applications=applications)
    return seeds


def _end_migrations(session: Session, instance_ids: list[uuid.UUID], node_name: str) -> None:
    """Migrations of the lost instances under way end `failed`: what they moved is being failed over. A move's
    target copy is removed: it may have imported the state and serve, beside the backup promoted now."""
    for m in session.scalars(select(Migration).where(Migration.instance_id.in_(instance_ids),
                                                     Migration.state.in_(ACTIVE_MIGRATION_STATES))):
        if m.kind == "move" and m.steps:
            commands.issue(session, m.cluster_id, m.target_node_id, "remove_instance",
                           dict(instance_id=str(m.instance_id)), m.instance_id)
        m.state, m.error = "failed", dict(code="node_down", message=f"{node_name} went down; failed over")
        events.emit(session, "migration.failed", f"instance/{m.instance_id}", m.cluster_id,
                    application=events.application_of(session, instance_id=m.instance_id), migration_id=str(m.id),
                    error=m.error["message"], code="node_down")


def _fail_over_deployment(session: Session, dep: _Deployment, gone: list[Instance], down: set[uuid.UUID],
                          names: dict, cluster_id: uuid.UUID) -> list[uuid.UUID]:
    gone_ids = {i.id for i in gone}
    app = dep.application
    lost_node = gone[0].node_id
    shards = defaultdict(list)
    for inst in dep.instances:
        shards[(inst.dag_node, inst.shard)].append(inst)
    replace: list[Instance] = []  # placed again, keeping their id
    new_backups: list[tuple[Instance, int]] = []  # (the shard's primary, the replica number to fill)
    removed: list[Instance] = []
    for inst in gone:
        subject = f"instance/{inst.id}"
        if not _stateful(inst):
            replace.append(inst)
            continue
        live = [i for i in shards[(inst.dag_node, inst.shard)] if i.id not in gone_ids and i.state == "running"
                and i.node_id not in down]
        if inst.role == "primary":
            backup = min((i for i in live if i.role == "backup"), key=lambda i: i.replica, default=None)
            if backup is None:
                replace.append(inst)
                events.emit(session, "failover.state_lost", subject, cluster_id, application=app,
                            dag_node=inst.dag_node, shard=inst.shard, reason="no backup running on a node that is up")
                continue
            freed = backup.replica
            backup.replica, backup.role, backup.ordinal = 0, "primary", inst.ordinal
            backup.aliases = [*(backup.aliases or ()), str(inst.id), *(inst.aliases or ())]
            backup.epoch = max(backup.epoch or 1, inst.epoch or 1) + 1
            _promote(session, cluster_id, backup, inst, [i for i in live if i.role == "backup" and i.id != backup.id])
            events.emit(session, "failover.promoted", f"instance/{backup.id}", cluster_id, application=app,
                        replaces=str(inst.id), dag_node=inst.dag_node, shard=inst.shard, node=names.get(backup.node_id),
                        lost_node=names.get(lost_node))
            new_backups.append((backup, freed))
        else:
            primary = next((i for i in live if i.role == "primary"), None)
            if primary is not None:
                new_backups.append((primary, inst.replica))
        removed.append(inst)
    for inst in gone:  # the down node forgets them if its agent comes back
        commands.issue(session, cluster_id, lost_node, "remove_instance", dict(instance_id=str(inst.id)), None)
    for inst in removed:
        dep.instances.remove(inst)
        session.delete(inst)
    session.flush()
    keys = [(i.dag_node, i.shard, i.replica) for i in replace] + [(p.dag_node, p.shard, r) for p, r in new_backups]
    placed = dep.place(keys, lost_node, down)
    for inst in replace:
        target = placed[(inst.dag_node, inst.shard, inst.replica)]
        if target is None:
            inst.state, inst.port, inst.error = "failed", None, dict(code="no_room", message="no node has room")
            events.emit(session, "failover.unplaced", f"instance/{inst.id}", cluster_id, application=app,
                        dag_node=inst.dag_node, shard=inst.shard, reason="no node that is up has room for it")
            continue
        inst.node_id, inst.state, inst.port, inst.error = target, "placed", None, None
        events.emit(session, "failover.replaced", f"instance/{inst.id}", cluster_id, application=app,
                    dag_node=inst.dag_node, shard=inst.shard, node=names.get(target), stateful=_stateful(inst))
    return [seed for primary, replica in new_backups
            if (seed := _new_backup(session, primary, replica, placed[(primary.dag_node, primary.shard, replica)],
                                    names, cluster_id, app)) is not None]


def _promote(session: Session, cluster_id: uuid.UUID, backup: Instance, lost: Instance, others: list[Instance]) -> None:
    """PromoteInstance to the promoted backup's agent: it serves at its new epoch, replicating to the shard's `others`
    (running backups, which followed `lost`) and superseding `lost` and its aliases (docs/agents.md, "Never two
    primaries"). A NACK leaves it serving unfenced, as before promotion was a command: services.commands records it."""
    replaces = [str(lost.id), *(lost.aliases or ())][:MAX_SUPERSEDED]
    backups = ",".join(str(i.id) for i in sorted(others, key=lambda i: i.replica))
    commands.issue(session, cluster_id, backup.node_id, "promote_instance",
                   dict(instance_id=str(backup.id), epoch=backup.epoch, replaces=replaces, backups=backups), backup.id)


def _new_backup(session: Session, primary: Instance, replica: int, target: uuid.UUID | None, names: dict,
                cluster_id: uuid.UUID, application: str | None) -> uuid.UUID | None:
    """A new backup of `primary`'s shard on `target` (`seeding`) and the seed migration that fills it."""
    if target is None:
        events.emit(session, "failover.unprotected", f"instance/{primary.id}", cluster_id, application=application,
                    dag_node=primary.dag_node, shard=primary.shard,
                    reason="no node in another fault domain has room for a new backup")
        return None
    ordinal = session.scalar(select(Instance.ordinal).where(Instance.deployment_id == primary.deployment_id)
                             .order_by(Instance.ordinal.desc()).limit(1)) + 1
    backup = Instance(id=uuid.uuid4(), deployment_id=primary.deployment_id, ordinal=ordinal,
                      dag_node=primary.dag_node, service=primary.service, shard=primary.shard, replica=replica,
                      role="backup", node_id=target, cpu_cores=primary.cpu_cores, memory_mb=primary.memory_mb,
                      bandwidth_mbps=primary.bandwidth_mbps, state="seeding")
    session.add(backup)
    seed = Migration(id=uuid.uuid4(), instance_id=backup.id, cluster_id=cluster_id, source_node_id=primary.node_id,
                     target_node_id=target, kind="seed", source_instance_id=primary.id, reason="failover",
                     state="pending", steps=[], stateful=True, requested_by="failover")
    session.add(seed)
    session.flush()
    events.emit(session, "failover.backup_placed", f"instance/{backup.id}", cluster_id, application=application,
                primary=str(primary.id), dag_node=primary.dag_node, shard=primary.shard, node=names.get(target),
                migration_id=str(seed.id))
    return seed.id


def unfinished(session: Session) -> list[tuple[uuid.UUID, str]]:
    """The agent-run nodes that are down with instances still on them (a failover moves, removes or fails every
    one) and that no live controller holds: their failover was never done (the controller that took them down
    died, or lost its lease, first). (id, name) of each."""
    return [(node_id, name) for node_id, name in session.execute(
        select(ComputeNode.id, ComputeNode.name)
        .outerjoin(node_leases, node_leases.c.node_id == ComputeNode.id)
        .outerjoin(controllers, controllers.c.id == node_leases.c.controller_id)
        .where(ComputeNode.state == "down", ComputeNode.agent_id.is_not(None),
               or_(controllers.c.id.is_(None), controllers.c.lease_expires_at <= func.now()),
               exists().where(Instance.node_id == ComputeNode.id, Instance.state.in_(LOST_STATES)))
        .order_by(ComputeNode.name))]


def fail_over_and_seed(session: Session, node_id: uuid.UUID, acting: leases.Acting | None = None) -> int | None:
    """`fail_over`, committed, then its seed migrations queued to a worker; returns how many were queued (None:
    not done, `acting` may no longer act for the node)."""
    seeds = fail_over(session, node_id, acting)
    if seeds is None:
        return None
    session.commit()
    queued = 0
    for seed in seeds:
        try:
            queue_migration(session, seed)
            queued += 1
        except Exception as exc:  # marked failed by queue_migration(); the shard runs with a backup fewer
            log.error("failover of node %s: seed migration %s not queued: %s", node_id, seed, exc)
    return queued
