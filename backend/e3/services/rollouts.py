"""Rolling a deployment to another version of its application, blue/green: the new version is placed beside
the old one, and the old one is removed only once the new one runs.

A rollout is a job (kind `rollout`) with a new deployment that `replaces` the old one:
  1. the new deployment is placed like any other (all or nothing, on the same cluster, with the same
     algorithm), while the old one keeps serving; a placement that fails ends the rollout (the job says why,
     the new deployment's row is removed), the old one kept;
  2. the worker follows the new deployment's status until its agents have answered (at most `settle_s`):
     running (or placed, on a cluster no agent runs) -> the old deployment is removed, the job succeeds;
     degraded, failed, or still deploying at the deadline -> the NEW deployment is removed, the old one kept,
     the job fails with the reason (the agents' refusal, or the time-out).
So a rollout never leaves the application with neither version, and never reports success for a version
its agents refused. Both copies need room on the cluster at once: a cluster too full to hold them fails the
placement, and says which resource ran out.
"""

import time
import uuid
from collections.abc import Callable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from e3.core.errors import Conflict, FieldError, NotFound, ValidationFailed
from e3.core.security import SYSTEM, Actor
from e3.models import Application, ApplicationVersion, Deployment, Instance, Job
from e3.services import audit, events, jobs
from e3.services.deployment_status import deployment_status
from e3.services.deployments import delete_deployment, refusals_of, run_placement

SETTLE_S = 60.0  # how long the agents have to answer for the new version's instances
POLL_S = 0.5


def request_rollout(session: Session, deployment_id: uuid.UUID, version: int, actor: Actor) -> tuple[Deployment, Job]:
    """Record the new deployment (pending, replacing `deployment_id`) and its queued job; refused with a clear
    error when the deployment is not placed, is already being rolled, or `version` does not exist or is the
    one it runs. Not yet enqueued."""
    old = session.get(Deployment, deployment_id, with_for_update=True)
    if old is None:
        raise NotFound(f"deployment {deployment_id} not found")
    if old.state != "placed":
        raise Conflict(f"deployment {deployment_id} is {old.state}: only a placed deployment can be rolled",
                       code="deployment_busy")
    rolling = session.scalar(select(Deployment.id).where(Deployment.replaces_id == old.id,
                                                         Deployment.state.in_(("pending", "placing", "placed"))))
    if rolling is not None:
        raise Conflict(f"deployment {deployment_id} is already being rolled (to deployment {rolling})",
                       code="rollout_under_way")
    app = session.get(Application, old.application_id)
    current = session.get(ApplicationVersion, old.application_version_id)
    target = session.scalar(select(ApplicationVersion).where(ApplicationVersion.application_id == app.id,
                                                             ApplicationVersion.version == version))
    if target is None:
        raise ValidationFailed([FieldError("version", f"application '{app.name}' has no version {version} "
                                                      f"(latest is {app.latest_version})", "not_found")])
    if target.id == current.id:
        raise ValidationFailed([FieldError("version", f"deployment {deployment_id} already runs {app.name} "
                                                      f"v{version}", "unchanged")])
    new = Deployment(id=uuid.uuid4(), application_id=app.id, application_version_id=target.id,
                     cluster_id=old.cluster_id, algorithm=old.algorithm, anti_affinity=old.anti_affinity,
                     state="pending", replaces_id=old.id)
    job = Job(id=uuid.uuid4(), kind="rollout", state="queued", deployment_id=new.id,
              message=f"waiting for a worker to roll {app.name} v{current.version} -> v{version}")
    session.add_all([new, job])
    audit.record(session, actor, "deployment.rollout", f"deployment/{old.id}", application=app.name,
                 from_version=current.version, to_version=version, new_deployment=str(new.id), job=str(job.id))
    session.flush()
    return new, job


def fail_unqueued(session: Session, job: Job, reason: str) -> None:
    """The job could not be handed to the queue: the rollout failed before it began (the old one runs on)."""
    error = {"code": "queue_unavailable", "message": reason, "errors": []}
    jobs.mark_finished(session, job, error=error, message=reason)
    new = session.get(Deployment, job.deployment_id)
    new.state, new.error = "failed", error


def _status(session: Session, deployment_id: uuid.UUID):
    states = dict(session.execute(select(Instance.state, func.count()).where(Instance.deployment_id == deployment_id)
                                  .group_by(Instance.state)).all())
    refusals = refusals_of(session, [deployment_id]).get(deployment_id, ()) if states.get("failed") else ()
    return deployment_status("placed", None, states, refusals), states


def run_rollout(session: Session, job_id: uuid.UUID, *, settle_s: float = SETTLE_S,
                sleep: Callable[[float], None] = time.sleep) -> None:
    """Carry out rollout job `job_id` (idempotent: a finished job is left alone, a redelivered one goes on
    from where the last worker stopped)."""
    if not run_placement(session, job_id, finish=False):
        _drop_unplaced(session, job_id)
        session.commit()  # a failed placement ended the job; the old deployment was never touched
        return
    session.commit()
    job = session.get(Job, job_id)
    new = session.get(Deployment, job.deployment_id)
    new_id, old_id = new.id, new.replaces_id
    deadline = time.monotonic() + settle_s
    while True:
        if session.get(Deployment, new_id) is None:  # undeployed by someone while its agents were answering
            _end_without_new(session, job_id, old_id)
            return
        status, states = _status(session, new_id)
        if status.status not in ("deploying",) or time.monotonic() > deadline:
            break
        jobs.report_progress(job_id, 0.5 + 0.4 * states.get("running", 0) / max(sum(states.values()), 1),
                             f"waiting for the agents: {status.reason}")
        session.rollback()  # end the snapshot: the next read sees the agents' latest answers
        sleep(POLL_S)
    job = session.get(Job, job_id, with_for_update=True)
    if job.state != "running":
        return
    application = session.get(Application, new.application_id).name
    if status.status in ("running", "placed"):
        _finish_replacing(session, job, new)
        events.emit(session, "deployment.rolled", f"deployment/{new.id}", new.cluster_id, application=application,
                    replaced=str(new.replaces_id) if new.replaces_id else None, message=job.message)
        return
    reason = status.reason if status.status != "deploying" else \
        f"the agents had not all answered after {settle_s:.0f} s ({status.reason})"
    try:
        delete_deployment(session, new.id, SYSTEM)
    except Conflict as exc:  # e.g. a migration of a new instance under way: both run; say so, do not hide it
        reason += f"; the new deployment {new.id} could not be removed: {exc.message}"
    jobs.mark_finished(session, job, error={"code": f"rollout_{status.status}", "message": reason, "errors": []},
                       message=f"rolled back: the new version is {status.status}: {reason}; deployment {old_id} "
                               f"runs on")
    events.emit(session, "deployment.rollout_failed", f"deployment/{old_id}", new.cluster_id,
                application=application, reason=reason)


def _end_without_new(session: Session, job_id: uuid.UUID, old_id: uuid.UUID | None) -> None:
    """The new deployment was deleted before its agents had answered: the rollout failed, the old one untouched."""
    job = session.get(Job, job_id, with_for_update=True)
    if job.state == "running":
        reason = f"the new deployment was deleted before its agents had answered; deployment {old_id} runs on"
        jobs.mark_finished(session, job, error={"code": "rollout_cancelled", "message": reason, "errors": []},
                           message=f"rolled back: {reason}")


def _drop_unplaced(session: Session, job_id: uuid.UUID) -> None:
    """A new version that could not be placed leaves nothing behind but the job's error: its deployment row
    (failed, no instance) goes, so the application shows only the deployment that runs on."""
    job = session.get(Job, job_id)
    new = session.get(Deployment, job.deployment_id) if job is not None and job.deployment_id else None
    if new is not None and new.state == "failed" and new.replaces_id is not None:
        session.delete(new)


def _finish_replacing(session: Session, job: Job, new: Deployment) -> None:
    old_id = new.replaces_id
    try:
        if old_id is not None and session.get(Deployment, old_id) is not None:
            delete_deployment(session, old_id, SYSTEM)
    except Conflict as exc:  # e.g. a migration of the old one under way: both run; say so, do not hide it
        jobs.mark_finished(session, job, error={"code": "old_deployment_kept", "message": exc.message, "errors": []},
                           message=f"the new version runs as deployment {new.id}, but deployment {old_id} could "
                                   f"not be removed: {exc.message}; delete it when that ends")
        return
    jobs.mark_finished(session, job, error=None,
                       message=f"rolled: deployment {new.id} runs the new version; deployment {old_id} removed")
