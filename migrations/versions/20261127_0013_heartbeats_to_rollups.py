"""heartbeat rows become rollups: the stored raw heartbeats are summed into 1 s node and instance rollups
(as e3.rollup.steps sums them), then the heartbeats table is dropped

The controller now writes rollups only (docs/controller-scale-out.md §1). So that the history already stored
is not lost, every heartbeat older than its node's first rollup (rollups were written beside the rows since
0012) is summed into its step: counts, sums and maxima as the controller does, each heartbeat's energy its
watts times the interval since the node's previous one (at most 1 s; none for the first), counters' growth
(a lower value counts from 0). Heartbeats of nodes no longer in compute_nodes have no cluster and are dropped
with the table, as retention would have dropped them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

_GROWTH = "CASE WHEN prev_{c} IS NULL THEN 0 WHEN {c} >= prev_{c} THEN {c} - prev_{c} ELSE {c} END"
_BEATS = f"""
    SELECT h.node_id, n.cluster_id, h.ts, date_trunc('second', h.ts) AS step, h.queue_len, h.cpu_util,
           COALESCE(h.power_watts, 0) AS watts, COALESCE(h.power_source, 'model') AS source, h.instances,
           {', '.join(_GROWTH.format(c=c) + ' AS ' + c for c in ('rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets'))},
           CASE WHEN prev_ts IS NULL THEN 0 ELSE LEAST(GREATEST(EXTRACT(EPOCH FROM h.ts - prev_ts), 0), 1.0) END AS dt
    FROM (SELECT hb.*, lag(hb.ts) OVER w AS prev_ts, lag(hb.rx_bytes) OVER w AS prev_rx_bytes,
                 lag(hb.tx_bytes) OVER w AS prev_tx_bytes, lag(hb.rx_packets) OVER w AS prev_rx_packets,
                 lag(hb.tx_packets) OVER w AS prev_tx_packets
          FROM heartbeats hb WINDOW w AS (PARTITION BY hb.node_id ORDER BY hb.ts)) h
    JOIN compute_nodes n ON n.id = h.node_id
    WHERE h.ts < COALESCE((SELECT min(r.ts) FROM node_rollups r WHERE r.node_id = h.node_id), 'infinity')
"""
_NODE_ROLLUPS = f"""
    INSERT INTO node_rollups (node_id, ts, step_s, cluster_id, heartbeats, seconds, joules, power_source,
        power_watts_sum, power_watts_max, queue_len_sum, queue_len_max, cpu_util_sum, cpu_util_max, rx_bytes,
        tx_bytes, rx_packets, tx_packets, requests, last_ts)
    SELECT node_id, step, 1, cluster_id, count(*), sum(dt), sum(watts * dt),
           CASE WHEN count(DISTINCT source) = 1 THEN min(source) ELSE 'mixed' END, sum(watts), max(watts),
           sum(queue_len), max(queue_len), sum(cpu_util), max(cpu_util), sum(rx_bytes), sum(tx_bytes),
           sum(rx_packets), sum(tx_packets),
           COALESCE(sum((SELECT sum((e->>'requests')::bigint) FROM jsonb_array_elements(b.instances) e)), 0),
           max(ts)
    FROM ({_BEATS}) b GROUP BY node_id, step, cluster_id
"""
_NUM = "COALESCE((e->>'{k}')::float8, 0)"
_INSTANCE_ROLLUPS = f"""
    INSERT INTO instance_rollups (instance_id, node_id, ts, step_s, cluster_id, heartbeats, requests,
        exec_time_us_sum, cpu_seconds, latency_count, latency_us_sum, latency_p99_max, latency_p99_weighted_sum)
    SELECT e->>'id', node_id, step, 1, cluster_id, count(*), sum(COALESCE((e->>'requests')::bigint, 0)),
           sum({_NUM.format(k='exec_us')} * {_NUM.format(k='requests')}), sum({_NUM.format(k='cpu_share')} * dt),
           sum(COALESCE((e->>'lat_n')::bigint, 0)), sum({_NUM.format(k='lat_avg_us')} * {_NUM.format(k='lat_n')}),
           max({_NUM.format(k='lat_p99_us')}), sum({_NUM.format(k='lat_p99_us')} * {_NUM.format(k='lat_n')})
    FROM ({_BEATS}) b CROSS JOIN LATERAL jsonb_array_elements(COALESCE(b.instances, '[]'::jsonb)) e
    GROUP BY e->>'id', node_id, step, cluster_id
"""


def _day_partitions(bind) -> None:
    """The rollups' day partitions for every day the heartbeats cover (as services.day_partitions names them)."""
    days = bind.execute(sa.text("SELECT DISTINCT (ts AT TIME ZONE 'UTC')::date FROM heartbeats")).scalars().all()
    for day in days:
        for table in ('node_rollups', 'instance_rollups'):
            op.execute(f"CREATE TABLE IF NOT EXISTS {table}_{day:%Y%m%d} PARTITION OF {table} "
                       f"FOR VALUES FROM ('{day.isoformat()}T00:00:00+00:00') "
                       f"TO ('{day.isoformat()}T00:00:00+00:00'::timestamptz + interval '1 day')")


def upgrade() -> None:
    bind = op.get_bind()
    _day_partitions(bind)
    # instances first: their WHERE reads node_rollups before the nodes' rows are added to it
    op.execute(_INSTANCE_ROLLUPS)
    op.execute(_NODE_ROLLUPS)
    op.drop_table('heartbeats')


def downgrade() -> None:
    # the raw heartbeats are gone for good: the table comes back empty
    op.create_table('heartbeats',
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('queue_len', sa.Integer(), nullable=False),
    sa.Column('rx_bytes', sa.BigInteger(), nullable=False),
    sa.Column('tx_bytes', sa.BigInteger(), nullable=False),
    sa.Column('rx_packets', sa.BigInteger(), nullable=False),
    sa.Column('tx_packets', sa.BigInteger(), nullable=False),
    sa.Column('cpu_util', sa.Float(), nullable=False),
    sa.Column('power_watts', sa.Float(), nullable=True),
    sa.Column('power_source', sa.String(length=12), nullable=True),
    sa.Column('instances', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.CheckConstraint("power_source IN ('rapl', 'ipmi', 'ipmi-split', 'model')", name='power_source'),
    postgresql_partition_by='RANGE (ts)',
    )
    op.create_index('ix_heartbeats_node_ts', 'heartbeats', ['node_id', 'ts'])
