"""AgentService servicer: translates messages and status codes; the work is in services.agent_hub."""

import grpc

from e3.rpc.pb import agent_pb2, agent_pb2_grpc
from e3.services.agent_hub import MAX_REPORTED_REJECTIONS, AgentHub
from e3.services.agents import AgentError

_KINDS = {agent_pb2.NODE_KIND_HOST: "host", agent_pb2.NODE_KIND_SMARTNIC: "smartnic"}
_POWER_SOURCES = {agent_pb2.POWER_SOURCE_RAPL: "rapl", agent_pb2.POWER_SOURCE_IPMI: "ipmi",
                  agent_pb2.POWER_SOURCE_MODEL: "model"}


def _metadata(context, key: str) -> str | None:
    return next((v for k, v in (context.invocation_metadata() or ()) if k == key), None)


def _heartbeat(hb) -> dict:
    return dict(node_id=hb.node_id, timestamp_unix_ns=hb.timestamp_unix_ns, queue_length=hb.queue_length,
                rx_bytes=hb.rx_bytes, tx_bytes=hb.tx_bytes, rx_packets=hb.rx_packets, tx_packets=hb.tx_packets,
                cpu_utilization=hb.cpu_utilization, power_watts=hb.power_watts,
                power_source=_POWER_SOURCES.get(hb.power_source),
                instances=[dict(instance_id=i.instance_id, requests_completed=i.requests_completed,
                                exec_time_us=i.exec_time_us, exec_time_ema_us=i.exec_time_ema_us,
                                cpu_share=i.cpu_share) for i in hb.instances])


class AgentServicer(agent_pb2_grpc.AgentServiceServicer):
    def __init__(self, hub: AgentHub):
        self.hub = hub

    async def _authenticate(self, context) -> None:
        try:
            await self.hub.authenticate(_metadata(context, "authorization"))
        except AgentError as exc:
            await context.abort(grpc.StatusCode[exc.status], exc.message)

    async def Register(self, request, context):
        await self._authenticate(context)
        node = request.node
        try:
            node_id = await self.hub.register(request.agent_id, node.cluster_name, node.name, _KINDS.get(node.kind),
                                              node.server_name or None, node.software_version)
        except AgentError as exc:
            await context.abort(grpc.StatusCode[exc.status], exc.message)
        return agent_pb2.RegisterResponse(node_id=str(node_id), heartbeat_period_ms=self.hub.heartbeat_period_ms)

    async def StreamHeartbeats(self, request_iterator, context):
        await self._authenticate(context)
        summary = agent_pb2.HeartbeatSummary()
        async for batch in request_iterator:
            accepted, rejections = await self.hub.accept_batch(batch.agent_id,
                                                               [_heartbeat(hb) for hb in batch.heartbeats])
            summary.accepted += accepted
            summary.rejected += len(rejections)
            room = MAX_REPORTED_REJECTIONS - len(summary.rejections)
            summary.rejections.extend(agent_pb2.HeartbeatRejection(sequence=batch.sequence, index=r.index,
                                                                    node_id=r.node_id, reason=r.reason)
                                      for r in rejections[:max(room, 0)])
        await self.hub.flush()  # "accepted" means written by the time the agent reads the answer
        return summary

    async def StreamCommands(self, request, context):
        await self._authenticate(context)
        try:
            queue = self.hub.open_commands(request.agent_id, request.node_id)
        except AgentError as exc:
            await context.abort(grpc.StatusCode[exc.status], exc.message)
        try:
            while not self.hub.is_end(command := await queue.get()):
                yield command
        finally:
            self.hub.close_commands(request.node_id, queue)

    async def AckCommand(self, request, context):
        await self._authenticate(context)
        try:
            await self.hub.ack(request.agent_id, request.node_id, request.version, request.ok, request.error.code,
                               request.error.message)
        except AgentError as exc:
            await context.abort(grpc.StatusCode[exc.status], exc.message)
        return agent_pb2.AckCommandResponse()
