"""Celery tasks for migrations: run one; on a worker's start, resume every migration left unfinished."""

import logging
import uuid

from celery.signals import worker_ready
from sqlalchemy.exc import OperationalError

from e3.core.celery_app import celery_app
from e3.core.db import session_scope
from e3.core.task_queue import MIGRATE
from e3.services.migration import runner

log = logging.getLogger(__name__)


@celery_app.task(name=MIGRATE, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
                 retry_backoff_max=30, max_retries=5)
def migrate(migration_id: str) -> str:
    """Run migration `migration_id` to its end (or resume it). Returns its final state."""
    with session_scope() as session:
        return runner.run_migration(session, uuid.UUID(migration_id))


@worker_ready.connect
def resume_unfinished(sender=None, **_) -> None:
    """A worker that died mid-migration left it running: queue every unfinished one again. A copy that
    is still being run elsewhere finds its advisory lock taken and returns at once."""
    try:
        with session_scope() as session:
            ids = runner.unfinished(session)
    except OperationalError as exc:
        log.warning("could not look for unfinished migrations: %s", exc)
        return
    for migration_id in ids:
        log.info("resuming migration %s", migration_id)
        migrate.delay(str(migration_id))
