"""Offset pagination over any SELECT, with the total count."""

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from e3.schemas.common import PageParams


def paginate(session: Session, stmt: Select, page: PageParams, *, scalars: bool = True) -> tuple[list, int]:
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    result = session.execute(stmt.limit(page.limit).offset(page.offset))
    return (list(result.scalars()) if scalars else list(result)), total
