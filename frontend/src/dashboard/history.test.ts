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

  it("takes older samples before those held, in order, keeping the newest `capacity`", () => {
    const series = new RingSeries(4);
    series.push(10, 1);
    series.push(11, 2);
    expect(series.seedBefore([[7, 7], [8, null], [9, 9], [10, 99]])).toBe(3); // 10 is held already
    expect(series.toArray().map(([t]) => t)).toEqual([8, 9, 10, 11]); // 7 dropped: the ring holds 4
    expect(Number.isNaN(series.toArray()[0]?.[1])).toBe(true);
    expect(series.seedBefore([[3, 1]])).toBe(1);
    expect(series.toArray().map(([t]) => t)).toEqual([8, 9, 10, 11]); // older than all: the ring keeps the newest
    expect(new RingSeries(3).seedBefore([[1, 1], [2, 2]])).toBe(2); // an empty series takes them all
  });
});

