"""An application's live figures per DAG node and per edge, for the dashboard's application graph (issue 23).

Pure, from what e3.live.aggregate already computes over the window for its instances: each instance's
requests/s and mean execution time, its measured latencies, and the watts attributed to it.

Per DAG node:
- its instances by platform (host / smartnic) and role, and how many run on nodes not reporting;
- throughput: the requests/s its primaries completed (null when none of them reports a rate);
- latency: the request-weighted mean of its primaries' measured latency (arrival to reply, its own downstream
  calls included) and the highest per-heartbeat p99 among them (an upper bound), null when none answered;
- J/request: the watts attributed to all its instances (backups hold reserved cores too) over its throughput;
- utilisation: the mean CPU share of its primaries; queue: the deepest traffic-manager queue of the nodes its
  primaries run on.

Per edge (from, to), the direction requests flow: the agents count requests per instance, not per caller, so an
edge's rate is its target's throughput when the target has one caller, and with several callers that
throughput split in proportion to their throughputs (`basis: "split_by_caller_rate"`, an estimate); `per_request`
is the edge's rate over its source's (the calls a request of the source makes along it: above 1 with shards).
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol


class _Instance(Protocol):  # aggregate.InstanceMeta
    id: str
    node_id: str
    dag_node: str
    role: str


def _round(x: float | None) -> float | None:
    return None if x is None else float(f"{x:.6g}")


def dag_node_figures(dag_nodes: Sequence[str], instances: Sequence[_Instance], reporting: Callable[[str], bool],
                     kind_of: Callable[[str], str], rates: Mapping[str, tuple[float, float | None]],
                     latencies: Mapping[str, tuple[int, float, float]], watts_of: Mapping[str, float],
                     cpu_share: Mapping[str, float], queue_of: Callable[[str], int | None]) -> list[dict]:
    """One dict per DAG node, in `dag_nodes`' order (see the module's doc). `reporting(node_id)`: whether the
    computing node is fresh; `kind_of(node_id)`: host | smartnic; `cpu_share`: each reporting instance's latest
    share; `queue_of(node_id)`: its latest queue depth (None when not reporting)."""
    by_dag: dict[str, list[_Instance]] = {d: [] for d in dag_nodes}
    for inst in instances:
        by_dag.setdefault(inst.dag_node, []).append(inst)
    out = []
    for dag_node, insts in by_dag.items():
        counts = {"host": 0, "smartnic": 0}
        for inst in insts:
            kind = kind_of(inst.node_id)
            counts[kind] = counts.get(kind, 0) + 1
        live = [i for i in insts if reporting(i.node_id)]
        primaries = [i for i in live if i.role == "primary"]
        measured = [rates[i.id][0] for i in primaries if i.id in rates]
        throughput = sum(measured) if measured else None
        answered = [latencies[i.id] for i in primaries if i.id in latencies]
        n = sum(m[0] for m in answered)
        watts = sum(watts_of.get(i.id, 0.0) for i in live) if live else None
        shares = [cpu_share[i.id] for i in primaries if i.id in cpu_share]
        queues = [q for q in (queue_of(i.node_id) for i in primaries) if q is not None]
        out.append(dict(
            dag_node=dag_node, instances=dict(counts), primaries=sum(i.role == "primary" for i in insts),
            instances_stale=len(insts) - len(live), throughput_rps=_round(throughput),
            avg_latency_us=_round(sum(m[0] * m[1] for m in answered) / n) if n else None,
            p99_latency_us=_round(max(m[2] for m in answered)) if n else None,
            joules_per_request=_round(watts / throughput) if watts is not None and throughput else None,
            cpu_share=_round(sum(shares) / len(shares)) if shares else None,
            queue_max=max(queues) if queues else None))
    return out


def edge_figures(edges: Sequence[tuple[str, str]], throughput: Mapping[str, float | None]) -> list[dict]:
    """One dict per edge, in `edges`' order (see the module's doc); `throughput`: each DAG node's (None: not
    measured)."""
    callers: dict[str, list[str]] = {}
    for a, b in edges:
        callers.setdefault(b, []).append(a)
    out = []
    for a, b in edges:
        target, source = throughput.get(b), throughput.get(a)
        mine = callers[b]
        if target is None:
            rate, basis = None, "not_measured"
        elif len(mine) == 1:
            rate, basis = target, "target_throughput"
        else:
            known = [throughput.get(c) for c in mine]
            total = sum(t for t in known if t)
            rate = target * (source or 0.0) / total if total and source is not None else None
            basis = "split_by_caller_rate" if rate is not None else "not_measured"
        out.append({"from": a, "to": b, "rate_rps": _round(rate), "basis": basis,
                    "per_request": _round(rate / source) if rate is not None and source else None})
    return out
