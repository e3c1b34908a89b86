"""The heartbeat benchmarks' load generator: simulated type2 agents streaming heartbeats to real controllers.

Each process (multiprocessing, spawn) has one grpc.aio channel per controller. Each simulated agent is one
server (one agent_id, its 5 nodes registered by it) and sends one HeartbeatBatch of 5 heartbeats per period.
Agents are multiplexed on streams (`agents_per_stream` agents' batches go over one StreamHeartbeats; each batch
carries its own agent_id, which the protocol allows), so a 2-core machine is not drowned in thousands of
streams. Each stream's tick is offset within the period to spread the load. A tick the generator cannot make in
time is skipped (counted as `ticks_missed`), never replayed: the offered rate is what it really sent. Each
heartbeat's timestamp is the wall clock when its batch is built, just before it is written. Batches are
serialised once at setup; each send only patches the timestamps and the sequence into the bytes (the generator
shares the cores with the controller, so it must be cheap).

Trouble (`NodeProbe`, for the orchestrator's real-path benchmark): a probed node's heartbeats name the given
instances (real rows, so a decision can be made about them), and during each of its windows its queue length is
`queue_length` instead of the usual 3 (a standing queue on an idle link: host starvation). The batch holding it
is serialised twice, quiet and troubled, so a send still only patches timestamps and the sequence.

With `LoadSpec.native_bin` the process registers its agents and builds their batches as above, then hands the
streaming to the compiled generator (bench.native_streams): same ticks, skips and figures, a fraction of the CPU.
"""

import asyncio
import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass, field

from e3.bench.native_streams import spec_text, stream_natively

QUIET_QUEUE_LENGTH = 3
# a worker's figures as the compiled generator prints them (bench.native_streams), as `stream()`s add them up
NATIVE_FIGURES = ("streams", "agents", "cpu_s", "accepted", "rejected", "rejections", "sent", "batches", "ticks",
                  "ticks_missed", "message_bytes", "unconfirmed", "troubled_sends")


@dataclass(frozen=True)
class NodeProbe:
    """A node the generator makes troubled now and then: its instances, and windows (seconds after the start of
    the send window, [from, to)) during which its queue stands at `queue_length`."""
    instance_ids: tuple[str, ...]
    windows: tuple[tuple[float, float], ...]
    queue_length: int = 40


@dataclass(frozen=True)
class LoadSpec:
    """What every load-generator process is given (pickled to it)."""
    ports: tuple[int, ...]
    token: str
    cluster: str
    period_s: float
    seconds: float
    agents_per_stream: int
    instances: int  # per heartbeat, for nodes that are not probed
    probes: dict[str, NodeProbe] = field(default_factory=dict)  # node name -> its trouble
    native_bin: str | None = None  # the compiled generator streams (bench.native_streams); None: this process


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class _WireBatch:
    """A HeartbeatBatch serialised once; each send patches the heartbeats' timestamps in place (a
    timestamp in ns since the epoch is a 9-byte varint until 2262) and prepends the sequence field."""

    def __init__(self, batch):
        marked = type(batch)()
        marked.CopyFrom(batch)
        marked.ClearField("sequence")
        base = 1 << 60  # distinct 9-byte markers, one per heartbeat
        for k, hb in enumerate(marked.heartbeats):
            hb.timestamp_unix_ns = base + k
        self.body = bytearray(marked.SerializeToString())
        self.offsets = [bytes(self.body).index(b"\x10" + _varint(base + k)) + 1 for k in range(len(marked.heartbeats))]
        self.heartbeats = len(marked.heartbeats)
        self.sequence = 0
        self.agent: tuple = ()  # (agent id, server, [(node name, kind)]): what registers it again after a move
        self.troubled: _WireBatch | None = None  # the same batch with its probed node's queue standing
        self.windows: list[tuple[float, float]] = []  # wall-clock [from, to) when the troubled one is sent
        self.sent_in_window: list[int] = []  # troubled batches sent in each window

    def encode(self, ts_ns: int) -> bytes:
        """The batch to send now (its troubled form inside a window), stamped `ts_ns`, with the next sequence."""
        self.sequence += 1
        wire = self
        if self.troubled is not None:
            for k, (a, b) in enumerate(self.windows):
                if a <= ts_ns / 1e9 < b:
                    wire = self.troubled
                    self.sent_in_window[k] += 1
        ts = _varint(ts_ns)
        body = wire.body
        for o in wire.offsets:
            body[o:o + 9] = ts
        return b"\x10" + _varint(self.sequence) + body  # field 2 (sequence), then agent_id and heartbeats


def worker(index: int, spec: LoadSpec, agents: list, ready, go, results) -> None:
    """A load-generator process: registers its agents, says `ready`, waits for the start time on `go`, streams for
    `spec.seconds` and puts its figures (or the error that stopped it) on `results`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    try:
        results.put(asyncio.run(_worker_main(index, spec, agents, ready, go)))
    except BaseException as exc:  # reported, so the parent does not wait forever
        results.put(dict(worker=index, error=f"{type(exc).__name__}: {exc}"))


def _heartbeat_fields(agent_pb2, node_id: str, probe: NodeProbe | None, instances: int) -> dict:
    names = probe.instance_ids if probe else [str(uuid.uuid4()) for _ in range(instances)]
    return dict(node_id=node_id, queue_length=QUIET_QUEUE_LENGTH, rx_bytes=1, tx_bytes=1, rx_packets=1,
                tx_packets=1, cpu_utilization=0.4, power_watts=35.0, power_source=agent_pb2.POWER_SOURCE_MODEL,
                instances=[agent_pb2.InstanceStats(instance_id=i, requests_completed=100, exec_time_us=80.0,
                                                   exec_time_ema_us=82.0, cpu_share=0.1) for i in names])


def _wire_batch(agent_pb2, agent_id: str, nodes: list, ids: list[str], spec: LoadSpec) -> "_WireBatch":
    """One agent's batch, and its troubled form when one of its nodes is probed (at most one is)."""
    batch = agent_pb2.HeartbeatBatch(agent_id=agent_id)
    probed = [(k, spec.probes[name]) for k, (name, _) in enumerate(nodes) if name in spec.probes]
    if len(probed) > 1:
        raise ValueError(f"agent of {nodes[0][0]}: at most one probed node per agent, not {len(probed)}")
    probe = dict(probed)
    for k, node_id in enumerate(ids):
        batch.heartbeats.add(**_heartbeat_fields(agent_pb2, node_id, probe.get(k), spec.instances))
    wire = _WireBatch(batch)
    if probed:
        k, trouble = probed[0]
        batch.heartbeats[k].queue_length = trouble.queue_length
        wire.troubled = _WireBatch(batch)
    return wire


async def _worker_main(index: int, spec: LoadSpec, agents: list, ready, go) -> dict:
    """Worker `index` streams to controller ports[index % len(ports)]; a stream whose controller fails moves, its
    agents registering again at the next one (as e3-agent does with a list), and goes on there."""
    import grpc

    from e3.rpc.pb import agent_pb2, agent_pb2_grpc

    ports, period_s, seconds, agents_per_stream = list(spec.ports), spec.period_s, spec.seconds, spec.agents_per_stream
    kinds = {"host": agent_pb2.NODE_KIND_HOST, "smartnic": agent_pb2.NODE_KIND_SMARTNIC}
    md = (("authorization", f"Bearer {spec.token}"),)
    async with contextlib.AsyncExitStack() as exits:
        channels: dict[int, grpc.aio.Channel] = {}

        async def channel_to(port: int) -> grpc.aio.Channel:
            if port not in channels:
                channels[port] = await exits.enter_async_context(grpc.aio.insecure_channel(f"127.0.0.1:{port}"))
            return channels[port]

        limit = asyncio.Semaphore(16)

        async def register(port, agent_id, server, name, kind, attempts=5):
            service = agent_pb2_grpc.AgentServiceStub(await channel_to(port))
            request = agent_pb2.RegisterRequest(agent_id=agent_id, node=agent_pb2.NodeIdentity(
                name=name, kind=kinds[kind], server_name=server, cluster_name=spec.cluster,
                software_version="e3-bench-ingest"))
            for attempt in range(attempts):
                async with limit:
                    try:
                        return (await service.Register(request, metadata=md, timeout=60)).node_id
                    except grpc.aio.AioRpcError as exc:  # e.g. a database deadlock between registrations
                        if attempt == attempts - 1 or exc.code() not in (
                                grpc.StatusCode.UNKNOWN, grpc.StatusCode.ABORTED, grpc.StatusCode.UNAVAILABLE):
                            raise
                await asyncio.sleep(0.1 * (attempt + 1))

        home = ports[index % len(ports)]
        t0 = time.perf_counter()
        batches = []
        for server, nodes in agents:
            agent_id = f"bench-{uuid.uuid4()}"
            ids = await asyncio.gather(*(register(home, agent_id, server, name, kind) for name, kind in nodes))
            wire = _wire_batch(agent_pb2, agent_id, nodes, ids, spec)
            wire.agent = (agent_id, server, nodes)
            batches.append(wire)
        ready.put((index, time.perf_counter() - t0))
        start_at = await asyncio.get_running_loop().run_in_executor(None, go.get)
        end_at = start_at + seconds
        for wire in batches:
            probed = [spec.probes[name] for name, _ in wire.agent[2] if name in spec.probes]
            wire.windows = [(start_at + a, start_at + b) for p in probed for a, b in p.windows]
            wire.sent_in_window = [0] * len(wire.windows)
        groups = [batches[i:i + agents_per_stream] for i in range(0, len(batches), agents_per_stream)]
        if spec.native_bin:
            out = await stream_natively(spec.native_bin, spec_text(f"127.0.0.1:{home}", spec.token, period_s,
                                                                   start_at, end_at, groups))
            return dict(worker=index, moves=[], stream_errors=out["errors"], **{k: out[k] for k in NATIVE_FIGURES})
        totals = dict(sent=0, batches=0, ticks=0, ticks_missed=0, message_bytes=0, unconfirmed=0)
        moves: list[list] = []  # [failed at, reporting again at (None: not within the window), nodes], wall clock

        def opener(port: int):
            """StreamHeartbeats at `port`, written as pre-serialised bytes (only timestamps and sequence change)."""
            return channels[port].stream_unary("/e3.agent.v1.AgentService/StreamHeartbeats", request_serializer=None,
                                               response_deserializer=agent_pb2.HeartbeatSummary.FromString)

        async def move(group, failed_port: int) -> int | None:
            """Register the group's agents at the next controller that takes them; returns its port (None: none
            did before the window's end)."""
            port = failed_port
            while time.time() < end_at:
                port = ports[(ports.index(port) + 1) % len(ports)]
                try:
                    await asyncio.gather(*(register(port, agent_id, server, name, kind, attempts=1)
                                           for agent_id, server, nodes in (w.agent for w in group)
                                           for name, kind in nodes))
                    return port
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
            return None

        async def stream(g, group):
            port = home
            call, on_call = opener(port)(metadata=md), 0
            failed_at = None
            summaries = []
            next_t = start_at + period_s * (g / len(groups))
            while True:
                now = time.time()
                if now >= end_at or next_t >= end_at:
                    break
                if next_t > now:
                    await asyncio.sleep(next_t - now)
                try:
                    for wire in group:
                        message = wire.encode(time.time_ns())
                        await call.write(message)
                        on_call += wire.heartbeats
                        totals["message_bytes"] += len(message)
                        totals["sent"] += wire.heartbeats
                        totals["batches"] += 1
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
                    failed_at = time.time()
                    moved = [failed_at, None, sum(w.heartbeats for w in group)]
                    moves.append(moved)
                    totals["unconfirmed"] += on_call  # sent to the failed controller: no summary says how many
                    port = await move(group, port)
                    if port is None:
                        return summaries
                    call, on_call = opener(port)(metadata=md), 0
                    continue
                if failed_at is not None:  # the first batch written at the controller it moved to
                    moved[1] = time.time()
                    failed_at = None
                totals["ticks"] += 1
                next_t += period_s
                behind = time.time() - next_t
                if behind > period_s:  # skip what cannot be made up; never replay late ticks
                    skipped = int(behind // period_s)
                    totals["ticks_missed"] += skipped
                    next_t += skipped * period_s
            try:
                await call.done_writing()
                summaries.append(await call)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
                totals["unconfirmed"] += on_call
            return summaries

        cpu0 = os.times()
        summaries = [s for found in await asyncio.gather(*(stream(g, group) for g, group in enumerate(groups)))
                     for s in found]
        cpu1 = os.times()
        rejections = [f"{r.node_id}: {r.reason}" for s in summaries for r in s.rejections][:5]
        return dict(worker=index, streams=len(groups), agents=len(batches), cpu_s=(cpu1.user + cpu1.system)
                    - (cpu0.user + cpu0.system), accepted=sum(s.accepted for s in summaries),
                    rejected=sum(s.rejected for s in summaries), rejections=rejections, moves=moves,
                    troubled_sends=[n for w in batches for n in w.sent_in_window], **totals)


GRPC_MESSAGE_PREFIX_BYTES = 5  # each gRPC message on the stream: compressed flag + 4-byte length


def wire_bytes_per_heartbeat(outs: list[dict]) -> float | None:
    """Bytes the generator wrote per heartbeat: the HeartbeatBatch messages (protobuf) and their gRPC prefix,
    shared by the batch's heartbeats. HTTP/2 frame headers and TCP/IP headers are not counted."""
    sent = sum(o["sent"] for o in outs)
    written = sum(o["message_bytes"] + GRPC_MESSAGE_PREFIX_BYTES * o["batches"] for o in outs)
    return round(written / sent, 1) if sent else None

