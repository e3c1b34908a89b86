"""rollouts: the deployment a new one replaces (rolled to another application version)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('deployments', sa.Column('replaces_id', sa.Uuid(), nullable=True))
    op.create_foreign_key(op.f('fk_deployments_replaces_id_deployments'), 'deployments', 'deployments', ['replaces_id'], ['id'],
                          ondelete='SET NULL')


def downgrade() -> None:
    op.drop_constraint(op.f('fk_deployments_replaces_id_deployments'), 'deployments', type_='foreignkey')
    op.drop_column('deployments', 'replaces_id')
