"""Celery tasks for deployments (place one, roll one to another version): an id in, the service does the work."""

import uuid

from e3.core import job_lease
from e3.core.celery_app import celery_app
from e3.core.db import session_scope
from e3.core.task_queue import PLACE_DEPLOYMENT, ROLL_DEPLOYMENT
from e3.services.deployments import run_placement
from e3.services.rollouts import run_rollout
from e3.tasks import JOB_TASK_OPTIONS


@celery_app.task(name=PLACE_DEPLOYMENT, **JOB_TASK_OPTIONS)
def place_deployment(job_id: str) -> str:
    """Place the deployment of job `job_id`. Retried only when the database is briefly unreachable."""
    with job_lease.held(job_id), session_scope() as session:
        run_placement(session, uuid.UUID(job_id))
    return job_id


@celery_app.task(name=ROLL_DEPLOYMENT, **JOB_TASK_OPTIONS)
def roll_deployment(job_id: str) -> str:
    """Roll a deployment to another version (job `job_id`): place the new one, wait for its agents, then
    remove the old one (or the new one, if its agents refused it). Holds a worker slot while it waits."""
    with job_lease.held(job_id), session_scope() as session:
        run_rollout(session, uuid.UUID(job_id))
    return job_id
