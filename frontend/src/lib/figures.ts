// Number formatting for the deploy page and the dashboard: every figure with its unit, and a dash when
// the API gave nothing usable. Fixed to en-US so tests and screenshots agree.

export const MISSING = "—";

function finite(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

// One en-US formatter per number of decimals, made once: `toLocaleString` with options builds a new
// Intl.NumberFormat on every call, the dashboard's most expensive script while live data arrives.
const formatters = new Map<number, Intl.NumberFormat>();

/** `value` in en-US with thousands separated and at most `decimals` decimals ("12,345.6"). */
export function formatDecimals(value: number, decimals: number): string {
  let formatter = formatters.get(decimals);
  if (!formatter) {
    formatter = new Intl.NumberFormat("en-US", { minimumFractionDigits: 0, maximumFractionDigits: decimals });
    formatters.set(decimals, formatter);
  }
  return formatter.format(value);
}

/** `value` with about three significant digits (thousands separated), or null. */
export function formatSignificant(value: unknown): string | null {
  if (!finite(value)) return null;
  const abs = Math.abs(value);
  let digits: number;
  if (abs === 0 || abs >= 100) digits = 0;
  else if (abs >= 10) digits = 1;
  else if (abs >= 1) digits = 2;
  else digits = Math.min(12, 2 - Math.floor(Math.log10(abs)));
  return formatDecimals(value, digits);
}

/** `value` followed by `unit` ("86.2 ms"), or the dash. */
export function formatWithUnit(value: unknown, unit: string): string {
  const text = formatSignificant(value);
  return text === null ? MISSING : unit === "" ? text : `${text} ${unit}`;
}

export const formatRps = (v: unknown): string => formatWithUnit(v, "req/s");
export const formatMs = (v: unknown): string => formatWithUnit(v, "ms");
export const formatWatts = (v: unknown): string => formatWithUnit(v, "W");
export const formatJoulesPerRequest = (v: unknown): string => formatWithUnit(v, "J/req");
export const formatRequestsPerJoule = (v: unknown): string => formatWithUnit(v, "req/J");

/** A measured runtime: "0.87 ms", "71.7 ms", "945 ms", "12.3 s". */
export function formatRuntime(ms: unknown): string {
  if (!finite(ms)) return MISSING;
  if (ms >= 10_000) return formatWithUnit(ms / 1000, "s");
  return formatWithUnit(ms, "ms");
}

/** A ratio to the baseline: "×1.13", "×0.327". */
export function formatRatio(v: unknown): string {
  const text = formatSignificant(v);
  return text === null ? MISSING : `×${text}`;
}

/** A 0..1 fraction as a whole percentage, clamped. */
export function formatPercent(fraction: unknown): string {
  if (!finite(fraction)) return MISSING;
  return `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}
