"""`e3 controller`: the grpcio asyncio server for agents (AgentService + grpc.health.v1), and for the API the
raw tail of the heartbeats it receives (e3.internal.v1.TelemetryTail; behind the ingest front, the front keeps and
serves the tail, and this server's TelemetryTail, unreached, holds nothing)."""

import asyncio
import ipaddress
import logging
import os
import signal

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from e3.core.config import Settings
from e3.orchestrator.detection import DetectionPolicy
from e3.orchestrator.membership import MembershipPolicy
from e3.rpc.ingest_front import IngestFront, socket_path
from e3.rpc.front_servicer import IngestBackendServicer
from e3.rpc.pb import agent_pb2, agent_pb2_grpc, front_pb2_grpc, telemetry_pb2_grpc
from e3.rpc.servicer import AgentServicer
from e3.rpc.tail_servicer import TelemetryTailServicer
from e3.services.cluster_views import cluster_view
from e3.controller.agent_hub import AgentHub
from e3.controller.cluster_view_cache import ClusterViewCache
from e3.controller.metrics_export import MetricsExport
from e3.controller.front_detector import FrontDetector
from e3.controller.orchestrator import DataplaneOrchestrator
from e3.controller.power_readings import PowerReadings

log = logging.getLogger(__name__)
SERVICE_NAME = agent_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name
# gRPC core's names (GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, GRPC_ARG_HTTP2_MAX_PING_STRIKES); an
# option it does not know is ignored without a word.
GRPC_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS = "grpc.http2.min_ping_interval_without_data_ms"
GRPC_MAX_PING_STRIKES = "grpc.http2.max_ping_strikes"
AGENT_PING_MIN_INTERVAL_MS = 500  # half the agents' keepalive period (1 s)


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS credentials from the configured certificate chain and key (PEM), or None (plaintext)."""
    if settings.controller_tls_cert is None:
        return None
    return grpc.ssl_server_credentials([(settings.controller_tls_key.read_bytes(),
                                         settings.controller_tls_cert.read_bytes())])


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def policy_from(settings: Settings) -> MembershipPolicy:
    return MembershipPolicy(period_s=settings.heartbeat_period_ms / 1000,
                            suspect_after_missed=settings.suspect_after_missed,
                            down_after_s=settings.down_after_ms / 1000, lost_grace_s=settings.lost_grace_ms / 1000)


def detection_policy_from(settings: Settings) -> DetectionPolicy:
    """The detectors' thresholds; the release thresholds follow the trigger ones (a quarter, a half)."""
    return DetectionPolicy(window=settings.detect_window, queue_threshold=settings.detect_queue_packets,
                           queue_clear=min(8, settings.detect_queue_packets // 4),
                           overload_deviation=settings.detect_overload, overload_clear=settings.detect_overload / 2,
                           cooldown_s=settings.detect_cooldown_s, warmup_heartbeats=settings.detect_warmup,
                           overload_floor_us=settings.detect_overload_floor_us,
                           overload_queue_floor=settings.detect_overload_queue)


FRONT_ROLLUP_WRITE_S = 0.25  # behind the front: how often its rollup rows are written (the front takes them as often)


class Controller:
    """The gRPC server and the hub behind it; start() binds, stop() drains and flushes."""

    def __init__(self, settings: Settings, host: str | None = None, port: int | None = None):
        if not settings.redis_url:
            raise RuntimeError("REDIS_URL is not set (run `e3 up`, or set it to a Redis URL)")
        # `host` may list several addresses, comma-separated (e.g. loopback and a rack's management bridge).
        self.hosts = [h.strip() for h in (host or settings.controller_host).split(",") if h.strip()]
        self.requested_port = port if port is not None else settings.controller_port
        self.address = f"{','.join(self.hosts)}:{self.requested_port}"
        self.tls = server_credentials(settings)
        if settings.ingest_front:  # refused before anything starts when another controller serves on its socket
            from e3.emulation.binaries import ingest_binary

            front_binary = ingest_binary()
            self.socket = socket_path(settings.data_dir, self.requested_port, os.getpid())
        views = ClusterViewCache(cluster_view, settings.orchestrator_view_fresh_ms / 1000,
                                 settings.orchestrator_view_stale_ms / 1000)
        orchestrator = DataplaneOrchestrator(settings.orchestrator, detection_policy_from(settings), views=views)
        resume_grace_s = None if settings.resume_grace_ms is None else settings.resume_grace_ms / 1000
        self.hub = AgentHub(policy_from(settings), settings.redis_url, orchestrator=orchestrator,
                            resume_grace_s=resume_grace_s, address=self.address)
        self.front = None  # the compiled front on the public address(es), if E3_INGEST_FRONT
        if settings.ingest_front:  # with the raw tail the hub would keep without the front (its RawTail's figures)
            self.front = IngestFront(front_binary, self.hosts, self.requested_port, self.socket,
                                     settings.controller_tls_cert, settings.controller_tls_key,
                                     settings.rollup_flush_ms, tail_items=self.hub.tail.per_node,
                                     tail_window_s=self.hub.tail.window_s, redis_url=settings.redis_url)
            # its rollup rows come a step at a time once the step ended (agents/e3-ingest/src/backend_link.cc): written
            # as they come, they cost no more rows, and reach Postgres up to a flush interval sooner
            self.hub.rollup_writer.every_s = min(self.hub.rollup_writer.every_s, FRONT_ROLLUP_WRITE_S)
            # and with the detector: the front judges the SmartNIC heartbeats where they arrive
            detector = FrontDetector(self.hub.front_table, orchestrator.detector.policy, orchestrator.mode)
            orchestrator.detector = detector
            orchestrator.mode_listeners.append(detector.mode_changed)
        self.power = PowerReadings(self.hub.nodes, self.hub.clock, changed=self.hub.front_table.changed)
        self.metrics = MetricsExport(self.hub.energy, self.hub.redis, settings.metrics_interval_ms / 1000,
                                     counts_requests=self.hub.energy_rollups.counts_requests,
                                     rejected=self.hub.rejected, name=self.hub.lease.name,
                                     watches=self.hub.watches)
        self.health = health.aio.HealthServicer()
        # Small HTTP/2 receive windows: when heartbeat intake falls behind, gRPC flow control pushes
        # back on the agents within ~16 KB a stream, instead of megabytes (seconds of heartbeats)
        # queueing unseen in the controller. The agents ping every second to notice a frozen
        # controller within ~2 s (agents/e3-agent/rpc/e3rpc.cc): allow pings that often, and never
        # count them as abuse (gRPC's default answers them with GOAWAY too_many_pings).
        # Behind the front, the agents' windows are the front's; its deliveries (tens of thousands of heartbeats' live
        # items, under the front's own backpressure) cross the unix socket whole.
        windows = [("grpc.max_receive_message_length", -1)] if self.front is not None else [
            ("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 16384)]
        self.server = grpc.aio.server(options=[*windows,
                                               (GRPC_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, AGENT_PING_MIN_INTERVAL_MS),
                                               (GRPC_MAX_PING_STRIKES, 0)])
        agent_pb2_grpc.add_AgentServiceServicer_to_server(AgentServicer(self.hub), self.server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        telemetry_pb2_grpc.add_TelemetryTailServicer_to_server(TelemetryTailServicer(self.hub.tail), self.server)
        if self.front is not None:
            front_pb2_grpc.add_IngestBackendServicer_to_server(IngestBackendServicer(self.hub), self.server)
        self.port = 0

    async def start(self) -> int:
        if self.front is not None:
            return await self._start_behind_front()
        for host in self.hosts:  # port 0: the first bind picks it, the others reuse it
            address = f"{host}:{self.port or self.requested_port}"
            if self.tls is not None:
                bound = self.server.add_secure_port(address, self.tls)
            else:
                bound = self.server.add_insecure_port(address)
                self._warn_if_clear(host)
            if not bound:
                raise RuntimeError(f"cannot listen on {address}")
            self.port = bound
        self.address = self.hub.lease.address = f"{','.join(self.hosts)}:{self.port}"  # port 0: the one it got
        await self._serve()
        return self.port

    def _warn_if_clear(self, host: str) -> None:
        if self.tls is None and not is_loopback(host):
            log.warning("listening on %s without TLS: agents' tokens and commands cross the network in clear "
                        "(set E3_CONTROLLER_TLS_CERT and E3_CONTROLLER_TLS_KEY; docs/security.md)", host)

    async def _start_behind_front(self) -> int:
        """Serve on the unix socket only, then start the front on the public address(es): it carries the TLS and
        the port, and tells each call's caller in x-e3-peer (servicer.caller_ip)."""
        for host in self.hosts:
            self._warn_if_clear(host)
        self.socket.parent.mkdir(parents=True, exist_ok=True)
        if not self.server.add_insecure_port(f"unix:{self.socket}"):
            raise RuntimeError(f"cannot listen on unix:{self.socket}")
        # the front first: its port (0: the kernel's pick) is the address this controller's lease row gives; until
        # the server below serves, what it forwards is refused UNAVAILABLE, and agents call again
        self.port = await self.front.start()
        self.address = self.hub.lease.address = f"{','.join(self.hosts)}:{self.port}"
        try:
            await self._serve()
        except BaseException:
            await self.front.stop()
            raise
        log.info("e3-ingest (pid %d) listening on %s, forwarding to unix:%s", self.front.pid,
                 f"{','.join(self.hosts)}:{self.port}", self.socket)
        return self.port

    async def _serve(self) -> None:
        await self.hub.start()
        await self.power.start()
        self.metrics.start()
        await self.server.start()
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace_s: float = 5.0) -> None:
        await self.health.enter_graceful_shutdown()
        if self.front is not None:
            await self.front.stop()  # first: its heartbeat streams end, and its last delivery reaches the hub
        await self.power.stop()
        await self.metrics.stop()
        await self.hub.stop()  # ends command streams, writes buffered heartbeats
        await self.server.stop(grace_s)


async def serve(settings: Settings, host: str | None = None, port: int | None = None) -> int:
    """Run the controller until SIGINT/SIGTERM (exit status 0) or, with the ingest front, until the front dies
    (1: the pair is one controller, and agents can no longer reach this one)."""
    controller = Controller(settings, host, port)
    bound = await controller.start()
    print(f"controller listening on {controller.address.rsplit(':', 1)[0]}:{bound}"
          f"{' (TLS)' if controller.tls else ''}{' (ingest front)' if controller.front else ''}", flush=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    waits = [asyncio.ensure_future(stopping.wait())]
    if controller.front is not None:
        waits.append(asyncio.ensure_future(controller.front.exited()))
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for waiting in waits:
        waiting.cancel()
    status = 0
    if not stopping.is_set():
        log.error("e3-ingest (pid %d), the controller's front, exited with code %s: the controller stops",
                  controller.front.pid, controller.front.proc.returncode)
        status = 1
    log.info("stopping")
    await controller.stop()
    return status
