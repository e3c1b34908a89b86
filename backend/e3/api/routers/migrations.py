"""Migrations: move an instance to another node (or only predict it); follow the steps."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from e3.api.deps import DeployDep, PageDep, ReadDep, SessionDep
from e3.schemas.migration import MigrationAnswer, MigrationCreate, MigrationPublic, MigrationsPublic
from e3.services.migration import records
from e3.services.migration.queue import queue_migration

router = APIRouter(tags=["migrations"])

STATES = "^(pending|running|succeeded|rolling_back|rolled_back|failed)$"


@router.post("/instances/{instance_id}/migrations", response_model=MigrationAnswer,
             status_code=status.HTTP_202_ACCEPTED, responses={200: {"description": "The dry run's prediction"}})
def create_migration(instance_id: uuid.UUID, body: MigrationCreate, session: SessionDep, actor: DeployDep,
                     response: Response) -> dict:
    """Migrate an instance to `target_node` (202; follow `status_url`), or with `dry_run` only check it and
    answer the cost model's predicted change in latency and joules per request (200)."""
    answer, migration = records.request_migration(session, instance_id, body.target_node, dry_run=body.dry_run,
                                                  actor=actor)
    if migration is None:
        response.status_code = status.HTTP_200_OK
        return answer
    queue_migration(session, migration.id)
    return answer


@router.get("/migrations", response_model=MigrationsPublic)
def list_migrations(session: SessionDep, actor: ReadDep, page: PageDep, cluster: str | None = None,
                    state: Annotated[str | None, Query(pattern=STATES)] = None,
                    instance_id: uuid.UUID | None = None) -> dict:
    """List migrations, newest first, with their steps and step timings."""
    items, total = records.list_migrations(session, page, cluster=cluster, state=state, instance_id=instance_id)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/migrations/{migration_id}", response_model=MigrationPublic)
def get_migration(migration_id: uuid.UUID, session: SessionDep, actor: ReadDep) -> dict:
    """Get one migration: its state, its steps with their timings, and its error if it did not succeed."""
    return records.migration_public(session, migration_id)
