// The dashboard's figures as text, each with its unit; a dash when there is no figure. en-US, like the
// rest of the UI, so tests and screenshots agree.

import { MISSING, formatDecimals, formatPercent, formatSignificant, formatWithUnit } from "../lib/figures";
import type { LiveTotals } from "../live/types";
import { sourceLabel } from "../lib/powerSource";

type LiveAggregatePower = LiveTotals["power"];

export { MISSING, formatPercent };
export { formatJoulesPerRequest, formatRequestsPerJoule, formatRps, formatWatts } from "../lib/figures";
export { sourceLabel };

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** A latency given in µs: "310 µs" below a millisecond, "1.25 ms", "2.5 s". */
export function formatLatencyUs(us: unknown): string {
  if (!finite(us)) return MISSING;
  if (Math.abs(us) < 1000) return formatWithUnit(us, "µs");
  if (Math.abs(us) < 1_000_000) return formatWithUnit(us / 1000, "ms");
  return formatWithUnit(us / 1_000_000, "s");
}

/** A latency given in ms (the model's predictions). */
export const formatLatencyMs = (ms: unknown): string => (finite(ms) ? formatLatencyUs(ms * 1000) : MISSING);

/** A traffic-manager queue depth in packets. */
export function formatQueue(packets: unknown): string {
  if (!finite(packets)) return MISSING;
  return `${formatDecimals(Math.round(packets), 0)} pkt`;
}

/** How long ago: "0.4 s", "12 s", "3 min", "2 h" (one decimal only below 10 s, so the text does not churn). */
export function formatAge(ms: unknown): string {
  if (!finite(ms) || ms < 0) return MISSING;
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 120) return `${Math.floor(s)} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h`;
}

/** Dollars, whole: "$13,950". */
export function formatUsd(usd: unknown): string {
  if (!finite(usd)) return MISSING;
  return `$${formatDecimals(Math.round(usd), 0)}`;
}

/** An electricity price: "$0.0733/kWh". */
export function formatPrice(usdPerKwh: unknown): string {
  const text = formatSignificant(usdPerKwh);
  return text === null ? MISSING : `$${text}/kWh`;
}

const SI: [number, string][] = [
  [1e12, "T"],
  [1e9, "G"],
  [1e6, "M"],
  [1e3, "k"],
];

/** A large count with an SI prefix: "1.23 M", "950". */
export function formatCount(value: unknown): string {
  if (!finite(value)) return MISSING;
  for (const [scale, prefix] of SI) {
    if (Math.abs(value) >= scale) return `${formatSignificant(value / scale)} ${prefix}`;
  }
  return formatSignificant(value) ?? MISSING;
}

/** Cost efficiency: "1.23 M req/$". */
export const formatRequestsPerUsd = (value: unknown): string => (finite(value) ? `${formatCount(value)} req/$` : MISSING);

export type PowerSource = "rapl" | "ipmi" | "ipmi-split" | "model" | "mixed";

/** Whether a power source is a measurement (RAPL, IPMI, a server's IPMI reading split to its nodes) rather than
 * the model's estimate. */
export const isMeasured = (source: string | null | undefined): boolean =>
  source === "rapl" || source === "ipmi" || source === "ipmi-split";

/** How a figure's source is drawn: measured (RAPL, IPMI, live heartbeats), estimated (the model, or a mix
 * with it), or given (the paper's default, or the person's own). */
export function sourceTone(source: string | null | undefined): "measured" | "estimated" | "given" {
  if (isMeasured(source) || source === "live") return "measured";
  if (source === "paper" || source === "request") return "given";
  return "estimated";
}

/** An aggregate power's source as one label ("mixed: MODEL + RAPL"). */
export const aggregateSourceLabel = (power: LiveAggregatePower | null | undefined): string =>
  sourceLabel(power?.source ?? null, power?.sources ?? []);
