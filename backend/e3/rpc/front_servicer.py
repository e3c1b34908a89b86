"""e3.internal.v1.IngestBackend: what the controller's ingest front (agents/e3-ingest) asks of the controller behind
it, on the unix socket only (docs/controller-scale-out.md §2). The work is in controller.front_table (the node
table it mirrors), controller.front_delivery (what it took) and services.tokens (the callers of the raw tail it
serves, e3.internal.v1.TelemetryTail)."""

import asyncio
import logging
from datetime import datetime, timezone

from e3.controller.agent_hub import AgentHub
from e3.controller.heartbeat_intake import heartbeat_dict
from e3.core.db import in_session
from e3.core.errors import E3Error
from e3.rpc.errors import abort
from e3.rpc.pb import front_pb2, front_pb2_grpc
from e3.services import agents, tokens

log = logging.getLogger(__name__)
HOW_TO_SEND = "send `authorization: Bearer <token>` metadata"


class IngestBackendServicer(front_pb2_grpc.IngestBackendServicer):
    def __init__(self, hub: AgentHub):
        self.hub = hub

    async def OpenStream(self, request, context):
        try:
            credential = await self.hub.authenticate(request.authorization or None, how_to_send=HOW_TO_SEND)
        except E3Error as exc:
            await abort(context, exc)
        self.hub.credentials.front_opened(credential.token_id)
        return front_pb2.OpenStreamResponse(token_id=str(credential.token_id))

    async def WatchNodes(self, request, context):
        async for change in self.hub.front_table.watch():
            yield change

    async def Judge(self, request, context):
        """agents.heartbeat_problem of each heartbeat the front's quick check doubted, as the Python intake
        judges those it doubts."""
        wall = datetime.fromtimestamp(request.wall_unix_ns / 1e9, timezone.utc)
        self.hub.intake.doubted += len(request.heartbeats)
        return front_pb2.JudgeResponse(problems=[agents.heartbeat_problem(heartbeat_dict(hb), wall) or ""
                                                 for hb in request.heartbeats])

    async def Authorize(self, request, context):
        """Whether the caller of a call the front serves itself (its raw tail: TelemetryTail.Tail) may make it: its
        `authorization` must grant `scope`, as rpc.tail_servicer checks it without the front. A refusal is the
        call's status (UNAUTHENTICATED, PERMISSION_DENIED naming the scope), which the front hands its caller."""
        try:
            await asyncio.to_thread(in_session, tokens.authorize_bearer, request.scope, how_to_send=HOW_TO_SEND,
                                    authorization=request.authorization or None)
        except E3Error as exc:
            await abort(context, exc)
        return front_pb2.AuthorizeResponse()

    async def Deliver(self, request, context):
        try:
            await self.hub.front.apply(request)
        except Exception:
            log.exception("applying the ingest front's delivery failed (%d heartbeats); it sends it again",
                          request.accepted)
            raise
        return front_pb2.DeliveryAck()

    async def Detected(self, request, context):
        """The front's detections, apart from its deliveries: none waits behind one (controller.front_delivery)."""
        self.hub.front.detected(request)
        return front_pb2.DetectionAck()
