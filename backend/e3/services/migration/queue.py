"""Handing a recorded migration to a worker: its first round issued and committed with it, then queued."""

import uuid

from sqlalchemy.orm import Session

from e3.core.task_queue import MIGRATE, enqueue_after_commit
from e3.services.migration import records, runner


def queue_migration(session: Session, migration_id: uuid.UUID) -> None:
    """Issue the `pending` migration's first round and commit it with the migration (its commands go out at once,
    while a worker picks the run up), then hand it to a worker. If the queue (Redis) is unreachable the
    migration is marked failed (nothing issued), or its target copy's removal is issued and the migration left
    rolling back for the next worker; ServiceUnavailable says so."""
    issued = runner.begin(session, migration_id)

    def unqueued(reason: str) -> str:
        if issued:
            runner.abandon(session, migration_id, dict(code="queue_unavailable", message=reason))
            return f"the job queue is unreachable; migration {migration_id} was left rolling back: its target copy is removed"
        records.fail_unqueued(session, migration_id, reason)
        return f"the job queue is unreachable; migration {migration_id} was marked failed (nothing was changed)"

    enqueue_after_commit(session, MIGRATE, migration_id, on_unreachable=unqueued)
