// Layout of one live figure over time (the dashboard's charts): its measured series as lines broken wherever a
// step is missing or has no value, the gaps shaded, an optional modelled value as a level line apart from it,
// time ticks for 5 min … 7 days, value ticks in the figure's unit, and what a read-out shows at an x pixel.
// Built on layoutTimeChart; plain data, no DOM, no React.

import { timeFormat } from "d3";

import { type UnitLadder, tickLabels, unitFor } from "./axisUnit";
import { type TimeChartLayout, layoutTimeChart } from "./timeChart";

/** One step of a figure: its time (the step's end, ms) and value, null when the step has none. */
export interface FigurePoint {
  t: number;
  v: number | null;
}

export interface TimedValue {
  t: number;
  v: number;
}

export interface FigureRuns {
  /** Runs of consecutive steps with a value, in time order. */
  runs: TimedValue[][];
  /** Stretches of the window without data (ms). */
  gaps: { t0: number; t1: number }[];
}

/** The points (time order) as runs: a null value, or two points more than 1.5 steps apart (a step missing), ends
 * a run, so no line is drawn across a stretch without data. A gap is a stretch of [t0, t1] no run covers (a point
 * covers its step, which ends at its time) at least a step long; at the right end, more than two steps (the
 * newest step may still be on its way). */
export function figureRuns(points: readonly FigurePoint[], stepMs: number, t0: number, t1: number): FigureRuns {
  const runs: TimedValue[][] = [];
  let run: TimedValue[] | null = null;
  let last: number | null = null;
  for (const p of points) {
    if (p.t <= t0 || p.t > t1 + stepMs) continue;
    const apart = last !== null && p.t - last > 1.5 * stepMs;
    last = p.t;
    if (p.v === null || !Number.isFinite(p.v)) {
      run = null;
      continue;
    }
    if (run === null || apart) {
      run = [];
      runs.push(run);
    }
    run.push({ t: p.t, v: p.v });
  }
  const gaps: FigureRuns["gaps"] = [];
  let covered = t0;
  for (const r of runs) {
    const start = r[0]!.t - stepMs;
    if (start - covered >= stepMs) gaps.push({ t0: covered, t1: start });
    covered = Math.max(covered, r[r.length - 1]!.t);
  }
  if (t1 - covered > 2 * stepMs) gaps.push({ t0: covered, t1 });
  return { runs, gaps };
}

export interface FigureChartOptions {
  /** The window (ms). */
  t0: number;
  t1: number;
  width: number;
  height: number;
  margin: { top: number; right: number; bottom: number; left: number };
  /** The measured figure, time order. */
  points: readonly FigurePoint[];
  /** Its step (ms): points further apart than 1.5 steps are not joined. */
  stepMs: number;
  /** Its unit, scaled to the axis' top. */
  unit: UnitLadder;
  /** A modelled value, drawn as a level line of its own (not part of the measured series). */
  model?: number | null;
  /** The y axis reaches at least this high. */
  minTop?: number;
}

/** A point the read-out can stop at, with its pixels. */
export interface ReadoutStop extends TimedValue {
  x: number;
  y: number;
}

export interface FigureChartLayout {
  /** Paths (key "measured"), dots, shaded gaps, the model's level (key "model"), x ticks, the plot box. */
  chart: TimeChartLayout;
  yTicks: { y: number; label: string }[];
  /** The y axis' unit ("ms", "W"). */
  unit: string;
  /** Every drawn point, time order: where the read-out goes with the keyboard. */
  stops: ReadoutStop[];
  /** Each run's first and last index in `stops`. */
  runs: { first: number; last: number }[];
  /** The model's level (y pixel), null without one. */
  modelY: number | null;
  t0: number;
  t1: number;
  stepMs: number;
}

/** Where everything goes: the measured runs as paths, the model as a level, the y axis from 0 in the unit that
 * suits its top. */
export function layoutFigureChart(o: FigureChartOptions): FigureChartLayout {
  const { runs, gaps } = figureRuns(o.points, o.stepMs, o.t0, o.t1);
  const model = typeof o.model === "number" && Number.isFinite(o.model) && o.model >= 0 ? o.model : null;
  const chart = layoutTimeChart({
    t0: o.t0,
    t1: o.t1,
    width: o.width,
    height: o.height,
    margin: o.margin,
    runs: runs.map((points) => ({ key: "measured", points })),
    gaps,
    levels: model === null ? [] : [{ key: "model", v: model }],
    minTop: o.minTop,
    xTickCount: 6,
    yTickCount: 4,
  });
  const scale = unitFor(o.unit, chart.top);
  const labels = tickLabels(
    chart.yTicks.map((t) => t.value),
    scale,
  );
  const stops: ReadoutStop[] = [];
  const spans: FigureChartLayout["runs"] = [];
  for (const run of runs) {
    spans.push({ first: stops.length, last: stops.length + run.length - 1 });
    for (const p of run) stops.push({ ...p, x: chart.xOf(p.t), y: chart.yOf(p.v) });
  }
  return {
    chart,
    yTicks: chart.yTicks.map((t, i) => ({ y: t.y, label: labels[i] ?? "" })),
    unit: scale.unit,
    stops,
    runs: spans,
    modelY: chart.levels[0]?.y ?? null,
    t0: o.t0,
    t1: o.t1,
    stepMs: o.stepMs,
  };
}

/** What the read-out shows at an x: the nearest point of the run under it, or no data (a gap, or outside). */
export type Readout = { kind: "point"; index: number; stop: ReadoutStop } | { kind: "gap"; t: number; x: number };

/** The time under x pixel `x` (clamped to the window). */
export function timeAt(layout: FigureChartLayout, x: number): number {
  const { plot } = layout.chart;
  const f = Math.min(1, Math.max(0, (x - plot.x) / plot.width));
  return layout.t0 + f * (layout.t1 - layout.t0);
}

/** The read-out at x pixel `x`: inside a run (a point covers its step, and half a step past the run's last one),
 * its nearest point; elsewhere "no data". */
export function readoutAt(layout: FigureChartLayout, x: number): Readout {
  const t = timeAt(layout, x);
  for (const run of layout.runs) {
    const first = layout.stops[run.first]!;
    const last = layout.stops[run.last]!;
    if (t < first.t - layout.stepMs || t > last.t + layout.stepMs / 2) continue;
    let lo = run.first;
    let hi = run.last;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (layout.stops[mid]!.t < t) lo = mid + 1;
      else hi = mid;
    }
    const before = Math.max(run.first, lo - 1);
    const index = Math.abs(layout.stops[before]!.t - t) <= Math.abs(layout.stops[lo]!.t - t) ? before : lo;
    return { kind: "point", index, stop: layout.stops[index]! };
  }
  return { kind: "gap", t, x: layout.chart.xOf(t) };
}

/** The read-out `delta` stops on from time `fromT` (the keyboard's arrows): to the right, the |delta|-th point after
 * it, to the left before it, kept inside the points; from nowhere (null), the first or the last point. Null when
 * nothing is drawn. */
export function readoutStep(layout: FigureChartLayout, fromT: number | null, delta: number): Readout | null {
  const { stops } = layout;
  if (stops.length === 0) return null;
  let index: number;
  if (fromT === null) index = delta < 0 ? stops.length - 1 : 0;
  else {
    const after = stops.findIndex((s) => s.t > fromT);
    const firstAfter = after === -1 ? stops.length : after;
    const atOrBefore = stops[firstAfter - 1]?.t === fromT ? firstAfter - 2 : firstAfter - 1;
    index = delta > 0 ? firstAfter + delta - 1 : atOrBefore + delta + 1;
  }
  const at = Math.min(stops.length - 1, Math.max(0, index));
  return { kind: "point", index: at, stop: stops[at]! };
}

const clockLabel = timeFormat("%H:%M:%S");
const dayClockLabel = timeFormat("%b %d %H:%M:%S");

/** A read-out's time in 24-hour local time: "14:02:31", with the date ("Nov 26 14:02:31") over windows longer
 * than a day. */
export function readoutTimeLabel(t: number, spanMs: number): string {
  return spanMs > 86_400_000 ? dayClockLabel(new Date(t)) : clockLabel(new Date(t));
}
