"""cluster power sources: precedence and where each server's BMC is (IPMI DCMI)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('clusters', sa.Column('power', postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column('clusters', 'power')
