"""Celery task building a large cluster's topology: a job id in, the service does the work."""

import uuid

from e3.core import job_lease
from e3.core.celery_app import celery_app
from e3.core.db import session_scope
from e3.core.task_queue import BUILD_CLUSTER
from e3.services.cluster_jobs import run_cluster_job
from e3.tasks import JOB_TASK_OPTIONS


@celery_app.task(name=BUILD_CLUSTER, **JOB_TASK_OPTIONS)
def build_cluster(job_id: str) -> str:
    """Build the cluster of job `job_id` under its lease. Retried only when the database is briefly unreachable."""
    with job_lease.held(job_id), session_scope() as session:
        run_cluster_job(session, uuid.UUID(job_id))
    return job_id
