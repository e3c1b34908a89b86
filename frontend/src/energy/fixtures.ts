// Answers of the energy history API for the tests (the shapes of docs/energy.md).

import type { EnergyHistory, EnergyPoint } from "./energyTypes";

/** A step with data from one source; `joules_by_source` as the API sends it. */
export function point(ts: string, watts: number, source: string, extra: Partial<EnergyPoint> = {}): EnergyPoint {
  const joules = watts * 10;
  return {
    ts,
    joules,
    requests: 100,
    seconds: 10,
    watts_mean: watts,
    watts_max: watts * 1.5,
    joules_per_request: joules / 100,
    source,
    sources: [source],
    joules_by_source: { [source]: joules },
    ...extra,
  };
}

/** A step without data: null figures. */
export function emptyPoint(ts: string): EnergyPoint {
  return {
    ts,
    joules: null,
    requests: null,
    seconds: null,
    watts_mean: null,
    watts_max: null,
    joules_per_request: null,
    source: null,
    sources: [],
    joules_by_source: {},
  };
}

export function history(points: EnergyPoint[], from = "2026-11-26T12:00:00Z", to = "2026-11-26T12:01:00Z", step = 10): EnergyHistory {
  const joules = points.reduce((s, p) => s + (p.joules ?? 0), 0);
  const requests = points.reduce((s, p) => s + (p.requests ?? 0), 0);
  return {
    scope: { kind: "application", name: "shop", cluster: null, node_id: null },
    from,
    to,
    step_s: step,
    rollup_step_s: 10,
    retention_days: 7,
    points,
    totals: {
      joules,
      requests,
      joules_per_request: requests > 0 ? joules / requests : null,
      sources: [...new Set(points.flatMap((p) => p.sources))].sort(),
    },
  };
}
