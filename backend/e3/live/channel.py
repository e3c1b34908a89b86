"""Live node state in Redis: the latest heartbeat per node (hash `e3:node:<id>`) and pub/sub on `e3:live`.

`e3:node:<id>` is a hash. Each accepted heartbeat sets its fields node_id, cluster_id, ts (ISO 8601, UTC,
microseconds), one per node field of the heartbeat record (e3.heartbeat_record.NODE_FIELDS by name: queue_len,
rx_bytes, ..., power_source) and instances (a JSON array of {id, one key per INSTANCE_FIELDS entry}); membership
changes set state and state_since, command outcomes last_command_version and last_command_ok.

Messages on `e3:live` are JSON objects with a `type`:
  {"type": "heartbeats", "heartbeats": [{node_id, ts, queue_len, ..., instances, cluster_id}, ...]}
      one per batch: its accepted heartbeats
  {"type": "node.state", "node_id", "cluster_id", "name", "state", "previous", "ts"}
"""

LIVE_CHANNEL = "e3:live"


def node_key(node_id) -> str:
    """The Redis hash holding node `node_id`'s latest heartbeat and state."""
    return f"e3:node:{node_id}"
