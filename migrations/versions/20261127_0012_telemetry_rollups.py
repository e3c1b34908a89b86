"""telemetry rollups: per node and instance, 1 s steps of their heartbeats (sums, counts, maxima)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Partitions (one a day) are created by the writer and dropped by the retention policy, as heartbeats'.
    op.create_table('node_rollups',
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('step_s', sa.Integer(), nullable=False),
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('heartbeats', sa.Integer(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('joules', sa.Float(), nullable=False),
    sa.Column('power_source', sa.String(length=12), nullable=False),
    sa.Column('power_watts_sum', sa.Float(), nullable=False),
    sa.Column('power_watts_max', sa.Float(), nullable=False),
    sa.Column('queue_len_sum', sa.BigInteger(), nullable=False),
    sa.Column('queue_len_max', sa.Integer(), nullable=False),
    sa.Column('cpu_util_sum', sa.Float(), nullable=False),
    sa.Column('cpu_util_max', sa.Float(), nullable=False),
    sa.Column('rx_bytes', sa.BigInteger(), nullable=False),
    sa.Column('tx_bytes', sa.BigInteger(), nullable=False),
    sa.Column('rx_packets', sa.BigInteger(), nullable=False),
    sa.Column('tx_packets', sa.BigInteger(), nullable=False),
    sa.Column('requests', sa.BigInteger(), nullable=False),
    sa.Column('last_ts', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("power_source IN ('rapl', 'ipmi', 'ipmi-split', 'model', 'mixed')",
                       name=op.f('ck_node_rollups_power_source')),
    postgresql_partition_by='RANGE (ts)',
    )
    op.create_index('uq_node_rollups_node_ts', 'node_rollups', ['node_id', 'ts'], unique=True)
    op.create_index('ix_node_rollups_cluster_ts', 'node_rollups', ['cluster_id', 'ts'])
    op.create_table('instance_rollups',
    sa.Column('instance_id', sa.String(length=64), nullable=False),
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('step_s', sa.Integer(), nullable=False),
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('heartbeats', sa.Integer(), nullable=False),
    sa.Column('requests', sa.BigInteger(), nullable=False),
    sa.Column('exec_time_us_sum', sa.Float(), nullable=False),
    sa.Column('cpu_seconds', sa.Float(), nullable=False),
    sa.Column('latency_count', sa.BigInteger(), nullable=False),
    sa.Column('latency_us_sum', sa.Float(), nullable=False),
    sa.Column('latency_p99_max', sa.Float(), nullable=False),
    sa.Column('latency_p99_weighted_sum', sa.Float(), nullable=False),
    postgresql_partition_by='RANGE (ts)',
    )
    op.create_index('uq_instance_rollups_instance_node_ts', 'instance_rollups', ['instance_id', 'node_id', 'ts'],
                    unique=True)
    op.create_index('ix_instance_rollups_node_ts', 'instance_rollups', ['node_id', 'ts'])


def downgrade() -> None:
    op.drop_table('instance_rollups')
    op.drop_table('node_rollups')
