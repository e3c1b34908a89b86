"""The cluster layout for the placement view, in columns, as the answer's JSON: now (`cluster_layout_json`) or as
it was at a past moment (services/cluster_moments.py calls `layout_json`).

Its racks, servers and nodes are written by PostgreSQL (services/layout_topology.py: 50,000 nodes in about a tenth
of the time Python takes) and passed on unread; its deployments and instances are written here.
"""

from collections.abc import Callable, Sequence

from pydantic_core import to_json
from sqlalchemy.orm import Session

from e3.models import Cluster
from e3.schemas.dag import ApplicationSpec
from e3.services.cluster_read import read_placed
from e3.services.clusters import get_cluster
from e3.services.layout_topology import NodesAt, topology_json

INSTANCE_COLUMNS = ("id", "node", "deployment", "dag_node", "service", "shard", "replica", "state", "error")


def cluster_layout_json(session: Session, name: str) -> bytes:
    """GET /clusters/{name}/layout's answer (schemas/layout.py ClusterLayout)."""
    cluster = get_cluster(session, name)
    deployments, instances = read_placed(session, cluster.id)
    return layout_json(session, cluster, deployments, instances, error=_refusal)


def layout_json(session: Session, cluster: Cluster, deployments: Sequence, instances: Sequence,
                error: Callable[[dict | None], dict | None], at: NodesAt | None = None) -> bytes:
    """The layout's answer (ClusterLayout). `deployments`: rows with id, application, version, algorithm and
    spec; `instances`: rows with id, node_id, deployment_id, dag_node, service, shard, replica, state and error, in
    listing order; `error(row.error)`: what is shown of an instance's refusal; `at`: a past moment's reservations
    and node states (else now's)."""
    topology = topology_json(session, cluster.id, at)
    node_index = {node_id: i for i, node_id in enumerate(topology.node_ids)}
    deployment_index = {d.id: i for i, d in enumerate(deployments)}
    columns = {k: [] for k in INSTANCE_COLUMNS}
    for row in instances:
        columns["id"].append(row.id)
        columns["node"].append(node_index[str(row.node_id)])
        columns["deployment"].append(deployment_index[row.deployment_id])
        columns["dag_node"].append(row.dag_node)
        columns["service"].append(row.service)
        columns["shard"].append(row.shard)
        columns["replica"].append(row.replica)
        columns["state"].append(row.state)
        columns["error"].append(error(row.error))
    listed = [dict(id=d.id, application=d.application, version=d.version, algorithm=d.algorithm,
                   edges=[(e.from_, e.to) for e in ApplicationSpec.from_document(d.spec).edges]) for d in deployments]
    return json_with(dict(cluster=cluster.name, deployments=listed, instances=columns),
                     racks=topology.racks.encode(), servers=topology.servers.encode(), nodes=topology.nodes.encode())


def json_with(fields: dict, **written: bytes) -> bytes:
    """`fields` as a JSON object, with members whose values are JSON already written (passed on unread)."""
    rest = to_json(fields)
    members = b",".join(b'"%s":%s' % (key.encode(), value) for key, value in written.items())
    return b"{" + members + (b"," + rest[1:] if len(rest) > 2 else b"}")


def _refusal(error: dict | None) -> dict | None:
    """An instance's error as {code, message}: an agent's NACK has both; a failed seed's may carry more."""
    if not error:
        return None
    return dict(code=error.get("code") or "error", message=error.get("message") or error.get("code") or "")
