"""Writing telemetry rollups (e3.rollup.steps): rows added to what `node_rollups` and `instance_rollups`
already hold for their step.

Rows go by COPY into a temporary table, then one INSERT ... ON CONFLICT per table adds them to the stored
rows: sums and counts added, maxima kept, the power source `mixed` once two pieces differ. So a step
written in pieces (a late heartbeat, a step split between two writes) holds exactly what all its
heartbeats added, and writing a piece is one transaction: all of it or none.
"""

from collections.abc import Iterable, Sequence
from datetime import date, datetime, timezone
from functools import lru_cache

from sqlalchemy.orm import Session

from e3.rollup.steps import (INSTANCE_ADDED, INSTANCE_MAXED, MIXED, NODE_ADDED, NODE_MAXED, InstanceRollup,
                             NodeRollup)
from e3.services import day_partitions
from e3.services.copy_merge import copy_text, merge_sql, stage

NODE_COLUMNS = ("node_id", "ts", "step_s", "cluster_id", "heartbeats", "seconds", "joules", "power_source",
                "power_watts_sum", "power_watts_max", "queue_len_sum", "queue_len_max", "cpu_util_sum",
                "cpu_util_max", "rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "requests", "last_ts")

INSTANCE_COLUMNS = ("instance_id", "node_id", "ts", "step_s", "cluster_id", "heartbeats", "requests",
                    "exec_time_us_sum", "cpu_seconds", "latency_count", "latency_us_sum", "latency_p99_max",
                    "latency_p99_weighted_sum")


_NODE_MERGE = merge_sql("node_rollups", NODE_COLUMNS, ("node_id", "ts"), NODE_ADDED, NODE_MAXED, (
    "power_source = CASE WHEN node_rollups.power_source = EXCLUDED.power_source THEN node_rollups.power_source "
    f"ELSE '{MIXED}' END",))
_INSTANCE_MERGE = merge_sql("instance_rollups", INSTANCE_COLUMNS, ("instance_id", "node_id", "ts"),
                             INSTANCE_ADDED, INSTANCE_MAXED)


def _time(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def _iso(seconds: float) -> str:
    return _time(seconds).isoformat()


@lru_cache(maxsize=4096)
def _iso_step(start: int) -> str:
    """A step's start as text (a write holds a few distinct ones, each in thousands of rows)."""
    return _iso(start)


def node_line(r: NodeRollup) -> str:
    """The row as a line of COPY text (formatted here, not by the driver: a tenth of the CPU, and this runs
    beside the controller's intake, holding the interpreter lock)."""
    return (f"{r.node_id}\t{_iso_step(r.start)}\t{r.step_s}\t{r.cluster_id}\t{r.heartbeats}\t{r.seconds!r}\t"
            f"{r.joules!r}\t{r.power_source}\t{r.power_watts_sum!r}\t{r.power_watts_max!r}\t{r.queue_len_sum}\t"
            f"{r.queue_len_max}\t{r.cpu_util_sum!r}\t{r.cpu_util_max!r}\t{r.rx_bytes}\t{r.tx_bytes}\t"
            f"{r.rx_packets}\t{r.tx_packets}\t{r.requests}\t{_iso(r.last_ts)}\n")


def instance_line(r: InstanceRollup) -> str:
    return (f"{copy_text(r.instance_id)}\t{r.node_id}\t{_iso_step(r.start)}\t{r.step_s}\t{r.cluster_id}\t"
            f"{r.heartbeats}\t{r.requests}\t{r.exec_time_us_sum!r}\t{r.cpu_seconds!r}\t{r.latency_count}\t"
            f"{r.latency_us_sum!r}\t{r.latency_p99_max!r}\t{r.latency_p99_weighted_sum!r}\n")


def days_of(nodes: Iterable[NodeRollup]) -> set[date]:
    """The UTC days the rows' steps fall on (their partitions)."""
    return {_time(r.start).date() for r in nodes}


def add_rollups(session: Session, nodes: Sequence[NodeRollup], instances: Sequence[InstanceRollup],
                new_days: Iterable[date] = ()) -> None:
    """Add the rows to what is stored, in the caller's transaction; creates the partitions of `new_days`
    first (an instance's step is its node's, so the nodes' days cover both tables)."""
    new_days = set(new_days)
    for table in ("node_rollups", "instance_rollups"):
        day_partitions.ensure_partitions(session, table, new_days)
    cursor = session.connection().connection.cursor()  # the psycopg 3 cursor under SQLAlchemy
    if nodes:
        stage(cursor, "node_rollups", NODE_COLUMNS, map(node_line, nodes))
        cursor.execute(_NODE_MERGE)
    if instances:
        stage(cursor, "instance_rollups", INSTANCE_COLUMNS, map(instance_line, instances))
        cursor.execute(_INSTANCE_MERGE)


def drop_partitions_before(session: Session, cutoff: datetime) -> list[str]:
    """Retention: drop both tables' day partitions that end on or before `cutoff`. Returns the names."""
    return [name for table in ("node_rollups", "instance_rollups")
            for name in day_partitions.drop_partitions_before(session, table, cutoff)]

