"""Heartbeats: batched COPY into daily partitions, and retention by dropping old partitions."""

import uuid
from datetime import datetime, timedelta, timezone

from helpers import encode_heartbeats, store_heartbeats
from sqlalchemy import func, select, text

from e3.core.db import session_scope
from e3.heartbeat_record import COPY_COLUMNS
from e3.models import heartbeats
from e3.rpc.pb import agent_pb2
from e3.services.heartbeats import copy_text, drop_partitions_before


def _beat(ts: datetime) -> agent_pb2.Heartbeat:
    hb = agent_pb2.Heartbeat(node_id=str(uuid.uuid4()), timestamp_unix_ns=int(ts.timestamp() * 10**9), queue_length=3,
                             rx_bytes=100, tx_bytes=200, rx_packets=1, tx_packets=2, cpu_utilization=0.5,
                             power_watts=120.5, power_source=agent_pb2.POWER_SOURCE_MODEL)
    hb.instances.add(instance_id="x", requests_completed=10, exec_time_us=12.5, exec_time_ema_us=12.0, cpu_share=0.3)
    return hb


def _as_of(ts: datetime) -> int:
    """A controller clock reading `ts`, in ns: one that accepted heartbeats measured then."""
    return int(ts.timestamp() * 10**9)


def test_the_table_has_a_column_per_node_field_of_the_record():
    assert tuple(heartbeats.c.keys()) == COPY_COLUMNS


def test_batch_is_copied_into_daily_partitions_and_retention_drops_old_days():
    now = datetime(2026, 11, 21, 12, tzinfo=timezone.utc)
    days = [encode_heartbeats([_beat(now - timedelta(days=d, minutes=m)) for m in range(5)],
                              wall_ns=_as_of(now - timedelta(days=d))) for d in range(3)]
    with session_scope() as session:  # one COPY of the three days' rows, as the controller's writer does
        copy_text(session, [e.copy_text for e in days], set().union(*(e.days for e in days)))
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(heartbeats)) == 15
        stored = session.execute(select(heartbeats).limit(1)).mappings().one()
        assert stored["instances"][0]["cpu_share"] == 0.3 and stored["power_source"] == "model"
        parts = session.execute(text("SELECT count(*) FROM pg_inherits WHERE inhparent = 'heartbeats'::regclass"))
        assert parts.scalar() == 3
    with session_scope() as session:
        dropped = drop_partitions_before(session, now - timedelta(days=1))
    assert dropped == ["heartbeats_20261119"]
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(heartbeats)) == 10
        session.execute(text("DROP TABLE IF EXISTS heartbeats_20261120, heartbeats_20261121"))


def test_power_source_must_be_named():
    import pytest
    from psycopg.errors import CheckViolation

    encoded = encode_heartbeats([_beat(datetime.now(timezone.utc))])
    with pytest.raises(CheckViolation):
        with session_scope() as session:
            copy_text(session, [encoded.copy_text.replace("\tmodel\t", "\tguess\t")], encoded.days)


def test_the_writer_applies_retention_to_old_day_partitions():
    import asyncio

    from e3.controller.heartbeat_writer import HeartbeatWriter

    now = datetime.now(timezone.utc)
    store_heartbeats([_beat(now - timedelta(days=10))], wall_ns=_as_of(now - timedelta(days=10)))
    store_heartbeats([_beat(now)])
    writer = HeartbeatWriter(retention_days=7)
    dropped = asyncio.run(writer.apply_retention())
    assert dropped == [f"heartbeats_{now - timedelta(days=10):%Y%m%d}"]
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(heartbeats)) == 1
        drop_partitions_before(session, now + timedelta(days=2))  # leave no partitions behind
