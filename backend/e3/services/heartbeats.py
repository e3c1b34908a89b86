"""Heartbeat storage: daily partitions, batched COPY ingest, retention by dropping whole partitions."""

import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone

from sqlalchemy import text
from sqlalchemy.orm import Session

from e3.models.heartbeat import HEARTBEAT_COLUMNS, partition_name


def ensure_partitions(session: Session, days: Iterable[date]) -> None:
    for day in sorted(set(days)):
        start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        session.execute(text(
            f"CREATE TABLE IF NOT EXISTS {partition_name(start)} PARTITION OF heartbeats "
            f"FOR VALUES FROM ('{start.isoformat()}') TO ('{(start + timedelta(days=1)).isoformat()}')"))


def ingest(session: Session, rows: Sequence[dict]) -> int:
    """Write a batch of heartbeats with one COPY (never an INSERT per heartbeat). Returns rows written."""
    if not rows:
        return 0
    ensure_partitions(session, (r["ts"].astimezone(timezone.utc).date() for r in rows))
    cursor = session.connection().connection.cursor()  # the psycopg 3 cursor under SQLAlchemy
    with cursor.copy(f"COPY heartbeats ({', '.join(HEARTBEAT_COLUMNS)}) FROM STDIN") as copy:
        for r in rows:
            copy.write_row([json.dumps(r[c]) if c == "instances" and r.get(c) is not None else r.get(c)
                            for c in HEARTBEAT_COLUMNS])
    return len(rows)


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
