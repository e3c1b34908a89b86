"""energy history: rollups per node and instance; a node's power may be a split server reading (ipmi-split)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

_SOURCES = "'rapl', 'ipmi', 'ipmi-split', 'model'"


def upgrade() -> None:
    op.drop_constraint('power_source', 'heartbeats', type_='check')
    op.alter_column('heartbeats', 'power_source', type_=sa.String(length=12), existing_nullable=True)
    op.create_check_constraint('power_source', 'heartbeats', f"power_source IN ({_SOURCES})")
    op.create_table('energy_rollups',
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('step_s', sa.Integer(), nullable=False),
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('instance_id', sa.Uuid(), nullable=True),
    sa.Column('deployment_id', sa.Uuid(), nullable=True),
    sa.Column('application', sa.String(length=63), nullable=True),
    sa.Column('dag_node', sa.String(length=63), nullable=True),
    sa.Column('joules', sa.Float(), nullable=False),
    sa.Column('idle_joules', sa.Float(), nullable=False),
    sa.Column('unattributed_joules', sa.Float(), nullable=False),
    sa.Column('requests', sa.BigInteger(), nullable=False),
    sa.Column('counts_requests', sa.Boolean(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('heartbeats', sa.Integer(), nullable=False),
    sa.Column('watts_max', sa.Float(), nullable=False),
    sa.Column('source', sa.String(length=12), nullable=False),
    sa.CheckConstraint(f"source IN ({_SOURCES}, 'mixed')", name=op.f('ck_energy_rollups_source')),
    )
    # one row per (bucket, node, instance); the node's own row has no instance (NULLS NOT DISTINCT: PG 15+)
    op.execute("CREATE UNIQUE INDEX uq_energy_rollups_bucket ON energy_rollups "
               "(ts, node_id, instance_id) NULLS NOT DISTINCT")
    op.create_index('ix_energy_rollups_cluster_ts', 'energy_rollups', ['cluster_id', 'ts'])
    op.create_index('ix_energy_rollups_application_ts', 'energy_rollups', ['application', 'ts'])
    op.create_index('ix_energy_rollups_node_ts', 'energy_rollups', ['node_id', 'ts'])


def downgrade() -> None:
    op.drop_table('energy_rollups')
    op.execute("DELETE FROM heartbeats WHERE power_source = 'ipmi-split'")
    op.drop_constraint('power_source', 'heartbeats', type_='check')
    op.alter_column('heartbeats', 'power_source', type_=sa.String(length=8), existing_nullable=True)
    op.create_check_constraint('power_source', 'heartbeats', "power_source IN ('rapl', 'ipmi', 'model')")
