"""The placement view's racks, servers and computing nodes, written as JSON by PostgreSQL.

At 10,000 servers (50,000 computing nodes) building these lists row by row in Python took most of
GET /clusters/{name}/layout's 1.3 s; PostgreSQL writes the same JSON in about a tenth of that, and the API passes it
on unread (services/cluster_layout.py). The lists:
- racks and servers as the nodes' rows name them, in index order (every rack holds a server, every server a node);
- each node with its server's index, what is reserved on it (`usage_statement`) and its recorded state; or, for a
  past moment (services/cluster_moments.py), what was reserved on it and its state then (`NodesAt`).
"""

import uuid
from dataclasses import dataclass

from sqlalchemy import BigInteger, Float, Text, bindparam, cast, func, literal, select
from sqlalchemy.dialects.postgresql import JSONB, aggregate_order_by
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


@dataclass(frozen=True)
class NodesAt:
    """A past moment's figures of the nodes, by node id (text): cores and memory reserved (none: 0) and state
    (none: the record's)."""

    cores: dict[str, float]
    memory_mb: dict[str, int]
    states: dict[str, str]


def topology_json(session: Session, cluster_id: uuid.UUID, at: NodesAt | None = None) -> TopologyJson:
    """The cluster's racks, servers and computing nodes as the layout lists them, now or with `at`'s reservations
    and states. One query. Blocking."""
    if at is None:
        usage = usage_statement(cluster_id).subquery()
        used_cores, used_memory, state = usage.c.cores, usage.c.memory_mb, ComputeNode.state
    else:
        node = ComputeNode.id.cast(Text)

        def given(name: str, value: dict):  # this node's entry in a JSON object passed in, as text
            return bindparam(name, value=value, type_=JSONB).op("->>")(node)

        used_cores = cast(given("cores_at", at.cores), Float)
        used_memory = cast(given("memory_at", at.memory_mb), BigInteger)
        state = func.coalesce(given("states_at", at.states), ComputeNode.state)
    rows = (select(ComputeNode.id, ComputeNode.name, ComputeNode.kind, ComputeNode.cores, ComputeNode.memory_mb,
                   state.label("state"),
                   func.coalesce(used_cores, 0.0).label("used_cores"),
                   func.coalesce(used_memory, 0).label("used_memory_mb"),
                   Server.name.label("server_name"), Server.server_type, Rack.name.label("rack_name"), Rack.pod,
                   (func.dense_rank().over(order_by=(Rack.index, Server.index)) - 1).label("server"),
                   (func.dense_rank().over(order_by=Rack.index) - 1).label("rack"),
                   func.row_number().over(order_by=(Rack.index, Server.index, ComputeNode.index)).label("position"))
            .join(Server, Server.id == ComputeNode.server_id).join(Rack, Rack.id == Server.rack_id)
            .where(ComputeNode.cluster_id == cluster_id))
    if at is None:
        rows = rows.outerjoin(usage, usage.c.node_id == ComputeNode.id)
    rows = rows.cte("placed_nodes")
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
