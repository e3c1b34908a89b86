"""The placement view's racks, servers and computing nodes, written as JSON by PostgreSQL.

At 10,000 servers (50,000 computing nodes) building these lists row by row in Python took most of
GET /clusters/{name}/layout's 1.3 s; PostgreSQL writes the same JSON in about a tenth of that, and the API passes it
on unread (services/cluster_layout.py). The lists are the ones `layout_columns` builds from read_cluster's rows, in
the same order (tests/services/test_layout_topology.py compares the two):
- racks and servers as the nodes' rows name them, in index order (every rack holds a server, every server a node);
- each node with its server's index, what is reserved on it (`usage_statement`) and its recorded state.
"""

import uuid
from dataclasses import dataclass

from sqlalchemy import Text, func, literal, select
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from e3.models import ComputeNode, Rack, Server
from e3.services.cluster_read import usage_statement


@dataclass(frozen=True)
class TopologyJson:
    """JSON arrays as PostgreSQL wrote them, and the nodes' ids in the same order (node i is nodes[i])."""

    racks: str
    servers: str
    nodes: str
    node_ids: list[str]


def topology_json(session: Session, cluster_id: uuid.UUID) -> TopologyJson:
    """The cluster's racks, servers and computing nodes as the layout lists them. One query. Blocking."""
    usage = usage_statement(cluster_id).subquery()
    rows = (select(ComputeNode.id, ComputeNode.name, ComputeNode.kind, ComputeNode.cores, ComputeNode.memory_mb,
                   ComputeNode.state,
                   func.coalesce(usage.c.cores, 0.0).label("used_cores"),
                   func.coalesce(usage.c.memory_mb, 0).label("used_memory_mb"),
                   Server.name.label("server_name"), Server.server_type, Rack.name.label("rack_name"), Rack.pod,
                   (func.dense_rank().over(order_by=(Rack.index, Server.index)) - 1).label("server"),
                   (func.dense_rank().over(order_by=Rack.index) - 1).label("rack"),
                   func.row_number().over(order_by=(Rack.index, Server.index, ComputeNode.index)).label("position"))
            .join(Server, Server.id == ComputeNode.server_id).join(Rack, Rack.id == Server.rack_id)
            .outerjoin(usage, usage.c.node_id == ComputeNode.id)
            .where(ComputeNode.cluster_id == cluster_id)).cte("placed_nodes")
    node = func.json_build_object(
        "id", rows.c.id, "name", rows.c.name, "kind", rows.c.kind, "server", rows.c.server, "cores", rows.c.cores,
        "memory_mb", rows.c.memory_mb, "used_cores", rows.c.used_cores, "used_memory_mb", rows.c.used_memory_mb,
        "state", rows.c.state)
    servers = select(rows.c.server, rows.c.server_name, rows.c.server_type, rows.c.rack).distinct().subquery()
    racks = select(rows.c.rack, rows.c.rack_name, rows.c.pod).distinct().subquery()
    answer = session.execute(select(
        _json_list(select(func.json_agg(aggregate_order_by(
            func.json_build_object("name", racks.c.rack_name, "pod", racks.c.pod), racks.c.rack))))
        .label("racks"),
        _json_list(select(func.json_agg(aggregate_order_by(func.json_build_object(
            "name", servers.c.server_name, "server_type", servers.c.server_type, "rack", servers.c.rack),
            servers.c.server)))).label("servers"),
        _json_list(select(func.json_agg(aggregate_order_by(node, rows.c.position)))).label("nodes"),
        select(func.array_agg(aggregate_order_by(rows.c.id.cast(Text), rows.c.position)))
        .scalar_subquery().label("node_ids"))).one()
    return TopologyJson(racks=answer.racks, servers=answer.servers, nodes=answer.nodes, node_ids=answer.node_ids or [])


def _json_list(aggregate):
    """A json_agg as text (psycopg would parse json), `[]` for no rows."""
    return func.coalesce(aggregate.scalar_subquery().cast(Text), literal("[]"))
