"""Table 1: the knee (peak throughput before latency blows up) of each microservice on a host and on the
emulated SmartNIC, measured with e3-loadgen on the emulated rack.

Set-up, per service: a fresh `e3 up` with a rack of one type1-smartnic server (bench/rack.py's rack_up,
about 5 s): one host e3-agent (HOST_WORKERS engine workers) behind one e3-nic (12 emulated cores, Table 1
pacing on); one application with two copies of the service, one pinned to the host and one to the SmartNIC,
placed by HCM; e3-loadgen runs in the machine's namespace and reaches both through the uplink and the ToR
(the host's copy also through the NIC's traffic manager and the memif host link), with a request of the
service's own format. The host's copy is swept first, then the NIC's, each with the same rule. (This experiment
found e3-nic answering only a few replies a second after an overload: its engine workers spun in the classic
multi-producer egress ring; the rings are RTS now, e3dp/poll.h. A NIC that still stops answering is recorded,
`answers_after`, and said in the notes.)

Knee rule (ours, `knee_of`): open-loop steps from START_RPS, x GROWTH each, then BISECTIONS halvings
between the last good and the first bad rate. A step is good when the replies keep up with the offered
load (completed >= DELIVERY_MIN x offered, no error replies, timeouts <= MAX_TIMEOUTS) and its p99 stays
under P99_BOUND_MS; the knee is the highest good offered rate. The sweep stops at the first bad step or at
MAX_RPS (where the single-threaded e3-loadgen itself tops out). A bad step is measured once more and
judged on that second run, so that one stall of a shared VM does not end the search.

What the figures are:
- the NIC's knee is `calibration input`: e3-nic holds each request for Table 1's factor x the host's own
  time (nic-firmware/src/calibration.c), so it checks the pacing and the plumbing, it reproduces nothing.
  The checked figure is the NIC / host knee ratio against the one the pacing implies (expected_ratio);
- the host's knee is `emulation`: this machine's (a shared 2-core VM, not the paper's 12-core Xeon), with
  the host agent unpaced (only e3-nic sets a pacer), so it has no pass/fail against Table 1's host column.
"""

import json
import statistics
import subprocess
import time
from collections.abc import Callable

from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.experiments.kinds import RackExperiment
from e3.experiments.workload import paper_values

SERVER_TYPE = "type1-smartnic"
PLATFORMS = ("host", "smartnic")
NIC_CORES = 12  # e3-nic's default --cores, as the rack starts it
START_RPS = 1000.0
GROWTH = 1.5
BISECTIONS = 2  # halvings between the last good and the first bad rate: the knee within ~12%
MAX_RPS = 150_000.0  # about where one e3-loadgen thread tops out (agents/e3-loadgen/README.md)
DELIVERY_MIN = 0.95
MAX_TIMEOUTS = 0.01
P99_BOUND_MS = 20.0
STEP_S, QUICK_STEP_S = 1.0, 0.5
WARMUP_S, QUICK_WARMUP_S = 0.3, 0.2
RATIO_TOLERANCE = 0.35
PRIME_TIMEOUT_S = 15.0
QUICK_SERVICES = ("kvs", "api_gateway", "top_ranker")

# Per service: its configuration, the request e3-loadgen repeats ({seq}: the request's number) and the
# requests sent once before (state the request reads). Requests are the kind Table 2 describes.
_TEXT = "the quick brown fox jumps over the lazy dog while a search engine ranks documents"
LOADS: dict[str, tuple[dict, str, list[str]]] = {
    "ipsec": ({"key": "000102030405060708090a0b0c0d0e0f", "auth_key": "0102030405060708090a0b0c0d0e0f10"},
              "x" * 512, []),
    "bm25": ({"docs": "|".join(f"d{i}:{_TEXT} {i}" for i in range(10))}, "QUERY fox search documents", []),
    "nids": ({"patterns": "attack,exploit,evil,/etc/passwd"}, ("GET /index.html HTTP/1.1 " * 21)[:512], []),
    "recommend": ({}, "RECOMMEND u0 5",
                  [f"RATE u{u} i{i} {(u * 7 + i * 3) % 5 + 1}" for u in range(20) for i in range(10) if (u + i) % 3]),
    "natv4": ({"rules": "10.0.0.0/8>172.16.0.0,10.1.0.0/16>192.168.0.0:8080"}, "abcdefghijklm", []),
    "count": ({}, "ADD item-{seq}", []),
    "ema": ({}, "UPDATE sensor-1 {seq}", []),
    "kvs": ({}, "GET colour", ["PUT colour blue"]),
    "flow_monitor": ({}, "ADD 10.0.0.1:80>10.0.0.2:5000/6", []),
    "ddos": ({}, "PKT 10.1.2.3", []),
    "knn": ({"points": "|".join(f"{i},{i % 7},{i % 3}:{'ab'[i % 2]}" for i in range(100))}, "3,4,1", []),
    "spike": ({}, "ADD sensor-1 {seq}", []),
    "bayes": ({"train": "spam:buy now cheap pills win money|ham:see you tomorrow at the meeting|"
                        f"news:{_TEXT}"}, "win cheap money now see the fox", []),
    "api_gateway": ({"keys": "bench-key", "rate": "1000000000", "burst": "1000000000"}, "bench-key client-1", []),
    "top_ranker": ({}, "TOP 10", [f"ADD item{i} {(i * 37) % 101}" for i in range(100)]),
    "sql": ({"columns": "id:int,name:text,temp:real"}, "SELECT WHERE id = 7",
            [f"INSERT id={i} name='t{i}' temp={20 + i % 5}.5" for i in range(50)]),
}


# --- the knee (pure) -----------------------------------------------------------------------------


def step_problem(offered_rps: float, run: dict) -> str | None:
    """Why one open-loop step is past the knee, or None when it keeps up (the rule in the module doc)."""
    offered = run.get("offered") or 0
    if not offered:
        return "nothing offered"
    if run["completed"] < DELIVERY_MIN * offered:
        return f"completed {run['completed'] / offered:.1%} of offered (< {DELIVERY_MIN:.0%})"
    if run["errors"]:
        return f"{run['errors']} error replies"
    if run["timeouts"] > MAX_TIMEOUTS * offered:
        return f"timeouts {run['timeouts'] / offered:.1%} (> {MAX_TIMEOUTS:.0%})"
    p99_ms = run["latency_us"]["p99"] / 1000
    if p99_ms > P99_BOUND_MS:
        return f"p99 {p99_ms:.1f} ms (> {P99_BOUND_MS:g} ms)"
    return None


def sweep(measure: Callable[[float], dict], start: float = START_RPS, ceiling: float = MAX_RPS,
          bisections: int = BISECTIONS) -> list[dict]:
    """Steps x GROWTH from `start` until one is bad or the ceiling is passed, then `bisections` halvings
    between the last good and the first bad rate; each step {offered_rps, run, problem}. A bad step is
    measured twice and judged on the second run."""
    steps, good, bad = [], None, None

    def step(rate: float) -> None:
        run = measure(rate)
        if step_problem(rate, run):  # confirmed once: a single stall of a shared VM does not end the search
            run = measure(rate)
        steps.append({"offered_rps": rate, "run": run, "problem": step_problem(rate, run)})

    rate = start
    while rate <= ceiling:
        step(rate)
        if steps[-1]["problem"]:
            bad = rate
            break
        good = rate
        rate *= GROWTH
    if bad is not None and good is not None:
        for _ in range(bisections):
            rate = (good + bad) / 2
            step(rate)
            if steps[-1]["problem"]:
                bad = rate
            else:
                good = rate
    return steps


def knee_of(steps: list[dict]) -> float | None:
    """The highest good offered rate of a sweep; None when even the first step was bad."""
    return max((s["offered_rps"] for s in steps if not s["problem"]), default=None)


def capped(steps: list[dict]) -> bool:
    """The sweep ended at the ceiling, not at a bad step: the knee is a lower bound (e3-loadgen's limit)."""
    return bool(steps) and not any(s["problem"] for s in steps)


def expected_ratio(pace_factor: float, host_workers: int, nic_cores: int = NIC_CORES) -> float:
    """NIC knee / host knee as the pacing implies when both are bound by the service's own time.

    e3-nic sleeps each request out to factor x its measured time, so its NIC_CORES workers serve
    NIC_CORES / (factor x t) requests/s, against host_workers / t on the host; the sleeping does not use
    the CPU, but the work does, and both share this machine's CPUs, so the NIC cannot beat the host."""
    return min(1.0, nic_cores / (host_workers * pace_factor))


# --- rows to quantities (pure) -------------------------------------------------------------------


def quantities(rows: list[dict], paper: dict, host_workers: int) -> list[Quantity]:
    """Per service: each platform's knee beside Table 1's, and the NIC / host ratio beside the pacing's."""
    q = []
    for row in rows:
        service, table = row["service"], paper[row["service"]]
        labels = {"service": service}
        q.append(Quantity("knee on the host", table["host_dpdk"]["rps"], row["host_knee_rps"], "requests/s",
                          "emulation", None, None, labels))
        q.append(Quantity("knee on the emulated SmartNIC", table["smartnic"]["rps"], row["smartnic_knee_rps"],
                          "requests/s", "calibration input", None, None, labels))
        ratio = (row["smartnic_knee_rps"] / row["host_knee_rps"]
                 if row["smartnic_knee_rps"] and row["host_knee_rps"] else None)
        expected = expected_ratio(row["pace_factor"], host_workers)
        q.append(Quantity("SmartNIC / host knee ratio vs the pacing's", expected, ratio, "x", "calibration input",
                          RATIO_TOLERANCE, None,
                          labels | {"pace_factor": row["pace_factor"],
                                    "table1_ratio": table["smartnic"]["rps"] / table["host_dpdk"]["rps"]}))
    return q


def miss_reason(row: dict, ours: float, expected: float) -> str:
    """The reason found for a ratio outside the tolerance, from what the row recorded."""
    if ours > expected:
        if row["host_capped"] and row["smartnic_capped"]:
            return "both knees reached e3-loadgen's ceiling, so the ratio is 1 whatever the pacing"
        if row["host_capped"]:
            return "the host's knee is only a lower bound (e3-loadgen's ceiling), so the ratio overstates the NIC"
        return ("the request is too short for the pacing to dominate: per-request costs that are not paced (the "
                "rack's veths, af_packet, the traffic manager, e3-loadgen) bound both knees alike")
    if row.get("smartnic_answers_after") is False:
        return ("the NIC stopped answering past its knee (see above) below the host's knee: its 12 worker "
                "threads, the traffic manager and e3-loadgen share the 2 CPUs")
    return ("the NIC's 12 worker threads, its traffic manager and the host agent share 2 CPUs with the rest of the "
            "rack, so the NIC falls further behind than the factor alone")


def notes(rows: list[dict], qs: list[Quantity], host_workers: int) -> list[str]:
    out = [
        "Source: the SmartNIC knees are `calibration input`: e3-nic is paced from Table 1 (each request held for "
        "the service's factor x its time on this machine), so they check the pacing and plumbing and reproduce "
        "nothing. The host knees are `emulation`, this machine's: a shared 2-core VM, the host agent with "
        f"{host_workers} engine workers and unpaced (only e3-nic paces), not the paper's 12-core Xeon with DPDK; "
        "they are shown beside Table 1's host column with no pass/fail.",
        f"Knee rule: open-loop e3-loadgen steps from {START_RPS:g}/s x{GROWTH:g}, then {BISECTIONS} halvings "
        f"between the last good and first bad rate; good = completed >= {DELIVERY_MIN:.0%} of offered, no error "
        f"replies, timeouts <= {MAX_TIMEOUTS:.0%}, p99 <= {P99_BOUND_MS:g} ms; knee = highest good rate. The "
        f"sweep stops at {MAX_RPS:,.0f}/s (one e3-loadgen thread's limit): a knee marked capped is a lower bound.",
        f"Checked figure: SmartNIC / host knee ratio against the pacing's min(1, {NIC_CORES} NIC cores / "
        f"({host_workers} host workers x factor)), tolerance ±{RATIO_TOLERANCE:.0%}. It holds only when both "
        "knees are bound by the service's own time; the NIC's emulated cores are threads sharing the same 2 "
        "CPUs, and accelerated services (ipsec, bm25, recommend, nids) run at host speed (factor 1), so Table "
        "1's own NIC / host ratio (labels.table1_ratio) is not what the emulation can show.",
    ]
    host_only = [r["service"] for r in rows if r.get("smartnic_node_kind", "") is None]
    if host_only:
        out.append("Not run on the SmartNIC (E3 pins it to hosts, as the paper's placement did: its state cannot "
                   "migrate to a SmartNIC): " + ", ".join(host_only) + "; its SmartNIC knee is not measured.")
    # a sweep whose first step was already bad found no knee: the knee is below that step, said so (not measured)
    never_good = [f"{r['service']} on the {p} ({r.get(f'{p}_stopped_by') or 'no reason recorded'})"
                  for r in rows for p in PLATFORMS
                  if r.get(f"{p}_node_kind") and r.get(f"{p}_knee_rps") is None and r.get(f"{p}_steps")]
    if never_good:
        out.append(f"No good rate at all, even the sweep's first step ({START_RPS:g}/s): the knee is below it, so "
                   "no knee or ratio is reported: " + "; ".join(never_good) + ".")
    capped_rows = [f"{r['service']} ({', '.join(p for p in PLATFORMS if r.get(f'{p}_capped'))})"
                   for r in rows if r.get("host_capped") or r.get("smartnic_capped")]
    if capped_rows:
        out.append("Capped at e3-loadgen's ceiling (knee is a lower bound): " + ", ".join(capped_rows) + ".")
    wedged = [r["service"] for r in rows if r.get("smartnic_answers_after") is False]
    if wedged:
        out.append("e3-nic did not answer one request (1 s) right after its sweep passed the knee, on: "
                   + ", ".join(wedged) + " (a queue still draining, or a fault of the emulation: see the agent's "
                   "and e3-nic's logs).")
    misses = [x for x in qs if x.verdict == "outside"]
    for x in misses:
        row = next(r for r in rows if r["service"] == x.labels["service"])
        why = miss_reason(row, x.ours, x.paper)
        out.append(f"Miss: {x.labels['service']} ratio {x.ours:.3f} vs the pacing's {x.paper:.3f} "
                   f"({x.ratio - 1:+.0%}, factor {x.labels['pace_factor']:g}): {why}.")
    if not misses:
        out.append("Every measured ratio is within the tolerance of the pacing's.")
    return out


def plotter(rows: list[dict], paper: dict):
    def plot(figure) -> None:
        ax = figure.subplots()
        names = [r["service"] for r in rows]
        x = range(len(names))
        width = 0.2
        series = [("host (ours, emulation, 2-core VM)", "tab:blue", [r["host_knee_rps"] for r in rows]),
                  ("emulated SmartNIC (ours, calibration input)", "tab:orange",
                   [r["smartnic_knee_rps"] for r in rows]),
                  ("host DPDK, Table 1 (12-core Xeon)", "lightsteelblue",
                   [paper[n]["host_dpdk"]["rps"] for n in names]),
                  ("LiquidIO II, Table 1", "navajowhite", [paper[n]["smartnic"]["rps"] for n in names])]
        for i, (label, colour, values) in enumerate(series):
            ax.bar([j + (i - 1.5) * width for j in x], [v or 0 for v in values], width, label=label, color=colour)
        ax.axhline(MAX_RPS, color="grey", linestyle=":", linewidth=0.8, label="e3-loadgen ceiling")
        ax.set_yscale("log")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names, rotation=45, ha="right")
        ax.set_ylabel("knee throughput (requests/s, log)")
        ax.legend(fontsize="x-small")
        ax.set_title("Table 1: knee per microservice, host vs emulated SmartNIC, beside the paper")
        figure.tight_layout()

    return plot


# --- the run (the rack) --------------------------------------------------------------------------


def pace_factors() -> dict[str, float]:
    """e3-nic's own Table 1 pacing factors (--print-calibration): what the NIC really applies."""
    from e3.emulation.binaries import nic_binary

    out = subprocess.run([str(nic_binary()), "--print-calibration"], check=True, capture_output=True, text=True,
                         timeout=30).stdout
    return {r["service"]: r["pace_factor"] for r in map(json.loads, out.splitlines())}


def platforms(service: str) -> tuple[str, ...]:
    """Where the catalogue lets `service` run, host first (sql is host-only: E3 pins it, as the paper did)."""
    from e3 import catalog

    allowed = catalog.service_types()[service].platforms
    return tuple(p for p in PLATFORMS if p in allowed)


def application(service: str) -> dict:
    """One copy of `service` pinned to each platform it may run on, with its configuration."""
    config = LOADS[service][0]
    nodes = [{"id": f"on-{platform}", "service": service, "replicas": 0, "constraints": {"platform": platform},
              **({"config": dict(config)} if config else {})} for platform in platforms(service)]
    return {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": f"table1-{service.replace('_', '-')}"},
            "spec": {"nodes": nodes, "edges": []}}


def _loadgen(target: str, payload: str, rate: float, seconds: float, warmup: float) -> dict:
    from e3.emulation.binaries import loadgen_binary

    argv = [str(loadgen_binary()), "--target", target, "--mode", "open", "--rate", f"{rate:.0f}",
            "--duration", f"{seconds:g}", "--warmup", f"{warmup:g}", "--payload", payload, "--timeout-ms", "500"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + warmup + 60)
    if not done.stdout.strip():
        raise RuntimeError(f"e3-loadgen gave no result (exit {done.returncode}): {done.stderr[-500:]}")
    return json.loads(done.stdout)


def _prime(instance: dict, requests: list[str]) -> None:
    """Send `requests` once (the state the load reads), each retried while the ToR learns the path (ARP)."""
    from e3.dataplane import udp

    for text in requests:
        deadline = time.monotonic() + PRIME_TIMEOUT_S
        while True:
            try:
                udp.send(instance["address"], instance["port"], text.replace("{seq}", "0").encode(), timeout_s=0.5)
                break
            except udp.RequestFailed:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no reply from {instance['address']}:{instance['port']} to {text!r}")
                time.sleep(0.2)


def _answers(instance: dict, payload: str) -> bool:
    """Whether the instance still answers one request (after a sweep past its knee)."""
    from e3.dataplane import udp

    try:
        udp.send(instance["address"], instance["port"], payload.replace("{seq}", "0").encode(), timeout_s=1.0)
        return True
    except udp.RequestFailed:
        return False


def measure_service(service: str, factor: float, ctx: RunContext, done: Callable[[str], None]) -> dict:
    """One service on a fresh rack: the host's copy swept first, then the NIC's."""
    from e3.bench.rack import deploy, rack_up

    step_s, warmup_s = (QUICK_STEP_S, QUICK_WARMUP_S) if ctx.quick else (STEP_S, WARMUP_S)
    _, payload, setup = LOADS[service]
    row = {"service": service, "pace_factor": factor}
    row |= {f"{p}_{k}": None for p in PLATFORMS for k in ("node_kind", "knee_rps", "capped", "p99_ms_at_knee",
                                                           "steps", "stopped_by", "answers_after")}
    with rack_up(1, SERVER_TYPE, lambda text: None) as api:
        _, instances = deploy(api, application(service))
        for platform in platforms(service):
            inst = next(i for i in instances if i["dag_node"] == f"on-{platform}")
            _prime(inst, setup + [payload])
            target = f"{inst['address']}:{inst['port']}"
            steps = sweep(lambda rate: _loadgen(target, payload, rate, step_s, warmup_s),
                          bisections=BISECTIONS)
            best = max((s for s in steps if not s["problem"]), key=lambda s: s["offered_rps"], default=None)
            row |= {f"{platform}_node_kind": inst["node_kind"], f"{platform}_knee_rps": knee_of(steps),
                    f"{platform}_capped": capped(steps),
                    f"{platform}_p99_ms_at_knee": best["run"]["latency_us"]["p99"] / 1000 if best else None,
                    f"{platform}_steps": len(steps),
                    f"{platform}_stopped_by": next((s["problem"] for s in steps[::-1] if s["problem"]), "ceiling"),
                    f"{platform}_answers_after": _answers(inst, payload)}
            done(f"{service} on {platform}: knee {row[f'{platform}_knee_rps']}")
    return row


def _run(ctx: RunContext) -> ExperimentResult:
    from e3.emulation.rack_processes import HOST_WORKERS

    paper = paper_values()["table1"]["services"]
    services = list(QUICK_SERVICES if ctx.quick else paper)
    factors = pace_factors()
    rows: list[dict] = []
    total = 2 * len(services)
    progress = [0]

    def done(text: str) -> None:
        progress[0] += 1
        ctx.progress(progress[0] / total, text)

    failed = []
    for service in services:
        try:
            rows.append(measure_service(service, factors[service], ctx, done))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one service's failure is reported, the others still run
            failed.append(f"{service}: {str(exc).splitlines()[0]}")
            done(f"{service} failed")
    qs = quantities(rows, paper, HOST_WORKERS)
    result_notes = notes(rows, qs, HOST_WORKERS)
    ratios = [x.ours for x in qs if x.name.startswith("SmartNIC /") and x.ours]
    if ratios:
        result_notes.append(f"Median SmartNIC / host knee ratio over {len(ratios)} services: "
                            f"{statistics.median(ratios):.3f}.")
    incomplete = f"{len(failed)} of {len(services)} services not measured: " + "; ".join(failed) if failed else None
    return ExperimentResult(rows, qs, plot=plotter(rows, paper), notes=result_notes, incomplete=incomplete)


EXPERIMENT = RackExperiment("table1", "Table 1: knee per microservice, host vs the emulated SmartNIC (e3-loadgen)",
                            _run)
