import { describe, expect, it } from "vitest";

import { layoutTimeChart, timeTickLabel } from "./timeChart";

const base = { t0: 0, t1: 100_000, width: 200, height: 100, margin: { top: 0, right: 0, bottom: 0, left: 0 } };

describe("layoutTimeChart", () => {
  it("stacks a bar's parts bottom to top on a y axis from 0", () => {
    const l = layoutTimeChart({ ...base, bars: [{ t0: 0, t1: 10_000, parts: [{ key: "rapl", value: 30 }, { key: "model", value: 10 }] }] });
    expect(l.top).toBe(40);
    const [rapl, model] = l.rects;
    expect(rapl).toMatchObject({ key: "rapl", x: 0, y: 25, height: 75 });
    expect(model).toMatchObject({ key: "model", y: 0, height: 25 });
    expect(rapl!.width).toBeCloseTo(19.5, 1);
  });

  it("draws a one-point run as a dot and a longer one as a path", () => {
    const l = layoutTimeChart({
      ...base,
      runs: [
        { key: "measured", points: [{ t: 50_000, v: 2 }] },
        { key: "model", points: [{ t: 0, v: 1 }, { t: 100_000, v: 2 }] },
      ],
    });
    expect(l.dots).toEqual([{ run: 0, key: "measured", x: 100, y: 0 }]);
    expect(l.paths).toEqual([{ run: 1, key: "model", d: "M0,50L200,0" }]);
  });

  it("shades gaps across the plot, clamped to the window", () => {
    const l = layoutTimeChart({ ...base, gaps: [{ t0: 90_000, t1: 200_000 }] });
    expect(l.gaps).toEqual([{ x: 180, width: 20 }]);
  });

  it("keeps a y axis when there is nothing to draw", () => {
    const l = layoutTimeChart({ ...base, minTop: 0 });
    expect(l.top).toBe(1);
    expect(l.yTicks[0]).toEqual({ y: 100, value: 0 });
    expect(l.xTicks.length).toBeGreaterThan(0);
  });
});

describe("timeTickLabel", () => {
  it("writes 24-hour local times, and the date at midnight", () => {
    expect(timeTickLabel(new Date(2026, 10, 26, 17, 5))).toBe("17:05");
    expect(timeTickLabel(new Date(2026, 10, 26, 17, 5, 10))).toBe("17:05:10");
    expect(timeTickLabel(new Date(2026, 10, 26))).toBe("Nov 26");
  });
});
