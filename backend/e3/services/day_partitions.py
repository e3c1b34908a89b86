"""Day partitions of the time-partitioned tables (node_rollups, instance_rollups): created on
write, dropped whole by retention. A table's partition for a UTC day is `<table>_YYYYMMDD`."""

from collections.abc import Iterable
from datetime import date, datetime, timedelta, timezone

from sqlalchemy import text
from sqlalchemy.orm import Session

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def partition_name(table: str, day: date) -> str:
    return f"{table}_{day:%Y%m%d}"


def day_of(epoch_day: int) -> date:
    """The date of a day number (days since 1970-01-01, UTC)."""
    return date.fromordinal(_EPOCH_ORDINAL + epoch_day)


def ensure_partitions(session: Session, table: str, days: Iterable[date]) -> None:
    """Create `table`'s partitions of `days` that do not exist yet."""
    for day in sorted(set(days)):
        start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        session.execute(text(
            f"CREATE TABLE IF NOT EXISTS {partition_name(table, day)} PARTITION OF {table} "
            f"FOR VALUES FROM ('{start.isoformat()}') TO ('{(start + timedelta(days=1)).isoformat()}')"))


def drop_partitions_before(session: Session, table: str, cutoff: datetime) -> list[str]:
    """Retention: drop every day partition of `table` that ends on or before `cutoff`. Returns the names."""
    names = session.execute(text(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = :table"), {"table": table}).scalars()
    last = partition_name(table, (cutoff - timedelta(days=1)).date())
    dropped = sorted(n for n in names if n <= last)
    for name in dropped:
        session.execute(text(f"DROP TABLE {name}"))
    return dropped
