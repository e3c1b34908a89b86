"""agent identity: an agent token's binding (cluster, servers) and the credential that registered each node

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('api_tokens', sa.Column('cluster_id', sa.Uuid(), nullable=True))
    op.add_column('api_tokens', sa.Column('servers', postgresql.ARRAY(sa.String(length=127)), nullable=True))
    op.create_foreign_key(op.f('fk_api_tokens_cluster_id_clusters'), 'api_tokens', 'clusters', ['cluster_id'], ['id'],
                          ondelete='CASCADE')
    op.add_column('compute_nodes', sa.Column('agent_token_id', sa.Uuid(), nullable=True))
    op.create_foreign_key(op.f('fk_compute_nodes_agent_token_id_api_tokens'), 'compute_nodes', 'api_tokens',
                          ['agent_token_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    op.drop_constraint(op.f('fk_compute_nodes_agent_token_id_api_tokens'), 'compute_nodes', type_='foreignkey')
    op.drop_column('compute_nodes', 'agent_token_id')
    op.drop_constraint(op.f('fk_api_tokens_cluster_id_clusters'), 'api_tokens', type_='foreignkey')
    op.drop_column('api_tokens', 'servers')
    op.drop_column('api_tokens', 'cluster_id')
