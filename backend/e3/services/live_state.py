"""Live node state in Redis: the latest heartbeat per node (hash `e3:node:<id>`) and pub/sub on `e3:live`.

Messages on `e3:live` are JSON objects with a `type`:
  {"type": "heartbeats", "heartbeats": [{node_id, cluster_id, ts, queue_len, ...}, ...]}  one per batch
  {"type": "node.state", "node_id", "cluster_id", "name", "state", "previous", "ts"}
"""

import json
from collections.abc import Sequence
from datetime import datetime, timezone

import redis.asyncio as aioredis

LIVE_CHANNEL = "e3:live"


def node_key(node_id) -> str:
    return f"e3:node:{node_id}"


def _public(row: dict, cluster_id) -> dict:
    out = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}
    out.update(node_id=str(row["node_id"]), cluster_id=str(cluster_id))
    return out


async def publish_heartbeats(client: aioredis.Redis, rows: Sequence[tuple[dict, object]]) -> None:
    """Store each node's latest heartbeat and publish the batch. `rows` are (heartbeat row, cluster id)."""
    if not rows:
        return
    items = [_public(row, cluster_id) for row, cluster_id in rows]
    async with client.pipeline(transaction=False) as pipe:
        for item in items:
            pipe.hset(node_key(item["node_id"]), mapping={
                k: json.dumps(v) if isinstance(v, (list, dict)) else ("" if v is None else v)
                for k, v in item.items()})
        pipe.publish(LIVE_CHANNEL, json.dumps({"type": "heartbeats", "heartbeats": items}))
        await pipe.execute()


async def publish_state(client: aioredis.Redis, node_id, cluster_id, name: str, state: str,
                        previous: str | None) -> None:
    now = datetime.now(timezone.utc).isoformat()
    async with client.pipeline(transaction=False) as pipe:
        pipe.hset(node_key(node_id), mapping={"state": state, "state_since": now})
        pipe.publish(LIVE_CHANNEL, json.dumps({"type": "node.state", "node_id": str(node_id),
                                               "cluster_id": str(cluster_id), "name": name, "state": state,
                                               "previous": previous, "ts": now}))
        await pipe.execute()
