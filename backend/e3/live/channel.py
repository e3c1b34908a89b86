"""Live node state in Redis: each cluster's latest heartbeat per node (hash `e3:latest:<cluster id>`), each node's
membership state (hash `e3:node:<id>`), and pub/sub on `e3:live`.

`e3:latest:<cluster id>` is a hash from node id to the node's latest heartbeat as the live JSON item below
(written by the controller once per write to Redis, with every node heard since the previous one: one command
a cluster, however many heartbeats).

`e3:states:<cluster id>` is a hash from node id to the node's membership state as JSON {"state", "since"} (set
on every change, with the message below): a cluster's states in one read, however many nodes (HGETALL of 50,000
fields where 50,000 reads took a second of the API's event loop).

`e3:node:<id>` is a hash of the node's command outcomes: last_command_version and last_command_ok.

Messages on `e3:live` are JSON objects with a `type`:
  {"type": "heartbeats", "heartbeats": [{node_id, ts, queue_len, ..., instances, cluster_id}, ...]}
      one per write: the heartbeats accepted since the previous one; each item has node_id, cluster_id, ts
      (ISO 8601, UTC, microseconds), one key per node field of the heartbeat record
      (e3.heartbeat_record.NODE_FIELDS by name: queue_len, rx_bytes, ..., power_source) and instances (a JSON
      array of {id, one key per INSTANCE_FIELDS entry})
  {"type": "node.state", "node_id", "cluster_id", "name", "state", "previous", "ts"}
"""

import json
from datetime import datetime

LIVE_CHANNEL = "e3:live"


def latest_key(cluster_id) -> str:
    """The Redis hash holding the latest heartbeat of each of cluster `cluster_id`'s nodes."""
    return f"e3:latest:{cluster_id}"


def states_key(cluster_id) -> str:
    """The Redis hash holding the membership state of each of cluster `cluster_id`'s nodes."""
    return f"e3:states:{cluster_id}"


def node_key(node_id) -> str:
    """The Redis hash holding node `node_id`'s last command outcome."""
    return f"e3:node:{node_id}"


def parse_ts(text: str) -> float:
    """A heartbeat item's `ts` (ISO 8601 with its offset) in seconds since the epoch."""
    return datetime.fromisoformat(text).timestamp()


def seconds_since_heartbeat(item: bytes | str, now: float) -> float | None:
    """How long before `now` (seconds since the epoch) the heartbeat of an `e3:latest` item was taken, by its
    own `ts`; None when the item cannot be read."""
    try:
        return now - parse_ts(json.loads(item)["ts"])
    except (ValueError, KeyError, TypeError):
        return None
