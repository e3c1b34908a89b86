"""Seeding the catalogue tables from e3.catalog (idempotent: an upsert per row)."""

import dataclasses

from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from e3 import catalog
from e3.models import ServerTypeRow, ServiceTypeRow


def _upsert(session: Session, model, rows: list[dict]) -> None:
    stmt = insert(model).values(rows)
    session.execute(stmt.on_conflict_do_update(index_elements=["name"], set_={"data": stmt.excluded.data}))


def seed_catalog(session: Session) -> None:
    _upsert(session, ServiceTypeRow, [{"name": n, "data": dataclasses.asdict(s)}
                                      for n, s in catalog.service_types().items()])
    _upsert(session, ServerTypeRow, [{"name": n, "data": dataclasses.asdict(s)}
                                     for n, s in catalog.server_types().items()])
