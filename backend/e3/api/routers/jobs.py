"""Jobs: state and progress of background work."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Query

from e3.api.deps import PageDep, ReadDep, SessionDep
from e3.schemas.deployment import JobPublic, JobsPublic
from e3.services import jobs

router = APIRouter(prefix="/jobs", tags=["jobs"])


@router.get("", response_model=JobsPublic)
def list_jobs(session: SessionDep, actor: ReadDep, page: PageDep,
              state: Annotated[str | None, Query(pattern="^(queued|running|succeeded|failed)$")] = None) -> dict:
    """List jobs, newest first."""
    items, total = jobs.list_jobs(session, page, state)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/{job_id}", response_model=JobPublic)
def get_job(job_id: uuid.UUID, session: SessionDep, actor: ReadDep):
    """Get a job's state, progress and error."""
    return jobs.get_job(session, job_id)
