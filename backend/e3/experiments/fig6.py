"""Figure 6 (§5.4): HCM vs simulated annealing vs ILP on the 8 paper applications, 3 x Type1-SmartNIC.

The paper pins "problematic microservices to the host" for this comparison. Here the same pinning is
applied to every algorithm alike (so the comparison measures placement, not who picks the platform):
SQL (pinned by the paper, §4) and the services Figure 7 found starving the host from the SmartNIC
(top_ranker, spike, api_gateway) run on the host; every other service may go either way.

Energy efficiency (requests per joule at the knee) and average latency come from the placement cost
model (e3.placement.cost_model, source `model`), as `POST /placements/preview` compares algorithms.
Annealing is bounded as Service Fabric bounds its search (PlacementSearchTimeout, 0.5 s of wall time) but
by a fixed number of moves, about what this implementation does in 0.5 s on a 2-core machine, so a seed
fixes the result; its figure is the median over several seeds (Service Fabric runs one search, and the
median is what one search typically gives); the notes also count the apps with annealing's best seed. The ILP
runs under a cap it does not reach on these apps (it proves optimality), so the experiment is deterministic.
"""

import statistics

from e3 import catalog
from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.placement import problem_from_document, run
from e3.placement.cost_model import predict
from e3.placement.fattree import fattree_nodes
from e3.placement.model import PlacementError, copy_nodes
from e3.schemas.dag import ApplicationSpec

PINNED_TO_HOST = ("sql", "top_ranker", "spike", "api_gateway")
SERVERS, SERVER_TYPE = 3, "type1-smartnic"
BASELINES = ("annealing", "ilp")
# The paper's "up to" figures (§5.4): HCM's energy-efficiency gain and latency reduction over each baseline, %.
PAPER_MAX_GAIN_PCT = {"annealing": 35.2, "ilp": 22.0}
PAPER_MAX_LATENCY_CUT_PCT = {"annealing": 24.0, "ilp": 18.6}
MAX_TOLERANCE = 0.35  # the paper gives only a maximum over apps: judged as loosely as Table 5's held-out cells
TARGET_APPS_AHEAD = 5  # issue 21: HCM ahead of both baselines on at least 5 of the 8 apps

FULL = {"annealing_iterations": 60_000, "annealing_seeds": (0, 1, 2, 3, 4), "ilp_time_limit_s": 120.0}
# The ILP keeps the full cap in quick mode: its slowest app (rta-sf, 11 s here, proved at the root node) must not
# reach it on a slower or busier machine, or the run is no longer deterministic (seen at 30 s under heavy load).
QUICK = {"annealing_iterations": 20_000, "annealing_seeds": (0, 1, 2), "ilp_time_limit_s": 120.0}


def pinned_problem(app: str):
    """The app's placement problem with the pinned services' DAG nodes restricted to the host."""
    spec = ApplicationSpec.from_document(catalog.template(app))
    for node in spec.nodes:
        if node.service in PINNED_TO_HOST:
            spec = spec.replace_node(node.id, platform="host")
    return problem_from_document(spec.to_document())


def _place(problem, algorithm: str, options: dict) -> dict:
    nodes = copy_nodes(fattree_nodes(catalog.server_types()[SERVER_TYPE], SERVERS))
    try:
        placement = run(algorithm, problem, nodes, **options)
    except PlacementError as exc:
        return {"placed": False, "error": exc.message}
    prediction = predict(problem, nodes, placement)
    kinds = {n.id: n.kind for n in nodes}
    on_nic = sum(kinds[node] == "smartnic" for node in placement.assignments.values())
    return {"placed": True, "rpj": prediction.requests_per_joule, "avg_latency_ms": prediction.avg_latency_ms,
            "runtime_s": round(placement.runtime_ms / 1000, 3), "optimal": placement.optimal,
            "instances_on_smartnic": on_nic, "instances_on_host": len(placement.assignments) - on_nic}


def _typical(rows: list[dict]) -> dict | None:
    """The seed whose energy efficiency is the median (lower middle): what one search typically gives."""
    placed = sorted((r for r in rows if r["placed"]), key=lambda r: r["rpj"])
    return placed[(len(placed) - 1) // 2] if placed else None


def _best(rows: list[dict]) -> dict | None:
    return max((r for r in rows if r["placed"]), key=lambda r: r["rpj"], default=None)


def _apps_ahead(per_app: dict, unplaced_counts_as_behind: bool = False) -> list[str]:
    """Apps where HCM serves more requests per joule than both baselines (an unplaced HCM is never ahead)."""
    def beats(best, b):
        if best[b] is None:
            return unplaced_counts_as_behind
        return best["hcm"]["rpj"] > best[b]["rpj"]

    return [app for app, best in per_app.items() if best["hcm"] is not None and all(beats(best, b) for b in BASELINES)]


def _gain_pct(ours: dict, base: dict | None) -> float | None:
    return None if base is None or ours is None else (ours["rpj"] / base["rpj"] - 1) * 100


def _latency_cut_pct(ours: dict, base: dict | None) -> float | None:
    if base is None or ours is None or not ours["avg_latency_ms"] or not base["avg_latency_ms"]:
        return None
    return (1 - ours["avg_latency_ms"] / base["avg_latency_ms"]) * 100


class Figure6:
    name = "fig6"
    title = "Figure 6: HCM vs simulated annealing vs ILP, energy efficiency on 3 x Type1-SmartNIC (8 apps)"
    needs = frozenset()
    deterministic = True

    def run(self, ctx: RunContext) -> ExperimentResult:
        cfg = QUICK if ctx.quick else FULL
        apps = catalog.template_names()
        rows, quantities, per_app, best_seed = [], [], {}, {}
        for i, app in enumerate(apps):
            ctx.progress(i / len(apps), app)
            problem = pinned_problem(app)
            runs = {"hcm": [dict(_place(problem, "hcm", {}), seed=None)],
                    "ilp": [dict(_place(problem, "ilp", {"time_limit_s": cfg["ilp_time_limit_s"]}), seed=None)],
                    "annealing": [dict(_place(problem, "annealing",
                                              {"seed": s, "iterations": cfg["annealing_iterations"]}), seed=s)
                                  for s in cfg["annealing_seeds"]]}
            for algorithm, results in runs.items():
                rows.extend(dict(app=app, algorithm=algorithm, **r) for r in results)
            per_app[app] = {a: _typical(r) for a, r in runs.items()}
            best_seed[app] = dict(per_app[app], annealing=_best(runs["annealing"]))
        gains, latency_cuts = {b: {} for b in BASELINES}, {b: {} for b in BASELINES}
        for app, best in per_app.items():
            hcm = best["hcm"]
            for b in BASELINES:
                gain, cut = _gain_pct(hcm, best[b]), _latency_cut_pct(hcm, best[b])
                gains[b][app], latency_cuts[b][app] = gain, cut
                labels = {"app": app, "baseline": b}
                quantities.append(Quantity("energy-efficiency gain of HCM", None, gain, "%", "model", labels=labels))
                quantities.append(Quantity("latency reduction by HCM", None, cut, "%", "model", labels=labels))
        for b in BASELINES:
            values = [g for g in gains[b].values() if g is not None]
            quantities.append(Quantity("largest energy-efficiency gain of HCM", PAPER_MAX_GAIN_PCT[b],
                                       max(values, default=None), "%", "model", MAX_TOLERANCE,
                                       labels={"baseline": b}))
            cuts = [q.ours for q in quantities if q.name == "latency reduction by HCM"
                    and q.labels["baseline"] == b and q.ours is not None]
            quantities.append(Quantity("largest latency reduction by HCM", PAPER_MAX_LATENCY_CUT_PCT[b],
                                       max(cuts, default=None), "%", "model", MAX_TOLERANCE,
                                       labels={"baseline": b}))
        ahead, ahead_or_unplaced = _apps_ahead(per_app), _apps_ahead(per_app, unplaced_counts_as_behind=True)
        quantities.append(Quantity("apps with HCM ahead of both baselines", None, len(ahead), "apps", "model"))
        quantities.append(Quantity("apps with HCM ahead of both baselines, an unplaced baseline counted as behind",
                                   None, len(ahead_or_unplaced), "apps", "model"))
        # the target as a yes/no claim, so the summary's count of judged figures carries it (the paper's Figure 6
        # has HCM ahead of both; the target asks it on TARGET_APPS_AHEAD of the 8 apps)
        quantities.append(Quantity(f"HCM ahead of both baselines on at least {TARGET_APPS_AHEAD} of 8 apps", 1.0,
                                   float(len(ahead) >= TARGET_APPS_AHEAD), "1 = yes", "model", 0.0,
                                   labels={"ours_ahead": len(ahead)}))
        ctx.progress(1.0, "done")
        notes = _notes(cfg, rows, gains, latency_cuts, ahead, ahead_or_unplaced, _apps_ahead(best_seed))
        return ExperimentResult(rows=rows, quantities=quantities, notes=notes,
                                plot=lambda figure: _plot(figure, apps, gains))


def _notes(cfg, rows, gains, latency_cuts, ahead, ahead_or_unplaced, ahead_of_best_seed) -> list[str]:
    notes = []
    verdict = "met" if len(ahead) >= TARGET_APPS_AHEAD else f"missed by {TARGET_APPS_AHEAD - len(ahead)}"
    behind = {app: [b for b in BASELINES if gains[b][app] is not None and gains[b][app] <= 0] for app in gains["ilp"]}
    unplaced = {app: [b for b in BASELINES if gains[b][app] is None] for app in gains["ilp"]}
    notes.append(f"Target (HCM ahead of annealing and ILP on at least {TARGET_APPS_AHEAD} of 8 apps) {verdict}: "
                 f"ahead of both on {len(ahead)} ({', '.join(ahead) or 'none'}), counting only apps both baselines "
                 "placed. Behind: " + ("; ".join(f"{app} (behind {', '.join(bs)})" for app, bs in behind.items() if bs)
                                       or "nowhere") + ". "
                 + "".join(f"{', '.join(bs)} could not place {app} at all. " for app, bs in unplaced.items() if bs)
                 + f"Counting an app a baseline cannot place as HCM ahead: {len(ahead_or_unplaced)} of 8. "
                 f"Against annealing's best seed instead of its median: ahead on {len(ahead_of_best_seed)} "
                 f"({', '.join(ahead_of_best_seed) or 'none'}).")
    for app, bs in behind.items():
        for b in bs:
            cut = latency_cuts[b][app]
            notes.append(f"{app}: {b} serves {-gains[b][app]:.1f}% more requests per joule than HCM at the knee"
                         + (f", though HCM's latency is {cut:.1f}% lower" if cut and cut > 0 else "")
                         + f": {b} spreads the load (its objective), HCM co-locates each pipeline (its objective).")
    if any("annealing" in bs for bs in unplaced.values()):
        notes.append("Annealing starts from first-fit (e3.placement.annealing), retried most constrained first "
                     "(pinned instances, then primaries) when that runs out of room; with the pinned services held "
                     "to the host neither placed every shard and backup (errors below), so annealing had no start. "
                     "HCM and the ILP place the same apps.")
    failed = sorted({(r["app"], r["algorithm"], r["error"]) for r in rows if not r["placed"]})
    for app, algorithm, error in failed:
        notes.append(f"{algorithm} could not place {app} (no gain computed against it there): {error}")
    for b in BASELINES:
        values = {app: g for app, g in gains[b].items() if g is not None}
        if values:
            top = max(values, key=values.get)
            notes.append(f"Largest gain over {b}: {values[top]:+.1f}% on {top} (paper: up to "
                         f"+{PAPER_MAX_GAIN_PCT[b]}%); median over apps {statistics.median(values.values()):+.1f}%. "
                         "Ours is the cost model's prediction at the knee, the paper's a measurement; why the "
                         "model's gains are this much larger was not traced.")
    notes.append(f"Pinned to the host for every algorithm: {', '.join(PINNED_TO_HOST)}. Annealing: "
                 f"{cfg['annealing_iterations']:,} moves per search (Service Fabric stops on 0.5 s of wall time; "
                 f"a count keeps the result machine-independent), median over seeds {list(cfg['annealing_seeds'])}. "
                 f"ILP: cap {cfg['ilp_time_limit_s']:g} s.")
    capped = sorted({r["app"] for r in rows if r["algorithm"] == "ilp" and r["placed"] and not r["optimal"]})
    if capped:
        notes.append(f"The ILP stopped at its cap on {', '.join(capped)}: those figures depend on this machine's "
                     "speed, so this run is not deterministic there.")
    slow = [r for r in rows if r["algorithm"] == "annealing" and r["placed"] and r["runtime_s"] > 0.5]
    if slow:
        notes.append(f"Annealing took up to {max(r['runtime_s'] for r in slow):.2f} s here, over Service Fabric's "
                     "0.5 s: on this machine the budget is more generous than SF's.")
    return notes


def _plot(figure, apps: list[str], gains: dict) -> None:
    ax = figure.subplots()
    width = 0.38
    for k, b in enumerate(BASELINES):
        xs = [i + (k - 0.5) * width for i in range(len(apps))]
        ys = [gains[b][app] if gains[b][app] is not None else 0.0 for app in apps]
        ax.bar(xs, ys, width, label=f"HCM over {b} (ours, model)")
        ax.axhline(PAPER_MAX_GAIN_PCT[b], linestyle="--", color=f"C{k}",
                   label=f"paper: up to +{PAPER_MAX_GAIN_PCT[b]}%")
        for x, app in zip(xs, apps):
            if gains[b][app] is None:
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_yscale("symlog", linthresh=10)
    ax.set_xticks(range(len(apps)), apps, rotation=30)
    ax.set_ylabel("energy-efficiency gain of HCM (%, requests/J)")
    ax.set_title("Figure 6: HCM vs baselines, same pinning for all (3 x Type1-SmartNIC)")
    ax.legend(fontsize=8)


EXPERIMENT = Figure6()
