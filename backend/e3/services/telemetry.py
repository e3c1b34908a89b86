"""Node telemetry read back from the stored heartbeats: one node's series, and a recent summary per node.

Every power figure carries its source (rapl | ipmi | model) exactly as the agent reported it.
"""

import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.orm import Session

from e3.core.errors import NotFound
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS, public_dict
from e3.models import ComputeNode, heartbeats

SUMMARY_WINDOW_S = 60  # requests are summed over this many seconds in node listings


def get_node(session: Session, node_id: uuid.UUID) -> ComputeNode:
    node = session.get(ComputeNode, node_id)
    if node is None:
        raise NotFound(f"node {node_id} not found")
    return node


def _point(row) -> dict:
    instances = row.instances or []
    return dict(ts=row.ts, **public_dict(NODE_FIELDS, row._mapping),
                requests=sum(i.get("requests", 0) for i in instances),
                instances=[dict(instance_id=i["id"], **public_dict(INSTANCE_FIELDS, i)) for i in instances])


def series(session: Session, node_id: uuid.UUID, since: datetime | None, until: datetime | None,
           limit: int) -> dict:
    """The node's heartbeats from `since` (exclusive; default: the last minute) to `until`, oldest
    first, at most `limit`; `next_since` continues after the last one returned."""
    get_node(session, node_id)
    now = datetime.now(timezone.utc)
    since = since or now - timedelta(seconds=SUMMARY_WINDOW_S)
    stmt = select(heartbeats).where(heartbeats.c.node_id == node_id, heartbeats.c.ts > since)
    if until is not None:
        stmt = stmt.where(heartbeats.c.ts <= until)
    rows = session.execute(stmt.order_by(heartbeats.c.ts).limit(limit)).all()
    items = [_point(r) for r in rows]
    return dict(node_id=node_id, since=since, until=until, items=items,
                next_since=items[-1]["ts"] if len(items) == limit else None)


def summaries(session: Session, node_ids: list[uuid.UUID], window_s: int = SUMMARY_WINDOW_S) -> dict[uuid.UUID, dict]:
    """Per node with heartbeats in the last `window_s` seconds: the latest one's figures and the
    requests completed over the window."""
    if not node_ids:
        return {}
    since = datetime.now(timezone.utc) - timedelta(seconds=window_s)
    latest = session.execute(
        select(heartbeats.c.node_id, heartbeats.c.ts, heartbeats.c.queue_len, heartbeats.c.cpu_util,
               heartbeats.c.power_watts, heartbeats.c.power_source)
        .where(heartbeats.c.node_id.in_(node_ids), heartbeats.c.ts > since)
        .ext(distinct_on(heartbeats.c.node_id)).order_by(heartbeats.c.node_id, heartbeats.c.ts.desc())).all()
    element = func.jsonb_array_elements(heartbeats.c.instances).table_valued("value").alias("i")
    requests = dict(session.execute(
        select(heartbeats.c.node_id, func.sum(text("(i.value->>'requests')::bigint")))
        .select_from(heartbeats).join(element, text("true"))
        .where(heartbeats.c.node_id.in_(node_ids), heartbeats.c.ts > since)
        .group_by(heartbeats.c.node_id)).all())
    return {r.node_id: dict(ts=r.ts, queue_len=r.queue_len, cpu_util=r.cpu_util,
                            power=dict(watts=r.power_watts, source=r.power_source),
                            requests=int(requests.get(r.node_id) or 0), window_s=window_s) for r in latest}
