"""failover: a migration's kind (move | seed) and the instance whose state a seed copies; instance aliases

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('migrations', sa.Column('kind', sa.String(length=16), server_default='move', nullable=False))
    op.add_column('migrations', sa.Column('source_instance_id', sa.Uuid(), nullable=True))
    op.add_column('instances', sa.Column('aliases', postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column('instances', 'aliases')
    op.drop_column('migrations', 'source_instance_id')
    op.drop_column('migrations', 'kind')
