"""The raw tail of a node's heartbeats, asked of the controller that holds it (rpc.tail_servicer), for
`GET /nodes/{id}/telemetry`. The caller's own bearer token goes with the call (the controller checks it grants
`read`), so this process holds no credential of its own for it.

A controller that does not answer within DEADLINE_S (stopped, restarting, unreachable) is said in the answer
(`tail_status: unavailable` with the reason), never hidden: the stored 1 s steps are answered regardless.
"""

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache

import grpc

from e3.core.config import get_settings
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS, public_dict, read_instance, read_node
from e3.rpc.pb import telemetry_pb2, telemetry_pb2_grpc

DEADLINE_S = 0.5
_WILDCARDS = ("", "0.0.0.0", "::", "[::]")


@dataclass(frozen=True)
class TailAnswer:
    status: str  # ok | none (the controller holds nothing of the node) | unavailable
    items: list[dict]  # raw points, oldest first (schemas.cluster.TelemetryPoint)
    holds_since: datetime | None = None  # the oldest heartbeat the controller holds for the node
    detail: str | None = None  # why it is unavailable


def reachable(address: str) -> str:
    """A controller's `host[,host...]:port` as this process reaches it: its first host, a wildcard bind on
    loopback."""
    hosts, _, port = address.rpartition(":")
    host = hosts.split(",")[0].strip()
    return f"{'127.0.0.1' if host in _WILDCARDS else host}:{port}"


def controller_target() -> str:
    """Where the configured controller listens (E3_CONTROLLER_HOST and E3_CONTROLLER_PORT), as this process
    reaches it: asked when no live controller holds the node's lease."""
    settings = get_settings()
    return reachable(f"{settings.controller_host}:{settings.controller_port}")


@lru_cache(maxsize=4)
def _stub(target: str, ca: str | None) -> telemetry_pb2_grpc.TelemetryTailStub:
    channel = (grpc.secure_channel(target, grpc.ssl_channel_credentials(open(ca, "rb").read())) if ca
               else grpc.insecure_channel(target))
    return telemetry_pb2_grpc.TelemetryTailStub(channel)


def point(heartbeat_json: str) -> dict:
    """One raw heartbeat (as the live channel publishes it) as a telemetry point."""
    values = json.loads(heartbeat_json)
    instances = [read_instance(i) for i in values.get("instances") or []]
    return dict(resolution="raw", ts=datetime.fromisoformat(values["ts"]),
                **public_dict(NODE_FIELDS, read_node(values)), requests=sum(i["requests"] for i in instances),
                instances=[dict(instance_id=i["id"], **public_dict(INSTANCE_FIELDS, i)) for i in instances])


def _ns(at: datetime | None) -> int:
    return 0 if at is None else int(at.timestamp() * 1_000_000_000)


_REFUSALS = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT)


def _why_unavailable(exc: grpc.RpcError, target: str) -> str:
    """In words: a controller that refused the call said so; one that failed or was not reached did not answer."""
    verb = "refused the call" if exc.code() in _REFUSALS else "did not answer"
    return f"the controller at {target} {verb}: {exc.code().name}: {exc.details()}"


def fetch(node_id, since: datetime | None, until: datetime | None, limit: int, authorization: str | None,
          holder: str | None = None) -> TailAnswer:
    """The raw heartbeats of the node in (since, until], the newest `limit`, asked of `holder` (the address of
    the controller holding the node's lease, services.leases.holder_address), else of the configured one."""
    ca = get_settings().agent_tls_ca
    target = reachable(holder) if holder else controller_target()
    request = telemetry_pb2.TailRequest(node_id=str(node_id), since_unix_ns=_ns(since), until_unix_ns=_ns(until),
                                        limit=limit)
    try:
        answer = _stub(target, str(ca) if ca else None).Tail(
            request, metadata=[("authorization", authorization or "")], timeout=DEADLINE_S)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            return TailAnswer("none", [])
        return TailAnswer("unavailable", [], detail=_why_unavailable(exc, target))
    holds_since = datetime.fromtimestamp(answer.holds_since_unix_ns / 1e9, timezone.utc)
    return TailAnswer("ok", [point(h) for h in answer.heartbeats_json], holds_since)
