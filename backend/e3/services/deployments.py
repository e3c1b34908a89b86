"""Deployments: accept a request (a job), place it in the worker, list where instances went."""

import uuid

from redis import RedisError
from sqlalchemy import func, insert, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from e3.core import job_lease
from e3.core.errors import Conflict, FieldError, NotFound, ValidationFailed
from e3.core.security import Actor
from e3.models import (Application, ApplicationVersion, Cluster, ComputeNode, Deployment, Instance, Job, Migration,
                       Rack, Server)
from e3.models.migration import ACTIVE_MIGRATION_STATES
from e3.placement import ALGORITHMS, algorithm_options, problem_from_document, run
from e3.placement.cost_model import predict
from e3.placement.model import PlacementError
from e3.schemas.common import PageParams
from e3.schemas.dag import ApplicationSpec
from e3.schemas.deployment import DeploymentCreate
from e3.services import audit, commands, events, job_reaper, jobs
from e3.services.capacities import cluster_capacities
from e3.services.deployment_status import Refusal, deployment_status
from e3.services.pagination import paginate


def create_deployment(session: Session, req: DeploymentCreate, actor: Actor) -> tuple[Deployment, Job]:
    """Validate the references and record a pending deployment and its queued job (not yet enqueued)."""
    errors = []
    app = session.scalar(select(Application).where(Application.name == req.application))
    if app is None:
        errors.append(FieldError("application", f"no application named '{req.application}'", "not_found"))
    cluster = session.scalar(select(Cluster).where(Cluster.name == req.cluster))
    if cluster is None:
        errors.append(FieldError("cluster", f"no cluster named '{req.cluster}'", "not_found"))
    if req.algorithm not in ALGORITHMS:
        errors.append(FieldError("algorithm", f"unknown algorithm '{req.algorithm}'; valid: {', '.join(ALGORITHMS)}",
                                 "unknown_algorithm", {"valid": list(ALGORITHMS)}))
    version = None
    if app is not None:
        version = session.scalar(select(ApplicationVersion).where(
            ApplicationVersion.application_id == app.id,
            ApplicationVersion.version == (req.version or app.latest_version)))
        if version is None:
            errors.append(FieldError("version", f"application '{app.name}' has no version {req.version} "
                                                f"(latest is {app.latest_version})", "not_found"))
    if errors:
        raise ValidationFailed(errors)
    deployment = Deployment(id=uuid.uuid4(), application_id=app.id, application_version_id=version.id,
                            cluster_id=cluster.id, algorithm=req.algorithm, anti_affinity=req.anti_affinity,
                            state="pending")
    job = Job(id=uuid.uuid4(), kind="deploy", state="queued", deployment_id=deployment.id,
              message=f"waiting for a worker to place {app.name} v{version.version} on {cluster.name}")
    session.add_all([deployment, job])
    audit.record(session, actor, "deployment.create", f"deployment/{deployment.id}", application=app.name,
                 version=version.version, cluster=cluster.name, algorithm=req.algorithm, job=str(job.id))
    session.flush()
    return deployment, job


def fail_unqueued(session: Session, job: Job, reason: str) -> None:
    """The job could not be handed to the queue: say so on the job and the deployment."""
    error = {"code": "queue_unavailable", "message": reason, "errors": []}
    jobs.mark_finished(session, job, error=error, message=reason)
    deployment = session.get(Deployment, job.deployment_id)
    deployment.state, deployment.error = "failed", error


def run_placement(session: Session, job_id: uuid.UUID, *, finish: bool = True) -> bool:
    """Place a deployment's instances, all or nothing; True once they are placed. Idempotent: a finished job,
    or a deployment already placed, is left alone.

    The cluster row is locked for the whole placement, so two deployments onto one cluster
    never reserve the same free capacity. With `finish` False (a rollout goes on after it), a successful
    placement leaves the job running with its result and message; a failed one always ends it.
    """
    job = session.get(Job, job_id, with_for_update=True)
    if job is None or job.state in ("succeeded", "failed"):
        return False
    deployment = session.get(Deployment, job.deployment_id)
    if deployment.state == "placed":
        return True  # a redelivered task: its placement was committed before the worker died
    jobs.mark_running(session, job, f"placing with {deployment.algorithm}")
    deployment.state = "placing"
    session.commit()  # pollers see "running" while the placement below is computed

    session.execute(select(Cluster.id).where(Cluster.id == deployment.cluster_id).with_for_update())
    # A redelivered copy of this task may have finished the job while we waited for the lock.
    session.refresh(job)
    if job.state != "running":
        return False
    cluster = session.get(Cluster, deployment.cluster_id)
    version = session.get(ApplicationVersion, deployment.application_version_id)
    application = session.get(Application, deployment.application_id).name
    problem = problem_from_document(version.spec, anti_affinity=deployment.anti_affinity)
    nodes = cluster_capacities(session, cluster.id)

    def progress(done: int, total: int) -> None:
        jobs.report_progress(job_id, 0.9 * done / total, f"placed {done} of {total} instances")

    try:
        placement = run(deployment.algorithm, problem, nodes, progress, **algorithm_options(deployment.algorithm))
    except PlacementError as exc:
        error = placement_error_body(version.spec, exc)
        deployment.state, deployment.error = "failed", error
        jobs.mark_finished(session, job, error=error, message=exc.message)
        events.emit(session, "deployment.failed", f"deployment/{deployment.id}", cluster.id, application=application,
                    error=exc.message)
        return False
    instances = problem.instances
    session.execute(insert(Instance), [
        dict(id=uuid.uuid4(), deployment_id=deployment.id, ordinal=i, dag_node=inst.dag_node, service=inst.service,
             shard=inst.shard, replica=inst.replica, role=inst.role, node_id=placement.assignments[inst.key],
             cpu_cores=inst.cpu_cores, memory_mb=inst.memory_mb, bandwidth_mbps=inst.bandwidth_mbps, state="placed")
        for i, inst in enumerate(instances)])
    deployment.state = "placed"
    deployment.prediction = predict(problem, nodes, placement).as_dict()
    deploying = _issue_deploys(session, cluster.id, deployment.id, application)
    job.result = {"algorithm": deployment.algorithm, "runtime_ms": round(placement.runtime_ms, 3),
                  "optimal": placement.optimal, "instances": len(instances), "details": placement.details}
    message = f"placed {len(instances)} instances with {deployment.algorithm} in {placement.runtime_ms:.0f} ms{deploying}"
    if finish:
        jobs.mark_finished(session, job, error=None, message=message)
    else:
        job.message, job.progress = message, 0.5
    events.emit(session, "deployment.placed", f"deployment/{deployment.id}", cluster.id, application=application,
                instances=len(instances))
    return True


def _issue_deploys(session: Session, cluster_id: uuid.UUID, deployment_id: uuid.UUID, application: str) -> str:
    """Send the agents of the cluster what the placement implies; a note for the job's message."""
    try:
        nodes = commands.issue_deploys(session, cluster_id)
    except commands.NoFreePort as exc:
        events.emit(session, "deployment.commands_failed", f"deployment/{deployment_id}", cluster_id,
                    application=application, error=str(exc))
        return f"; not deployed to agents: {exc}"
    commands.notify(session, nodes)
    return f"; deploying to {len(nodes)} agent-run node(s)" if nodes else ""


def placement_error_body(document: dict, exc: PlacementError) -> dict:
    """The API error body for a placement that failed, pointing at the DAG node concerned."""
    index = ApplicationSpec.from_document(document).node_index(exc.instance.dag_node)
    return {"code": "insufficient_capacity" if exc.resource else "unplaceable", "message": exc.message,
            "errors": [{"field": f"spec.nodes[{index}]",
                        "message": exc.message, "code": exc.resource or "no_node",
                        "instance": exc.instance.describe(), "resource": exc.resource}]}


def get_deployment(session: Session, deployment_id: uuid.UUID) -> Deployment:
    deployment = session.get(Deployment, deployment_id)
    if deployment is None:
        raise NotFound(f"deployment {deployment_id} not found")
    return deployment


def _public_rows(session: Session, stmt) -> list[dict]:
    counts = select(func.count()).where(Instance.deployment_id == Deployment.id).scalar_subquery()
    job = select(Job.id).where(Job.deployment_id == Deployment.id).order_by(Job.created_at.desc()).limit(1) \
        .scalar_subquery()
    stmt = stmt.add_columns(Application.name, ApplicationVersion.version, Cluster.name, counts, job) \
        .join(Application, Application.id == Deployment.application_id) \
        .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id) \
        .join(Cluster, Cluster.id == Deployment.cluster_id)
    rows = session.execute(stmt).all()
    states: dict[uuid.UUID, dict[str, int]] = {}
    for dep_id, state, count in session.execute(
            select(Instance.deployment_id, Instance.state, func.count())
            .where(Instance.deployment_id.in_([r[0].id for r in rows]))
            .group_by(Instance.deployment_id, Instance.state)):
        states.setdefault(dep_id, {})[state] = count
    refusals = refusals_of(session, [d.id for d, *_ in rows if states.get(d.id, {}).get("failed")])
    out = []
    for d, app, ver, cl, n, j in rows:
        status = deployment_status(d.state, d.error, states.get(d.id, {}), refusals.get(d.id, ()))
        out.append(dict(id=d.id, application=app, version=ver, cluster=cl, algorithm=d.algorithm,
                        anti_affinity=d.anti_affinity, state=d.state, status=status.status,
                        status_reason=status.reason, refusals=[vars(r) for r in refusals.get(d.id, ())],
                        instances=n, instance_states=states.get(d.id, {}), error=d.error, prediction=d.prediction,
                        replaces=d.replaces_id, created_at=d.created_at, updated_at=d.updated_at, job_id=j))
    return out


def refusals_of(session: Session, deployment_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[Refusal]]:
    """Per deployment, the reasons its agents gave for the instances they refused, most common first."""
    if not deployment_ids:
        return {}
    code, message = Instance.error["code"].astext, Instance.error["message"].astext
    found: dict[uuid.UUID, list[Refusal]] = {}
    for dep_id, c, m, count in session.execute(
            select(Instance.deployment_id, code, message, func.count())
            .where(Instance.deployment_id.in_(deployment_ids), Instance.state == "failed")
            .group_by(Instance.deployment_id, code, message).order_by(func.count().desc(), code, message)):
        found.setdefault(dep_id, []).append(Refusal(c or "unknown", m or "no reason given", count))
    return found


def deployment_public(session: Session, deployment_id: uuid.UUID) -> dict:
    get_deployment(session, deployment_id)
    return _public_rows(session, select(Deployment).where(Deployment.id == deployment_id))[0]


def list_deployments(session: Session, page: PageParams, cluster: str | None = None,
                     application: str | None = None) -> tuple[list[dict], int]:
    stmt = select(Deployment).order_by(Deployment.created_at.desc())
    if cluster:
        stmt = stmt.where(Deployment.cluster_id == select(Cluster.id).where(Cluster.name == cluster).scalar_subquery())
    if application:
        stmt = stmt.where(Deployment.application_id ==
                          select(Application.id).where(Application.name == application).scalar_subquery())
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    return _public_rows(session, stmt.limit(page.limit).offset(page.offset)), total


def placement(session: Session, deployment_id: uuid.UUID, page: PageParams,
              role: str | None = None, state: str | None = None) -> tuple[list[dict], int]:
    get_deployment(session, deployment_id)
    stmt = (select(Instance, ComputeNode.name, ComputeNode.kind, Server.name, Rack.name, ComputeNode.address)
            .join(ComputeNode, ComputeNode.id == Instance.node_id).join(Server, Server.id == ComputeNode.server_id)
            .join(Rack, Rack.id == Server.rack_id)
            .where(Instance.deployment_id == deployment_id).order_by(Instance.ordinal))
    if role:
        stmt = stmt.where(Instance.role == role)
    if state:
        stmt = stmt.where(Instance.state == state)
    rows, total = paginate(session, stmt, page, scalars=False)
    return [dict(id=i.id, dag_node=i.dag_node, service=i.service, shard=i.shard, replica=i.replica, role=i.role,
                 node=node, node_id=i.node_id, node_kind=kind, server=server, rack=rack, state=i.state,
                 address=address if i.port else None, port=i.port, error=i.error)
            for i, node, kind, server, rack, address in rows], total


def _cancel_job(session: Session, deployment: Deployment) -> None:
    """A deployment not placed yet is deleted only if no worker is placing it: its job, queued (a worker that
    picks it up later finds it failed) or running with its worker gone (no lease), is failed as cancelled.
    One a live worker is placing is refused (409 deployment_busy): its placement ends within seconds."""
    busy = f"deployment {deployment.id} is being placed by a worker"
    try:  # NOWAIT: a worker holding the job's row (it takes the job, then the deployment) would deadlock with us
        job = session.scalar(select(Job).where(Job.deployment_id == deployment.id,
                                               Job.state.in_(("queued", "running")))
                             .order_by(Job.created_at.desc()).limit(1).with_for_update(nowait=True))
    except OperationalError as exc:
        raise Conflict(f"{busy}; wait for its job to finish", code="deployment_busy") from exc
    if job is not None and job.state == "running":
        try:
            placing = bool(job_lease.leased([job.id]))
        except RedisError as exc:
            raise Conflict(f"deployment {deployment.id} is {deployment.state} and whether a worker still places it "
                           f"cannot be told (the job queue, Redis, does not answer: {exc}); try again",
                           code="deployment_busy") from exc
        if placing:
            raise Conflict(f"{busy} (job {job.id}); wait for the job to finish", code="deployment_busy")
    if job is not None:
        job_reaper.end_job(session, job, "cancelled", f"deployment {deployment.id} was deleted before it was placed")


def delete_deployment(session: Session, deployment_id: uuid.UUID, actor: Actor) -> None:
    """Remove a deployment and free what its instances reserved. One not placed yet is cancelled (its job
    failed as `cancelled`), unless a live worker is placing it right now (409 deployment_busy)."""
    deployment = session.get(Deployment, deployment_id, with_for_update=True)
    if deployment is None:
        raise NotFound(f"deployment {deployment_id} not found")
    if deployment.state in ("pending", "placing"):
        _cancel_job(session, deployment)
    moving = session.scalar(select(Migration.id).join(Instance, Instance.id == Migration.instance_id)
                            .where(Instance.deployment_id == deployment_id,
                                   Migration.state.in_(ACTIVE_MIGRATION_STATES)).limit(1))
    if moving is not None:
        raise Conflict(f"deployment {deployment_id} has a migration under way ({moving}); wait for it to end",
                       code="migration_under_way")
    audit.record(session, actor, "deployment.delete", f"deployment/{deployment_id}")
    commands.notify(session, commands.issue_removals(session, deployment))
    session.delete(deployment)
