// The dashboard charts' ranges, 5 min to 7 days back from now (the energy page's presets, with 5 min before
// them), and how often a range's server history is read again.

import { PRESETS } from "../energy/timeRange";
import { HISTORY_MS } from "./recorder";

export const CHART_RANGES = [{ id: "5m", label: "5 min", seconds: 300 }, ...PRESETS] as const;

export type ChartRangeId = (typeof CHART_RANGES)[number]["id"];

/** A chart opens on the last hour (the "a reload shows the last hour at once"). */
export const DEFAULT_CHART_RANGE: ChartRangeId = "1h";

export function rangeSeconds(id: ChartRangeId): number {
  return CHART_RANGES.find((r) => r.id === id)?.seconds ?? 3600;
}

export function rangeLabel(id: ChartRangeId): string {
  return CHART_RANGES.find((r) => r.id === id)?.label ?? id;
}

/** How long after an answer of step `stepS` (s) the range is read again: every 10 steps, but at least every
 * 10 s (the energy rollups close every 10 s) and at most every half of the browser's own history, so that the
 * live tail always reaches back to the last server step. */
export function refreshMs(stepS: number): number {
  return Math.min(HISTORY_MS / 2, Math.max(10_000, stepS * 10_000));
}
