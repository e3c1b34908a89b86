"""Text report for the heartbeat-ingest benchmark: figures, ratios to the issue's targets (reported, not asserted)."""

from e3.bench.ingest import PER_HZ, TARGET_HZ, TARGET_LAG_REDIS_P99_MS, TARGET_LAG_ROLLUP_P99_MS, TARGET_MOVE_S

LOADGEN_NAMES = {"native": "the compiled e3-heartbeat-load", "python": "Python (grpc.aio)"}


def _fmt(value, spec=",.0f") -> str:
    return "-" if value is None else format(value, spec)


def _ratio(a, b):
    return None if a is None or not b else a / b


def render(r: dict) -> str:
    per_hz = r["cpu_pct_per_100k_hz"]
    front = f" + its ingest front {r['front_cpu_pct']}" if r.get("front") else ""
    lines = [
        f"Heartbeat ingest: {r['servers']:,} type2-smartnic servers, {r['nodes']:,} nodes, one heartbeat per node "
        f"every {r['period_ms']} ms for {r['seconds']:g} s",
        f"  load generator: {r['workers']} process(es) streaming with {LOADGEN_NAMES[r['loadgen']]}, "
        f"{r['streams']} streams, {r['agents_per_stream']} agent(s) "
        f"per stream, {r['instances_per_heartbeat']} instances per heartbeat; registration took {r['register_s']} s",
        *([f"  streams that failed: {'; '.join(r['stream_errors'])}"] if r.get("stream_errors") else []),
        "",
        f"  {'scheduled':<28} {_fmt(r['scheduled_hz']):>12} heartbeats/s",
        f"  {'offered (sent)':<28} {_fmt(r['offered_hz']):>12} heartbeats/s  "
        f"({_fmt(_ratio(r['offered_hz'], r['scheduled_hz']), '.3f')} of scheduled; {r['ticks_missed']:,} of "
        f"{r['ticks'] + r['ticks_missed']:,} stream ticks skipped)",
        f"  {'ingested (accepted)':<28} {_fmt(r['ingested_hz']):>12} heartbeats/s  (incl. {r['drain_s']} s drain "
        f"after the window)",
        f"  {'in rollups by window end':<28} {_fmt(r['rollup_heartbeats_per_s']):>12} heartbeats/s  (Σ "
        f"node_rollups.heartbeats at the window's end / window; the rollups are written once a second)",
        f"  {'sent / accepted / in rollups':<28} {r['sent']:,} / {r['accepted']:,} / {r['rollup_heartbeats']:,}  "
        f"(rejected {r['rejected']:,}; loss {r['loss']:,})",
        f"  {'lag send -> Redis':<28} p50 {_fmt(r['lag_redis_p50_ms'], '.1f')} ms, "
        f"p99 {_fmt(r['lag_redis_p99_ms'], '.1f')} ms  ({r['lag_redis_samples']:,} samples, "
        f"{r['lag_sample_nodes']} nodes)",
        f"  {'rollups lag (send -> row)':<28} p50 {_fmt(r['rollup_lag_p50_ms'], '.1f')} ms, "
        f"p99 {_fmt(r['rollup_lag_p99_ms'], '.1f')} ms for the newest heartbeat of each write; the oldest at most "
        f"p50 {_fmt(r['rollup_lag_bound_p50_ms'], '.1f')} ms, p99 {_fmt(r['rollup_lag_bound_p99_ms'], '.1f')} ms  "
        f"({r['rollup_lag_samples']:,} samples; polled every {r['rollup_poll_ms']} ms, so up to that much late)",
        f"  CPU, % of one core ({r['cores']} cores here, all shared): controller {r['controller_cpu_pct']}{front}, "
        f"load generator {r['loadgen_cpu_pct']}, Postgres {r['postgres_cpu_pct']}, Redis {r['redis_cpu_pct']}, "
        f"monitor {r['monitor_cpu_pct']}",
        f"  CPU per {PER_HZ:,} heartbeats/s, % of one core: controller {_fmt(per_hz['controller'], '.1f')}, "
        f"Postgres {_fmt(per_hz['postgres'], '.1f')}, Redis {_fmt(per_hz['redis'], '.1f')}  (CPU time from the "
        f"window's start to the last summary / heartbeats accepted)",
    ]
    if r.get("controllers", 1) > 1:
        lines.insert(1, f"  {r['controllers']} controllers; load-generator process i streams to controller i mod "
                        f"{r['controllers']} (CPU figures: all controllers together)")
    if r.get("killed_at"):
        lines.append(f"  kill -9 of the first controller {r['config']['kill_after_s']:g} s into the window: "
                     f"{r['moved_nodes']:,} of {r['nodes_total']:,} nodes ({r['moved_streams']} streams) lost it; "
                     f"{r['resumed_nodes']:,} reported again at another controller within the window, after p50 "
                     f"{_fmt(r['move_s_p50'], '.2f')} s, max {_fmt(r['move_s_max'], '.2f')} s (kill to the "
                     f"stream's first batch there, its agents registered again meanwhile); "
                     f"{r['unconfirmed']:,} heartbeats sent to the killed one unconfirmed (no summary), "
                     f"{r['loss']:,} not in the rollups")
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
    line(r["zero_loss"], f"zero loss: sent {r['sent']:,}, accepted {r['accepted']:,}, counted in rollups "
                         f"{r['rollup_heartbeats']:,}")
    v = r["lag_redis_p99_ms"]
    line(None if v is None else v <= TARGET_LAG_REDIS_P99_MS,
         f"lag p99 to Redis <= {TARGET_LAG_REDIS_P99_MS:,} ms: {_fmt(v, '.1f')} ms "
         f"({_fmt(_ratio(v, TARGET_LAG_REDIS_P99_MS), '.2f')}x the bound)")
    # judged on what the oldest heartbeat of a write can have waited, not only the newest
    v = r["rollup_lag_bound_p99_ms"]
    line(None if v is None else v <= TARGET_LAG_ROLLUP_P99_MS,
         f"rollups lag p99 <= {TARGET_LAG_ROLLUP_P99_MS:,} ms: at most {_fmt(v, '.1f')} ms "
         f"({_fmt(_ratio(v, TARGET_LAG_ROLLUP_P99_MS), '.2f')}x the bound; newest heartbeat of each write "
         f"{_fmt(r['rollup_lag_p99_ms'], '.1f')} ms)")
    if r.get("killed_at"):
        v, everyone = r["move_s_max"], r["resumed_nodes"] == r["moved_nodes"]
        line(None if v is None else everyone and v <= TARGET_MOVE_S,
             f"a killed controller's nodes report again elsewhere within {TARGET_MOVE_S:g} s: "
             + (f"max {_fmt(v, '.2f')} s" if everyone else
                f"{r['moved_nodes'] - r['resumed_nodes']:,} of {r['moved_nodes']:,} not within the window"))
    return "\n".join(lines + out)
