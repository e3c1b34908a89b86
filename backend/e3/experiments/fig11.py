"""Figure 11 (§5.6): the orchestrator's heartbeat transmission + migration decision time, up to 100,000 servers.

The paper: every SmartNIC sends a 16 B heartbeat every 50 ms; the time to transmit it and make a migration
decision stays around or below ~1 ms up to 100K Type2-SmartNIC servers (FatTree, 40 per rack), well below
a migration's 10s-100s of ms. Ours is measured in two parts, each with the code E3 runs:

- decision: the orchestrator's detector and decision at each cluster size (100 .. 100K servers), in this
  process, with the `decision` section of e3.bench.orchestrator: the FatTree of type2-smartnic servers in
  memory, every node heartbeating each 50 ms round through one `Detector`, trouble injected on random
  SmartNICs; timed from the heartbeat that completes the detection window to the decision (wall clock).
- transport: simulated agents stream heartbeats over gRPC to a real controller process (real Postgres and
  Redis) with e3.bench.ingest, every node every 50 ms; transport = the heartbeat's timestamp (taken just
  before it is written on the stream) to its PUBLISH on Redis being read by a subscriber. The controller
  passes each accepted heartbeat to its orchestrator before publishing it, so this is an upper bound of
  "written -> observed by the controller" (it adds the Redis hop and the subscriber's read).

Transmit + decision at a size = transport measured at that size + decision at that size (p50 + p50, and
p99 + p99, which bounds the p99 of the sum). Transport is measured at 20 to 1,000 servers; one controller on
this shared 2-core machine carries the full 50 ms rate only at the smaller sizes (tens of servers), and a run
that did not (less than SUSTAINED_SHARE of the scheduled heartbeats sent and accepted) is reported with the
rate it carried, its lag that of an overloaded controller. Where the transport was not measured at the full
rate, transmit + decision is also given as a `model`: the transport of the largest size measured at the
full rate, with the heartbeats spread over as many controllers as that size's rate needs, each carrying the
rate one carried here (their number is in the row). Nothing is extrapolated without that label.
"""

import math
from dataclasses import dataclass

from e3.bench.ingest import NODES_PER_SERVER, IngestConfig, run_ingest
from e3.bench.orchestrator import DecisionBenchConfig, run_scale
from e3.experiments import workload
from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.experiments.kinds import TimingExperiment

FULL = {"decision_servers": (100, 1_000, 10_000, 50_000, 100_000), "transport_servers": (20, 50, 100, 1_000),
        "transport_seconds": 5.0, "injections": 400}
# Quick: under a minute; the controller's start (Postgres, Redis, migrations) is most of it.
QUICK = {"decision_servers": (100, 1_000), "transport_servers": (20,), "transport_seconds": 3.0, "injections": 100}
INSTANCES_PER_NIC = DecisionBenchConfig.instances_per_nic  # the transport's heartbeats carry as many instances
SUSTAINED_SHARE = 0.95  # the full rate is carried when >= 95% of the scheduled heartbeats were sent and accepted
# The paper's "around or below ~1 ms" is read from a plot: within when ours is at most twice that (relative
# tolerance 1.0 covers 0 .. 2 ms: anything below, and "around" up to a factor of 2 on its log axis).
TOLERANCE = 1.0
SOURCE = "emulation"


@dataclass(frozen=True)
class Combined:
    """Transmit + decision at one cluster size, and where its transport figure comes from."""

    servers: int
    decision_p50_ms: float
    decision_p99_ms: float
    transport_p50_ms: float | None
    transport_p99_ms: float | None
    transport_servers: int | None  # the size the transport was measured at
    full_rate: bool  # that transport measurement carried the full 50 ms rate
    source: str  # "emulation" (transport measured at this size) or "model"
    controllers: int | None  # model: controllers that carry this size's rate at the rate one sustained here
    decision_cpu_p99_ms: float | None = None  # the decision's CPU time (this thread's): the tail without the OS's share

    @property
    def total_p50_ms(self) -> float | None:
        return None if self.transport_p50_ms is None else self.transport_p50_ms + self.decision_p50_ms

    @property
    def total_p99_ms(self) -> float | None:
        return None if self.transport_p99_ms is None else self.transport_p99_ms + self.decision_p99_ms


def scheduled_hz(servers: int, period_ms: float) -> float:
    """Heartbeats per second the agents of `servers` type2 servers send (every node, one per period)."""
    return servers * NODES_PER_SERVER * 1000 / period_ms


def is_full_rate(transport: dict) -> bool:
    """The run carried the scheduled rate: sent and accepted at least SUSTAINED_SHARE of it, none lost."""
    return (transport["offered_hz"] >= SUSTAINED_SHARE * transport["scheduled_hz"]
            and transport["ingested_hz"] >= SUSTAINED_SHARE * transport["scheduled_hz"]
            and transport["loss"] == 0)


def combine(decisions: list[dict], transports: list[dict], period_ms: float) -> list[Combined]:
    """Transmit + decision per decision size: with the transport measured at that size (`emulation`, whatever
    rate it carried), and, where that was not at the full rate or not measured, a `model` from each full-rate
    measurement (none chosen over another: lighter load, lower lag, more controllers); transport None when
    no run carried the full rate."""
    measured = {t["servers"]: t for t in transports}
    references = sorted((t for t in transports if is_full_rate(t)), key=lambda t: t["servers"])
    out = []
    for d in decisions:
        servers = d["servers"]
        p50, p99, cpu = d["decision"]["p50_ms"], d["decision"]["p99_ms"], d["decision_cpu"]["p99_ms"]
        own = measured.get(servers)
        if own is not None:
            out.append(Combined(servers, p50, p99, own["lag_redis_p50_ms"], own["lag_redis_p99_ms"], servers,
                                is_full_rate(own), SOURCE, None, cpu))
            if is_full_rate(own):
                continue
        for ref in references:
            controllers = math.ceil(scheduled_hz(servers, period_ms) / ref["ingested_hz"])
            out.append(Combined(servers, p50, p99, ref["lag_redis_p50_ms"], ref["lag_redis_p99_ms"], ref["servers"],
                                True, "model", controllers, cpu))
        if not references:
            out.append(Combined(servers, p50, p99, None, None, None, False, "model", None, cpu))
    return out


def quantities(combined: list[Combined], transports: list[dict], paper: dict) -> list[Quantity]:
    target, migration = paper["transmit_and_decision_ms"], paper["migration_ms_low"]
    q = []
    for c in {c.servers: c for c in combined}.values():
        q += [Quantity("decision p50 (detector + decision, in-process)", None, c.decision_p50_ms, "ms", SOURCE,
                       labels={"servers": c.servers}),
              Quantity("decision p99 (detector + decision, in-process)", None, c.decision_p99_ms, "ms", SOURCE,
                       labels={"servers": c.servers}),
              Quantity("decision p99, CPU time (detector + decision, in-process)", None, c.decision_cpu_p99_ms, "ms",
                       SOURCE, labels={"servers": c.servers})]
    for c in combined:
        labels = {"servers": c.servers, "transport_at_servers": c.transport_servers, "transport_full_rate": c.full_rate}
        if c.controllers is not None:
            labels["controllers_in_model"] = c.controllers
        q += [
            Quantity("transmit + decision p50", target, c.total_p50_ms, "ms", c.source, TOLERANCE, labels=labels),
            Quantity("transmit + decision p99", target, c.total_p99_ms, "ms", c.source, TOLERANCE, labels=labels),
            Quantity(f"transmit + decision p99 below a migration ({migration:g} ms)", 1.0,
                     None if c.total_p99_ms is None else float(c.total_p99_ms < migration), "1 = yes", c.source,
                     0.0, labels=labels),
        ]
    for t in transports:
        labels = {"servers": t["servers"], "scheduled_hz": t["scheduled_hz"], "offered_hz": t["offered_hz"],
                  "full_rate": is_full_rate(t)}
        q += [
            Quantity("transport p50 (written -> published by the controller)", None, t["lag_redis_p50_ms"], "ms",
                     SOURCE, labels=labels),
            Quantity("transport p99 (written -> published by the controller)", None, t["lag_redis_p99_ms"], "ms",
                     SOURCE, labels=labels),
            Quantity("heartbeats accepted / scheduled", None, t["ingested_hz"] / t["scheduled_hz"], "fraction",
                     SOURCE, labels=labels),
        ]
    sizes = [t["wire_bytes_per_heartbeat"] for t in transports if t.get("wire_bytes_per_heartbeat")]
    if sizes:
        # a design difference, not a reproduction target: no tolerance to meet, the verdict says it differs
        q.append(Quantity("heartbeat size on the wire (protobuf + gRPC prefix)", paper["heartbeat_bytes"],
                          max(sizes), "bytes", SOURCE, 0.0,
                          labels={"instances_per_heartbeat": INSTANCES_PER_NIC}))
    return q


def notes(combined: list[Combined], transports: list[dict], paper: dict, quick: bool) -> list[str]:
    target, migration = paper["transmit_and_decision_ms"], paper["migration_ms_low"]
    out = [
        headline(combined, transports, target),
        f"Measured on this machine (2 cores shared with the other runs, single-threaded Python): decision = "
        f"e3.bench.orchestrator's detection-to-decision time in-process ({INSTANCES_PER_NIC} instances per SmartNIC, "
        f"half the hosts full); transport = e3.bench.ingest's lag from a heartbeat's write on the gRPC stream to "
        f"its PUBLISH on Redis being read (the controller observes it before publishing, so an upper bound). "
        f"Transmit + decision adds them, p50 to p50 and p99 to p99. The paper's figure is read as "
        f"'around or below ~{target:g} ms'; within = at most {target * (1 + TOLERANCE):g} ms.",
        "Our agents heartbeat every node, hosts included (5 per type2 server), where the paper's SmartNICs alone "
        "do (4 per server): the transport runs carry 25% more heartbeats than the paper's per server.",
    ]
    for t in transports:
        state = ("the full rate" if is_full_rate(t) else
                 f"NOT the full rate: {t['offered_hz']:,} /s offered, {t['ingested_hz']:,} /s accepted "
                 f"({t['ingested_hz'] / t['scheduled_hz']:.0%}), {t['ticks_missed']:,} of "
                 f"{t['ticks'] + t['ticks_missed']:,} ticks skipped by the generator (backpressure); its lag is "
                 f"that of an overloaded controller")
        out.append(f"Transport at {t['servers']:,} servers: {t['scheduled_hz']:,} heartbeats/s scheduled, {state}; "
                   f"p50 {t['lag_redis_p50_ms']} ms, p99 {t['lag_redis_p99_ms']} ms; CPU % of a core: controller "
                   f"{t['controller_cpu_pct']}, Postgres {t['postgres_cpu_pct']}, generator {t['loadgen_cpu_pct']}, "
                   f"Redis {t['redis_cpu_pct']}, lag monitor {t['monitor_cpu_pct']} (all on the same 2 cores).")
    modelled = [c for c in combined if c.source == "model"]
    if modelled:
        sizes = ", ".join(f"{s:,}" for s in dict.fromkeys(c.servers for c in modelled))
        refs = list(dict.fromkeys(c.transport_servers for c in modelled if c.transport_servers is not None))
        if not refs:
            out.append(f"Transport not measured at the full rate at {sizes} servers and no transport run carried "
                       "the full rate: no model of transmit + decision there.")
        else:
            per = "; ".join(f"from {r:,} servers: " + ", ".join(f"{c.servers:,}: {c.controllers:,}" for c in modelled
                                                                 if c.transport_servers == r) for r in refs)
            out.append(f"Transport not measured at the full rate at {sizes} servers (one controller on this "
                       f"machine does not carry their rate, or the size was not run): "
                       f"transmit + decision there is a model, labelled `model`, once per run that carried the full "
                       f"rate ({', '.join(f'{r:,}' for r in refs)} servers): that run's transport plus the decision "
                       f"measured at the size, assuming the heartbeats are spread over enough controllers, each "
                       f"carrying the rate that run's did (controllers needed {per}). The paper does not say how its "
                       f"orchestrator received 100K servers' heartbeats.")
    sizes = [t["wire_bytes_per_heartbeat"] for t in transports if t.get("wire_bytes_per_heartbeat")]
    if sizes:
        size = max(sizes)
        out.append(f"Our heartbeat is {size:g} B on the wire (the HeartbeatBatch protobuf the generator wrote, and "
                   f"its 5-byte gRPC prefix, per heartbeat; HTTP/2 and TCP/IP headers not counted), "
                   f"{size / paper['heartbeat_bytes']:.0f}x the paper's {paper['heartbeat_bytes']} B: besides the "
                   f"queue length and execution times it carries the node's id (a UUID string), byte and packet "
                   f"counters, CPU, power and, per instance ({INSTANCES_PER_NIC} here), its id (a UUID string), "
                   f"requests and latency figures. Per SmartNIC that is {size * 8 * 1000 / paper['heartbeat_period_ms'] / 1000:.0f} "
                   f"kb/s at one heartbeat per {paper['heartbeat_period_ms']} ms (the paper: ~1 Kbps).")
    misses = [c for c in combined if c.total_p99_ms is not None and c.total_p99_ms > target * (1 + TOLERANCE)]
    misses += [c for c in combined if c not in misses and c.total_p50_ms is not None
               and c.total_p50_ms > target * (1 + TOLERANCE)]
    if misses:
        out.append("Misses: " + "; ".join(
            f"{c.servers:,} servers ({c.source}, transport at {c.transport_servers:,} servers) p50 "
            f"{c.total_p50_ms:.2f} ms, p99 {c.total_p99_ms:.2f} ms (transport {c.transport_p50_ms} / "
            f"{c.transport_p99_ms} ms, decision {c.decision_p50_ms:.2f} / {c.decision_p99_ms:.2f} ms)" for c in misses)
            + ". The transport is most of it: the controller is one Python asyncio process sharing 2 cores with "
              "Postgres, Redis, the load generator and the lag monitor (and the other runs on this machine), its "
              "tail the OS scheduler's, the garbage collector's and the coalesced writes to Redis. "
            + decision_remark(combined, target))
    slow = [c for c in combined if c.total_p99_ms is not None and c.total_p99_ms >= migration]
    if slow:
        out.append(f"Not below a migration's {migration:g} ms at p99: "
                   + ", ".join(f"{c.servers:,} servers, {c.source} ({c.total_p99_ms:.1f} ms)" for c in slow) + ".")
    if quick:
        out.append("Quick mode: decision at " + ", ".join(f"{s:,}" for s in dict.fromkeys(c.servers for c in combined))
                   + " servers only, transport at " + ", ".join(f"{t['servers']:,}" for t in transports)
                   + " servers for a few seconds; the full run goes to 100,000 servers.")
    return out


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.2f} ms" if round(lo, 2) == round(hi, 2) else f"{lo:.2f}-{hi:.2f} ms"


def headline(combined: list[Combined], transports: list[dict], target: float) -> str:
    """The result in a few lines (the evaluation's summary shows the first note): decision, transport, the sum."""
    once = list({c.servers: c for c in combined}.values())
    said = [f"Decision up to {max(c.servers for c in once):,} servers: p50 {_span([c.decision_p50_ms for c in once])}"]
    cpus = [c.decision_cpu_p99_ms for c in once if c.decision_cpu_p99_ms is not None]
    if cpus:
        said[-1] += f", CPU-time p99 at most {max(cpus):.2f} ms"
    full = [t for t in transports if is_full_rate(t)]
    over = [t for t in transports if not is_full_rate(t)]
    if full:
        ref = max(full, key=lambda t: t["servers"])
        said.append(f"transport at the full 50 ms rate up to {ref['servers']:,} servers: p50 {ref['lag_redis_p50_ms']} "
                    f"ms, p99 {ref['lag_redis_p99_ms']} ms")
    if over:
        said.append("not at the full rate at " + ", ".join(
            f"{t['servers']:,} ({t['ingested_hz'] / t['scheduled_hz']:.0%} accepted)" for t in over) + " servers")
    totals = [c for c in combined if c.total_p50_ms is not None]
    if totals:
        compared = [v for c in totals for v in (c.total_p50_ms, c.total_p99_ms)]
        within = sum(v <= target * (1 + TOLERANCE) for v in compared)
        sources = sorted({c.source for c in totals})
        said.append(f"transmit + decision ({' and '.join(sources)}) p50 {_span([c.total_p50_ms for c in totals])}, "
                    f"p99 {_span([c.total_p99_ms for c in totals])}: {within} of {len(compared)} within the paper's "
                    f"~{target:g} ms (at most {target * (1 + TOLERANCE):g} ms); what misses is the transport, one "
                    f"controller on a shared 2-core machine (the notes below)")
    return "; ".join(said) + "."


def decision_remark(combined: list[Combined], target: float) -> str:
    """What the decision alone contributes: its worst p50 and p99 over the sizes, against the paper's figure."""
    worst50 = max(combined, key=lambda c: c.decision_p50_ms)
    worst99 = max(combined, key=lambda c: c.decision_p99_ms)
    said = (f"The decision alone: p50 at most {worst50.decision_p50_ms:.2f} ms ({worst50.servers:,} servers), "
            f"p99 at most {worst99.decision_p99_ms:.2f} ms ({worst99.servers:,} servers)")
    if worst99.decision_p99_ms <= target:
        return said + f", under {target:g} ms at every size."
    cpus = [c.decision_cpu_p99_ms for c in combined if c.decision_cpu_p99_ms is not None]
    cpu = f" (its CPU-time p99 at most {max(cpus):.2f} ms: the rest is time the OS gave other processes)" if cpus else ""
    return said + f": over {target:g} ms at p99, the wall-clock tail of a shared machine{cpu}."


def rows_of(decisions: list[dict], transports: list[dict], combined: list[Combined]) -> list[dict]:
    rows = []
    for d in decisions:
        rows.append({"part": "decision", "servers": d["servers"], "nodes": d["nodes"], "instances": d["instances"],
                     "p50_ms": d["decision"]["p50_ms"], "p99_ms": d["decision"]["p99_ms"],
                     "max_ms": d["decision"]["max_ms"], "cpu_p99_ms": d["decision_cpu"]["p99_ms"],
                     "decisions": d["decisions"], "injected": d["injected"], "source": SOURCE})
    for c in combined:
        rows.append({"part": "transmit+decision", "servers": c.servers, "p50_ms": c.total_p50_ms,
                     "p99_ms": c.total_p99_ms, "transport_at_servers": c.transport_servers,
                     "transport_full_rate": c.full_rate, "controllers_in_model": c.controllers, "source": c.source})
    for t in transports:
        rows.append({"part": "transport", "servers": t["servers"], "nodes": t["nodes"], "p50_ms": t["lag_redis_p50_ms"],
                     "p99_ms": t["lag_redis_p99_ms"], "scheduled_hz": t["scheduled_hz"], "offered_hz": t["offered_hz"],
                     "ingested_hz": t["ingested_hz"], "full_rate": is_full_rate(t), "loss": t["loss"],
                     "wire_bytes_per_heartbeat": t.get("wire_bytes_per_heartbeat"),
                     "controller_cpu_pct": t["controller_cpu_pct"], "source": SOURCE})
    return rows


def _plotter(combined: list[Combined], transports: list[dict], paper: dict):
    def plot(figure) -> None:
        ax = figure.subplots()
        xs = list(dict.fromkeys(c.servers for c in combined))
        once = list({c.servers: c for c in combined}.values())
        ax.plot(xs, [c.decision_p50_ms for c in once], marker="o", color="C0", label="decision p50 (ours)")
        ax.plot(xs, [c.decision_p99_ms for c in once], marker="o", color="C0", linestyle=":",
                label="decision p99 (ours)")
        # one series per source, and per transport run a model took its transport from
        series = list(dict.fromkeys((c.source, c.transport_servers) for c in combined if c.source == "model"))
        for stat, style in (("p50", "-"), ("p99", ":")):
            for k, (source, ref) in enumerate([(SOURCE, None), *series]):
                pts = [(c.servers, getattr(c, f"total_{stat}_ms")) for c in combined
                       if c.source == source and (ref is None or c.transport_servers == ref)
                       and getattr(c, f"total_{stat}_ms") is not None]
                what = "measured" if source == SOURCE else f"model, transport of {ref:,} servers"
                if pts:
                    ax.plot(*zip(*pts), marker="s", color=f"C{1 if k == 0 else 2 + k}",
                            markerfacecolor="none" if k else None, linestyle=style,
                            label=f"transmit + decision {stat} (ours, {what})")
        for full, fill, what in ((True, "C2", "full rate"), (False, "none", "NOT at full rate")):
            tx = [t for t in transports if t["lag_redis_p99_ms"] is not None and is_full_rate(t) == full]
            for stat, marker in (("p50", "v"), ("p99", "^")):
                if tx:
                    ax.plot([t["servers"] for t in tx], [t[f"lag_redis_{stat}_ms"] for t in tx], marker=marker,
                            color="C2", markerfacecolor=fill, linestyle="none",
                            label=f"transport {stat} (ours, {what})")
        lo = min([c.servers for c in combined] + [t["servers"] for t in transports])
        hi = max(paper["up_to_servers"], *xs)
        ax.plot([lo, hi], [paper["transmit_and_decision_ms"]] * 2, color="k", linestyle="--",
                label="paper: transmit + decision ~1 ms")
        ax.axhspan(paper["migration_ms_low"], paper["migration_ms_low"] * 10, color="grey", alpha=0.2,
                   label="a migration (paper: 10s-100s of ms)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("servers (Type2-SmartNIC, FatTree, 40 per rack; log)")
        ax.set_ylabel("time (ms, log)")
        ax.set_title("Figure 11: heartbeat transmit + migration decision time")
        ax.legend(fontsize=7)

    return plot


def _run(ctx: RunContext) -> ExperimentResult:
    cfg = QUICK if ctx.quick else FULL
    paper = workload.paper_values()["fig11"]
    period_ms = paper["heartbeat_period_ms"]
    bench = DecisionBenchConfig(servers=cfg["decision_servers"], injections=cfg["injections"])
    # progress weights: a decision run costs ~ its size; a transport run ~ its start + registration + window
    steps = [("decision", s, s / 1_000) for s in cfg["decision_servers"]]
    steps += [("transport", s, 10 + s / 20 + cfg["transport_seconds"]) for s in cfg["transport_servers"]]
    total, done = sum(w for *_, w in steps), 0.0
    decisions, transports = [], []
    for part, servers, weight in steps:
        def report(text: str, base=done / total, part=part, servers=servers) -> None:
            ctx.progress(base, f"{part} at {servers:,} servers: {text.strip()}")

        report("starting")
        if part == "decision":
            decisions.append(run_scale(servers, bench, report))
        else:
            transports.append(run_ingest(IngestConfig(servers=servers, seconds=cfg["transport_seconds"],
                                                      period_ms=period_ms, instances=INSTANCES_PER_NIC), report))
        done += weight
    ctx.progress(1.0, "done")
    combined = combine(decisions, transports, period_ms)
    return ExperimentResult(rows_of(decisions, transports, combined), quantities(combined, transports, paper),
                            plot=_plotter(combined, transports, paper),
                            notes=notes(combined, transports, paper, ctx.quick))


EXPERIMENT = TimingExperiment("fig11",
                              "Figure 11: orchestrator heartbeat transmission + migration decision time, 100 to "
                              "100,000 servers",
                              _run)
