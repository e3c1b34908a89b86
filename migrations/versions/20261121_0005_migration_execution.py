"""migration execution: the nodes' control address, what a migration runs with, one active per instance

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

ACTIVE = "state IN ('pending', 'running', 'rolling_back')"


def upgrade() -> None:
    op.add_column('compute_nodes', sa.Column('control_address', sa.String(length=64), nullable=True))
    op.add_column('migrations', sa.Column('cluster_id', sa.Uuid(), nullable=True))
    op.create_foreign_key('fk_migrations_cluster_id_clusters', 'migrations', 'clusters', ['cluster_id'], ['id'],
                          ondelete='CASCADE')
    op.create_index('ix_migrations_cluster_created', 'migrations', ['cluster_id', 'created_at'])
    op.add_column('migrations', sa.Column('target_port', sa.Integer(), nullable=True))
    op.add_column('migrations', sa.Column('transfer_port', sa.Integer(), nullable=True))
    op.add_column('migrations', sa.Column('stateful', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column('migrations', sa.Column('error', postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.add_column('migrations', sa.Column('prediction', postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.add_column('migrations', sa.Column('requested_by', sa.String(length=127), nullable=True))
    op.add_column('migrations', sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True))
    op.create_index('uq_migrations_active_instance', 'migrations', ['instance_id'], unique=True,
                    postgresql_where=sa.text(ACTIVE))


def downgrade() -> None:
    op.drop_index('uq_migrations_active_instance', table_name='migrations')
    for column in ('finished_at', 'requested_by', 'prediction', 'error', 'stateful', 'transfer_port', 'target_port'):
        op.drop_column('migrations', column)
    op.drop_index('ix_migrations_cluster_created', table_name='migrations')
    op.drop_constraint('fk_migrations_cluster_id_clusters', 'migrations', type_='foreignkey')
    op.drop_column('migrations', 'cluster_id')
    op.drop_column('compute_nodes', 'control_address')
