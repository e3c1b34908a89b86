import { describe, expect, it } from "vitest";

import { RingSeries } from "./history";

describe("RingSeries", () => {
  it("keeps the newest samples, oldest first, once full", () => {
    const s = new RingSeries(3);
    for (let t = 1; t <= 5; t++) s.push(t, t * 10);
    expect(s.length).toBe(3);
    expect(s.toArray()).toEqual([
      [3, 30],
      [4, 40],
      [5, 50],
    ]);
    expect(s.lastTime).toBe(5);
  });

  it("keeps missing values as gaps (NaN)", () => {
    const s = new RingSeries(4);
    s.push(1, null);
    s.push(2, Number.POSITIVE_INFINITY);
    s.push(3, 7);
    expect(s.toArray().map(([, v]) => v)).toEqual([Number.NaN, Number.NaN, 7]);
  });

  it("refuses samples older than the newest, and non-finite times", () => {
    const s = new RingSeries(4);
    expect(s.push(10, 1)).toBe(true);
    expect(s.push(5, 2)).toBe(false);
    expect(s.push(Number.NaN, 2)).toBe(false);
    expect(s.push(10, 3)).toBe(true); // the same time is allowed (two figures of one heartbeat)
    expect(s.length).toBe(2);
  });

  it("iterates only the window asked for", () => {
    const s = new RingSeries(10);
    for (let t = 0; t < 10; t++) s.push(t * 100, t);
    const seen: number[] = [];
    s.forEachSince(650, (_t, v) => seen.push(v));
    expect(seen).toEqual([7, 8, 9]);
  });

  it("rejects a capacity that is not a positive integer", () => {
    expect(() => new RingSeries(0)).toThrow(RangeError);
    expect(() => new RingSeries(1.5)).toThrow(RangeError);
  });
});
