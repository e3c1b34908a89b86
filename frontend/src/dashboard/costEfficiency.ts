// The paper's cost efficiency (§5.5): requests served per dollar over T years of ownership,
//   Throughput × T / (CAPEX + Power × T × Electricity),
// with Throughput in requests/s, Power in watts and Electricity in $/kWh (the paper's average U.S. price
// is $0.0733/kWh). The paper takes throughput and power at peak utilisation; the dashboard takes the
// cluster's current figures, and says so.

export const PAPER_USD_PER_KWH = 0.0733;
export const HOURS_PER_YEAR = 365.25 * 24;
export const SECONDS_PER_YEAR = HOURS_PER_YEAR * 3600;

export interface CostInputs {
  throughputRps: number | null;
  watts: number | null;
  capexUsd: number | null;
  usdPerKwh: number | null;
}

export interface CostPoint {
  years: number;
  /** Requests over the period. */
  requests: number;
  /** Electricity over the period, $. */
  energyUsd: number;
  /** CAPEX + electricity, $. */
  totalUsd: number;
  /** Requests per dollar. */
  requestsPerUsd: number;
}

const usable = (v: number | null | undefined): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

/** Cost efficiency after `years` of ownership, or null when an input is missing or meaningless. */
export function costEfficiency(inputs: CostInputs, years: number): CostPoint | null {
  const { throughputRps, watts, capexUsd, usdPerKwh } = inputs;
  if (!usable(throughputRps) || !usable(watts) || !usable(capexUsd) || !usable(usdPerKwh)) return null;
  if (!(years > 0) || !Number.isFinite(years)) return null;
  const requests = throughputRps * years * SECONDS_PER_YEAR;
  const energyUsd = (watts / 1000) * years * HOURS_PER_YEAR * usdPerKwh;
  const totalUsd = capexUsd + energyUsd;
  if (!(totalUsd > 0)) return null;
  return { years, requests, energyUsd, totalUsd, requestsPerUsd: requests / totalUsd };
}

/** Cost efficiency for 1..maxYears years (null entries where it cannot be computed). */
export function costOverYears(inputs: CostInputs, maxYears = 5): (CostPoint | null)[] {
  return Array.from({ length: maxYears }, (_, i) => costEfficiency(inputs, i + 1));
}

export interface CapexPart {
  serverType: string;
  count: number;
  /** List price per server from the catalogue (paper Table 4), or null when the catalogue lacks the type. */
  unitUsd: number | null;
}

export interface Capex {
  /** Sum over the servers, or null when a type has no price. */
  usd: number | null;
  parts: CapexPart[];
  /** Server types without a price. */
  missing: string[];
}

/** The cluster's CAPEX: servers per type (GET /clusters/{name}) × each type's cost (GET /catalog/server-types). */
export function capexOf(
  serverTypes: Record<string, number>,
  catalogue: readonly { name: string; cost_usd: number }[],
): Capex {
  const price = new Map(catalogue.map((t) => [t.name, t.cost_usd]));
  const parts: CapexPart[] = Object.entries(serverTypes)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([serverType, count]) => {
      const unit = price.get(serverType);
      return { serverType, count, unitUsd: typeof unit === "number" && Number.isFinite(unit) ? unit : null };
    });
  const missing = parts.filter((p) => p.unitUsd === null).map((p) => p.serverType);
  const usd = missing.length > 0 ? null : parts.reduce((sum, p) => sum + p.count * (p.unitUsd as number), 0);
  return { usd, parts, missing };
}
