// A value axis' unit and tick labels: the figure's unit scaled to the axis' top (µs → ms → s, W → kW), so the
// ticks read "0, 0.5, 1, 1.5" under "ms" rather than "0, 500, 1000, 1500 µs". No DOM, no React.

import { format, precisionFixed } from "d3";

/** One way to write a unit: values are divided by `factor` and written in `unit`. */
export interface UnitScale {
  factor: number;
  unit: string;
}

/** The ways to write a figure's unit, smallest factor first (one entry when it never changes). */
export type UnitLadder = readonly UnitScale[];

export const UNITS = {
  watts: [
    { factor: 1, unit: "W" },
    { factor: 1e3, unit: "kW" },
  ],
  latencyUs: [
    { factor: 1, unit: "µs" },
    { factor: 1e3, unit: "ms" },
    { factor: 1e6, unit: "s" },
  ],
  /** A fraction 0..1 written in percent. */
  fraction: [{ factor: 0.01, unit: "%" }],
  packets: [{ factor: 1, unit: "pkt" }],
  requestsPerSecond: [
    { factor: 1, unit: "req/s" },
    { factor: 1e3, unit: "k req/s" },
    { factor: 1e6, unit: "M req/s" },
  ],
  joulesPerRequest: [
    { factor: 1e-3, unit: "mJ/req" },
    { factor: 1, unit: "J/req" },
  ],
  requestsPerJoule: [
    { factor: 1, unit: "req/J" },
    { factor: 1e3, unit: "k req/J" },
  ],
} as const satisfies Record<string, UnitLadder>;

/** The largest scale whose factor is at most `top` (the smallest when none is), so the top tick reads ≥ 1. */
export function unitFor(ladder: UnitLadder, top: number): UnitScale {
  let chosen = ladder[0] ?? { factor: 1, unit: "" };
  for (const scale of ladder) if (scale.factor <= top) chosen = scale;
  return chosen;
}

/** The labels of evenly spaced ticks in `scale`, all with the decimals their spacing needs ("0.0", "0.5", "1.0";
 * "0", "50", "100"). */
export function tickLabels(values: readonly number[], scale: UnitScale): string[] {
  const scaled = values.map((v) => v / scale.factor);
  const spacing = scaled.length > 1 ? Math.abs(scaled[1]! - scaled[0]!) : Math.abs(scaled[0] ?? 1) || 1;
  const write = format(`,.${precisionFixed(spacing)}f`);
  return scaled.map((v) => write(v));
}
