"""Heartbeat-ingest benchmark: simulated type2 agents stream heartbeats to a real controller.

Everything runs on this machine, started here in a temporary directory and stopped at the end (also
on Ctrl-C or error): embedded Postgres and Redis, migrations and catalogue, a cluster of N
type2-smartnic servers (5 computing nodes each: 1 host + 4 SmartNICs), an `agent` token, and the
controller as its own process (`python -m e3 controller`), so its CPU is measured apart with psutil.

Load generator: `workers` processes (`heartbeat_loadgen`), each agent one type2 server sending one
HeartbeatBatch of its 5 heartbeats per period, multiplexed on streams. With a `probe` (the orchestrator's
real-path benchmark, `decision_path`), some SmartNICs are made troubled now and then, and the controller decides.
The processes register their agents and build the batches; the compiled generator (`native_streams`,
agents/e3-heartbeat-load) streams them when built (`loadgen`: auto), the processes themselves otherwise.

Lag measurements (same machine, same wall clock):
  - to Redis: a raw-socket subscriber of `e3:live` (in this process) stamps each chunk it reads and
    matches `node_id`/`ts` of a sample of nodes; lag = arrival - heartbeat timestamp. Exact to the
    read; the subscriber's own delay is included (its CPU is reported as monitor CPU).
  - to the rollups in Postgres (`node_rollups`, written by the controller every E3_ROLLUP_FLUSH_MS):
    every `rollup_poll_ms` a query fetches the sample's rows whose `last_ts` (the row's latest
    heartbeat) is newer than the last seen for the node, i.e. the rows a flush just wrote or added to.
    For each: lag = query start - its `last_ts`, the wait of the newest heartbeat the flush brought
    (the others it brought are older, so waited longer), and a bound = query start - the node's
    previous `last_ts`, which no heartbeat it brought waited longer than. Both are up to one poll
    interval (+ query time) late.
Counts: sent (generator) = accepted (the controller's summaries) = heartbeats counted in the rollups
(Σ `node_rollups.heartbeats`; the database is fresh) is zero loss.
CPU figures are % of one core over the send window (psutil / os.times). The load generator, the
monitor, Postgres and Redis all share the same cores as the controller. CPU per 100,000 heartbeats/s
is the CPU time from the window's start until the last summary (which the controller sends once the
rollups hold the stream's heartbeats), per heartbeat accepted.
"""

import multiprocessing
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from queue import Empty

from e3.bench.heartbeat_loadgen import LoadSpec, wire_bytes_per_heartbeat, worker
from e3.bench.stack import CpuClock, cpu_s, postgres_cpu_s, setup_database, start_controller, stop_process
from e3.client.api import ClientError
from e3.emulation.binaries import heartbeat_load_binary
from e3.rollup.steps import STEP_S

NODES_PER_SERVER = 5  # type2-smartnic: host + 4 SmartNICs
TARGET_HZ = 100_000  # the target, at 1,000 type2 servers
TARGET_LAG_REDIS_P99_MS = 100
TARGET_LAG_ROLLUP_P99_MS = 2000
# E3_DOWN_AFTER_MS of the controllers: the generator registers every agent before any streams (a real agent
# streams as soon as it has registered), so with the default second the nodes registered first would go down and
# fail over while the rest register: those writes took most of the registration time (py-spy, 600 servers)
REGISTRATION_PATIENCE_MS = 900_000
TARGET_MOVE_S = 2.0  # kill -9 of a controller: its nodes report again at another within this
PER_HZ = 100_000  # CPU is reported per this many heartbeats/s
LOADGENS = ("auto", "native", "python")


@dataclass(frozen=True)
class IngestConfig:
    servers: int = 1000
    seconds: float = 10.0
    period_ms: int = 50
    agents_per_stream: int = 0  # 0: auto
    workers: int = 0  # 0: auto
    instances: int = 2  # per heartbeat
    sample_nodes: int = 200  # nodes whose lag is measured
    rollup_poll_ms: int = 20
    front: bool = False  # the controller behind its compiled ingest front (E3_INGEST_FRONT)
    controllers: int = 1  # controller processes; load-generator process i streams to controller i mod N
    kill_after_s: float = 0.0  # > 0: kill -9 of the first controller this long into the window (its streams move)
    loadgen: str = "auto"  # native (e3-heartbeat-load streams) | python | auto: native when built, unless kill_after_s

    def resolved(self) -> "IngestConfig":
        workers = self.workers or (1 if self.servers <= 50 else 2)
        workers = max(1, min(workers, self.servers))
        per_worker = -(-self.servers // workers)
        # auto: at most ~50 streams per worker process (each stream is a task and an HTTP/2 stream)
        aps = self.agents_per_stream or max(1, -(-per_worker // 50))
        if self.kill_after_s and (self.controllers < 2 or self.kill_after_s >= self.seconds):
            raise ValueError("--kill-after needs --controllers 2 or more, and less than --seconds")
        if self.loadgen not in LOADGENS:
            raise ValueError(f"loadgen must be one of {', '.join(LOADGENS)}, not {self.loadgen!r}")
        if self.loadgen == "native" and self.kill_after_s:
            raise ValueError("--kill-after needs the python load generator: the native one does not move streams")
        if self.loadgen == "native" and not _native_loadgen():  # said before anything is started
            raise ValueError("--loadgen native: e3-heartbeat-load is not built (run `make agents`, or set "
                             "E3_HEARTBEAT_LOAD_BIN)")
        loadgen = self.loadgen
        if loadgen == "auto":
            loadgen = "native" if not self.kill_after_s and _native_loadgen() else "python"
        return IngestConfig(self.servers, self.seconds, self.period_ms, aps, workers, self.instances,
                            self.sample_nodes, self.rollup_poll_ms, self.front, self.controllers, self.kill_after_s,
                            loadgen)


def _native_loadgen() -> str | None:
    """The compiled generator's path, None when it is not built."""
    try:
        return str(heartbeat_load_binary())
    except ClientError:
        return None


def nearest_rank(values: list[float], q: float) -> float | None:
    """The q-th percentile of `values` by nearest rank (None for none)."""
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


# --- monitors (threads of this process) -------------------------------------------------------------
_HB = re.compile(rb'"node_id": "([0-9a-f-]{36})", "ts": "([^"]+)"')


class RedisLag(threading.Thread):
    """SUBSCRIBE e3:live on a raw socket; lag of each sampled heartbeat = read time - its timestamp."""

    def __init__(self, port: int, password: str, sample: set[str]):
        super().__init__(daemon=True, name="redis-lag")
        self.sample = {s.encode() for s in sample}
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(f"AUTH {password}\r\nSUBSCRIBE e3:live\r\n".encode())  # the embedded Redis has one
        self.lags_ms: list[float] = []
        self.stop_flag = False

    def run(self) -> None:
        self.sock.settimeout(0.2)
        tail = b""
        while not self.stop_flag:
            try:
                chunk = self.sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError:
                return
            if not chunk:
                return
            now = time.time()
            data = tail + chunk
            last = 0
            for m in _HB.finditer(data):
                last = m.end()
                if m.group(1) in self.sample:
                    self.lags_ms.append((now - datetime.fromisoformat(m.group(2).decode()).timestamp()) * 1000)
            tail = data[max(last, len(data) - 200):]

    def close(self) -> None:
        self.stop_flag = True
        self.join(2)
        self.sock.close()


class RollupLag(threading.Thread):
    """Every poll: the sample's `node_rollups` rows whose latest heartbeat (`last_ts`) is newer than the last
    seen for the node. Per row: lag = query start - `last_ts` (the newest heartbeat the flush brought), and
    bound = query start - the node's previous `last_ts` (every heartbeat it brought is newer than that one;
    `first_ts`, before which the generator sent none, stands in for the first)."""

    # a row with last_ts > since started less than a step before since: the bound lets the (node_id, ts) index
    # skip the older steps
    QUERY = ("SELECT r.node_id, r.last_ts FROM node_rollups r"
             " JOIN unnest(%s::uuid[], %s::timestamptz[]) AS s(node_id, since)"
             " ON r.node_id = s.node_id AND r.ts > s.since - make_interval(secs => %s) AND r.last_ts > s.since"
             " ORDER BY r.last_ts")

    def __init__(self, dsn: str, sample: list[str], interval_s: float, since: datetime, first_ts: float):
        super().__init__(daemon=True, name="rollup-lag")
        import psycopg

        self.conn = psycopg.connect(dsn, autocommit=True)
        self.interval_s = interval_s
        self.last = {uuid.UUID(s): since for s in sample}
        self.first_ts = first_ts
        self.lags_ms: list[float] = []
        self.bounds_ms: list[float] = []
        self.stop_flag = False

    def poll(self) -> None:
        started = time.time()
        ids = list(self.last)
        for node_id, last_ts in self.conn.execute(self.QUERY, (ids, [self.last[i] for i in ids], STEP_S)).fetchall():
            self.lags_ms.append((started - last_ts.timestamp()) * 1000)
            self.bounds_ms.append((started - max(self.last[node_id].timestamp(), self.first_ts)) * 1000)
            self.last[node_id] = last_ts  # rows come oldest last_ts first

    def run(self) -> None:
        while not self.stop_flag:
            t = time.time()
            try:
                self.poll()
            except Exception:
                if self.stop_flag:
                    return
                raise
            time.sleep(max(0.0, self.interval_s - (time.time() - t)))

    def close(self) -> None:
        self.stop_flag = True
        self.join(5)
        self.poll()  # rows written by the final flush
        self.conn.close()


# --- processes we start -----------------------------------------------------------------------------
ROLLUP_HEARTBEATS = "SELECT coalesce(sum(heartbeats), 0) FROM node_rollups"  # heartbeats counted in the rollups


def _cpu_per_hz(cpu_from: tuple, cpu_to: tuple, heartbeats: int) -> dict:
    """% of one core per PER_HZ heartbeats/s for the controller, Postgres and Redis: CPU seconds per heartbeat
    x PER_HZ x 100."""
    return {name: round((cpu_to[i] - cpu_from[i]) / heartbeats * PER_HZ * 100, 1) if heartbeats else None
            for i, name in enumerate(("controller", "postgres", "redis"))}


class _Killer(threading.Thread):
    """kill -9 of a controller at a wall-clock time (its CPU, and its front's, read just before, kept by their
    CpuClocks)."""

    def __init__(self, proc, clocks: list[CpuClock], at: float):
        super().__init__(daemon=True, name="controller-killer")
        self.proc, self.clocks, self.at = proc, clocks, at
        self.killed_at: float | None = None

    def run(self) -> None:
        time.sleep(max(0.0, self.at - time.time()))
        for clock in self.clocks:
            clock.read()
        self.proc.send_signal(signal.SIGKILL)
        self.killed_at = time.time()


def _moves(outs: list[dict], killed_at: float | None, nodes: int) -> dict:
    """How the killed controller's streams moved: the nodes whose stream failed, those that reported again at
    another controller within the window (their agents registered again there), and the time from the kill
    until each such stream wrote its first batch there."""
    moves = [m for o in outs for m in o["moves"]]
    resumed = [m for m in moves if m[1] is not None]
    after = [m[1] - killed_at for m in resumed] if killed_at else []
    return dict(killed_at=killed_at, moved_nodes=sum(m[2] for m in moves), moved_streams=len(moves),
                resumed_nodes=sum(m[2] for m in resumed), nodes_total=nodes, move_s_p50=nearest_rank(after, 50),
                move_s_max=max(after) if after else None, unconfirmed=sum(o["unconfirmed"] for o in outs))


def run_ingest(cfg: IngestConfig, report=print, probe=None) -> dict:
    """One run; returns its figures. Everything started here is stopped before returning or raising.
    `probe` (a `decision_path.DecisionProbe`): prepares troubled nodes once the cluster exists, sets the
    controllers' environment, and adds its figures, read once the streams are done, as `decisions`."""
    import psutil

    from e3.core.embedded import EmbeddedPostgres, EmbeddedRedis

    cfg = cfg.resolved()
    workdir = Path(tempfile.mkdtemp(prefix="e3-bench-ingest-"))
    pg = redis = None
    controllers: list = []
    workers: list = []
    monitors: list = []
    pids: dict = {}
    previous_term = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)
    try:
        report(f"starting Postgres and Redis in {workdir}")
        pg = EmbeddedPostgres(workdir / "postgres")
        database_url = pg.start()
        pids["postgres"] = int((workdir / "postgres" / "postmaster.pid").read_text().split()[0])
        redis = EmbeddedRedis(workdir / "redis")
        redis_url = redis.start()
        pids["redis"] = redis._process.pid
        report(f"migrating, creating {cfg.servers} type2-smartnic servers")
        cluster = "bench-ingest"
        token, agents = setup_database(database_url, cfg.servers, cluster)
        nodes = sum(len(n) for _, n in agents)
        probes = probe.prepare(cluster, agents) if probe else {}

        ports = []
        for i in range(cfg.controllers):
            name = "controller" if i == 0 else f"controller-{i + 1}"
            env = dict(E3_DOWN_AFTER_MS=str(REGISTRATION_PATIENCE_MS), **(probe.controller_env if probe else {}))
            controller, port = start_controller(workdir, database_url, redis_url, cfg.period_ms, front=cfg.front,
                                                name=name, extra_env=env)
            controllers.append(controller)
            ports.append(port)
            pids[name] = controller.pid
        for i, controller in enumerate(controllers if cfg.front else ()):  # each controller's front, its child
            pids["front" if i == 0 else f"front-{i + 1}"] = next(
                p.pid for p in psutil.Process(controller.pid).children() if p.name() == "e3-ingest")

        ctx = multiprocessing.get_context("spawn")
        ready, go, results = ctx.Queue(), ctx.Queue(), ctx.Queue()
        share = -(-len(agents) // cfg.workers)
        slices = [agents[i:i + share] for i in range(0, len(agents), share)]
        report(f"registering {nodes} nodes ({len(agents)} agents) from {len(slices)} load-generator process(es)")
        t_reg = time.perf_counter()
        native = str(heartbeat_load_binary()) if cfg.loadgen == "native" else None  # ClientError: not built
        spec = LoadSpec(tuple(ports), token, cluster, cfg.period_ms / 1000, cfg.seconds, cfg.agents_per_stream,
                        cfg.instances, probes, native)
        for i, part in enumerate(slices):
            p = ctx.Process(target=worker, args=(i, spec, part, ready, go, results), daemon=True)
            p.start()
            workers.append(p)
        for _ in slices:
            while True:
                try:
                    ready.get(timeout=1)
                    break
                except Empty:
                    if not all(p.is_alive() for p in workers):
                        try:
                            failure = results.get(timeout=1)
                        except Empty:
                            failure = {"error": "a load-generator process died"}
                        raise RuntimeError(f"registration failed: {failure.get('error')}")
        register_s = time.perf_counter() - t_reg

        # sample: evenly spread nodes, for the lag figures
        all_ids = None
        from sqlalchemy import text

        from e3.core.db import get_engine
        with get_engine().connect() as conn:
            all_ids = [str(r[0]) for r in conn.execute(text("SELECT id FROM compute_nodes ORDER BY name"))]
        get_engine().dispose()
        step = max(1, len(all_ids) // max(1, cfg.sample_nodes))
        sample = all_ids[::step][:cfg.sample_nodes]
        start_at = time.time() + 1.0
        dsn = database_url.replace("postgresql+psycopg://", "postgresql://", 1)
        redis_lag = RedisLag(redis.port, redis.password, set(sample))
        rollup_lag = RollupLag(dsn, sample, cfg.rollup_poll_ms / 1000,
                               datetime.fromtimestamp(start_at - 1).astimezone(), start_at)
        monitors = [redis_lag, rollup_lag]
        for m in monitors:
            m.start()
        clocks = [CpuClock(psutil.Process(c.pid)) for c in controllers]
        postmaster, rproc, me = psutil.Process(pids["postgres"]), psutil.Process(pids["redis"]), psutil.Process()
        controllers_cpu_s = lambda: sum(c.read() for c in clocks)  # noqa: E731
        # the fronts' CPU, all of them (a killed controller's front dies with it: its clock keeps the last reading)
        front_clocks = [CpuClock(psutil.Process(pid)) for name, pid in pids.items() if name.startswith("front")]
        fronts_cpu_s = lambda: sum(c.read() for c in front_clocks)  # noqa: E731
        killer = _Killer(controllers[0], [clocks[0], *front_clocks[:1]], start_at + cfg.kill_after_s) \
            if cfg.kill_after_s else None
        report(f"streaming for {cfg.seconds:g} s: {nodes} nodes, one heartbeat per node every {cfg.period_ms} ms "
               f"({nodes * 1000 / cfg.period_ms:,.0f}/s scheduled)")
        for _ in slices:
            go.put(start_at)
        time.sleep(max(0.0, start_at - time.time()))
        cpu0 = (controllers_cpu_s(), postgres_cpu_s(postmaster), cpu_s(rproc), cpu_s(me), time.time())
        if killer:
            killer.start()
        front0 = fronts_cpu_s()
        time.sleep(max(0.0, start_at + cfg.seconds - time.time()))
        cpu1 = (controllers_cpu_s(), postgres_cpu_s(postmaster), cpu_s(rproc), cpu_s(me), time.time())
        front1 = fronts_cpu_s()
        with get_engine().connect() as conn:
            counted_in_window = conn.execute(text(ROLLUP_HEARTBEATS)).scalar_one()
        outs = []
        for _ in slices:
            while True:
                try:
                    outs.append(results.get(timeout=1))
                    break
                except Empty:
                    if not any(p.is_alive() for p in workers) and results.empty():
                        raise RuntimeError("a load-generator process died without a result")
        cpu2 = (controllers_cpu_s(), postgres_cpu_s(postmaster), cpu_s(rproc))
        done_at = time.time()
        errors = [o["error"] for o in outs if "error" in o]
        if errors:
            raise RuntimeError(f"load generator failed: {errors[0]}")
        for m in monitors:
            m.close()
        monitors = []
        with get_engine().connect() as conn:
            counted = conn.execute(text(ROLLUP_HEARTBEATS)).scalar_one()
        get_engine().dispose()

        window = cpu1[4] - cpu0[4]
        sent = sum(o["sent"] for o in outs)
        accepted = sum(o["accepted"] for o in outs)
        pct = lambda i: round((cpu1[i] - cpu0[i]) / window * 100, 1)  # noqa: E731
        r = lambda v, n=1: None if v is None else round(v, n)  # noqa: E731
        result = dict(
            servers=cfg.servers, nodes=nodes, seconds=cfg.seconds, period_ms=cfg.period_ms,
            scheduled_hz=round(nodes * 1000 / cfg.period_ms), offered_hz=round(sent / cfg.seconds),
            ingested_hz=round(accepted / (done_at - start_at)), sent=sent, accepted=accepted,
            rejected=sum(o["rejected"] for o in outs), rollup_heartbeats=counted, loss=sent - counted,
            zero_loss=(counted == accepted == sent), rejections=[x for o in outs for x in o["rejections"]][:5],
            rollup_heartbeats_per_s=round(counted_in_window / window),
            drain_s=round(done_at - start_at - cfg.seconds, 2),
            ticks=sum(o["ticks"] for o in outs), ticks_missed=sum(o["ticks_missed"] for o in outs),
            loadgen=cfg.loadgen, stream_errors=[e for o in outs for e in o.get("stream_errors", ())][:5],
            controller_cpu_pct=pct(0), front=cfg.front,
            front_cpu_pct=round((front1 - front0) / window * 100, 1) if cfg.front else None,
            postgres_cpu_pct=pct(1), redis_cpu_pct=pct(2), monitor_cpu_pct=pct(3),
            loadgen_cpu_pct=round(sum(o["cpu_s"] for o in outs) / window * 100, 1), cores=os.cpu_count(),
            cpu_pct_per_100k_hz=_cpu_per_hz(cpu0, cpu2, accepted),
            wire_bytes_per_heartbeat=wire_bytes_per_heartbeat(outs),
            lag_redis_p50_ms=r(nearest_rank(redis_lag.lags_ms, 50), 2),
            lag_redis_p99_ms=r(nearest_rank(redis_lag.lags_ms, 99), 2), lag_redis_samples=len(redis_lag.lags_ms),
            rollup_lag_p50_ms=r(nearest_rank(rollup_lag.lags_ms, 50)),
            rollup_lag_p99_ms=r(nearest_rank(rollup_lag.lags_ms, 99)),
            rollup_lag_bound_p50_ms=r(nearest_rank(rollup_lag.bounds_ms, 50)),
            rollup_lag_bound_p99_ms=r(nearest_rank(rollup_lag.bounds_ms, 99)),
            rollup_lag_samples=len(rollup_lag.lags_ms), lag_sample_nodes=len(sample),
            register_s=round(register_s, 2), workers=len(slices), streams=sum(o["streams"] for o in outs),
            agents_per_stream=cfg.agents_per_stream, instances_per_heartbeat=cfg.instances,
            rollup_poll_ms=cfg.rollup_poll_ms, target_hz=TARGET_HZ,
            ratio_to_target=round(accepted / (done_at - start_at) / TARGET_HZ, 4),
            controllers=cfg.controllers, workdir=str(workdir), pids=pids, config=asdict(cfg))
        if killer:
            result.update(_moves(outs, killer.killed_at, cfg.servers * NODES_PER_SERVER))
        if probe:
            result["decisions"] = probe.collect([n for o in outs for n in o["troubled_sends"]])
        return result
    finally:
        for m in monitors:
            try:
                m.stop_flag = True
            except Exception:
                pass
        for p in workers:
            if p.is_alive():
                p.terminate()
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join()
        for controller in controllers:
            stop_process(controller)
        if redis is not None:
            redis.stop()
        if pg is not None:
            try:
                from e3.core.db import get_engine

                get_engine().dispose()
            except Exception:
                pass
            pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous_term)
