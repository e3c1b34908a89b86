import { describe, expect, it } from "vitest";
import { clampOffset, pageWindow } from "./pagination";

describe("pageWindow", () => {
  it("describes the first, a middle and the last page", () => {
    expect(pageWindow(120, 25, 0, 25)).toMatchObject({
      from: 1,
      to: 25,
      hasPrev: false,
      hasNext: true,
      nextOffset: 25,
      label: "1–25 of 120",
    });
    expect(pageWindow(120, 25, 50, 25)).toMatchObject({ prevOffset: 25, nextOffset: 75, label: "51–75 of 120" });
    expect(pageWindow(120, 25, 100, 20)).toMatchObject({ from: 101, to: 120, hasPrev: true, hasNext: false });
  });

  it("stops exactly at the end of a full last page", () => {
    expect(pageWindow(50, 25, 25, 25).hasNext).toBe(false);
    expect(pageWindow(51, 25, 25, 25).hasNext).toBe(true);
  });

  it("says 0 of N when nothing is shown", () => {
    expect(pageWindow(0, 25, 0, 0)).toMatchObject({ from: 0, to: 0, hasPrev: false, hasNext: false, label: "0 of 0" });
    expect(pageWindow(10, 25, 50, 0).label).toBe("0 of 10");
  });

  it("never goes before the start", () => {
    expect(pageWindow(100, 25, 10, 25).prevOffset).toBe(0);
  });

  it("groups digits", () => {
    expect(pageWindow(12_345, 25, 1_000, 25).label).toBe("1,001–1,025 of 12,345");
  });

  it("trusts the total over an oversized page", () => {
    expect(pageWindow(3, 25, 0, 5)).toMatchObject({ to: 3, label: "1–3 of 3" });
  });
});

describe("clampOffset", () => {
  it("keeps an offset that still shows something", () => {
    expect(clampOffset(25, 25, 30)).toBe(25);
  });

  it("moves to the last page when the list shrank", () => {
    expect(clampOffset(50, 25, 30)).toBe(25);
    expect(clampOffset(50, 25, 50)).toBe(25);
    expect(clampOffset(25, 25, 3)).toBe(0);
  });

  it("goes to 0 for an empty list", () => {
    expect(clampOffset(75, 25, 0)).toBe(0);
  });
});
