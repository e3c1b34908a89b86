"""Heartbeats: batched COPY into daily partitions, and retention by dropping old partitions."""

import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select, text

from e3.core.db import session_scope
from e3.models import heartbeats
from e3.services.heartbeats import drop_partitions_before, ingest


def _beat(ts, node=None, source="model"):
    return dict(node_id=node or uuid.uuid4(), ts=ts, queue_len=3, rx_bytes=100, tx_bytes=200, rx_packets=1,
                tx_packets=2, cpu_util=0.5, power_watts=120.5, power_source=source,
                instances=[{"id": "x", "requests": 10, "exec_us": 12.5, "exec_ema_us": 12.0, "cpu_share": 0.3}])


def test_batch_is_copied_into_daily_partitions_and_retention_drops_old_days():
    now = datetime(2026, 11, 21, 12, tzinfo=timezone.utc)
    rows = [_beat(now - timedelta(days=d, minutes=m)) for d in range(3) for m in range(5)]
    with session_scope() as session:
        assert ingest(session, rows) == 15
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

    with pytest.raises(CheckViolation):
        with session_scope() as session:
            ingest(session, [_beat(datetime.now(timezone.utc), source="guess")])


def test_the_writer_applies_retention_to_old_day_partitions():
    import asyncio

    from e3.controller.heartbeat_writer import HeartbeatWriter

    now = datetime.now(timezone.utc)
    with session_scope() as session:
        ingest(session, [_beat(now - timedelta(days=10)), _beat(now)])
    writer = HeartbeatWriter(retention_days=7)
    dropped = asyncio.run(writer.apply_retention())
    assert dropped == [f"heartbeats_{now - timedelta(days=10):%Y%m%d}"]
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(heartbeats)) == 1
        drop_partitions_before(session, now + timedelta(days=2))  # leave no partitions behind
