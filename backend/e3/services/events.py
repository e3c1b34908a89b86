"""Events: state changes worth a timeline entry."""

import uuid

from sqlalchemy.orm import Session

from e3.models import Event


def emit(session: Session, kind: str, subject: str, cluster_id: uuid.UUID | None = None, **data) -> None:
    session.add(Event(kind=kind, subject=subject, cluster_id=cluster_id, data=data))
