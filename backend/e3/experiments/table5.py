"""Table 5: energy efficiency (KRPJ, requests per joule of wall power / 1000) of 5 clusters x 3 applications.

The request mix (one edge ratio per application) is fitted on 4 x Beefy alone; the other four clusters
are predicted from it (e3.experiments.workload, docs/evaluation-model.md).
"""

from statistics import median

from e3.experiments import workload
from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.experiments.kinds import ModelExperiment

FITTED_TOLERANCE = 0.10
HELD_OUT_TOLERANCE = 0.35
LABEL = {"4xbeefy": "4xBeefy", "4xwimpy": "4xWimpy", "2xbeefy+2xwimpy": "2xB+2xW",
         "2xtype2-smartnic": "2xType2", "1xsuperbeefy": "1xSuperBeefy"}


def best_cluster(krpj: dict[str, float | None]) -> str | None:
    """The cluster with the highest KRPJ (None if none was computed)."""
    known = {c: v for c, v in krpj.items() if v is not None}
    return max(known, key=known.get) if known else None


def _run(ctx: RunContext) -> ExperimentResult:
    paper = workload.paper_values()["table5_krpj"]
    ctx.progress(0.0, f"fitting the request mix on {workload.FIT_CLUSTER}")
    fitted = workload.fit(workload.table5_paper(workload.FIT_CLUSTER))
    rows, quantities, notes = [], [], []
    ours: dict[str, dict[str, float | None]] = {app: {} for app in workload.TABLE5_APPS}
    for i, cluster in enumerate(workload.TABLE5_CLUSTERS):
        ctx.progress((i + 1) / (len(workload.TABLE5_CLUSTERS) + 1), f"predicting {cluster}")
        role = "fitted" if cluster == workload.FIT_CLUSTER else "held-out"
        for app in workload.TABLE5_APPS:
            result = workload.try_evaluate(app, cluster, fitted.ratios[app])
            value = None if isinstance(result, str) else result.krpj
            ours[app][cluster] = value
            q = Quantity("KRPJ", paper[cluster][app], value, "KRPJ", "model",
                         FITTED_TOLERANCE if role == "fitted" else HELD_OUT_TOLERANCE, role,
                         {"cluster": cluster, "app": app})
            quantities.append(q)
            row = {"cluster": cluster, "app": app, "role": role, "paper_krpj": paper[cluster][app], "ours_krpj": value,
                   "ratio": q.ratio, "verdict": q.verdict, "edge_ratio": fitted.ratios[app]}
            if isinstance(result, str):
                row |= {"throughput_rps": None, "wall_watts": None, "bottleneck": None, "rules": result}
                notes.append(f"{cluster} {app}: {result}")
            else:
                b = result.prediction.bottleneck
                row |= {"throughput_rps": result.throughput_rps, "wall_watts": result.power_watts,
                        "bottleneck": b.service or b.resource if b else None, "rules": "; ".join(result.rules)}
            rows.append(row)
    for app in workload.TABLE5_APPS:
        paper_best = best_cluster({c: paper[c][app] for c in workload.TABLE5_CLUSTERS})
        our_best = best_cluster(ours[app])
        quantities.append(Quantity("best cluster is the paper's", 1.0, float(our_best == paper_best), "1 = same",
                                   "model", 0.0, "held-out", {"app": app, "paper_best": paper_best,
                                                              "ours_best": our_best}))
    notes += _notes(fitted, quantities)
    return ExperimentResult(rows, quantities, plot=_plotter(rows), notes=notes)


def _median_error(quantities: list[Quantity]) -> float:
    return median(abs(q.ratio - 1) for q in quantities if q.ratio is not None)


def _notes(fitted: workload.Fit, quantities: list[Quantity]) -> list[str]:
    ratios = ", ".join(f"{a} {r:.4f}" for a, r in fitted.ratios.items())
    residual = ", ".join(f"{a} {r:+.2%}" for a, r in fitted.residuals.items())
    held = [q for q in quantities if q.role == "held-out" and q.name == "KRPJ"]
    misses = [f"{q.labels['cluster']} {q.labels['app']} {q.ours:.2f} vs {q.paper} ({q.ratio:.2f}x)"
              for q in held if q.verdict == "outside" and q.ours is not None]
    notes = [
        "KRPJ = throughput at the knee / cluster wall power (idle included): §5 'report energy efficiency as "
        "throughput over server/cluster wall power (not just active power)'.",
        f"Fitted on {fitted.cluster} only, one edge ratio per application (share of a node's requests reaching "
        f"each child): {ratios}. Fit residual (ours/paper - 1): {residual}; one parameter per cell, so exact "
        "by construction: the held-out cells are the test.",
        f"Held-out cells within ±{HELD_OUT_TOLERANCE:.0%}: {sum(q.verdict == 'within' for q in held)} of {len(held)}; "
        f"held-out error |ours/paper - 1|: median {_median_error(held):.0%}, "
        f"without 4xWimpy {_median_error([q for q in held if q.labels['cluster'] != '4xwimpy']):.0%}.",
    ]
    if misses:
        notes.append("Held-out misses: " + "; ".join(misses) + ". Wimpy is the largest miss: the model runs a "
                     "wimpy core at Table 1's SmartNIC (cnMIPS) rates with the memory reservations scaled to fit "
                     "2 GB, while the paper's 2 GB Wimpy servers measured 0.4 and 0.1 KRPJ on RTA-SHM and IOT-TS "
                     "(memory pressure on SQL and the analytics the model does not have). 2xType2 NFV-FIN: the "
                     "model's SmartNIC I/O cost and its power (all four NICs at full active power) keep it near "
                     "half the paper's figure.")
    return notes


def _plotter(rows: list[dict]):
    def plot(figure) -> None:
        axes = figure.subplots(1, len(workload.TABLE5_APPS), sharey=True)
        for ax, app in zip(axes, workload.TABLE5_APPS):
            mine = [r for r in rows if r["app"] == app]
            x = range(len(mine))
            ax.bar([i - 0.2 for i in x], [r["paper_krpj"] for r in mine], 0.4, label="paper")
            ax.bar([i + 0.2 for i in x], [r["ours_krpj"] or 0.0 for r in mine], 0.4, label="ours (model)")
            ax.set_xticks(list(x), [LABEL[r["cluster"]] + ("*" if r["role"] == "fitted" else "") for r in mine],
                          rotation=45, ha="right")
            ax.set_yscale("log")
            ax.set_title(app)
        axes[0].set_ylabel("energy efficiency (KRPJ, kilo-requests per joule of wall power)")
        axes[0].legend()
        figure.suptitle("Table 5: KRPJ by cluster (* = fitted cluster)")

    return plot


EXPERIMENT = ModelExperiment("table5", "Table 5: energy efficiency (KRPJ) of 5 clusters x 3 applications", _run)
