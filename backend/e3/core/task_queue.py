"""Handing work to a Celery worker after the database commit: the one seam for it.

A worker must find the rows its task is about when it picks the task up, so the session is committed
before the message is sent (Celery's own answer to this is a `delay_on_commit`-style helper). If the
broker (Redis) cannot take the message, the caller's `on_unreachable(reason)` records in the same session
that the work will not run, that is committed too, and the client gets a 503 with the message it returned.
Tasks are sent by name, so the callers (routes, services) never import e3.tasks.
"""

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from e3.core.errors import ServiceUnavailable

PLACE_DEPLOYMENT = "e3.place_deployment"  # e3.tasks.deployments.place_deployment(job_id)
MIGRATE = "e3.migrate"  # e3.tasks.migrations.migrate(migration_id)
ROLL_DEPLOYMENT = "e3.roll_deployment"  # e3.tasks.deployments.roll_deployment(job_id)
BUILD_CLUSTER = "e3.build_cluster"  # e3.tasks.clusters.build_cluster(job_id)


def enqueue_after_commit(session: Session, task: str, *args: Any, on_unreachable: Callable[[str], str]) -> None:
    """Commit `session`, then send `task(*args)` (ids are sent as strings). If the broker is unreachable:
    `on_unreachable(reason)` records the outcome and returns the client's message, the session is committed
    again and ServiceUnavailable (code `queue_unavailable`) raised with that message."""
    from e3.core.celery_app import celery_app  # the Celery app only where work is queued

    session.commit()
    try:
        celery_app.send_task(task, args=[str(a) for a in args])
    except Exception as exc:  # broker down: what was committed must not wait forever for a worker
        message = on_unreachable(f"could not reach the job queue (Redis): {exc}")
        session.commit()
        raise ServiceUnavailable(message, code="queue_unavailable") from exc
