"""Migration 0013: the heartbeats already stored become 1 s rollups (summed as the controller sums them), those a
rollup already covers are not counted twice, and the heartbeats table is gone. Run on a database of its own,
upgraded to 0012 and filled as a controller of that release would have filled it."""

import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from e3.core.schema import alembic_config
from e3.models import Cluster, ComputeNode, Rack, Server


@pytest.fixture
def database_at_0012(backing_services):
    url = make_url(backing_services["database_url"])
    name = f"e3_migration_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    own = url.set(database=name).render_as_string(hide_password=False)
    command.upgrade(alembic_config(own), "0012")
    engine = create_engine(own)
    yield own, engine
    engine.dispose()
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
    admin.dispose()


def _node(engine) -> tuple[uuid.UUID, uuid.UUID]:
    with Session(engine) as session:
        session.execute(text("INSERT INTO server_types (name, data) VALUES ('t', '{}')"))
        cluster = Cluster(name="old")
        session.add(cluster)
        session.flush()
        rack = Rack(cluster_id=cluster.id, name="r0", index=0, pod=0)
        session.add(rack)
        session.flush()
        server = Server(cluster_id=cluster.id, rack_id=rack.id, name="s0", index=0, server_type="t")
        session.add(server)
        session.flush()
        node = ComputeNode(cluster_id=cluster.id, server_id=server.id, name="s0-nic", index=0, kind="smartnic",
                           core_class="wimpy", cores=12, memory_mb=4096, bandwidth_mbps=25000)
        session.add(node)
        session.commit()
        return node.id, cluster.id


def test_stored_heartbeats_become_rollups_once_and_the_table_goes(database_at_0012):
    url, engine = database_at_0012
    node_id, cluster_id = _node(engine)
    t0 = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=5)
    beats = [  # (offset s, watts, rx_bytes, source, requests): a reset at the third, a rollup from 2 s on
        (0.1, 10.0, 100, "rapl", 5), (0.6, 20.0, 150, "rapl", 5), (1.1, 30.0, 120, "model", 7),
        (2.3, 40.0, 200, "model", 9)]
    with engine.begin() as conn:
        day = t0.date()
        conn.execute(text(f"CREATE TABLE heartbeats_{day:%Y%m%d} PARTITION OF heartbeats FOR VALUES FROM "
                          f"('{day.isoformat()}T00:00:00+00:00') TO ('{(day + timedelta(days=1)).isoformat()}"
                          f"T00:00:00+00:00')"))
        for offset, watts, rx, source, requests in beats:
            instances = [{"id": "kv", "requests": requests, "exec_us": 10.0, "exec_ema_us": 10.0, "cpu_share": 0.5,
                          "lat_n": requests, "lat_avg_us": 100.0, "lat_p99_us": 200.0 + offset}]
            conn.execute(text(
                "INSERT INTO heartbeats VALUES (:node, :ts, 3, :rx, 0, 0, 0, 0.5, :watts, :source, CAST(:inst AS jsonb))"),
                dict(node=node_id, ts=t0 + timedelta(seconds=offset), rx=rx, watts=watts, source=source,
                     inst=json.dumps(instances)))
        # the controller of 0012 already wrote rollups from second 2 on: the heartbeat at 2.3 is in them
        for table in ("node_rollups", "instance_rollups"):
            conn.execute(text(f"CREATE TABLE {table}_{day:%Y%m%d} PARTITION OF {table} FOR VALUES FROM "
                              f"('{day.isoformat()}T00:00:00+00:00') TO ('{(day + timedelta(days=1)).isoformat()}"
                              f"T00:00:00+00:00')"))
        conn.execute(text(
            "INSERT INTO node_rollups VALUES (:node, :ts, 1, :cluster, 1, 1.0, 40.0, 'model', 40, 40, 3, 3, 0.5, 0.5, "
            "80, 0, 0, 0, 9, :ts)"), dict(node=node_id, ts=t0 + timedelta(seconds=2), cluster=cluster_id))

    command.upgrade(alembic_config(url), "0013")

    assert "heartbeats" not in inspect(engine).get_table_names()
    with engine.connect() as conn:
        steps = conn.execute(text("SELECT ts, heartbeats, seconds, joules, power_source, power_watts_max, rx_bytes, "
                                  "requests FROM node_rollups ORDER BY ts")).all()
        kv = conn.execute(text("SELECT ts, heartbeats, requests, cpu_seconds, latency_count, latency_us_sum, "
                               "latency_p99_max FROM instance_rollups ORDER BY ts")).all()
    second = lambda k: t0 + timedelta(seconds=k)  # noqa: E731
    assert [(s.ts, s.heartbeats, s.power_source, s.power_watts_max, s.rx_bytes, s.requests) for s in steps] == [
        (second(0), 2, "rapl", 20.0, 50, 10),  # growth 150 - 100; none before the first heartbeat
        (second(1), 1, "model", 30.0, 120, 7),  # 120 < 150: the agent restarted, counted from 0
        (second(2), 1, "model", 40.0, 80, 9)]  # the rollup already stored, not added to
    assert steps[0].seconds == pytest.approx(0.5) and steps[0].joules == pytest.approx(20.0 * 0.5)
    assert steps[1].joules == pytest.approx(30.0 * 0.5)
    assert [(i.ts, i.heartbeats, i.requests, i.latency_count) for i in kv] == [(second(0), 2, 10, 10),
                                                                                (second(1), 1, 7, 7)]
    assert kv[0].cpu_seconds == pytest.approx(0.5 * 0.5) and kv[0].latency_us_sum == pytest.approx(100.0 * 10)
    assert kv[0].latency_p99_max == pytest.approx(200.6)
