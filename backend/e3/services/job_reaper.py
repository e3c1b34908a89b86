"""Jobs whose worker is gone: failed, so that no deployment stays `placing` and every one can be deleted,
and no cluster stays half-built under its name.

A deploy, rollout or cluster-build job is `running` only while a worker holds its lease (core.job_lease). One
that is running with no lease at two sweeps in a row (the lease's refresh has had time to come back after a
Redis restart) lost its worker: it is failed with code `worker_lost`, and its deployment, if it was still being
placed, fails with the same error (it can then be deleted, or deployed again); a cluster build gives the
cluster's name back, as any failed build does (services.cluster_jobs: create it again). Placement and a
cluster's topology are each all or nothing in one transaction, so a worker that died midway left no instance
and no server behind. A redelivered copy of the task (Celery's late ack) later finds the job finished and does
nothing.
"""

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.models import Cluster, Deployment, Job
from e3.services import cluster_jobs, events, jobs

REAPED_KINDS = ("deploy", "rollout", cluster_jobs.KIND)  # the jobs run under a lease (e3.tasks.deployments, .clusters)
WORKER_LOST = "worker_lost"


def running_jobs(session: Session) -> list[uuid.UUID]:
    """The jobs run under a lease (REAPED_KINDS) marked running."""
    return list(session.scalars(select(Job.id).where(Job.state == "running", Job.kind.in_(REAPED_KINDS))))


def end_job(session: Session, job: Job, code: str, message: str) -> None:
    """Fail `job` (code, message); its deployment too when it was not placed yet, or its cluster's name is given
    back (a cluster build). An event says so."""
    if job.kind == cluster_jobs.KIND:
        name = _cluster_name(session, job)
        cluster_jobs.give_up(session, job, code, message)
        # no cluster_id: the cluster's row is gone, and its events with it
        events.emit(session, f"job.{code}", f"cluster/{name}", None, job=str(job.id), job_kind=job.kind, error=message)
        return
    error = {"code": code, "message": message, "errors": []}
    jobs.mark_finished(session, job, error=error, message=message)
    deployment = session.get(Deployment, job.deployment_id) if job.deployment_id else None
    if deployment is not None and deployment.state in ("pending", "placing"):
        deployment.state, deployment.error = "failed", error
    subject = f"deployment/{job.deployment_id}" if job.deployment_id else f"job/{job.id}"
    events.emit(session, f"job.{code}", subject, deployment.cluster_id if deployment else None,
                application=events.application_of(session, deployment_id=job.deployment_id)
                if job.deployment_id else None, job=str(job.id), job_kind=job.kind, error=message)


def _cluster_name(session: Session, job: Job) -> str:
    cluster = session.get(Cluster, uuid.UUID(job.result["cluster_id"]))
    return cluster.name if cluster is not None else job.result["cluster_id"]


def fail_orphans(session: Session, job_ids: list[uuid.UUID]) -> list[uuid.UUID]:
    """Fail the jobs among `job_ids` still running (their worker is gone); returns those failed."""
    failed = []
    for job_id in job_ids:
        job = session.get(Job, job_id, with_for_update=True)
        if job is None or job.state != "running":
            continue  # finished meanwhile
        again = "create the cluster again" if job.kind == cluster_jobs.KIND else "deploy again"
        end_job(session, job, WORKER_LOST, f"the worker running this {job.kind} job is gone (no lease since "
                                             f"{job.started_at:%H:%M:%S} UTC or later); {again}")
        failed.append(job_id)
    return failed


class Reaper:
    """Sweeps: `sweep(session, leased)` fails the running jobs that had no lease at this sweep and the last."""

    def __init__(self):
        self._suspects: set[uuid.UUID] = set()

    def sweep(self, session: Session, leased) -> list[uuid.UUID]:
        running = running_jobs(session)
        held = leased(running)
        suspects = {j for j in running if str(j) not in held}
        orphans = [j for j in running if j in suspects and j in self._suspects]
        self._suspects = suspects
        return fail_orphans(session, orphans)
