"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-11-21 17:58:43.338274
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('api_tokens',
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('prefix', sa.String(length=16), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('scopes', postgresql.ARRAY(sa.String(length=16)), nullable=False),
    sa.Column('created_by', sa.String(length=63), nullable=True),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_api_tokens_token_hash'))
    )
    op.create_table('applications',
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('latest_version', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_applications')),
    sa.UniqueConstraint('name', name=op.f('uq_applications_name'))
    )
    op.create_table('clusters',
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_clusters')),
    sa.UniqueConstraint('name', name=op.f('uq_clusters_name'))
    )
    op.create_table('heartbeats',
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('queue_len', sa.Integer(), nullable=False),
    sa.Column('rx_bytes', sa.BigInteger(), nullable=False),
    sa.Column('tx_bytes', sa.BigInteger(), nullable=False),
    sa.Column('rx_packets', sa.BigInteger(), nullable=False),
    sa.Column('tx_packets', sa.BigInteger(), nullable=False),
    sa.Column('cpu_util', sa.Float(), nullable=False),
    sa.Column('power_watts', sa.Float(), nullable=True),
    sa.Column('power_source', sa.String(length=8), nullable=True),
    sa.Column('instances', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.CheckConstraint("power_source IN ('rapl', 'ipmi', 'model')", name='power_source'),
    postgresql_partition_by='RANGE (ts)',
    )
    # Partitions (one a day) are created on ingest and dropped by the retention policy.
    op.create_index('ix_heartbeats_node_ts', 'heartbeats', ['node_id', 'ts'])
    op.create_table('server_types',
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('data', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_server_types'))
    )
    op.create_table('service_types',
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('data', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_service_types'))
    )
    op.create_table('application_versions',
    sa.Column('application_id', sa.Uuid(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('spec', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.Column('created_by', sa.String(length=127), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['application_id'], ['applications.id'], name=op.f('fk_application_versions_application_id_applications'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_application_versions')),
    sa.UniqueConstraint('application_id', 'version', name=op.f('uq_application_versions_application_id'))
    )
    op.create_table('audit_log',
    sa.Column('id', sa.BigInteger(), autoincrement=True, nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('token_id', sa.Uuid(), nullable=True),
    sa.Column('token_name', sa.String(length=63), nullable=False),
    sa.Column('action', sa.String(length=63), nullable=False),
    sa.Column('target', sa.String(length=255), nullable=False),
    sa.Column('detail', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.ForeignKeyConstraint(['token_id'], ['api_tokens.id'], name=op.f('fk_audit_log_token_id_api_tokens'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    op.create_index('ix_audit_log_ts', 'audit_log', ['ts'], unique=False)
    op.create_table('events',
    sa.Column('id', sa.BigInteger(), autoincrement=True, nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), nullable=False),
    sa.Column('kind', sa.String(length=63), nullable=False),
    sa.Column('cluster_id', sa.Uuid(), nullable=True),
    sa.Column('subject', sa.String(length=255), nullable=False),
    sa.Column('data', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.ForeignKeyConstraint(['cluster_id'], ['clusters.id'], name=op.f('fk_events_cluster_id_clusters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_events'))
    )
    op.create_index(op.f('ix_events_cluster_id'), 'events', ['cluster_id'], unique=False)
    op.create_index('ix_events_ts', 'events', ['ts'], unique=False)
    op.create_table('racks',
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('pod', sa.Integer(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['cluster_id'], ['clusters.id'], name=op.f('fk_racks_cluster_id_clusters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_racks')),
    sa.UniqueConstraint('cluster_id', 'name', name=op.f('uq_racks_cluster_id'))
    )
    op.create_index(op.f('ix_racks_cluster_id'), 'racks', ['cluster_id'], unique=False)
    op.create_table('deployments',
    sa.Column('application_id', sa.Uuid(), nullable=False),
    sa.Column('application_version_id', sa.Uuid(), nullable=False),
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('algorithm', sa.String(length=32), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('error', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['application_id'], ['applications.id'], name=op.f('fk_deployments_application_id_applications'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['application_version_id'], ['application_versions.id'], name=op.f('fk_deployments_application_version_id_application_versions'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['cluster_id'], ['clusters.id'], name=op.f('fk_deployments_cluster_id_clusters'), ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_deployments'))
    )
    op.create_index(op.f('ix_deployments_application_id'), 'deployments', ['application_id'], unique=False)
    op.create_index(op.f('ix_deployments_cluster_id'), 'deployments', ['cluster_id'], unique=False)
    op.create_table('servers',
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('rack_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('server_type', sa.String(length=63), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['cluster_id'], ['clusters.id'], name=op.f('fk_servers_cluster_id_clusters'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['rack_id'], ['racks.id'], name=op.f('fk_servers_rack_id_racks'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['server_type'], ['server_types.name'], name=op.f('fk_servers_server_type_server_types')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_servers')),
    sa.UniqueConstraint('cluster_id', 'name', name=op.f('uq_servers_cluster_id'))
    )
    op.create_index(op.f('ix_servers_cluster_id'), 'servers', ['cluster_id'], unique=False)
    op.create_index(op.f('ix_servers_rack_id'), 'servers', ['rack_id'], unique=False)
    op.create_table('compute_nodes',
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('server_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=127), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('core_class', sa.String(length=16), nullable=False),
    sa.Column('cores', sa.Float(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('bandwidth_mbps', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['cluster_id'], ['clusters.id'], name=op.f('fk_compute_nodes_cluster_id_clusters'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['server_id'], ['servers.id'], name=op.f('fk_compute_nodes_server_id_servers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_compute_nodes')),
    sa.UniqueConstraint('cluster_id', 'name', name=op.f('uq_compute_nodes_cluster_id'))
    )
    op.create_index(op.f('ix_compute_nodes_cluster_id'), 'compute_nodes', ['cluster_id'], unique=False)
    op.create_index('ix_compute_nodes_server', 'compute_nodes', ['server_id', 'index'], unique=False)
    op.create_table('jobs',
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('progress', sa.Float(), nullable=False),
    sa.Column('message', sa.String(length=1000), nullable=False),
    sa.Column('error', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.Column('deployment_id', sa.Uuid(), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['deployment_id'], ['deployments.id'], name=op.f('fk_jobs_deployment_id_deployments'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_jobs'))
    )
    op.create_index(op.f('ix_jobs_deployment_id'), 'jobs', ['deployment_id'], unique=False)
    op.create_index(op.f('ix_jobs_state'), 'jobs', ['state'], unique=False)
    op.create_table('instances',
    sa.Column('deployment_id', sa.Uuid(), nullable=False),
    sa.Column('ordinal', sa.Integer(), nullable=False),
    sa.Column('dag_node', sa.String(length=63), nullable=False),
    sa.Column('service', sa.String(length=63), nullable=False),
    sa.Column('shard', sa.Integer(), nullable=False),
    sa.Column('replica', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('cpu_cores', sa.Float(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('bandwidth_mbps', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['deployment_id'], ['deployments.id'], name=op.f('fk_instances_deployment_id_deployments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['node_id'], ['compute_nodes.id'], name=op.f('fk_instances_node_id_compute_nodes'), ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_instances'))
    )
    op.create_index('ix_instances_deployment_order', 'instances', ['deployment_id', 'ordinal'], unique=False)
    op.create_index(op.f('ix_instances_node_id'), 'instances', ['node_id'], unique=False)
    op.create_table('migrations',
    sa.Column('instance_id', sa.Uuid(), nullable=False),
    sa.Column('source_node_id', sa.Uuid(), nullable=False),
    sa.Column('target_node_id', sa.Uuid(), nullable=False),
    sa.Column('reason', sa.String(length=32), nullable=False),
    sa.Column('state', sa.String(length=32), nullable=False),
    sa.Column('step', sa.String(length=32), nullable=True),
    sa.Column('steps', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['instance_id'], ['instances.id'], name=op.f('fk_migrations_instance_id_instances'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_node_id'], ['compute_nodes.id'], name=op.f('fk_migrations_source_node_id_compute_nodes'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['target_node_id'], ['compute_nodes.id'], name=op.f('fk_migrations_target_node_id_compute_nodes'), ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_migrations'))
    )
    op.create_index(op.f('ix_migrations_instance_id'), 'migrations', ['instance_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_migrations_instance_id'), table_name='migrations')
    op.drop_table('migrations')
    op.drop_index(op.f('ix_instances_node_id'), table_name='instances')
    op.drop_index('ix_instances_deployment_order', table_name='instances')
    op.drop_table('instances')
    op.drop_index(op.f('ix_jobs_state'), table_name='jobs')
    op.drop_index(op.f('ix_jobs_deployment_id'), table_name='jobs')
    op.drop_table('jobs')
    op.drop_index('ix_compute_nodes_server', table_name='compute_nodes')
    op.drop_index(op.f('ix_compute_nodes_cluster_id'), table_name='compute_nodes')
    op.drop_table('compute_nodes')
    op.drop_index(op.f('ix_servers_rack_id'), table_name='servers')
    op.drop_index(op.f('ix_servers_cluster_id'), table_name='servers')
    op.drop_table('servers')
    op.drop_index(op.f('ix_deployments_cluster_id'), table_name='deployments')
    op.drop_index(op.f('ix_deployments_application_id'), table_name='deployments')
    op.drop_table('deployments')
    op.drop_index(op.f('ix_racks_cluster_id'), table_name='racks')
    op.drop_table('racks')
    op.drop_index('ix_events_ts', table_name='events')
    op.drop_index(op.f('ix_events_cluster_id'), table_name='events')
    op.drop_table('events')
    op.drop_index('ix_audit_log_ts', table_name='audit_log')
    op.drop_table('audit_log')
    op.drop_table('application_versions')
    op.drop_table('service_types')
    op.drop_table('server_types')
    op.drop_table('heartbeats')
    op.drop_table('clusters')
    op.drop_table('applications')
    op.drop_table('api_tokens')
