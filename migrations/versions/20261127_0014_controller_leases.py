"""controllers and node leases: which controller holds each node, with an epoch that fences the others

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('controllers',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('address', sa.String(length=255), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('lease_expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_controllers')),
    )
    op.create_table('node_leases',
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('controller_id', sa.Uuid(), nullable=True),
    sa.Column('epoch', sa.BigInteger(), nullable=False),
    sa.Column('agent_id', sa.String(length=64), nullable=False),
    sa.Column('acquired_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['controller_id'], ['controllers.id'], name=op.f('fk_node_leases_controller_id_controllers'),
                            ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['node_id'], ['compute_nodes.id'], name=op.f('fk_node_leases_node_id_compute_nodes'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('node_id', name=op.f('pk_node_leases')),
    )


def downgrade() -> None:
    op.drop_table('node_leases')
    op.drop_table('controllers')
