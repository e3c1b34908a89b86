"""Large clusters built by a worker (a job), so that no request inserts a hundred thousand rows.

The request takes the name at once (a second create of it is a 409, as for a small cluster), records the
cluster document on the job and answers 202; the worker inserts the topology and finishes the job. Until then
the cluster is listed with no servers. A job that cannot be queued, or fails, gives the name back. The build
runs under a job lease (core.job_lease), and the job is `running` (committed) while it builds: a build whose
worker died is failed `worker_lost` by the job reaper (services.job_reaper), which also gives the name back.
"""

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.core.errors import E3Error
from e3.core.security import Actor
from e3.models import Cluster, Job, Server
from e3.schemas.cluster_spec import ClusterSpec, validate_cluster
from e3.services import audit, clusters, events, jobs

KIND = "cluster"


def request_cluster(session: Session, spec: ClusterSpec, document: dict, actor: Actor) -> tuple[Cluster, Job]:
    """Take the cluster's name and queue its topology as a job; returns (cluster, job). `document` is the
    validated cluster document the worker builds from (job.result["document"] until it has)."""
    cluster = clusters.reserve_name(session, spec.name)
    servers = clusters.server_count(spec)
    job = Job(id=uuid.uuid4(), kind=KIND, state="queued",
              message=f"waiting for a worker to build cluster '{spec.name}' ({servers} servers)",
              result=dict(cluster_id=str(cluster.id), document=document))
    session.add(job)
    audit.record(session, actor, "cluster.create", f"cluster/{spec.name}", servers=servers, job=str(job.id))
    session.flush()
    return cluster, job


def give_up(session: Session, job: Job, code: str, reason: str) -> None:
    """End the job as failed and free the name (the cluster has no topology yet; a failed build left none)."""
    jobs.mark_finished(session, job, error={"code": code, "message": reason, "errors": []}, message=reason)
    cluster = session.get(Cluster, uuid.UUID(job.result["cluster_id"]))
    if cluster is not None:
        session.delete(cluster)
    job.result = dict(cluster_id=job.result["cluster_id"])


def fail_unqueued(session: Session, job: Job, reason: str) -> None:
    give_up(session, job, "queue_unavailable", reason)


def run_cluster_job(session: Session, job_id: uuid.UUID) -> None:
    """Build the topology of job `job_id`'s cluster. Idempotent: a finished job is left alone, and a
    redelivered one whose topology was committed only finishes. The caller holds the job's lease."""
    job = session.get(Job, job_id, with_for_update=True)
    if job is None or job.state in ("succeeded", "failed"):
        return
    cluster = session.get(Cluster, uuid.UUID(job.result["cluster_id"]))
    if cluster is None:
        jobs.mark_finished(session, job, error={"code": "cluster_deleted", "message": "the cluster was deleted "
                                                "before it was built", "errors": []}, message="cluster deleted")
        return
    jobs.mark_running(session, job, f"building cluster '{cluster.name}'")
    session.commit()  # pollers (and the reaper) see "running" while the topology below is inserted
    session.refresh(job, with_for_update=True)
    if job.state != "running":  # the reaper failed it meanwhile (its lease was lost): the name is free again
        return
    if session.scalar(select(Server.id).where(Server.cluster_id == cluster.id).limit(1)) is None:
        try:
            spec = validate_cluster(job.result["document"])
        except E3Error as exc:  # the catalogue changed since the request was validated
            give_up(session, job, exc.code, exc.message)
            return
        servers, nodes = clusters.build_topology(session, cluster, spec)
        events.emit(session, "cluster.created", f"cluster/{cluster.name}", cluster.id, servers=servers)
    summary = clusters.cluster_summaries(session, [cluster])[0]
    job.result = dict(cluster_id=str(cluster.id), cluster=cluster.name, servers=summary["servers"],
                      nodes=summary["nodes"])
    jobs.mark_finished(session, job, error=None, message=f"built cluster '{cluster.name}': {summary['servers']} "
                                                          f"servers, {summary['nodes']} computing nodes")
