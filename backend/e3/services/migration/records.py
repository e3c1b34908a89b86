"""Migrations of one instance to another computing node: checks, the cost model's dry run, the record.

A migration is accepted only when it can be carried out: the target is a known node of the same cluster,
up and run by an agent, of a kind the instance may run on, in a fault domain holding no other replica of
its shard, with room for its reservation; the instance is running and not already migrating. Anything
else is a 4xx naming the field or the reason, and nothing is written. The steps themselves run in the
worker (services.migration.runner); this module only records the request.
"""

import uuid
from datetime import datetime, timezone

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from e3 import catalog
from e3.core.errors import Conflict, FieldError, NotFound, ValidationFailed
from e3.core.security import Actor
from e3.models import ApplicationVersion, Cluster, ComputeNode, Deployment, Instance, Migration
from e3.models.migration import ACTIVE_MIGRATION_STATES
from e3.placement import problem_from_document
from e3.placement.constraints import has_room
from e3.placement.cost_model import predict
from e3.placement.model import InstanceRequest, NodeCapacity, Placement, PlacementProblem, level_between
from e3.schemas.common import PageParams
from e3.services import audit, events
from e3.services.capacities import cluster_capacities
from e3.services.pagination import paginate

TRANSFER_PORTS = range(31000, 32000)  # TCP ports a migration target listens on for the state (one per migration)


class _Context:
    """An instance with what the checks and the prediction need: its deployment's placement problem,
    its own request in it, and the cluster's nodes that are up (with their reservations)."""

    def __init__(self, session: Session, instance: Instance):
        self.instance = instance
        self.deployment = session.get(Deployment, instance.deployment_id)
        spec = session.get(ApplicationVersion, self.deployment.application_version_id).spec
        self.problem: PlacementProblem = problem_from_document(spec, anti_affinity=self.deployment.anti_affinity)
        key = (instance.dag_node, instance.shard, instance.replica)
        self.request: InstanceRequest = next(i for i in self.problem.instances if i.key == key)
        self.nodes: dict[uuid.UUID, NodeCapacity] = {n.id: n for n in cluster_capacities(session,
                                                                                        self.deployment.cluster_id)}
        self.siblings = list(session.scalars(select(Instance).where(Instance.deployment_id == instance.deployment_id)))
        self.server_of = dict(session.execute(select(ComputeNode.id, ComputeNode.server_id).where(
            ComputeNode.id.in_({i.node_id for i in self.siblings}))).all())  # down nodes included

    def assignments(self, moved_to: uuid.UUID | None = None) -> dict:
        return {(i.dag_node, i.shard, i.replica): (moved_to if i.id == self.instance.id and moved_to else i.node_id)
                for i in self.siblings}


def _get_instance(session: Session, instance_id: uuid.UUID, *, lock: bool = False) -> Instance:
    instance = session.get(Instance, instance_id, with_for_update=lock)
    if instance is None:
        raise NotFound(f"instance {instance_id} not found")
    return instance


def _find_target(session: Session, cluster_id: uuid.UUID, target: str) -> ComputeNode:
    """The node named `target` (its name, e.g. "rack-0-s1/host", or its id) in the instance's cluster."""
    try:
        node = session.get(ComputeNode, uuid.UUID(target))
    except ValueError:
        node = session.scalar(select(ComputeNode).where(ComputeNode.cluster_id == cluster_id,
                                                        ComputeNode.name == target))
    if node is None or node.cluster_id != cluster_id:
        cluster = session.get(Cluster, cluster_id).name
        raise ValidationFailed([FieldError("target_node", f"no computing node {target!r} in cluster {cluster!r}",
                                           "not_found")])
    return node


def _check(session: Session, ctx: _Context, target: ComputeNode, *, dry_run: bool) -> None:
    """Raise the 4xx that says why the instance cannot move to `target`; return when it can."""
    inst, req = ctx.instance, ctx.request

    def refuse(message: str, code: str) -> ValidationFailed:
        return ValidationFailed([FieldError("target_node", message, code)], code=code)

    if target.id == inst.node_id:
        raise refuse(f"instance {inst.id} already runs on {target.name}", "same_node")
    if target.state != "up":
        raise refuse(f"{target.name} is {target.state}", "node_not_up")
    if req.platform not in ("any", target.kind):  # the DAG node's constraint, or the catalogue's platforms
        raise refuse(f"{req.describe()} is pinned to {req.platform} nodes and {target.name} is a {target.kind}",
                     "platform_pinned")
    other_domains = {ctx.server_of[i.node_id] for i in ctx.siblings
                     if i.id != inst.id and (i.dag_node, i.shard) == (inst.dag_node, inst.shard)}
    if target.server_id in other_domains:
        raise refuse(f"{target.name}'s server already holds another replica of {inst.dag_node} shard {inst.shard}; "
                     "replicas of a shard need distinct fault domains", "fault_domain")
    cap = ctx.nodes.get(target.id)
    if cap is None or not has_room(cap, req):
        free = "" if cap is None else (f" (free: {cap.free('cpu_cores'):g} cores, {cap.free('memory_mb'):g} MB, "
                                       f"{cap.free('bandwidth_mbps'):g} Mb/s)")
        raise refuse(f"{target.name} has no room for {req.describe()}: it needs {req.cpu_cores:g} cores, "
                     f"{req.memory_mb} MB, {req.bandwidth_mbps} Mb/s{free}", "insufficient_capacity")
    if dry_run:
        return
    if target.agent_id is None:
        raise refuse(f"no agent runs {target.name}: nothing could start the instance there", "no_agent")
    if inst.state != "running":
        raise Conflict(f"instance {inst.id} is {inst.state}; only a running instance can migrate",
                       [FieldError("instance_id", f"state is {inst.state}", "not_running")], code="not_running")
    active = session.scalar(select(Migration.id).where(Migration.instance_id == inst.id,
                                                       Migration.state.in_(ACTIVE_MIGRATION_STATES)))
    if active is not None:
        raise Conflict(f"instance {inst.id} is already migrating (migration {active})",
                       [FieldError("instance_id", "already migrating", "already_migrating")], code="already_migrating")


def predict_change(ctx: _Context, target: ComputeNode) -> dict:
    """The cost model's latency and joules per request before and after the move, at one offered load (the
    lower of the two knees, so both are compared unsaturated). Figures are the model's (source "model")."""
    before_placement = Placement("current", ctx.assignments())
    after_placement = Placement("migrated", ctx.assignments(moved_to=target.id))
    nodes = list(ctx.nodes.values())
    knees = [predict(ctx.problem, nodes, p).knee_rps for p in (before_placement, after_placement)]
    load = min((k for k in knees if k), default=None)
    before, after = (predict(ctx.problem, nodes, p, offered_rps=load) for p in (before_placement, after_placement))

    def figures(p) -> dict:
        return dict(avg_latency_ms=p.avg_latency_ms, p99_latency_ms=p.p99_latency_ms,
                    joules_per_request=p.joules_per_request, power_watts=p.power_watts, knee_rps=p.knee_rps)

    def delta(a, b):
        return None if a is None or b is None else b - a

    b, a = figures(before), figures(after)
    source_cap = ctx.nodes.get(ctx.instance.node_id)
    level = level_between(source_cap, ctx.nodes[target.id]) if source_cap else None
    return dict(offered_rps=load, before=b, after=a, change={k: delta(b[k], a[k]) for k in b}, level=level,
                source="model")


def _public(m: Migration, names: dict[uuid.UUID, str]) -> dict:
    return dict(id=m.id, instance_id=m.instance_id, source_node=names.get(m.source_node_id),
                source_node_id=m.source_node_id, target_node=names.get(m.target_node_id),
                target_node_id=m.target_node_id, kind=m.kind, source_instance_id=m.source_instance_id,
                reason=m.reason, state=m.state, step=m.step, steps=m.steps,
                stateful=m.stateful, error=m.error, prediction=m.prediction, requested_by=m.requested_by,
                created_at=m.created_at, updated_at=m.updated_at, finished_at=m.finished_at)


def _node_names(session: Session, ids) -> dict[uuid.UUID, str]:
    ids = set(ids)
    return dict(session.execute(select(ComputeNode.id, ComputeNode.name).where(ComputeNode.id.in_(ids))).all()) \
        if ids else {}


def migration_public(session: Session, migration_id: uuid.UUID) -> dict:
    m = session.get(Migration, migration_id)
    if m is None:
        raise NotFound(f"migration {migration_id} not found")
    return _public(m, _node_names(session, (m.source_node_id, m.target_node_id)))


def list_migrations(session: Session, page: PageParams, *, cluster: str | None = None, state: str | None = None,
                    instance_id: uuid.UUID | None = None) -> tuple[list[dict], int]:
    """Migrations, newest first, with their steps and step timings."""
    stmt = select(Migration).order_by(Migration.created_at.desc(), Migration.id)
    if cluster:
        stmt = stmt.where(Migration.cluster_id == select(Cluster.id).where(Cluster.name == cluster).scalar_subquery())
    if state:
        stmt = stmt.where(Migration.state == state)
    if instance_id:
        stmt = stmt.where(Migration.instance_id == instance_id)
    rows, total = paginate(session, stmt, page)
    names = _node_names(session, [n for m in rows for n in (m.source_node_id, m.target_node_id)])
    return [_public(m, names) for m in rows], total


def request_migration(session: Session, instance_id: uuid.UUID, target_node: str, *, dry_run: bool, actor: Actor,
                      reason: str = "manual") -> tuple[dict, Migration | None]:
    """Check a migration of `instance_id` to `target_node`. A dry run answers the prediction and writes nothing;
    otherwise the migration is recorded `pending` (the caller commits, then enqueues it)."""
    instance = _get_instance(session, instance_id, lock=not dry_run)
    if not dry_run:  # one writer per cluster at a time: capacities and ports are checked, then taken
        deployment = session.get(Deployment, instance.deployment_id)
        session.execute(select(Cluster.id).where(Cluster.id == deployment.cluster_id).with_for_update())
    ctx = _Context(session, instance)
    target = _find_target(session, ctx.deployment.cluster_id, target_node)
    _check(session, ctx, target, dry_run=dry_run)
    prediction = predict_change(ctx, target)
    source = session.get(ComputeNode, instance.node_id)
    summary = dict(instance_id=instance.id, service=instance.service, dag_node=instance.dag_node,
                   shard=instance.shard, role=instance.role, source_node=source.name, source_node_id=source.id,
                   target_node=target.name, target_node_id=target.id,
                   stateful=catalog.service_types()[instance.service].stateful, prediction=prediction)
    if dry_run:
        return dict(dry_run=True, **summary), None
    migration = Migration(id=uuid.uuid4(), instance_id=instance.id, cluster_id=ctx.deployment.cluster_id,
                          source_node_id=source.id, target_node_id=target.id, reason=reason, state="pending",
                          steps=[], stateful=summary["stateful"], prediction=prediction, requested_by=actor.name)
    session.add(migration)
    try:
        session.flush()
    except IntegrityError:  # a concurrent request won the race for this instance
        session.rollback()
        raise Conflict(f"instance {instance_id} is already migrating",
                       [FieldError("instance_id", "already migrating", "already_migrating")],
                       code="already_migrating") from None
    audit.record(session, actor, "migration.create", f"migration/{migration.id}", instance=str(instance.id),
                 source=source.name, target_node=target.name, reason=reason)
    events.emit(session, "migration.requested", f"instance/{instance.id}", migration.cluster_id,
                application=events.application_of(session, deployment_id=ctx.deployment.id),
                migration_id=str(migration.id), source=source.name, target=target.name, reason=reason,
                requested_by=actor.name)
    return dict(dry_run=False, migration_id=migration.id, status_url=f"/api/v1/migrations/{migration.id}",
                **summary), migration


def fail_unqueued(session: Session, migration_id: uuid.UUID, reason: str) -> None:
    """The migration could not be handed to the queue: nothing was done, say so."""
    m = session.get(Migration, migration_id)
    m.state, m.error = "failed", dict(code="queue_unavailable", message=reason)
    m.finished_at = datetime.now(timezone.utc)
    events.emit(session, "migration.failed", f"instance/{m.instance_id}", m.cluster_id,
                application=events.application_of(session, instance_id=m.instance_id), migration_id=str(m.id),
                error=reason)
