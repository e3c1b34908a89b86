"""AgentService servicer: translates messages and status codes; the work is in controller.agent_hub."""

import asyncio

from e3.core.errors import E3Error, PreconditionFailed, Unauthorized
from e3.rpc.errors import abort
from e3.rpc.pb import agent_pb2, agent_pb2_grpc
from e3.controller.agent_hub import MAX_REPORTED_REJECTIONS, AgentHub
from e3.controller.command_streams import ENDED_BECAUSE, LEASE_LAPSED
from e3.services import tokens
from e3.services.agent_credentials import AgentCredential

PEER_METADATA = "x-e3-peer"  # set by the ingest front to its caller's IP
FRONT_NODE_METADATA = "x-e3-front-node-bin"  # a Register's node for the ingest front (front.proto NodeTableChange)
_KINDS = {agent_pb2.NODE_KIND_HOST: "host", agent_pb2.NODE_KIND_SMARTNIC: "smartnic"}


def metadata_value(context, key: str) -> str | None:
    return next((v for k, v in (context.invocation_metadata() or ()) if k == key), None)


def _peer_ip(peer: str) -> str:
    """The IP of a gRPC peer string ("ipv4:127.0.0.1:5555", "ipv6:[::1]:5555")."""
    kind, _, rest = peer.partition(":")
    host = rest.rsplit(":", 1)[0] if kind in ("ipv4", "ipv6") else ""
    return host.strip("[]")


def caller_ip(context) -> str:
    """The caller's IP. Behind the ingest front (agents/e3-ingest) the peer is the controller's unix socket and the
    front names its caller in `x-e3-peer`; that header counts only then, never from a TCP caller, who could name
    any address."""
    peer = context.peer() or ""
    if peer.startswith("unix:"):
        return metadata_value(context, PEER_METADATA) or ""
    return _peer_ip(peer)


def command_message(command: dict, lease_epoch: int = 0) -> agent_pb2.Command:
    """A stored command (services.commands) as the Command message; payload keys are the action's fields.
    `lease_epoch`: the node's lease epoch the sending controller holds (services.leases), which the agent checks
    against the highest it has seen (0: unchecked)."""
    return agent_pb2.Command(version=command["version"], node_id=command["node_id"], lease_epoch=lease_epoch,
                             **{command["kind"]: command["payload"]})


class AgentServicer(agent_pb2_grpc.AgentServiceServicer):
    def __init__(self, hub: AgentHub):
        self.hub = hub

    async def _authenticate(self, context) -> AgentCredential:
        try:
            return await self.hub.authenticate(metadata_value(context, "authorization"),
                                               how_to_send="send `authorization: Bearer <token>` metadata")
        except E3Error as exc:
            await abort(context, exc)

    async def _end_if_revoked(self, context) -> None:
        """In a stream's `except CancelledError`: end the call UNAUTHENTICATED if its credential was revoked
        (hub.credentials cancelled it); otherwise return, and the caller re-raises."""
        if self.hub.credentials.was_revoked():
            await abort(context, Unauthorized(tokens.INVALID_TOKEN))

    async def Register(self, request, context):
        credential = await self._authenticate(context)
        node = request.node
        try:
            node_id = await self.hub.register(credential, request.agent_id, node.cluster_name, node.name,
                                              _KINDS.get(node.kind), node.server_name or None, node.software_version,
                                              node.address or caller_ip(context),
                                              control_address=caller_ip(context))
        except E3Error as exc:
            await abort(context, exc)
        tracked = self.hub.nodes[node_id]
        if (context.peer() or "").startswith("unix:"):  # behind the ingest front: it holds the node before answering
            change = self.hub.front_table.current(tracked)
            context.set_trailing_metadata(((FRONT_NODE_METADATA, change.SerializeToString()),))
        return agent_pb2.RegisterResponse(node_id=str(node_id), heartbeat_period_ms=self.hub.heartbeat_period_ms,
                                          lease_epoch=tracked.lease_epoch)

    async def StreamHeartbeats(self, request_iterator, context):
        credential = await self._authenticate(context)
        summary = agent_pb2.HeartbeatSummary()
        agent_id = None  # the agent streaming, once a batch named it
        try:
            with self.hub.credentials.stream(credential.token_id):
                async for batch in request_iterator:
                    agent_id = agent_id or batch.agent_id
                    # the messages go to the hub as they are; it waits here when the writer is full (backpressure)
                    accepted, rejections = await self.hub.accept_batch(credential, batch.agent_id, batch.heartbeats)
                    summary.accepted += accepted
                    if rejections:
                        summary.rejected += len(rejections)
                        room = MAX_REPORTED_REJECTIONS - len(summary.rejections)
                        summary.rejections.extend(agent_pb2.HeartbeatRejection(
                            sequence=batch.sequence, index=r.index, node_id=r.node_id, reason=r.reason)
                            for r in rejections[:max(room, 0)])
        except E3Error as exc:
            await abort(context, exc)
        except asyncio.CancelledError:
            await self._end_if_revoked(context)
            raise
        finally:
            # An agent ends its heartbeat stream only when it stops or reconnects (it registers again
            # within ~100 ms), and a killed one's connection is reset by its kernel: either way it
            # heartbeats no more on this stream.
            if agent_id:
                self.hub.connection_lost(credential, agent_id)
        await self.hub.flush()  # "accepted" means written by the time the agent reads the answer
        return summary

    async def StreamCommands(self, request, context):
        credential = await self._authenticate(context)
        try:
            stream = self.hub.open_commands(credential, request.agent_id, request.node_id, request.applied_version,
                                            request.lease_epoch)
        except E3Error as exc:
            await abort(context, exc)
        try:
            with self.hub.credentials.stream(credential.token_id):
                while (command := await stream.next()) is not None:
                    if not await self.hub.may_send(stream):
                        stream.ended_because = LEASE_LAPSED
                        break
                    yield command_message(command, stream.lease_epoch)
            if stream.ended_because is not None:
                await abort(context, PreconditionFailed(ENDED_BECAUSE[stream.ended_because],
                                                        code=stream.ended_because))
        except asyncio.CancelledError:
            await self._end_if_revoked(context)
            raise
        finally:
            self.hub.close_commands(stream)

    async def AckCommand(self, request, context):
        credential = await self._authenticate(context)
        try:
            await self.hub.ack(credential, request.agent_id, request.node_id, request.version, request.ok,
                               request.error.code, request.error.message)
        except E3Error as exc:
            await abort(context, exc)
        return agent_pb2.AckCommandResponse()
