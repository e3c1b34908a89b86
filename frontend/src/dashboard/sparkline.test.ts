import { describe, expect, it } from "vitest";

import { RingSeries } from "./history";
import { niceCeiling, sparklinePath } from "./sparkline";

function series(samples: [number, number | null][]): RingSeries {
  const s = new RingSeries(1000);
  for (const [t, v] of samples) s.push(t, v);
  return s;
}

const box = { t0: 0, t1: 1000, width: 10, height: 22, gapMs: 300 };

describe("niceCeiling", () => {
  it("rounds up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect(niceCeiling(0.7)).toBe(1);
    expect(niceCeiling(1)).toBe(1);
    expect(niceCeiling(1.3)).toBe(2);
    expect(niceCeiling(2.2)).toBe(2.5);
    expect(niceCeiling(42)).toBe(50);
    expect(niceCeiling(0.031)).toBeCloseTo(0.05);
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(Number.NaN)).toBe(1);
  });
});

describe("sparklinePath", () => {
  it("draws one point per pixel column, scaled to a nice top", () => {
    const s = series([
      [50, 0],
      [150, 10],
      [250, 20],
    ]);
    const line = sparklinePath(s, box);
    expect(line.top).toBe(20);
    expect(line.points).toBe(3);
    expect(line.d).toBe("M0.5,21L1.5,11L2.5,1");
  });

  it("never has more points than pixels, however many samples", () => {
    const samples: [number, number][] = [];
    for (let t = 0; t < 1000; t += 1) samples.push([t, t % 7]);
    const line = sparklinePath(series(samples), { ...box, gapMs: 10 });
    expect(line.points).toBe(10);
  });

  it("breaks the line at a missing value and at a silence longer than gapMs", () => {
    const line = sparklinePath(
      series([
        [50, 1],
        [150, 1],
        [250, null],
        [350, 1],
        [450, 1],
        [950, 1], // 500 ms after the previous: a gap
      ]),
      box,
    );
    expect(line.d.match(/M/g)?.length).toBe(3);
    expect(line.d.endsWith("h2")).toBe(true); // the lone last sample is a short tick
  });

  it("takes the maximum of a column for queues, the mean otherwise", () => {
    const s = series([
      [10, 2],
      [20, 8],
      [150, 0],
    ]);
    expect(sparklinePath(s, { ...box, reduce: "max" }).top).toBe(10);
    expect(sparklinePath(s, { ...box, reduce: "max", minTop: 20 }).top).toBe(20);
    expect(sparklinePath(s, { ...box, reduce: "mean" }).top).toBe(5);
  });

  it("ignores samples outside the window and draws nothing for an empty one", () => {
    const s = series([
      [-500, 1],
      [2000, 1],
    ]);
    expect(sparklinePath(s, box)).toEqual({ d: "", top: 1, points: 0, since: null });
    expect(sparklinePath(null, box).d).toBe("");
  });

  it("tells the time of the oldest sample it draws (a gap is not one)", () => {
    const s = series([
      [-500, 1],
      [100, Number.NaN],
      [200, 3],
      [900, 4],
    ]);
    expect(sparklinePath(s, box).since).toBe(200);
  });
});
