// The energy history's rows shaped for the chart: one step per row with data, its mean watts split over its
// sources (by their share of the step's joules), the steps without data as gaps (never as zero), and the
// line runs of the max watts and J/request, broken at gaps and restyled where the source turns modelled.

import { sourceLabel } from "../lib/powerSource";
import type { EnergyHistory, EnergyPoint } from "./energyTypes";

/** How a figure is drawn: measured (solid), the model's (hatched / dashed), a mix of both, or no source. */
export type SourceClass = "measured" | "model" | "mixed" | "none";

/** Sources in the order they are stacked and listed: measured first, the model last. */
export const SOURCE_ORDER = ["rapl", "ipmi", "ipmi-split", "mixed", "model"] as const;

const MEASURED = new Set(["rapl", "ipmi", "ipmi-split"]);

/** The class of one source or of a step's source with its parts ("mixed" of measured sources only is measured). */
export function sourceClass(source: string | null | undefined, sources: readonly string[] = []): SourceClass {
  if (source == null) return "none";
  if (MEASURED.has(source)) return "measured";
  if (source === "model") return "model";
  if (source === "mixed") return sources.length > 0 && !sources.includes("model") ? "measured" : "mixed";
  return "none";
}

/** The legend's words for a source: the dashboard's for measured ones; the model's says plainly that it is not
 * a measurement. */
export function sourceLegend(source: string): string {
  if (source === "model") return "model (not measured)";
  if (source === "mixed") return "mixed sources";
  return MEASURED.has(source) ? sourceLabel(source) : source;
}

export interface SourcePart {
  source: string;
  watts: number;
}

export interface EnergyStep {
  /** The step's start and end (ms). */
  t0: number;
  t1: number;
  wattsMean: number;
  wattsMax: number | null;
  joules: number | null;
  requests: number | null;
  joulesPerRequest: number | null;
  source: string | null;
  sources: string[];
  cls: SourceClass;
  /** wattsMean split over the step's sources, in SOURCE_ORDER; they add up to wattsMean. */
  parts: SourcePart[];
}

export interface EnergyGap {
  t0: number;
  t1: number;
}

export interface EnergySeries {
  /** The range asked for (ms). */
  t0: number;
  t1: number;
  stepS: number;
  /** Steps with data, in time order. */
  steps: EnergyStep[];
  /** Runs of steps without data, merged. */
  gaps: EnergyGap[];
  /** Steps without data yet because their last rollup has not closed (the range's end, now): not gaps. */
  open: number;
  /** The sources present in the drawn parts, in SOURCE_ORDER. */
  sources: string[];
}

const rank = (source: string) => {
  const at = (SOURCE_ORDER as readonly string[]).indexOf(source);
  return at === -1 ? SOURCE_ORDER.length : at;
};
const byRank = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** A step's mean watts over its sources: by each source's share of the joules when the API gives them, else
 * all under the step's own source. */
export function splitBySource(point: EnergyPoint, wattsMean: number): SourcePart[] {
  const entries = Object.entries(point.joules_by_source ?? {}).filter(([, j]) => num(j) !== null && j > 0);
  const total = entries.reduce((sum, [, j]) => sum + j, 0);
  if (total > 0) {
    return entries
      .sort(([a], [b]) => byRank(a, b))
      .map(([source, j]) => ({ source, watts: (wattsMean * j) / total }));
  }
  return [{ source: point.source ?? "mixed", watts: wattsMean }];
}

/** The chart's data for one answer of the history API at `nowMs`. A step without data that reaches into the
 * last rollup step before now may only be waiting for its rollup to close: it is left blank, not called a gap. */
export function shapeEnergy(history: EnergyHistory, nowMs = Number.POSITIVE_INFINITY): EnergySeries {
  const stepMs = history.step_s * 1000;
  const t0 = Date.parse(history.from);
  const t1 = Date.parse(history.to);
  const steps: EnergyStep[] = [];
  const gaps: EnergyGap[] = [];
  let open = 0;
  const closedBefore = nowMs - history.rollup_step_s * 1000;
  const present = new Set<string>();
  const points = [...history.points].sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts));
  for (const point of points) {
    const start = Date.parse(point.ts);
    // the last step may end at `to`, inside the step
    const end = Number.isFinite(t1) && t1 > start ? Math.min(start + stepMs, t1) : start + stepMs;
    const wattsMean = num(point.watts_mean);
    if (wattsMean === null) {
      if (end > closedBefore) {
        open += 1;
        continue;
      }
      const last = gaps[gaps.length - 1];
      if (last && last.t1 >= start) last.t1 = end;
      else gaps.push({ t0: start, t1: end });
      continue;
    }
    const parts = splitBySource(point, wattsMean);
    for (const p of parts) present.add(p.source);
    steps.push({
      t0: start,
      t1: end,
      wattsMean,
      wattsMax: num(point.watts_max),
      joules: num(point.joules),
      requests: num(point.requests),
      joulesPerRequest: num(point.joules_per_request),
      source: point.source,
      sources: point.sources ?? [],
      cls: sourceClass(point.source, point.sources ?? []),
      parts,
    });
  }
  return { t0, t1, stepS: history.step_s, steps, gaps, open, sources: [...present].sort(byRank) };
}

export interface LinePoint {
  t: number;
  v: number;
}

export interface LineRun {
  cls: SourceClass;
  points: LinePoint[];
}

/** A figure of the steps as line runs at the steps' middles: a run ends at a step without the figure or a
 * missing step (a gap is never bridged), and a new run starts, sharing the point, where the source class
 * changes (so a modelled stretch is drawn dashed without a break in the line). */
export function lineRuns(steps: readonly EnergyStep[], value: (s: EnergyStep) => number | null): LineRun[] {
  const runs: LineRun[] = [];
  let run: LineRun | null = null;
  let lastEnd: number | null = null;
  for (const step of steps) {
    const v = value(step);
    const adjacent = lastEnd !== null && step.t0 <= lastEnd;
    lastEnd = step.t1;
    if (v === null) {
      run = null;
      continue;
    }
    const point = { t: (step.t0 + step.t1) / 2, v };
    if (run === null || !adjacent) {
      run = { cls: step.cls, points: [point] };
      runs.push(run);
    } else if (run.cls !== step.cls) {
      const joint: LinePoint = run.points[run.points.length - 1]!;
      run = { cls: step.cls, points: [joint, point] };
      runs.push(run);
    } else {
      run.points.push(point);
    }
  }
  return runs;
}
