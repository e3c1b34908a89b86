"""Celery tasks: thin adapters, a job's id in, a service does the work."""

from sqlalchemy.exc import OperationalError

# A job task's delivery: acknowledged when done (a worker that dies mid-task leaves it to another), retried
# with backoff only while the database is briefly unreachable.
JOB_TASK_OPTIONS = dict(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, retry_backoff_max=60,
                        max_retries=5)
