"""instance history: every placement change of an instance (node, role, state), recorded by a trigger, for replay

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

# What an instance row says of its placement, with its deployment's application (looked up while the deployment
# exists; when it is gone, as in a cascaded delete, carried over from the instance's previous row).
_RECORDER = """
CREATE FUNCTION record_instance_history() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r instances%ROWTYPE;
    app RECORD;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF TG_OP = 'UPDATE' AND (OLD.node_id, OLD.role, OLD.state, OLD.replica)
            IS NOT DISTINCT FROM (NEW.node_id, NEW.role, NEW.state, NEW.replica) THEN
        RETURN NULL;
    END IF;
    SELECT a.name AS application, d.application_version_id, d.algorithm INTO app
        FROM deployments d JOIN applications a ON a.id = d.application_id WHERE d.id = r.deployment_id;
    IF NOT FOUND THEN
        SELECT h.application, h.application_version_id, h.algorithm INTO app
            FROM instance_history h WHERE h.instance_id = r.id ORDER BY h.id DESC LIMIT 1;
    END IF;
    INSERT INTO instance_history (cluster_id, instance_id, deployment_id, application, application_version_id,
                                  algorithm, node_id, dag_node, service, shard, replica, role, state, cpu_cores,
                                  memory_mb, gone)
        SELECT n.cluster_id, r.id, r.deployment_id, app.application, app.application_version_id, app.algorithm,
               r.node_id, r.dag_node, r.service, r.shard, r.replica, r.role, r.state, r.cpu_cores, r.memory_mb,
               TG_OP = 'DELETE'
        FROM compute_nodes n WHERE n.id = r.node_id;
    RETURN NULL;
END $$
"""
_TRIGGER = """
CREATE TRIGGER instances_history AFTER INSERT OR UPDATE OR DELETE ON instances
    FOR EACH ROW EXECUTE FUNCTION record_instance_history()
"""
_RECORD_EXISTING = """
INSERT INTO instance_history (cluster_id, instance_id, deployment_id, application, application_version_id, algorithm,
                              node_id, dag_node, service, shard, replica, role, state, cpu_cores, memory_mb, gone)
    SELECT n.cluster_id, i.id, i.deployment_id, a.name, d.application_version_id, d.algorithm, i.node_id,
           i.dag_node, i.service, i.shard, i.replica, i.role, i.state, i.cpu_cores, i.memory_mb, false
    FROM instances i JOIN compute_nodes n ON n.id = i.node_id JOIN deployments d ON d.id = i.deployment_id
         JOIN applications a ON a.id = d.application_id
"""


def upgrade() -> None:
    op.create_table('instance_history',
    sa.Column('id', sa.BigInteger(), autoincrement=True, nullable=False),
    sa.Column('ts', sa.DateTime(timezone=True), server_default=sa.text('clock_timestamp()'), nullable=False),
    sa.Column('cluster_id', sa.Uuid(), nullable=False),
    sa.Column('instance_id', sa.Uuid(), nullable=False),
    sa.Column('deployment_id', sa.Uuid(), nullable=False),
    sa.Column('application', sa.String(length=63), nullable=True),
    sa.Column('application_version_id', sa.Uuid(), nullable=True),
    sa.Column('algorithm', sa.String(length=32), nullable=True),
    sa.Column('node_id', sa.Uuid(), nullable=False),
    sa.Column('dag_node', sa.String(length=63), nullable=False),
    sa.Column('service', sa.String(length=63), nullable=False),
    sa.Column('shard', sa.Integer(), nullable=False),
    sa.Column('replica', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('cpu_cores', sa.Float(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('gone', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['cluster_id'], ['clusters.id'], name=op.f('fk_instance_history_cluster_id_clusters'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_instance_history')),
    )
    op.create_index('ix_instance_history_cluster_ts', 'instance_history', ['cluster_id', 'ts'])
    op.create_index('ix_instance_history_instance', 'instance_history', ['instance_id', 'id'])
    op.execute(_RECORDER)
    op.execute(_TRIGGER)
    # The instances placed before this revision: recorded as of now (their earlier moves are not known).
    op.execute(_RECORD_EXISTING)


def downgrade() -> None:
    op.execute("DROP TRIGGER instances_history ON instances")
    op.execute("DROP FUNCTION record_instance_history()")
    op.drop_table('instance_history')
