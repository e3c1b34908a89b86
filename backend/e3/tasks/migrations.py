"""Celery tasks for migrations: run one; on a worker's start, resume every migration left unfinished."""

import logging
import uuid

from celery.signals import worker_ready
from sqlalchemy.exc import OperationalError

from e3.core.celery_app import celery_app
from e3.core.db import session_scope
from e3.core.errors import ServiceUnavailable
from e3.services import migration_runner, migrations

log = logging.getLogger(__name__)


@celery_app.task(name="e3.migrate", acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
                 retry_backoff_max=30, max_retries=5)
def migrate(migration_id: str) -> str:
    """Run migration `migration_id` to its end (or resume it). Returns its final state."""
    with session_scope() as session:
        return migration_runner.run_migration(session, uuid.UUID(migration_id))


def queue(session, migration_id: uuid.UUID) -> None:
    """Issue the `pending` migration's first round and commit it with the migration (its commands go out at once,
    while a worker picks the run up), then hand it to a worker. If the queue (Redis) is unreachable the
    migration is marked failed (nothing issued), or its target copy's removal is issued and the migration left
    rolling back for the next worker; ServiceUnavailable says so."""
    issued = migration_runner.begin(session, migration_id)
    session.commit()  # the worker must find the migration when it picks the task up
    try:
        migrate.delay(str(migration_id))
    except Exception as exc:  # broker down: the migration must not stay pending forever
        reason = f"could not reach the job queue (Redis): {exc}"
        if issued:
            migration_runner.abandon(session, migration_id, dict(code="queue_unavailable", message=reason))
        else:
            migrations.fail_unqueued(session, migration_id, reason)
        session.commit()
        raise ServiceUnavailable(f"the job queue is unreachable; migration {migration_id} was "
                                 + ("left rolling back: its target copy is removed" if issued else
                                    "marked failed (nothing was changed)"), code="queue_unavailable") from exc


@worker_ready.connect
def resume_unfinished(sender=None, **_) -> None:
    """A worker that died mid-migration left it running: queue every unfinished one again. A copy that
    is still being run elsewhere finds its advisory lock taken and returns at once."""
    try:
        with session_scope() as session:
            ids = migration_runner.unfinished(session)
    except OperationalError as exc:
        log.warning("could not look for unfinished migrations: %s", exc)
        return
    for migration_id in ids:
        log.info("resuming migration %s", migration_id)
        migrate.delay(str(migration_id))
