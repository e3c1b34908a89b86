"""Text tables for the placement benchmark: figures, side-by-side ratios, and the issue's targets."""

from collections import defaultdict

from e3.bench.placement import PAPER_FIG6_RPJ_GAIN


def _fmt(value, spec=".3f") -> str:
    return "-" if value is None else format(value, spec)


def _ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def scale_table(rows: list[dict]) -> list[str]:
    by_scale = defaultdict(dict)
    for r in rows:
        by_scale[r["servers"]][r["algorithm"]] = r
    lines = ["Placement speed: 10K microservices (paper apps) on a FatTree of type2-smartnic, 40 per rack",
             f"{'servers':>8} {'algorithm':<10} {'ms/microsvc':>12} {'paper ms':>9} {'vs paper':>9} "
             f"{'peak RSS MB':>12} {'HCM/annealing':>14}  note"]
    for servers in sorted(by_scale):
        algos = by_scale[servers]
        hcm_vs_sa = _ratio(algos.get("hcm", {}).get("ms_per_microservice"),
                           algos.get("annealing", {}).get("ms_per_microservice"))
        for name, r in algos.items():
            ms, paper = r.get("ms_per_microservice"), r.get("paper_ms_per_microservice")
            note = r.get("error", "") or ("stopped at its time cap (optimal: false)" if r.get("optimal") is False else "")
            lines.append(f"{servers:>8} {name:<10} {_fmt(ms, '.4f'):>12} {_fmt(paper, '.2f'):>9} "
                         f"{_fmt(_ratio(ms, paper), '.4f'):>9} {_fmt(r.get('peak_rss_mb'), '.0f'):>12} "
                         f"{_fmt(hcm_vs_sa if name == 'hcm' else None, '.2f'):>14}  {note}")
    return lines


def app_table(rows: list[dict]) -> list[str]:
    by_app = defaultdict(dict)
    for r in rows:
        by_app[r["app"]][r["algorithm"]] = r
    lines = ["Predicted quality (cost model, source: model) of each paper app alone on 3 x type1-smartnic",
             f"{'app':<9} {'algorithm':<10} {'req/J':>10} {'avg ms':>9} {'p99 ms':>9} "
             f"{'HCM/this req/J':>15} {'this/HCM latency':>17}  note"]
    for app, algos in by_app.items():
        hcm = algos.get("hcm", {})
        for name, r in algos.items():
            lines.append(f"{app:<9} {name:<10} {_fmt(r.get('predicted_rpj'), '.1f'):>10} "
                         f"{_fmt(r.get('predicted_latency_ms'), '.3f'):>9} {_fmt(r.get('predicted_p99_latency_ms'), '.3f'):>9} "
                         f"{_fmt(_ratio(hcm.get('predicted_rpj'), r.get('predicted_rpj')), '.3f'):>15} "
                         f"{_fmt(_ratio(r.get('predicted_latency_ms'), hcm.get('predicted_latency_ms')), '.3f'):>17}  "
                         f"{r.get('error', '')}")
    return lines


def targets(scale_rows: list[dict], app_rows: list[dict]) -> list[str]:
    """The issue's targets, each with the figure it is judged on (reported, not asserted)."""
    hcm = {r["servers"]: r.get("ms_per_microservice") for r in scale_rows if r["algorithm"] == "hcm"}
    sa = {r["servers"]: r.get("ms_per_microservice") for r in scale_rows if r["algorithm"] == "annealing"}
    rss = {r["servers"]: r.get("peak_rss_mb") for r in scale_rows if r["algorithm"] == "hcm"}
    out = ["Targets"]

    def line(ok, text):
        out.append(f"  [{'met' if ok else 'NOT met' if ok is False else 'n/a'}] {text}")

    line(None if hcm.get(1000) is None else hcm[1000] <= 0.2,
         f"HCM <= 0.2 ms/microservice at 1,000 servers: {_fmt(hcm.get(1000), '.4f')} (paper 263.46)")
    line(None if hcm.get(10000) is None else hcm[10000] <= 2.0,
         f"HCM <= 2 ms/microservice at 10,000 servers: {_fmt(hcm.get(10000), '.4f')}")
    line(None if rss.get(10000) is None else rss[10000] <= 2048,
         f"HCM peak memory <= 2 GiB at 10,000 servers: {_fmt(rss.get(10000), '.0f')} MB")
    common = [s for s in hcm if hcm[s] is not None and sa.get(s) is not None]
    line(None if not common else all(hcm[s] <= sa[s] for s in common),
         "HCM no slower than annealing at every scale: "
         + ", ".join(f"{s}: {_fmt(_ratio(hcm[s], sa[s]), '.2f')}x" for s in sorted(common)))
    growth = _ratio(hcm.get(10000), hcm.get(1000))
    line(None if growth is None else growth <= 12, f"HCM growth 1,000 -> 10,000 servers <= 12x: {_fmt(growth, '.2f')}x")
    apps = defaultdict(dict)
    for r in app_rows:
        apps[r["app"]][r["algorithm"]] = r.get("predicted_rpj")
    gains = {a: _ratio(v.get("hcm"), v.get("annealing")) for a, v in apps.items()}
    strong = [a for a, g in gains.items() if g is not None and g >= 1.2]
    line(len(strong) >= 3, f"HCM >= 1.2x annealing req/J on >= 3 of 8 apps: {len(strong)} ({', '.join(strong)}); "
                           f"paper: up to {PAPER_FIG6_RPJ_GAIN['annealing']}x")
    below = [a for a, v in apps.items() if None not in (v.get("hcm"), v.get("first_fit"))
             and v["hcm"] < v["first_fit"]]
    line(not below, "HCM never below first-fit req/J: " + (f"below on {', '.join(below)}" if below else "never below"))
    return out


def render(scale_rows: list[dict], app_rows: list[dict]) -> str:
    parts = []
    if scale_rows:
        parts += scale_table(scale_rows) + [""]
    if app_rows:
        parts += app_table(app_rows) + [""]
    parts += targets(scale_rows, app_rows)
    return "\n".join(parts)
