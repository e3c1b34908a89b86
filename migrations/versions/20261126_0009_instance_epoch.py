"""never two primaries: an epoch per instance, bumped when another copy becomes the serving one

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('instances', sa.Column('epoch', sa.BigInteger(), server_default='1', nullable=False))


def downgrade() -> None:
    op.drop_column('instances', 'epoch')
