"""The cluster layout for the placement view, in columns.

- `cluster_layout_json`: now, as the answer's JSON. Its racks, servers and nodes are written by PostgreSQL
  (services/layout_topology.py: 50,000 nodes in about a tenth of the time Python takes), its deployments and
  instances here.
- `layout_columns`: the same answer from nodes, deployments and instances however they were read, as they were
  at a past moment (services/cluster_moments.py).
"""

from collections.abc import Callable, Iterable, Sequence

from pydantic_core import to_json
from sqlalchemy.orm import Session

from e3.schemas.dag import ApplicationSpec
from e3.services.cluster_read import NodeColumns, NodeRow, Usage, read_placed
from e3.services.clusters import get_cluster
from e3.services.layout_topology import topology_json

INSTANCE_COLUMNS = ("id", "node", "deployment", "dag_node", "service", "shard", "replica", "state", "error")


def cluster_layout_json(session: Session, name: str) -> bytes:
    """GET /clusters/{name}/layout's answer (schemas/layout.py ClusterLayout), as JSON."""
    cluster = get_cluster(session, name)
    topology = topology_json(session, cluster.id)
    deployments, instances = read_placed(session, cluster.id)
    node_index = {node_id: i for i, node_id in enumerate(topology.node_ids)}
    placed = to_json(dict(cluster=cluster.name, deployments=_deployments(deployments),
                          instances=_instance_columns(instances, lambda row: node_index[str(row.node_id)],
                                                      deployments, error=_refusal)))
    written = b",".join(b'"%s":%s' % (key.encode(), getattr(topology, key).encode())
                        for key in ("racks", "servers", "nodes"))
    return b"{" + written + b"," + placed[1:]


def layout_columns(cluster: str, nodes: Sequence[NodeRow], usage_of: Callable, deployments: Sequence,
                   instances: Iterable, node_state: Callable[[NodeColumns], str]) -> dict:
    """The layout's answer. `deployments`: rows with id, application, version, algorithm and spec; `instances`:
    rows with id, node_id, deployment_id, dag_node, service, shard, replica and state, in listing order (their
    error is not kept); `usage_of(node_id)`: what is reserved on a node; `node_state(node)`: its state."""
    # Every rack holds a server and every server a node, so the nodes' rows name them all, in index order.
    racks, servers, rack_index, server_index = [], [], {}, {}
    for row in nodes:
        if row.rack_id not in rack_index:
            rack_index[row.rack_id] = len(racks)
            racks.append(dict(name=row.rack, pod=row.pod))
        if row.server_id not in server_index:
            server_index[row.server_id] = len(servers)
            servers.append(dict(name=row.server, server_type=row.server_type, rack=rack_index[row.rack_id]))
    node_index = {row.node.id: i for i, row in enumerate(nodes)}
    return dict(
        cluster=cluster,
        racks=racks,
        servers=servers,
        nodes=[_layout_node(row.node, server_index[row.server_id], usage_of(row.node.id), node_state(row.node))
               for row in nodes],
        deployments=_deployments(deployments),
        instances=_instance_columns(instances, lambda row: node_index[row.node_id], deployments,
                                    error=lambda _: None))


def _deployments(deployments: Sequence) -> list[dict]:
    return [dict(id=d.id, application=d.application, version=d.version, algorithm=d.algorithm,
                 edges=[(e.from_, e.to) for e in ApplicationSpec.from_document(d.spec).edges])
            for d in deployments]


def _instance_columns(instances: Iterable, node_of: Callable, deployments: Sequence, error: Callable) -> dict:
    """The instances as parallel arrays; `node_of(row)`: the index of its node, `error(row.error)`: what is
    shown of its refusal."""
    deployment_index = {d.id: i for i, d in enumerate(deployments)}
    columns = {k: [] for k in INSTANCE_COLUMNS}
    for row in instances:
        columns["id"].append(row.id)
        columns["node"].append(node_of(row))
        columns["deployment"].append(deployment_index[row.deployment_id])
        columns["dag_node"].append(row.dag_node)
        columns["service"].append(row.service)
        columns["shard"].append(row.shard)
        columns["replica"].append(row.replica)
        columns["state"].append(row.state)
        columns["error"].append(error(row.error))
    return columns


def _refusal(error: dict | None) -> dict | None:
    """An instance's error as {code, message}: an agent's NACK has both; a failed seed's may carry more."""
    if not error:
        return None
    return dict(code=error.get("code") or "error", message=error.get("message") or error.get("code") or "")


def _layout_node(node: NodeColumns, server: int, usage: Usage, state: str) -> dict:
    cores, memory_mb, _, _ = usage
    return dict(id=node.id, name=node.name, kind=node.kind, server=server, cores=node.cores,
                memory_mb=node.memory_mb, used_cores=cores, used_memory_mb=memory_mb, state=state)
