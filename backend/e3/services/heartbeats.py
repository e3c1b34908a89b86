"""Heartbeat storage: daily partitions, batched COPY ingest, retention by dropping whole partitions.

The controller's writer uses `copy_text` with lines the intake already formatted (controller.heartbeat_intake,
columns as e3.heartbeat_record.COPY_COLUMNS), creating only the day partitions it has not seen.
"""

from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone

from sqlalchemy import text
from sqlalchemy.orm import Session

from e3.heartbeat_record import COPY_COLUMNS
from e3.models.heartbeat import partition_name

COPY_SQL = f"COPY heartbeats ({', '.join(COPY_COLUMNS)}) FROM STDIN"
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def ensure_partitions(session: Session, days: Iterable[date]) -> None:
    for day in sorted(set(days)):
        start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        session.execute(text(
            f"CREATE TABLE IF NOT EXISTS {partition_name(start)} PARTITION OF heartbeats "
            f"FOR VALUES FROM ('{start.isoformat()}') TO ('{(start + timedelta(days=1)).isoformat()}')"))


def day_of(epoch_day: int) -> date:
    """The date of a day number (days since 1970-01-01, UTC)."""
    return date.fromordinal(_EPOCH_ORDINAL + epoch_day)


def copy_text(session: Session, chunks: Sequence[str], new_days: Iterable[int] = ()) -> None:
    """COPY rows already in COPY text format (one line per row, columns as COPY_COLUMNS), creating the
    partitions of `new_days` (days since the epoch) first."""
    new_days = list(new_days)
    if new_days:
        ensure_partitions(session, (day_of(d) for d in new_days))
    cursor = session.connection().connection.cursor()  # the psycopg 3 cursor under SQLAlchemy
    with cursor.copy(COPY_SQL) as copy:
        copy.write("".join(chunks).encode())


def drop_partitions_before(session: Session, cutoff: datetime) -> list[str]:
    """Retention: drop every daily partition that ends on or before `cutoff`. Returns the names dropped."""
    names = session.execute(text(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'heartbeats'")).scalars()
    last = partition_name(cutoff - timedelta(days=1))
    dropped = sorted(n for n in names if n <= last)
    for name in dropped:
        session.execute(text(f"DROP TABLE {name}"))
    return dropped
