"""Jobs: state and progress of background work, written so a client can poll it."""

import uuid
from datetime import datetime, timezone

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from e3.core.db import session_scope
from e3.core.errors import NotFound
from e3.models import Job
from e3.schemas.common import PageParams
from e3.services.pagination import paginate


def get_job(session: Session, job_id: uuid.UUID) -> Job:
    job = session.get(Job, job_id)
    if job is None:
        raise NotFound(f"job {job_id} not found")
    return job


def list_jobs(session: Session, page: PageParams, state: str | None = None) -> tuple[list[Job], int]:
    stmt = select(Job).order_by(Job.created_at.desc())
    if state:
        stmt = stmt.where(Job.state == state)
    return paginate(session, stmt, page)


def report_progress(job_id: uuid.UUID, progress: float, message: str) -> None:
    """Progress in its own short transaction, so pollers see it while the job's work is uncommitted."""
    with session_scope() as session:
        session.execute(update(Job).where(Job.id == job_id, Job.state == "running")
                        .values(progress=min(max(progress, 0.0), 1.0), message=message[:1000]))


def mark_running(session: Session, job: Job, message: str) -> None:
    job.state, job.started_at, job.message, job.progress = "running", datetime.now(timezone.utc), message, 0.0


def mark_finished(session: Session, job: Job, *, error: dict | None, message: str) -> None:
    job.state = "failed" if error else "succeeded"
    job.error, job.message, job.finished_at = error, message[:1000], datetime.now(timezone.utc)
    if not error:
        job.progress = 1.0
