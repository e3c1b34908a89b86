"""Text report for the REST API load benchmark: figures, and the issue's targets (reported, not asserted)."""

from e3.bench.api_load import TARGET_HANGS, TARGET_READ_P99_MS, TARGET_REFUSAL_P99_MS


def render(r: dict) -> str:
    steady, overload, burst = r["sections"]["steady"], r["sections"]["overload"], r["sections"]["burst"]
    lim = r["api_limits"]

    def fmt(v, unit=" ms"):
        return "-" if v is None else f"{v:g}{unit}"

    lines = [f"REST API under load ({r['cores']} cores shared by the API, Postgres and the load generator; "
             f"limits: {lim['db_connections']} requests at once, {lim['queue']} waiting at most "
             f"{lim['queue_wait_s']:g} s)", ""]
    for name, s in (("steady", steady), ("overload", overload)):
        lines.append(f"  {name}: {s['requests']} reads offered at {s['offered_rate']:g}/s over {s['seconds']:g} s, "
                     f"answered at {s['answered_rate']:g}/s; statuses {s['counts']}")
        lines.append(f"    served p50 {fmt(s['served_p50_ms'])}, p99 {fmt(s['served_p99_ms'])}, max "
                     f"{fmt(s['served_max_ms'])}; refused (503) {s['refused']}, p99 {fmt(s['refused_p99_ms'])}; "
                     f"hangs {s['hangs']}; sender late p99 {fmt(s['sender_late_p99_ms'])}")
        lines.append(f"    CPU, % of one core: API {s['api_cpu_pct']} ({s['api_cpu_ms_per_request']:g} ms a request), "
                     f"Postgres {s['postgres_cpu_pct']}; machine load average {s['load_average']}")
    lines.append(f"  burst: {burst['in_flight']} requests at once (1 in 10 a write): statuses {burst['counts']}; "
                 f"last answer after {burst['last_answer_s']} s")
    lines.append(f"    served p99 {fmt(burst['served_p99_ms'])}; refused {burst['refused']}, p99 "
                 f"{fmt(burst['refused_p99_ms'])}; hangs {burst['hangs']}; errors {burst['errors']}")
    refusal_p99 = overload["refused_p99_ms"] if overload["refused"] else burst["refused_p99_ms"]
    lines += ["", "Targets (the issue's; reported, not asserted)"]

    def line(ok, text):
        lines.append(f"  [{'met' if ok else 'NOT met' if ok is False else 'n/a'}] {text}")

    p99 = steady["served_p99_ms"]
    line(None if p99 is None else p99 <= TARGET_READ_P99_MS,
         f"read p99 at {steady['offered_rate']:g}/s <= {TARGET_READ_P99_MS:g} ms: {fmt(p99)}")
    line(None if refusal_p99 is None else refusal_p99 <= TARGET_REFUSAL_P99_MS,
         f"503 refusals p99 <= {TARGET_REFUSAL_P99_MS:g} ms: {fmt(refusal_p99)}"
         + ("" if overload["refused"] else " (none at the overload rate: the burst's refusals)"))
    hangs = steady["hangs"] + overload["hangs"] + burst["hangs"]
    line(hangs == TARGET_HANGS, f"hangs up to {burst['in_flight']} in flight: {hangs}")
    return "\n".join(lines)
