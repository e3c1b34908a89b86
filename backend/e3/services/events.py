"""Events: state changes worth a timeline entry, and reading them back in order.

Each transaction that adds events also sends a Postgres NOTIFY on `e3_events` (sent once per transaction,
delivered when it commits, never for one rolled back): live readers LISTEN and read on from their cursor
(`list_events(since=...)`), so a burst of events costs them one read and an event is pushed only once
it is stored.
"""

import uuid

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from e3.core.errors import FieldError, ValidationFailed
from e3.models import Cluster, Event


NOTIFY_CHANNEL = "e3_events"


def emit(session: Session, kind: str, subject: str, cluster_id: uuid.UUID | None = None, **data) -> None:
    session.add(Event(kind=kind, subject=subject, cluster_id=cluster_id, data=data))
    transaction = session.get_transaction()
    if session.info.get(NOTIFY_CHANNEL) is not transaction:  # one NOTIFY per transaction is enough
        session.execute(text(f"NOTIFY {NOTIFY_CHANNEL}"))
        session.info[NOTIFY_CHANNEL] = session.get_transaction()


def cluster_id_named(session: Session, cluster: str) -> uuid.UUID:
    """The id of the cluster called `cluster`; a 422 on the `cluster` field when there is none."""
    cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == cluster))
    if cluster_id is None:
        raise ValidationFailed([FieldError("cluster", f"no cluster named {cluster!r}", "not_found")])
    return cluster_id


def list_events(session: Session, *, since: int = 0, limit: int = 100, kind: str | None = None,
                cluster: str | None = None, subject: str | None = None) -> list[dict]:
    """Up to `limit` events with an id above `since`, oldest first. `kind` ending in "." is a prefix."""
    stmt = select(Event).where(Event.id > since).order_by(Event.id).limit(limit)
    if kind:
        stmt = stmt.where(Event.kind.startswith(kind, autoescape=True) if kind.endswith(".") else Event.kind == kind)
    if cluster:
        stmt = stmt.where(Event.cluster_id == cluster_id_named(session, cluster))
    if subject:
        stmt = stmt.where(Event.subject == subject)
    return [dict(id=e.id, ts=e.ts, kind=e.kind, cluster_id=e.cluster_id, subject=e.subject, data=e.data)
            for e in session.scalars(stmt)]
