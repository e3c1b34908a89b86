"""GET /metrics at scale (issue 20: <= 50 ms p99 with 5,000 nodes and 20,000 instances reporting).

Builds an energy ledger of that size (a source or two per node, one per instance, every instance's labels
resolved), renders the controller's families from it as the controller does (e3.metrics.ledger_exposition),
and, for comparison, through a prometheus_client collector over the same ledger; stores it compressed in
Redis as the controller does; then times GET /metrics, one request after another over a keep-alive
connection, gzip (as Prometheus asks) and plain, on a real `e3 api` process (embedded Postgres and Redis
started here, stopped at the end).
"""

import os
import shutil
import statistics
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from e3.bench.api_load import _pct, _prepare, _start_api
from e3.bench.stack import start_backing_services, stop_backing_services, stop_process

TARGET_P99_MS = 50.0
SOURCES = ("rapl", "ipmi-split", "model")
APPLICATIONS = 50
DAG_NODES = 8


@dataclass(frozen=True)
class MetricsBenchConfig:
    nodes: int = 5000
    instances: int = 20000
    requests: int = 200  # GET /metrics timed
    renders: int = 5  # renders of the ledger timed (the prometheus_client comparison: 2)


def build_ledger(nodes: int, instances: int):
    """A ledger as a controller holds it after a while, fed heartbeats through its own interface: a third of
    the nodes hosts (RAPL, and the model before RAPL was read), the rest SmartNICs (a split IPMI reading);
    instances spread over the nodes, their first step closed and attributed, a step open."""
    from e3.energy.ledger import EnergyLedger

    cluster = str(uuid.uuid4())
    ledger = EnergyLedger()
    node_ids = [str(uuid.uuid4()) for _ in range(nodes)]
    instance_ids = [str(uuid.uuid4()) for _ in range(instances)]
    on_node: dict[str, list] = {}
    for i, instance_id in enumerate(instance_ids):
        on_node.setdefault(node_ids[i % nodes], []).append(instance_id)
    t = 1_000_000.0
    for i, node_id in enumerate(node_ids):
        host = i % 3 == 0
        node = ledger.account(node_id, cluster, "host" if host else "smartnic",
                              f"r{i // 120}-s{i // 3 % 40:02d}-{'host' if host else f'nic{i % 3}'}")
        stats = [(iid, 25, 0.1) for iid in on_node.get(node_id, [])]
        sources = ("model", "rapl", "rapl") if host else ("ipmi-split",) * 3
        for dt, source in zip((0.0, 0.05, 10.0), sources):
            node.add(t + dt, 40.0 + i % 50, source, 0.4, stats)
    ledger.close(t + 10, idle_watts=lambda node_id: 20.0, reserved_cores=lambda instance_id: 1.0)
    for i, instance_id in enumerate(instance_ids):
        ledger.instances[instance_id].labels = (str(uuid.uuid4()), f"app-{i % APPLICATIONS}", f"node-{i % DAG_NODES}")
    return ledger, {cluster: "bench"}


def _prometheus_client_render(ledger, names) -> bytes:
    """The same families through prometheus_client's collector API: what the hand-written text is measured
    against (e3/metrics/ledger_exposition.py says why it exists)."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    class Collector:
        def collect(self):
            node_labels = ["cluster", "node", "kind"]
            joules = CounterMetricFamily("e3_node_joules", "", labels=node_labels + ["source"])
            watts = GaugeMetricFamily("e3_node_power_watts", "", labels=node_labels + ["source"])
            for t in ledger.nodes.values():
                for source, value in t.joules_by_source.items():
                    joules.add_metric([names[t.cluster_id], t.name, t.kind, source], value)
                watts.add_metric([names[t.cluster_id], t.name, t.kind, t.source], t.watts)
            instance_labels = ["cluster", "application", "dag_node", "instance", "node"]
            instance_joules = CounterMetricFamily("e3_instance_joules", "", labels=instance_labels + ["source"])
            requests = CounterMetricFamily("e3_requests", "", labels=instance_labels + ["entry"])
            for instance_id, t in ledger.instances.items():
                node = ledger.nodes[t.node_id]
                base = [names[node.cluster_id], t.labels[1], t.labels[2], instance_id, node.name]
                for source, value in t.joules_by_source.items():
                    instance_joules.add_metric(base + [source], value)
                requests.add_metric(base + [str(t.labels[2] == "node-0").lower()], t.requests)
            yield from (joules, watts, instance_joules, requests)

    registry = CollectorRegistry()
    registry.register(Collector())
    return generate_latest(registry)


def _timed(fn, times: int) -> tuple[list[float], object]:
    out, result = [], None
    for _ in range(times):
        start = time.perf_counter()
        result = fn()
        out.append((time.perf_counter() - start) * 1000)
    return out, result


def _scrapes(url: str, token: str, encoding: str, requests: int) -> dict:
    """GET /metrics `requests` times over one keep-alive connection, asking for `encoding`; the time is to the
    answer's last byte, not counting the client's decompression (Prometheus does that on its side)."""
    import httpx

    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": encoding}
    latencies, sizes = [], set()
    with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
        for i in range(requests + 1):  # the first only warms the connection and the caches
            start = time.perf_counter()
            with client.stream("GET", "/metrics") as r:
                size = sum(len(chunk) for chunk in r.iter_raw())
            if r.status_code != 200:
                raise RuntimeError(f"GET /metrics answered {r.status_code}")
            if i:
                latencies.append((time.perf_counter() - start) * 1000)
                sizes.add(size)
    return dict(requests=requests, p50_ms=_pct(latencies, 50), p99_ms=_pct(latencies, 99),
                max_ms=_pct(latencies, 100), response_bytes=max(sizes))


def run_metrics_bench(cfg: MetricsBenchConfig, report=print) -> dict:
    import redis

    from e3.metrics import CONTROLLERS_KEY, controller_key
    from e3.metrics.gzip_join import deflate_part
    from e3.metrics.ledger_exposition import LedgerExposition, LedgerSnapshot

    report(f"building a ledger of {cfg.nodes:,} nodes and {cfg.instances:,} instances")
    ledger, names = build_ledger(cfg.nodes, cfg.instances)
    exposition = LedgerExposition()
    snapshot_ms, snapshot = _timed(lambda: LedgerSnapshot.of(ledger), cfg.renders)
    entries = {iid for iid, t in ledger.instances.items() if t.labels[2] == "node-0"}  # each app's entry DAG node
    entry = entries.__contains__
    render_ms, text = _timed(lambda: exposition.render(snapshot, names, entry).encode(), cfg.renders)
    deflate_ms, part = _timed(lambda: deflate_part(text), cfg.renders)
    report("rendering the same through prometheus_client, for comparison")
    client_ms, client_text = _timed(lambda: _prometheus_client_render(ledger, names), 2)
    workdir = Path(tempfile.mkdtemp(prefix="e3-bench-metrics-"))
    pg = store = api = None
    try:
        report(f"starting Postgres, Redis and `e3 api` in {workdir}")
        pg, store, database_url, redis_url = start_backing_services(workdir)
        token = _prepare(database_url)  # `e3 bench api`'s database: a cluster, applications, a read token
        api, url = _start_api(workdir, database_url, redis_url, {})
        # no time to live: the bench plays the one controller
        keys = redis.Redis.from_url(redis_url)
        keys.hset(controller_key("bench"), mapping=part.fields())
        keys.zadd(CONTROLLERS_KEY, {"bench": float("inf")})
        sections = {encoding: _scrapes(url, token, encoding, cfg.requests) for encoding in ("gzip", "identity")}
        return dict(config=asdict(cfg), cores=os.cpu_count(), load_average=round(os.getloadavg()[0], 2),
                    workdir=str(workdir), api_pid=api.pid,
                    series=sum(1 for line in text.splitlines() if not line.startswith(b"#")),
                    controller_bytes=len(text),
                    snapshot_ms=round(statistics.median(snapshot_ms), 2),
                    render_ms=round(statistics.median(render_ms), 2), render_max_ms=round(max(render_ms), 2),
                    deflate_ms=round(statistics.median(deflate_ms), 2), deflate_bytes=len(part.data),
                    prometheus_client_ms=round(statistics.median(client_ms), 2),
                    prometheus_client_bytes=len(client_text), scrapes=sections)
    finally:
        stop_process(api)
        stop_backing_services(pg, store)
        shutil.rmtree(workdir, ignore_errors=True)
