"""TelemetryTail servicer (proto/e3/internal/v1/telemetry.proto): the raw heartbeats this controller holds for a
node (controller.raw_tail), for the API's `GET /nodes/{id}/telemetry`. The caller's bearer token must grant
`read`, as the REST call it serves does."""

import asyncio

from e3.controller.raw_tail import RawTail
from e3.core.db import in_session
from e3.core.errors import E3Error, NotFound
from e3.rpc.errors import abort
from e3.rpc.pb import telemetry_pb2, telemetry_pb2_grpc
from e3.rpc.servicer import metadata_value
from e3.services import tokens


class TelemetryTailServicer(telemetry_pb2_grpc.TelemetryTailServicer):
    def __init__(self, tail: RawTail):
        self.tail = tail

    async def Tail(self, request, context):
        try:
            await asyncio.to_thread(in_session, tokens.authorize_bearer, "read",
                                    how_to_send="send `authorization: Bearer <token>` metadata",
                                    authorization=metadata_value(context, "authorization"))
            read = self.tail.read(request.node_id, request.since_unix_ns, request.until_unix_ns, request.limit)
            if read is None:
                raise NotFound(f"this controller holds no heartbeats of node {request.node_id!r}")
        except E3Error as exc:
            await abort(context, exc)
        return telemetry_pb2.TailResponse(heartbeats_json=read.items, holds_since_unix_ns=read.holds_since_ns,
                                          window_s=self.tail.window_s)
