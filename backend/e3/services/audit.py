"""The audit log: who changed what, written in the same transaction as the change."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.core.security import Actor
from e3.models import AuditEntry
from e3.schemas.common import PageParams
from e3.services.pagination import paginate


def record(session: Session, actor: Actor, action: str, target: str, **detail) -> None:
    session.add(AuditEntry(token_id=actor.token_id, token_name=actor.name, action=action, target=target,
                           detail=detail))


def list_entries(session: Session, page: PageParams, action: str | None = None) -> tuple[list[AuditEntry], int]:
    stmt = select(AuditEntry).order_by(AuditEntry.id.desc())
    if action:
        stmt = stmt.where(AuditEntry.action == action)
    return paginate(session, stmt, page)
