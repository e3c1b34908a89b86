"""agent-run nodes (agent id, address), instance port/error, node commands

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('compute_nodes', sa.Column('agent_id', sa.String(length=64), nullable=True))
    op.add_column('compute_nodes', sa.Column('address', sa.String(length=64), nullable=True))
    op.add_column('instances', sa.Column('port', sa.Integer(), nullable=True))
    op.add_column('instances', sa.Column('error', postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.create_table(
        'node_commands',
        sa.Column('id', sa.Uuid(), nullable=False),
        sa.Column('node_id', sa.Uuid(), nullable=False),
        sa.Column('version', sa.BigInteger(), nullable=False),
        sa.Column('kind', sa.String(length=32), nullable=False),
        sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('instance_id', sa.Uuid(), nullable=True),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('error', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('answered_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['node_id'], ['compute_nodes.id'], name='fk_node_commands_node_id_compute_nodes',
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name='pk_node_commands'),
        sa.UniqueConstraint('node_id', 'version', name='uq_node_commands_node_version'),
    )


def downgrade() -> None:
    op.drop_table('node_commands')
    op.drop_column('instances', 'error')
    op.drop_column('instances', 'port')
    op.drop_column('compute_nodes', 'address')
    op.drop_column('compute_nodes', 'agent_id')
