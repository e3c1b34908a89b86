"""Celery task for deployments: an id in, the service does the work."""

import uuid

from sqlalchemy.exc import OperationalError

from e3.core.celery_app import celery_app
from e3.core.db import session_scope
from e3.core.task_queue import PLACE_DEPLOYMENT
from e3.services.deployments import run_placement


@celery_app.task(name=PLACE_DEPLOYMENT, acks_late=True, autoretry_for=(OperationalError,),
                 retry_backoff=True, retry_backoff_max=60, max_retries=5)
def place_deployment(job_id: str) -> str:
    """Place the deployment of job `job_id`. Retried only when the database is briefly unreachable."""
    with session_scope() as session:
        run_placement(session, uuid.UUID(job_id))
    return job_id
