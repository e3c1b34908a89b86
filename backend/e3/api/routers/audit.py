"""The audit log of writes (admin scope)."""

from fastapi import APIRouter

from e3.api.deps import AdminDep, PageDep, SessionDep
from e3.schemas.auth import AuditPublic
from e3.services import audit

router = APIRouter(prefix="/audit", tags=["audit"])


@router.get("", response_model=AuditPublic)
def list_audit(session: SessionDep, actor: AdminDep, page: PageDep, action: str | None = None) -> dict:
    """List audit entries, newest first; filter by action such as cluster.create."""
    items, total = audit.list_entries(session, page, action)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)
