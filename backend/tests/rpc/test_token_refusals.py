"""One token check for every transport: a token is refused for the same reason, in the same words, over HTTP,
the live WebSocket and the agents' gRPC, each saying it its own way (401/403, close 4401/4403,
UNAUTHENTICATED/PERMISSION_DENIED); and every kind of domain error has an HTTP status and a gRPC code."""

import asyncio
import inspect
import uuid

import grpc
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from e3.api.errors import HTTP_STATUS
from e3.core import errors
from e3.rpc.errors import STATUS_CODES
from e3.rpc.pb import agent_pb2


def over_http(anon_client, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    r = anon_client.get("/api/v1/clusters", headers=headers)
    return r.status_code, r.json()["message"]


def over_websocket(api_server, authorization):
    url = api_server.replace("http://", "ws://") + "/api/v1/clusters/any/live"
    headers = {"Authorization": authorization} if authorization else {}

    async def closed_with():
        async with connect(url, subprotocols=["e3.live.v1"], additional_headers=headers) as ws:
            with pytest.raises(ConnectionClosed) as info:
                await asyncio.wait_for(ws.recv(), 10)
            return info.value.rcvd.code, info.value.rcvd.reason

    return asyncio.run(closed_with())


def over_grpc(stub, authorization):
    request = agent_pb2.RegisterRequest(agent_id=str(uuid.uuid4()),
                                        node=agent_pb2.NodeIdentity(name="n", cluster_name="c"))
    metadata = [("authorization", authorization)] if authorization else []
    with pytest.raises(grpc.RpcError) as err:
        stub.Register(request, metadata=metadata, timeout=10)
    return err.value.code(), err.value.details()


def test_a_token_is_refused_the_same_way_over_http_websocket_and_grpc(anon_client, api_server, stub, make_token):
    def http(authorization):
        return over_http(anon_client, authorization)

    def websocket(authorization):
        return over_websocket(api_server, authorization)

    def rpc(authorization):
        return over_grpc(stub, authorization)

    for refused, reason in (("Bearer e3_not-a-token", "invalid, revoked or expired token"),
                            ("Basic abc", "malformed Authorization header: expected 'Bearer <token>'")):
        assert http(refused) == (401, reason)
        assert websocket(refused) == (4401, reason)
        assert rpc(refused) == (grpc.StatusCode.UNAUTHENTICATED, reason)

    # no token: the same refusal, each message saying how to send one on that transport
    assert http(None) == (401, "missing bearer token: send 'Authorization: Bearer <token>' (see `e3 token create`)")
    assert websocket(None) == (4401, "missing bearer token: offer the subprotocol 'e3.bearer.<token>' beside "
                                     "'e3.live.v1'")
    assert rpc(None) == (grpc.StatusCode.UNAUTHENTICATED,
                         "missing bearer token: send `authorization: Bearer <token>` metadata")

    agent_only, api_only = f"Bearer {make_token('agent', name='agent')}", f"Bearer {make_token('write', name='ci')}"
    assert http(agent_only) == (403, "token 'agent' lacks the 'read' scope for this operation")
    assert websocket(agent_only) == (4403, "token 'agent' lacks the 'read' scope for this operation")
    assert rpc(api_only) == (grpc.StatusCode.PERMISSION_DENIED, "token 'ci' lacks the 'agent' scope for this operation")


def test_every_kind_of_domain_error_has_an_http_status_and_a_grpc_code():
    kinds = {cls.kind for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, errors.E3Error)}
    assert kinds == set(HTTP_STATUS) == set(STATUS_CODES)
