"""Data-plane orchestrator benchmark. Section `decision`: detection-to-decision latency at scale.

A FatTree of type2-smartnic servers (host + 4 SmartNICs, 40 per rack) is built in memory with
the placement benchmark's generator, each NIC carrying a few instances of the paper's services,
and a share of the hosts made full so that some decisions have to look past their own server.
Every node heartbeats once per round (50 ms of simulated time), in node order, through one
`Detector`. After warm-up rounds (the detector's: every instance's baseline is made of its first
`warmup_heartbeats` heartbeats), trouble is injected on random NICs in batches (overload, +30%
execution time, and host starvation, a standing queue on an idle link, alternately) for
`window` rounds; for the heartbeat that completes the window the benchmark times, with
`time.perf_counter_ns`, `observe` plus `decide` (plus the caller's bookkeeping, `cool_down` and
`ClusterView.begin_migration`), in wall time and in this thread's CPU time (which leaves out
the time the OS gave other processes: on a shared machine the wall-time tail is mostly that, and
the garbage collector's pauses, which count in both). Steady rounds time `observe` alone per heartbeat. Figures are
this machine's, single-threaded Python; the paper's Figure 11 is beside them, not a comparison of
like with like (the paper's figure includes sending the heartbeat).

The sections `migration` and `figure7` run on an emulated rack (root): see `orchestrator_rack` and `figure7`.
"""

import random
import time
from dataclasses import dataclass

from e3 import catalog
from e3.bench.synthetic import fattree_nodes
from e3.orchestrator.decision import ClusterView, Decision, InstanceView, decide
from e3.orchestrator.detection import HOST_STARVATION, OVERLOAD, DetectionPolicy, Detector, InstanceSample, NodeSample

SECTIONS = ("decision", "real", "migration", "figure7")
RACK_SECTIONS = ("migration", "figure7")  # root: in orchestrator_rack, each on its own emulated rack

# Paper §5.4 "Mechanism scalability" and Figure 11 ("Orchestrator migration decision time
# scalability"): a 16 B heartbeat every 50 ms from each SmartNIC (traffic-manager queue length and
# microservice execution times); the decision time stays around or below ~1 ms up to 100K servers
# and 100K services (read from the figure), well below a migration's 10s-100s of ms; the
# heartbeats make only ~1 Kb/s of traffic even with 50K servers.
PAPER_FIG11 = {"heartbeat_bytes": 16, "heartbeat_period_ms": 50, "decision_ms_at_most": 1.0,
               "up_to_servers": 100_000, "migration_ms": "10s-100s"}
# The target for this implementation.
TARGET_DECISION_P99_MS = 1.0
TARGET_AT_SERVERS = 10_000

PERIOD_S = 0.050
_MOVABLE = [s for s, t in catalog.service_types().items() if "host" in t.platforms and "smartnic" in t.platforms]


@dataclass(frozen=True)
class DecisionBenchConfig:
    servers: tuple[int, ...] = (1_000, 10_000)
    injections: int = 400  # troubled NICs per scale, half overload, half host starvation
    batch: int = 100  # NICs in trouble at the same time
    instances_per_nic: int = 4
    hosts_full: float = 0.5  # share of hosts with no cores left
    steady_rounds: int = 3  # timed heartbeat rounds without trouble (after the detector's warm-up rounds)
    seed: int = 1


def _percentile(sorted_values: list[float], q: float) -> float | None:
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, max(0, round(q * len(sorted_values) + 0.5) - 1))]


def _summary_ms(ns: list[int]) -> dict:
    v = sorted(x / 1e6 for x in ns)
    return {"p50_ms": _percentile(v, 0.50), "p99_ms": _percentile(v, 0.99), "max_ms": v[-1] if v else None}


class _Cluster:
    """The simulated cluster: nodes, instances and each node's heartbeat counters."""

    def __init__(self, servers: int, cfg: DecisionBenchConfig, rng: random.Random):
        self.nodes = fattree_nodes(servers)
        types = catalog.service_types()
        instances, self.steady = [], {}
        for node in self.nodes:
            if node.kind == "host":
                if rng.random() < cfg.hosts_full:
                    node.used["cpu_cores"] = node.cpu_cores
                self.steady[node.id] = ()
                continue
            samples = []
            for k in range(cfg.instances_per_nic):
                svc = types[rng.choice(_MOVABLE)]
                iid = f"{node.id}/i{k}"
                share = round(rng.uniform(0.05, 0.3), 3)
                instances.append(InstanceView(iid, node.id, svc.name, svc.cpu_cores, svc.memory_mb,
                                              svc.bandwidth_mbps, share, dag_node=iid))
                for r in ("cpu_cores", "memory_mb", "bandwidth_mbps"):
                    node.used[r] += getattr(svc, r)
                ema = rng.uniform(10.0, 200.0)
                samples.append(InstanceSample(iid, ema * rng.uniform(0.95, 1.05), ema, share, 100))
            self.steady[node.id] = tuple(samples)
        self.instances = instances
        self.bytes = {node.id: 0 for node in self.nodes}

    def sample(self, node, t: float, util: float = 0.3, queue: int = 0, instances=None) -> NodeSample:
        counter = self.bytes[node.id] = self.bytes[node.id] + int(util * node.bandwidth_mbps * 125_000 * PERIOD_S)
        return NodeSample(node.id, t, queue, counter, counter // 2, node.bandwidth_mbps,
                          self.steady[node.id] if instances is None else instances, node.kind)


def _overloaded(steady: tuple[InstanceSample, ...]) -> tuple[InstanceSample, ...]:
    first = steady[0]
    return (InstanceSample(first.instance_id, first.exec_time_ema_us * 1.3, first.exec_time_ema_us, 0.6, 100),
            *steady[1:])


def run_scale(servers: int, cfg: DecisionBenchConfig, report=print) -> dict:
    """One cluster size: build, warm up, time steady heartbeats, then inject trouble and time decisions."""
    rng = random.Random(cfg.seed * 1_000_003 + servers)
    started = time.perf_counter()
    cluster = _Cluster(servers, cfg, rng)
    t0 = time.perf_counter()
    view = ClusterView(cluster.nodes, cluster.instances)
    view_build_s = time.perf_counter() - t0
    policy = DetectionPolicy()
    detector = Detector(policy)
    nodes = cluster.nodes
    t = 0.0
    observe = detector.observe

    ingest_ns, heartbeats = 0, 0
    warmup = policy.warmup_heartbeats  # the first round also primes the byte counters
    for rnd in range(warmup + cfg.steady_rounds):
        t += PERIOD_S
        samples = [cluster.sample(n, t) for n in nodes]
        begin = time.perf_counter_ns()
        for s in samples:
            observe(s)
        if rnd >= warmup:
            ingest_ns += time.perf_counter_ns() - begin
            heartbeats += len(samples)
    report(f"  {servers:,} servers: {len(nodes):,} nodes, {len(cluster.instances):,} instances, "
           f"{heartbeats:,} steady heartbeats timed")

    nics = [n for n in nodes if n.kind == "smartnic"]
    chosen = rng.sample(nics, min(cfg.injections, len(nics)))
    total_ns, detect_ns, decide_ns, cpu_ns = [], [], [], []
    decisions, by_kind, levels, missed, spurious = 0, {OVERLOAD: 0, HOST_STARVATION: 0}, {}, [], 0
    for b in range(0, len(chosen), cfg.batch):
        batch = chosen[b:b + cfg.batch]
        trouble = {n.id: (OVERLOAD if (b + i) % 2 == 0 else HOST_STARVATION) for i, n in enumerate(batch)}
        found = dict.fromkeys(trouble)
        for k in range(policy.window):
            t += PERIOD_S
            samples = []
            for n in nodes:
                kind = trouble.get(n.id)
                if kind == OVERLOAD:
                    samples.append(cluster.sample(n, t, instances=_overloaded(cluster.steady[n.id])))
                elif kind == HOST_STARVATION:
                    samples.append(cluster.sample(n, t, util=0.2, queue=200))
                else:
                    samples.append(cluster.sample(n, t))
            last = k == policy.window - 1
            for s in samples:
                if last and s.node_id in trouble:
                    cpu = time.thread_time_ns()
                    a = time.perf_counter_ns()
                    d = observe(s)
                    c = time.perf_counter_ns()
                    decision = decide(d, view) if d is not None else None
                    if isinstance(decision, Decision):
                        detector.cool_down(s.node_id, s.t)
                        view.begin_migration(decision)
                    e = time.perf_counter_ns()
                    cpu_ns.append(time.thread_time_ns() - cpu)
                    found[s.node_id] = (d, decision)
                    total_ns.append(e - a)
                    detect_ns.append(c - a)
                    decide_ns.append(e - c)
                elif observe(s) is not None:
                    spurious += 1
        for node_id, result in found.items():
            d, decision = result or (None, None)
            if d is None or d.kind != trouble[node_id] or not isinstance(decision, Decision):
                missed.append(str(node_id))
                continue
            decisions += 1
            by_kind[d.kind] += 1
            name = decision.detail["level_name"]
            levels[name] = levels.get(name, 0) + 1
        # the troubled NICs recover (the heartbeats after the migration are steady again)
        t += PERIOD_S
        for n in batch:
            observe(cluster.sample(n, t))

    per_hb_us = ingest_ns / heartbeats / 1e3 if heartbeats else None
    hb_per_s = len(nodes) / PERIOD_S
    return {
        "servers": servers, "nodes": len(nodes), "smartnics": len(nics), "instances": len(cluster.instances),
        "hosts_full": cfg.hosts_full, "view_build_s": round(view_build_s, 3),
        "injected": len(chosen), "decisions": decisions, "detected_by_kind": by_kind, "target_levels": levels,
        "missed": missed[:20], "spurious_detections": spurious,
        "decision": _summary_ms(total_ns), "decision_cpu": _summary_ms(cpu_ns), "detect_only": _summary_ms(detect_ns), "decide_only": _summary_ms(decide_ns),
        "ingest_us_per_heartbeat": per_hb_us, "heartbeats_timed": heartbeats,
        "heartbeats_per_s_at_50ms": hb_per_s,
        "ingest_cores_at_50ms": per_hb_us * hb_per_s / 1e6 if per_hb_us is not None else None,
        "run_s": round(time.perf_counter() - started, 2),
    }


def decision_section(cfg: DecisionBenchConfig, report=print) -> dict:
    """The `decision` section: one row per cluster size, with the paper's figure and the target."""
    runs = [run_scale(s, cfg, report) for s in cfg.servers]
    return {"section": "decision", "paper_fig11": PAPER_FIG11,
            "target": {"decision_p99_ms": TARGET_DECISION_P99_MS, "at_servers": TARGET_AT_SERVERS},
            "config": {"injections": cfg.injections, "batch": cfg.batch, "instances_per_nic": cfg.instances_per_nic,
                       "hosts_full": cfg.hosts_full, "steady_rounds": cfg.steady_rounds, "seed": cfg.seed,
                       "heartbeat_period_ms": PERIOD_S * 1000},
            "runs": runs}
