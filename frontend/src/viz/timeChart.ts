// Layout of a time chart (the energy history's): stacked bars per time step, line runs and shaded gaps on a
// time axis, as plain data (rectangles, path strings, ticks) that React draws. No DOM, no React.

import { line, scaleLinear, scaleTime, timeDay, timeFormat } from "d3";

export interface TimeBarInput {
  t0: number;
  t1: number;
  /** Stacked bottom to top; values ≥ 0. */
  parts: { key: string; value: number }[];
}

export interface TimeRunInput {
  key: string;
  points: { t: number; v: number }[];
}

export interface TimeChartOptions {
  /** The time window (ms). */
  t0: number;
  t1: number;
  width: number;
  height: number;
  margin: { top: number; right: number; bottom: number; left: number };
  bars?: readonly TimeBarInput[];
  runs?: readonly TimeRunInput[];
  /** Stretches without data, shaded and labelled as such. */
  gaps?: readonly { t0: number; t1: number }[];
  /** Horizontal reference lines across the plot (a current value beside a history); the y axis reaches them. */
  levels?: readonly { key: string; v: number }[];
  /** The y axis reaches at least this high (so a flat small signal is not blown up). */
  minTop?: number;
  yTickCount?: number;
  xTickCount?: number;
}

export interface TimeChartLayout {
  plot: { x: number; y: number; width: number; height: number };
  rects: { bar: number; part: number; key: string; x: number; y: number; width: number; height: number }[];
  paths: { run: number; key: string; d: string }[];
  /** Runs of a single point, drawn as a dot. */
  dots: { run: number; key: string; x: number; y: number }[];
  gaps: { x: number; width: number }[];
  levels: { key: string; y: number }[];
  xTicks: { x: number; label: string }[];
  yTicks: { y: number; value: number }[];
  top: number;
  /** The plot's scales: a time (ms) to its x, a value to its y (pixels, unrounded). */
  xOf: (t: number) => number;
  yOf: (v: number) => number;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

const dayLabel = timeFormat("%b %d");
const minuteLabel = timeFormat("%H:%M");
const secondLabel = timeFormat("%H:%M:%S");

/** A time axis' label in 24-hour local time: "Nov 26" at midnight, "14:30", or "14:30:10" for a tick off the minute. */
export function timeTickLabel(t: Date): string {
  if (timeDay.floor(t).getTime() === t.getTime()) return dayLabel(t);
  return t.getSeconds() === 0 ? minuteLabel(t) : secondLabel(t);
}

/** Where everything goes. The y axis starts at 0 and ends at a nice value above the tallest bar or point. */
export function layoutTimeChart(o: TimeChartOptions): TimeChartLayout {
  const plot = {
    x: o.margin.left,
    y: o.margin.top,
    width: Math.max(1, o.width - o.margin.left - o.margin.right),
    height: Math.max(1, o.height - o.margin.top - o.margin.bottom),
  };
  const bars = o.bars ?? [];
  const runs = o.runs ?? [];
  const tallest = Math.max(
    o.minTop ?? 0,
    ...bars.map((b) => b.parts.reduce((s, p) => s + Math.max(0, p.value), 0)),
    ...runs.flatMap((r) => r.points.map((p) => p.v)),
    ...(o.levels ?? []).map((l) => l.v),
  );
  const x = scaleTime().domain([o.t0, o.t1]).range([plot.x, plot.x + plot.width]);
  const y = scaleLinear()
    .domain([0, tallest > 0 ? tallest : 1])
    .range([plot.y + plot.height, plot.y])
    .nice(o.yTickCount ?? 4);
  const top = y.domain()[1] ?? 1;
  const clampX = (t: number) => Math.min(plot.x + plot.width, Math.max(plot.x, x(t)));

  const rects: TimeChartLayout["rects"] = [];
  bars.forEach((bar, b) => {
    const left = clampX(bar.t0);
    // a bar at least a pixel wide, with a hairline between neighbours when there is room
    const width = Math.max(1, clampX(bar.t1) - left - (clampX(bar.t1) - left > 3 ? 0.5 : 0));
    let base = 0;
    bar.parts.forEach((part, p) => {
      const value = Math.max(0, part.value);
      const y0 = y(base);
      const y1 = y(base + value);
      base += value;
      rects.push({ bar: b, part: p, key: part.key, x: r1(left), y: r1(y1), width: r1(width), height: r1(Math.max(0, y0 - y1)) });
    });
  });

  const path = line<{ t: number; v: number }>()
    .x((p) => r1(x(p.t)))
    .y((p) => r1(y(p.v)));
  const paths: TimeChartLayout["paths"] = [];
  const dots: TimeChartLayout["dots"] = [];
  runs.forEach((run, i) => {
    if (run.points.length === 1) {
      const p = run.points[0]!;
      dots.push({ run: i, key: run.key, x: r1(x(p.t)), y: r1(y(p.v)) });
    } else if (run.points.length > 1) {
      paths.push({ run: i, key: run.key, d: path(run.points) ?? "" });
    }
  });

  const levels = (o.levels ?? []).map((l) => ({ key: l.key, y: r1(y(l.v)) }));
  const gaps = (o.gaps ?? []).map((g) => ({ x: r1(clampX(g.t0)), width: r1(Math.max(1, clampX(g.t1) - clampX(g.t0))) }));
  const xTicks = x.ticks(o.xTickCount ?? 6).map((t) => ({ x: r1(x(t)), label: timeTickLabel(t) }));
  const yTicks = y.ticks(o.yTickCount ?? 4).map((value) => ({ y: r1(y(value)), value }));
  return { plot, rects, paths, dots, gaps, levels, xTicks, yTicks, top, xOf: (t) => x(t), yOf: (v) => y(v) };
}
