import { describe, expect, it } from "vitest";

import { UNITS, tickLabels, unitFor } from "./axisUnit";
import {
  type FigurePoint,
  figureRuns,
  layoutFigureChart,
  readoutAt,
  readoutStep,
  readoutTimeLabel,
} from "./figureChart";

const MARGIN = { top: 0, right: 0, bottom: 0, left: 0 };
const box = { width: 600, height: 100, margin: MARGIN, unit: UNITS.watts };

/** One point a step from `t0` (ms) on, each step `stepMs`, with the values given (null: no value). */
function steps(t0: number, stepMs: number, values: (number | null)[]): FigurePoint[] {
  return values.map((v, i) => ({ t: t0 + (i + 1) * stepMs, v }));
}

describe("time axis", () => {
  it("labels a 5 min window by the minute", () => {
    const t0 = new Date(2026, 10, 26, 14, 0, 30).getTime();
    const l = layoutFigureChart({ ...box, t0, t1: t0 + 300_000, points: [], stepMs: 1000 });
    expect(l.chart.xTicks.map((t) => t.label)).toEqual(["14:01", "14:02", "14:03", "14:04", "14:05"]);
  });

  it("labels a 7 day window by the day", () => {
    const t0 = new Date(2026, 10, 20, 9, 0).getTime();
    const l = layoutFigureChart({ ...box, t0, t1: t0 + 7 * 86_400_000, points: [], stepMs: 900_000 });
    const labels = l.chart.xTicks.map((t) => t.label);
    expect(labels.length).toBeGreaterThanOrEqual(3);
    expect(labels.slice(0, 3)).toEqual(["Nov 21", "Nov 22", "Nov 23"]);
    expect(l.chart.xTicks.every((t, i, all) => i === 0 || t.x > all[i - 1]!.x)).toBe(true);
  });

  it("writes a read-out's time with the date over windows longer than a day", () => {
    const t = new Date(2026, 10, 26, 14, 2, 31).getTime();
    expect(readoutTimeLabel(t, 3_600_000)).toBe("14:02:31");
    expect(readoutTimeLabel(t, 7 * 86_400_000)).toBe("Nov 26 14:02:31");
  });
});

describe("value axis", () => {
  it("writes the ticks in the unit that suits the top", () => {
    const points = steps(0, 1000, [400, 1200, 2300]); // µs
    const l = layoutFigureChart({ ...box, unit: UNITS.latencyUs, t0: 0, t1: 4000, points, stepMs: 1000 });
    expect(l.unit).toBe("ms");
    expect(l.yTicks.map((t) => t.label)).toEqual(["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]);
  });

  it("picks W or kW, and percent for a fraction", () => {
    expect(unitFor(UNITS.watts, 400).unit).toBe("W");
    expect(unitFor(UNITS.watts, 2500).unit).toBe("kW");
    expect(unitFor(UNITS.joulesPerRequest, 0.02).unit).toBe("mJ/req");
    expect(tickLabels([0, 0.5, 1], unitFor(UNITS.fraction, 1))).toEqual(["0", "50", "100"]);
  });
});

describe("gaps", () => {
  it("breaks the line at a missing step and at a step without a value, and shades them", () => {
    const points = [...steps(0, 1000, [1, 2, 3]), ...steps(5000, 1000, [4, null, 6, 7])]; // 4 and 5 s missing
    const { runs, gaps } = figureRuns(points, 1000, 0, 10_000);
    expect(runs.map((r) => r.map((p) => p.v))).toEqual([[1, 2, 3], [4], [6, 7]]);
    expect(gaps).toEqual([
      { t0: 3000, t1: 5000 },
      { t0: 6000, t1: 7000 },
    ]);
    const l = layoutFigureChart({ ...box, t0: 0, t1: 10_000, points, stepMs: 1000 });
    expect(l.chart.paths).toHaveLength(2); // 1–3 and 6–7; the lone 4 is a dot
    expect(l.chart.dots).toHaveLength(1);
    expect(l.chart.paths.every((p) => !p.d.includes("M", 1))).toBe(true); // no path jumps across a gap
  });

  it("shades the window's start before the first point, not the newest step still coming", () => {
    const { gaps } = figureRuns(steps(60_000, 1000, [1, 2]), 1000, 0, 63_500);
    expect(gaps).toEqual([{ t0: 0, t1: 60_000 }]);
  });
});

describe("read-out", () => {
  const points = [...steps(0, 1000, [1, 2, 3]), ...steps(6000, 1000, [7, 8])];
  const l = layoutFigureChart({ ...box, t0: 0, t1: 10_000, points, stepMs: 1000 });
  const xAt = (t: number) => l.chart.xOf(t);

  it("gives the nearest point's time and value inside a run", () => {
    const r = readoutAt(l, xAt(2200));
    expect(r).toMatchObject({ kind: "point", stop: { t: 2000, v: 2 } });
  });

  it("gives no value inside a gap", () => {
    const r = readoutAt(l, xAt(4500));
    expect(r.kind).toBe("gap");
    expect(r.kind === "gap" && Math.round(r.t)).toBe(4500);
  });

  it("moves point by point with the keys, across a gap, and stops at the ends", () => {
    const first = readoutStep(l, null, 1);
    expect(first?.kind === "point" && first.index).toBe(0);
    const next = readoutStep(l, 3000, 1);
    expect(next?.kind === "point" && next.stop).toMatchObject({ t: 7000, v: 7 });
    const back = readoutStep(l, 7000, -1);
    expect(back?.kind === "point" && back.stop.t).toBe(3000);
    const end = readoutStep(l, 8000, 10);
    expect(end?.kind === "point" && end.stop.t).toBe(8000);
  });
});

describe("the modelled value", () => {
  it("is a level of its own, apart from the measured line, and the axis reaches it", () => {
    const points = steps(0, 1000, [1, 2, 3]);
    const l = layoutFigureChart({ ...box, t0: 0, t1: 4000, points, stepMs: 1000, model: 40 });
    expect(l.chart.top).toBeGreaterThanOrEqual(40);
    expect(l.chart.levels).toEqual([{ key: "model", y: l.modelY }]);
    expect(l.chart.paths.map((p) => p.key)).toEqual(["measured"]);
    expect(l.stops.map((s) => s.v)).toEqual([1, 2, 3]); // the read-out reads the measured points only
    const without = layoutFigureChart({ ...box, t0: 0, t1: 4000, points, stepMs: 1000, model: null });
    expect(without.modelY).toBeNull();
  });
});
