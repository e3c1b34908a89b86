"""Figure 5: 3 x Type1-SmartNIC against 3 x Beefy at the knee, all eight applications, HCM placement.

Energy efficiency is throughput over wall power (§5); the ratio is Type1's over Beefy's. Latency cost is
Type1's average latency over Beefy's, minus 1 (positive: slower on Type1). Every application's request
mix is the one fitted on Table 5's 4 x Beefy (its class's fitted application for the five not in Table 5),
so every figure here is held out.
"""

import dataclasses
from statistics import mean

from e3 import catalog
from e3.experiments import workload
from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.experiments.kinds import ModelExperiment

SMARTNIC, BASELINE = "3xtype1-smartnic", "3xbeefy"
CLASSES = ("nfv", "rta", "iot")
RATIO_TOLERANCE = 0.25
# "a few percent" (the paper: 4%): within 0..8%, i.e. 4% ± 100%.
LATENCY_COST_TOLERANCE = 1.0
COMPARED = f"{SMARTNIC} vs {BASELINE}"  # every quantity's `cluster` label: the pair of clusters it compares


def _run(ctx: RunContext) -> ExperimentResult:
    paper = workload.paper_values()["fig5"]
    ctx.progress(0.0, f"fitting the request mix on {workload.FIT_CLUSTER}")
    fitted = workload.fit(workload.table5_paper(workload.FIT_CLUSTER))
    rows = []
    apps = catalog.template_names()
    for i, app in enumerate(apps):
        ctx.progress((i + 1) / (len(apps) + 1), app)
        ratio = workload.ratio_for(app, fitted.ratios)
        nic, base = workload.evaluate(app, SMARTNIC, ratio), workload.evaluate(app, BASELINE, ratio)
        rows.append({
            "app": app, "class": workload.app_class(app), "edge_ratio": ratio,
            "efficiency_ratio": nic.krpj / base.krpj,
            "avg_latency_cost": nic.avg_latency_ms / base.avg_latency_ms - 1.0,
            "p99_latency_cost": nic.p99_latency_ms / base.p99_latency_ms - 1.0,
            "type1_krpj": nic.krpj, "beefy_krpj": base.krpj,
            "type1_rps": nic.throughput_rps, "beefy_rps": base.throughput_rps,
            "type1_wall_watts": nic.power_watts, "beefy_wall_watts": base.power_watts,
            "type1_avg_latency_ms": nic.avg_latency_ms, "beefy_avg_latency_ms": base.avg_latency_ms,
            "type1_bottleneck": _bottleneck(nic), "beefy_bottleneck": _bottleneck(base),
            "rules": "; ".join(nic.rules + base.rules)})
    by_app = {r["app"]: r for r in rows}
    class_mean = {c: mean(r["efficiency_ratio"] for r in rows if r["class"] == c) for c in CLASSES}
    saving = {c: -mean(r["avg_latency_cost"] for r in rows if r["class"] == c) * 100 for c in CLASSES}
    q = [Quantity("energy-efficiency ratio, class mean", paper["energy_efficiency_ratio_by_class"][c],
                  class_mean[c], "x", "model", RATIO_TOLERANCE, "held-out", {"class": c}) for c in CLASSES]
    q += [Quantity("average latency saving, class mean", paper["avg_latency_savings_pct_by_class"][c], saving[c],
                   "%", "model", None, "held-out", {"class": c}) for c in CLASSES]
    highest_app = max(rows, key=lambda r: r["efficiency_ratio"])["app"]
    lowest_app = min(rows, key=lambda r: r["efficiency_ratio"])["app"]
    ptc = by_app["rta-ptc"]
    q += [
        Quantity("NFV the highest class (paper's order)", 1.0, float(max(class_mean, key=class_mean.get) == "nfv"),
                 "1 = yes", "model", 0.0, "held-out", {"ours_order": " > ".join(sorted(class_mean, key=class_mean.get,
                                                                                          reverse=True))}),
        Quantity("energy-efficiency ratio", paper["nfv_fin_ratio"], by_app["nfv-fin"]["efficiency_ratio"], "x",
                 "model", RATIO_TOLERANCE, "held-out", {"app": "nfv-fin"}),
        Quantity("energy-efficiency ratio", paper["rta_ptc_ratio"], ptc["efficiency_ratio"], "x", "model",
                 RATIO_TOLERANCE, "held-out", {"app": "rta-ptc"}),
        Quantity("NFV-FIN the highest application", 1.0, float(highest_app == "nfv-fin"), "1 = yes", "model", 0.0,
                 "held-out", {"ours_highest": highest_app}),
        Quantity("RTA-PTC the lowest application", 1.0, float(lowest_app == "rta-ptc"), "1 = yes", "model", 0.0,
                 "held-out", {"ours_lowest": lowest_app}),
        Quantity("RTA-PTC average latency cost", paper["rta_ptc_latency_cost_pct"], ptc["avg_latency_cost"] * 100,
                 "%", "model", LATENCY_COST_TOLERANCE, "held-out", {"app": "rta-ptc"}),
    ]
    q = [dataclasses.replace(quantity, labels={"cluster": COMPARED, **quantity.labels}) for quantity in q]
    return ExperimentResult(rows, q, plot=_plotter(rows, paper), notes=_notes(q, rows))


def _bottleneck(e: workload.Evaluation) -> str | None:
    b = e.prediction.bottleneck
    return (b.service or b.resource) if b else None


def _notes(quantities: list[Quantity], rows: list[dict]) -> list[str]:
    misses = [f"{q.name} {q.labels}: ours {q.ours:.3g} vs paper {q.paper:g}" for q in quantities
              if q.verdict == "outside"]
    notes = ["Energy efficiency = throughput at the knee / wall power of the three servers (§5). Request mix "
             "fitted on Table 5's 4 x Beefy (table5 experiment); nothing here was fitted."]
    if misses:
        notes.append("Misses: " + "; ".join(misses) + ".")
        notes.append(
            "Why: with the fitted mix, fewer requests reach the deep stages, so on NFV chains the first, cheap "
            "stage (flow monitor, DDoS, NAT) bounds Type1's SmartNICs, where Table 1 gives the NIC only ~1.0-1.1x "
            "the host's rate; the paper's 3x needs the NIC's 2x IPsec advantage to dominate. RTA-SHM gains most "
            "in the model because BM25 runs 4x faster on the NIC (Table 1). In RTA-PTC HCM puts KNN on the "
            "SmartNICs (Table 1: its requests per joule there are ~4x the host's, and its NIC latency, 20.6 ms, "
            "is below the host's 45.8 ms), where the paper's E3 put only Count on the SmartNIC and ran the rest on "
            "the host; so the model shows a latency saving, not the paper's 4% cost. RTA-SF (Bayes on the host, "
            "Type1's higher idle power) and IOT-DH (KNN-bound) come out lowest instead.")
    ascending = sorted(rows, key=lambda r: r["efficiency_ratio"])
    low = ", ".join(f"{r['app']} {r['efficiency_ratio']:.2f}" for r in ascending)
    notes.append(f"Per application (ascending): {low}.")
    return notes


def _plotter(rows: list[dict], paper: dict):
    def plot(figure) -> None:
        eff, lat = figure.subplots(1, 2)
        x = range(len(rows))
        paper_eff = [paper["nfv_fin_ratio"] if r["app"] == "nfv-fin" else paper["rta_ptc_ratio"]
                     if r["app"] == "rta-ptc" else paper["energy_efficiency_ratio_by_class"][r["class"]] for r in rows]
        eff.bar([i - 0.2 for i in x], paper_eff, 0.4, label="paper (class mean; NFV-FIN, RTA-PTC as stated)")
        eff.bar([i + 0.2 for i in x], [r["efficiency_ratio"] for r in rows], 0.4, label="ours (model)")
        eff.axhline(1.0, color="grey", linewidth=0.8)
        eff.set_ylabel("energy efficiency, Type1 / Beefy (x, requests per joule of wall power)")
        paper_lat = [-paper["avg_latency_savings_pct_by_class"][r["class"]] if r["app"] != "rta-ptc"
                     else paper["rta_ptc_latency_cost_pct"] for r in rows]
        lat.bar([i - 0.2 for i in x], paper_lat, 0.4, label="paper (class mean; RTA-PTC as stated)")
        lat.bar([i + 0.2 for i in x], [r["avg_latency_cost"] * 100 for r in rows], 0.4, label="ours (model)")
        lat.axhline(0.0, color="grey", linewidth=0.8)
        lat.set_ylabel("average latency, Type1 vs Beefy (% change; negative = saving)")
        for ax in (eff, lat):
            ax.set_xticks(list(x), [r["app"] for r in rows], rotation=45, ha="right")
            ax.legend(fontsize="small")
        figure.suptitle("Figure 5: 3 x Type1-SmartNIC vs 3 x Beefy at the knee")

    return plot


EXPERIMENT = ModelExperiment("fig5", "Figure 5: 3 x Type1-SmartNIC vs 3 x Beefy, energy efficiency and latency", _run)
