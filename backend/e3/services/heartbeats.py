"""Heartbeat storage: daily partitions, batched COPY ingest, retention by dropping whole partitions.

The controller's writer uses `copy_text` with lines the intake already formatted (controller.heartbeat_intake,
columns as e3.heartbeat_record.COPY_COLUMNS), creating only the day partitions it has not seen.
"""

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from e3.heartbeat_record import COPY_COLUMNS
from e3.services import day_partitions

COPY_SQL = f"COPY heartbeats ({', '.join(COPY_COLUMNS)}) FROM STDIN"


def copy_text(session: Session, chunks: Sequence[str], new_days: Iterable[int] = ()) -> None:
    """COPY rows already in COPY text format (one line per row, columns as COPY_COLUMNS), creating the
    partitions of `new_days` (days since the epoch) first."""
    new_days = list(new_days)
    if new_days:
        day_partitions.ensure_partitions(session, "heartbeats", (day_partitions.day_of(d) for d in new_days))
    cursor = session.connection().connection.cursor()  # the psycopg 3 cursor under SQLAlchemy
    with cursor.copy(COPY_SQL) as copy:
        copy.write("".join(chunks).encode())


def drop_partitions_before(session: Session, cutoff: datetime) -> list[str]:
    """Retention: drop every daily partition that ends on or before `cutoff`. Returns the names dropped."""
    return day_partitions.drop_partitions_before(session, "heartbeats", cutoff)
