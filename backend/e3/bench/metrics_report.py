"""Text report for the /metrics benchmark: figures, and the issue's target (reported, not asserted)."""

from e3.bench.metrics import TARGET_P99_MS


def render(r: dict) -> str:
    c = r["config"]
    ratio = r["prometheus_client_ms"] / r["render_ms"] if r["render_ms"] else None
    lines = [f"GET /metrics with {c['nodes']:,} nodes and {c['instances']:,} instances reporting ({r['cores']} cores "
             f"shared by the API, Redis, Postgres and this client; load average {r['load_average']})", "",
             f"  controller's families: {r['series']:,} series, {r['controller_bytes'] / 1e6:.1f} MB "
             f"({r['deflate_bytes'] / 1e6:.1f} MB compressed)",
             f"    snapshot of the ledger (on the controller's loop, 500 nodes a turn)  {r['snapshot_ms']:g} ms in all",
             f"    render (in a thread; median, max)                  {r['render_ms']:g} ms, {r['render_max_ms']:g} ms",
             f"    compress (in the same thread)                      {r['deflate_ms']:g} ms",
             f"    the same families through prometheus_client        {r['prometheus_client_ms']:g} ms"
             + (f" ({ratio:.1f}x the render)" if ratio else "")]
    for encoding, s in r["scrapes"].items():
        lines.append(f"  GET /metrics on `e3 api`, Accept-Encoding {encoding}, {s['requests']} requests one after "
                     f"another: p50 {s['p50_ms']:g} ms, p99 {s['p99_ms']:g} ms, max {s['max_ms']:g} ms; "
                     f"{s['response_bytes'] / 1e6:.1f} MB an answer")
    p99 = r["scrapes"]["gzip"]["p99_ms"]
    lines += ["", "Target (the issue's; reported, not asserted)",
              f"  [{'met' if p99 <= TARGET_P99_MS else 'NOT met'}] /metrics p99 <= {TARGET_P99_MS:g} ms, as Prometheus "
              f"scrapes it (gzip): {p99:g} ms"]
    return "\n".join(lines)
