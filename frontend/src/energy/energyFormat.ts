// The energy history's figures as text, each with its unit (a dash when there is none).

import { MISSING, formatSignificant, formatWatts, formatJoulesPerRequest } from "../lib/figures";

export { formatWatts, formatJoulesPerRequest };

const SI: [number, string][] = [
  [1e9, "G"],
  [1e6, "M"],
  [1e3, "k"],
];

/** Joules with an SI prefix: "950 J", "12.3 kJ", "4.5 MJ". */
export function formatJoules(joules: unknown): string {
  if (typeof joules !== "number" || !Number.isFinite(joules)) return MISSING;
  for (const [scale, prefix] of SI) {
    if (Math.abs(joules) >= scale) return `${formatSignificant(joules / scale)} ${prefix}J`;
  }
  return `${formatSignificant(joules)} J`;
}

/** A request count: "12,345". */
export function formatRequests(requests: unknown): string {
  if (typeof requests !== "number" || !Number.isFinite(requests)) return MISSING;
  return new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(requests);
}
