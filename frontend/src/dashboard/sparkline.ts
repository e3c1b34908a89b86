// A sparkline as one SVG path string: the samples of a time window bucketed into one column per pixel, so a
// path has at most `width` points however many samples the history holds, and gaps (no value, or no sample
// for `gapMs`) break the line rather than bridging an outage.

import type { RingSeries } from "./history";

export interface SparklineOptions {
  /** Window [t0, t1] in the series' time unit (ms). */
  t0: number;
  t1: number;
  width: number;
  height: number;
  /** Two samples further apart than this are not joined. */
  gapMs: number;
  /** How a pixel column's samples become one point: max shows spikes (queues), mean smooths (rates). */
  reduce?: "max" | "mean";
  /** Lower bound of the y axis' top (so a flat small signal is not blown up to full height). */
  minTop?: number;
}

export interface Sparkline {
  /** The path's `d` ("" when nothing to draw). */
  d: string;
  /** The value at the top edge (0 at the bottom). */
  top: number;
  /** Points drawn. */
  points: number;
  /** The time (ms) of the oldest sample drawn, null when none. */
  since: number | null;
}

/** A "nice" ceiling: 1, 2, 2.5, 5 × 10^k at or above `value` (for a y axis that does not jitter). */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const exp = Math.floor(Math.log10(value));
  const base = 10 ** exp;
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * base >= value * (1 - 1e-12)) return step * base;
  }
  return 10 * base;
}

const round = (v: number) => Math.round(v * 10) / 10;

/** The sparkline of `series` over the window. Samples outside it are ignored. */
export function sparklinePath(series: RingSeries | null | undefined, options: SparklineOptions): Sparkline {
  const { t0, t1, width, height, gapMs, reduce = "mean", minTop = 0 } = options;
  const span = t1 - t0;
  if (!series || series.length === 0 || !(span > 0) || width < 1) return { d: "", top: niceCeiling(minTop), points: 0, since: null };

  // Pass 1: one point per pixel column; a column with a NaN sample ends the run before it.
  const columns = Math.max(1, Math.floor(width));
  const colValue: number[] = [];
  const colTime: number[] = [];
  const colBreakBefore: boolean[] = [];
  let current = -1;
  let sum = 0;
  let n = 0;
  let lastTime: number | null = null;
  let oldest: number | null = null;
  let pendingBreak = false;
  let peak = 0;
  const flush = () => {
    if (current < 0 || n === 0) return;
    const value = reduce === "max" ? sum : sum / n;
    colValue.push(value);
    colTime.push(current);
    colBreakBefore.push(pendingBreak);
    pendingBreak = false;
    if (value > peak) peak = value;
  };
  series.forEachSince(t0, (time, value) => {
    if (time > t1) return;
    if (lastTime !== null && time - lastTime > gapMs) {
      flush();
      current = -1;
      n = 0;
      pendingBreak = true;
    }
    lastTime = time;
    if (Number.isNaN(value)) {
      flush();
      current = -1;
      n = 0;
      pendingBreak = true;
      return;
    }
    oldest ??= time;
    const column = Math.min(columns - 1, Math.floor(((time - t0) / span) * columns));
    if (column !== current) {
      flush();
      current = column;
      sum = reduce === "max" ? value : 0;
      n = 0;
    }
    if (reduce === "max") sum = Math.max(sum, value);
    else sum += value;
    n += 1;
  });
  flush();

  // Pass 2: scale and write the path; a lone point becomes a short tick so it is visible.
  const top = niceCeiling(Math.max(peak, minTop));
  const pad = 1; // keep the stroke inside the box
  const y = (v: number) => round(height - pad - (Math.max(0, v) / top) * (height - 2 * pad));
  const x = (column: number) => round(((column + 0.5) / columns) * width);
  const parts: string[] = [];
  for (let i = 0; i < colValue.length; i++) {
    const starts = i === 0 || colBreakBefore[i] === true;
    const endsRun = i === colValue.length - 1 || colBreakBefore[i + 1] === true;
    const px = x(colTime[i] as number);
    const py = y(colValue[i] as number);
    if (starts && endsRun) parts.push(`M${round(px - 1)},${py}h2`);
    else parts.push(`${starts ? "M" : "L"}${px},${py}`);
  }
  return { d: parts.join(""), top, points: colValue.length, since: oldest };
}
