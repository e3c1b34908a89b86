"""Text report for the heartbeat-ingest benchmark: figures, ratios to the issue's targets (reported, not asserted)."""

from e3.bench.ingest import TARGET_HZ, TARGET_LAG_PG_P99_MS, TARGET_LAG_REDIS_P99_MS


def _fmt(value, spec=",.0f") -> str:
    return "-" if value is None else format(value, spec)


def _ratio(a, b):
    return None if a is None or not b else a / b


def render(r: dict) -> str:
    lines = [
        f"Heartbeat ingest: {r['servers']:,} type2-smartnic servers, {r['nodes']:,} nodes, one heartbeat per node "
        f"every {r['period_ms']} ms for {r['seconds']:g} s",
        f"  load generator: {r['workers']} process(es), {r['streams']} streams, {r['agents_per_stream']} agent(s) "
        f"per stream, {r['instances_per_heartbeat']} instances per heartbeat; registration took {r['register_s']} s",
        "",
        f"  {'scheduled':<28} {_fmt(r['scheduled_hz']):>12} heartbeats/s",
        f"  {'offered (sent)':<28} {_fmt(r['offered_hz']):>12} heartbeats/s  "
        f"({_fmt(_ratio(r['offered_hz'], r['scheduled_hz']), '.3f')} of scheduled; {r['ticks_missed']:,} of "
        f"{r['ticks'] + r['ticks_missed']:,} stream ticks skipped)",
        f"  {'ingested (accepted)':<28} {_fmt(r['ingested_hz']):>12} heartbeats/s  (incl. {r['drain_s']} s drain "
        f"after the window)",
        f"  {'Postgres rows in window':<28} {_fmt(r['pg_rows_per_s']):>12} rows/s",
        f"  {'sent / accepted / rows':<28} {r['sent']:,} / {r['accepted']:,} / {r['rows']:,}  "
        f"(rejected {r['rejected']:,}; loss {r['loss']:,})",
        f"  {'lag send -> Redis':<28} p50 {_fmt(r['lag_redis_p50_ms'], '.1f')} ms, "
        f"p99 {_fmt(r['lag_redis_p99_ms'], '.1f')} ms  ({r['lag_redis_samples']:,} samples, "
        f"{r['lag_sample_nodes']} nodes)",
        f"  {'lag send -> Postgres row':<28} p50 {_fmt(r['lag_pg_p50_ms'], '.1f')} ms, "
        f"p99 {_fmt(r['lag_pg_p99_ms'], '.1f')} ms  ({r['lag_pg_samples']:,} samples; polled every "
        f"{r['pg_poll_ms']} ms, so up to that much late)",
        f"  CPU, % of one core ({r['cores']} cores here, all shared): controller {r['controller_cpu_pct']}, "
        f"load generator {r['loadgen_cpu_pct']}, Postgres {r['postgres_cpu_pct']}, Redis {r['redis_cpu_pct']}, "
        f"monitor {r['monitor_cpu_pct']}",
    ]
    if r["ticks_missed"]:
        lines.append("  (a skipped tick: the generator could not write in time, because of its own CPU or because the "
                     "controller pushed back through gRPC flow control when its buffer was full)")
    if r.get("rejections"):
        lines.append(f"  first rejections: {'; '.join(r['rejections'])}")
    out = ["", "Targets (the issue's, at 1,000 type2 servers; reported, not asserted)"]

    def line(ok, text):
        out.append(f"  [{'met' if ok else 'NOT met' if ok is False else 'n/a'}] {text}")

    at_scale = r["servers"] >= 1000
    line((r["ingested_hz"] >= TARGET_HZ) if at_scale else None,
         f">= {TARGET_HZ:,} heartbeats/s ingested: {_fmt(r['ingested_hz'])} "
         f"({_fmt(_ratio(r['ingested_hz'], TARGET_HZ), '.3f')}x of the target"
         + ("" if at_scale else f"; this run schedules only {_fmt(r['scheduled_hz'])}/s") + ")")
    line(r["zero_loss"], f"zero loss: sent {r['sent']:,}, accepted {r['accepted']:,}, rows {r['rows']:,}")
    for name, key, target in (("Redis", "lag_redis_p99_ms", TARGET_LAG_REDIS_P99_MS),
                              ("Postgres", "lag_pg_p99_ms", TARGET_LAG_PG_P99_MS)):
        v = r[key]
        line(None if v is None else v <= target,
             f"lag p99 to {name} <= {target:,} ms: {_fmt(v, '.1f')} ms ({_fmt(_ratio(v, target), '.2f')}x the bound)")
    return "\n".join(lines + out)
