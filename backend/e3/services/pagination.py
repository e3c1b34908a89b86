"""Offset pagination over any SELECT, with the total count."""

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from e3.schemas.common import PageParams


def paginate(session: Session, stmt: Select, page: PageParams, *, scalars: bool = True) -> tuple[list, int]:
    """The page's items and the total. One query: the total is a window count over the whole result (computed
    before LIMIT), a round trip less per list than a COUNT(*) of its own; only a page past the end (no row to
    carry the count) asks for the total separately. `stmt` must not be DISTINCT (the window would count the
    rows before DISTINCT removes any)."""
    rows = session.execute(stmt.add_columns(func.count().over()).limit(page.limit).offset(page.offset)).all()
    if rows:
        total = rows[0][-1]
    elif page.offset:
        total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    else:
        total = 0
    return [row[0] for row in rows] if scalars else [tuple(row[:-1]) for row in rows], total
