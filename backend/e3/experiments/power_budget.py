"""§5.6 power budgets: throughput at equal power and power at equal throughput, SmartNIC cluster vs baseline.

The paper: "E3's energy efficiency benefits are constant regardless of deployment size and power budgets
[...] E3 achieves up to 1.9x more throughput under the same power budget. Conversely, operators can save
48% of power, offering the same bandwidth." It names neither the clusters nor the applications. We read it
as deployments sized to the budget (the paper's "regardless of deployment size"): a cluster design at its
knee, replicated to fill a power budget, delivers its requests per joule times the budget; serving a given
throughput takes its joules per request times that throughput (e3.energy.joules).

Compared: Table 4's SmartNIC cluster, 2 x Type2-SmartNIC, against its homogeneous baseline 4 x Beefy (same
aggregate bandwidth, so the same switch ports, as §5.6 says), on Table 5's three applications; and
Figure 5's pair, 3 x Type1-SmartNIC against 3 x Beefy, for reference. The budget is the baseline's wall
power at its knee; the throughput to match is the baseline's knee throughput. Request mix fitted on
4 x Beefy (workload.fit), as in table5. The paper's per-application figures are derived from its Table 5
(KRPJ ratio; saving = 1 - 1 / ratio), and for Figure 5's pair from its stated NFV-FIN 3x, and marked so.
"""

from e3.energy.joules import joules_per_request, requests_per_joule
from e3.experiments import workload
from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.experiments.kinds import ModelExperiment

PAIRS = (("2xtype2-smartnic", "4xbeefy"), ("3xtype1-smartnic", "3xbeefy"))
TABLE4_PAIR, FIG5_PAIR = PAIRS  # the headline comparison (Table 4/5's clusters), and Figure 5's pair
TOLERANCE = 0.35  # as Table 5's held-out cells


def at_equal_power(nic: workload.Evaluation, base: workload.Evaluation) -> dict:
    """The SmartNIC design sized to the baseline's wall power, and to the baseline's throughput."""
    budget = base.power_watts
    nic_rps = requests_per_joule(nic.power_watts, nic.throughput_rps) * budget
    nic_watts = joules_per_request(nic.power_watts, nic.throughput_rps) * base.throughput_rps
    return {"budget_watts": budget, "baseline_rps": base.throughput_rps, "smartnic_rps_at_budget": nic_rps,
            "throughput_ratio": nic_rps / base.throughput_rps, "target_rps": base.throughput_rps,
            "baseline_watts": base.power_watts, "smartnic_watts_at_target": nic_watts,
            "power_saving_pct": (1.0 - nic_watts / base.power_watts) * 100}


def _paper_derived(nic_cluster: str, base_cluster: str, app: str) -> tuple[float | None, float | None]:
    """The paper's energy-efficiency ratio of the pair (Table 5's KRPJ ratio, or Figure 5's stated NFV-FIN 3x)
    and the power saving it implies; None where the paper gives no figure for the pair and application."""
    values = workload.paper_values()
    table5 = values["table5_krpj"]
    if nic_cluster in table5 and base_cluster in table5:
        ratio = table5[nic_cluster][app] / table5[base_cluster][app]
    elif (nic_cluster, base_cluster) == FIG5_PAIR and app == "nfv-fin":
        ratio = values["fig5"]["nfv_fin_ratio"]
    else:
        return None, None
    return ratio, (1.0 - 1.0 / ratio) * 100


def _run(ctx: RunContext) -> ExperimentResult:
    paper = workload.paper_values()["power_budget"]
    ctx.progress(0.0, f"fitting the request mix on {workload.FIT_CLUSTER}")
    fitted = workload.fit(workload.table5_paper(workload.FIT_CLUSTER))
    rows, q = [], []
    for i, (nic_cluster, base_cluster) in enumerate(PAIRS):
        ctx.progress((i + 1) / (len(PAIRS) + 1), f"{nic_cluster} vs {base_cluster}")
        for app in workload.TABLE5_APPS:
            ratio = fitted.ratios[app]
            nic, base = workload.evaluate(app, nic_cluster, ratio), workload.evaluate(app, base_cluster, ratio)
            paper_ratio, paper_saving = _paper_derived(nic_cluster, base_cluster, app)
            row = {"smartnic_cluster": nic_cluster, "baseline_cluster": base_cluster, "app": app,
                   **at_equal_power(nic, base), "paper_throughput_ratio": paper_ratio,
                   "paper_power_saving_pct": paper_saving}
            rows.append(row)
            labels = {"smartnic_cluster": nic_cluster, "baseline_cluster": base_cluster, "app": app}
            tolerance = TOLERANCE if paper_ratio is not None else None
            q += [Quantity("throughput at equal power, SmartNIC / baseline (paper: its efficiency ratio)", paper_ratio,
                           row["throughput_ratio"], "x", "model", tolerance, "held-out", labels),
                  Quantity("power saving at equal throughput (paper: from its efficiency ratio)", paper_saving,
                           row["power_saving_pct"], "%", "model", tolerance, "held-out", labels)]
    headline = [r for r in rows if (r["smartnic_cluster"], r["baseline_cluster"]) == TABLE4_PAIR]
    best = max(headline, key=lambda r: r["throughput_ratio"])
    labels = {"smartnic_cluster": TABLE4_PAIR[0], "baseline_cluster": TABLE4_PAIR[1], "ours_app": best["app"]}
    q += [Quantity("throughput at equal power, up to", paper["throughput_at_equal_power_up_to"],
                   best["throughput_ratio"], "x", "model", TOLERANCE, "held-out", labels),
          Quantity("power saving at equal throughput, up to", paper["power_saving_at_equal_throughput_pct"],
                   best["power_saving_pct"], "%", "model", TOLERANCE, "held-out", labels)]
    return ExperimentResult(rows, q, plot=_plotter(rows, paper), notes=_notes(q, headline, paper))


def _notes(quantities: list[Quantity], headline: list[dict], paper: dict) -> list[str]:
    stated = paper["throughput_at_equal_power_up_to"]
    derived = ", ".join(f"{r['app']} {r['paper_throughput_ratio']:.2f}x" for r in headline)
    notes = [
        "The paper names neither clusters nor applications for its 1.9x / 48%. The two are one figure: "
        f"1 - 1/1.9 = {1 - 1 / stated:.1%} saving, and 48% saving = {1 / (1 - 0.48):.2f}x. Deployments are sized "
        "to the budget (the paper: 'constant regardless of deployment size and power budgets'), so both follow "
        "from requests per joule at the knee (wall power, idle included).",
        f"Compared: {TABLE4_PAIR[0]} vs {TABLE4_PAIR[1]} (Table 4, same aggregate bandwidth), the headline; "
        f"{FIG5_PAIR[0]} vs {FIG5_PAIR[1]} (Figure 5's pair; paper value for NFV-FIN only, its stated 3x; Figure 5's "
        "class means are not per application). The paper's own Table 5 "
        f"gives for the headline pair {derived}: no SmartNIC-cluster pair in its Table 5 or Figure 5 gives 1.9x "
        "(the nearest: 2 x Type2 over 1 x SuperBeefy on RTA-SHM, 1.55x; over 4 x Beefy on IOT-TS, 2.26x); 1.9x is "
        "also Figure 10's stated 5-year cost-efficiency lead of 2 x Type2 over the next best (cost, not power).",
    ]
    misses = [f"{q.name} {q.labels}: ours {q.ours:.3g} vs paper {q.paper:.3g} ({q.ratio:.2f}x)" for q in quantities
              if q.verdict == "outside"]
    if misses:
        notes.append("Misses: " + "; ".join(misses) + ".")
        notes.append("Why: 2 x Type2 inherits Table 5's held-out errors (table5 experiment): NFV-FIN at about half "
                     "the paper's KRPJ (SmartNIC I/O cost and all four NICs at full active power), RTA-SHM at "
                     "2.5x (BM25 4x faster on the NIC, Table 1, dominant under the fitted mix); Figure 5's pair "
                     "inherits fig5's NFV-FIN miss (the chain's cheap first stage bounds Type1's SmartNICs). The "
                     "stated 1.9x is itself below what the paper's own Table 5 gives for this pair.")
    return notes


SHORT = {"2xtype2-smartnic": "2xT2", "4xbeefy": "4xB", "3xtype1-smartnic": "3xT1", "3xbeefy": "3xB"}  # tick labels
# Per panel: the paper's per-cell key, ours, the paper's stated headline figure, its label, the axis label.
PANELS = (("paper_throughput_ratio", "throughput_ratio", "throughput_at_equal_power_up_to", "paper's 'up to 1.9x'",
           "throughput at equal wall power, SmartNIC / baseline (x)"),
          ("paper_power_saving_pct", "power_saving_pct", "power_saving_at_equal_throughput_pct", "paper's 48%",
           "wall power saved at equal throughput (%)"))


def _plotter(rows: list[dict], paper: dict):
    def plot(figure) -> None:
        x = range(len(rows))
        names = [f"{r['app']}\n{SHORT[r['smartnic_cluster']]}/{SHORT[r['baseline_cluster']]}" for r in rows]
        for ax, (paper_key, ours_key, stated, stated_label, ylabel) in zip(figure.subplots(1, 2), PANELS):
            ax.bar([i - 0.2 for i in x], [r[paper_key] or 0.0 for r in rows], 0.4,
                   label="paper (Table 5; Figure 5 NFV-FIN)")
            ax.bar([i + 0.2 for i in x], [r[ours_key] for r in rows], 0.4, label="ours (model)")
            ax.axhline(paper[stated], color="red", linestyle="--", label=stated_label)
            ax.set_ylabel(ylabel)
            ax.set_xticks(list(x), names, fontsize="x-small")
            ax.legend(fontsize="small")
        figure.suptitle("§5.6: throughput at equal power, power at equal throughput")

    return plot


EXPERIMENT = ModelExperiment("power-budget", "§5.6: throughput at equal power and power at equal throughput", _run)
