import { describe, expect, it } from "vitest";
import {
  MISSING,
  formatJoulesPerRequest,
  formatMs,
  formatPercent,
  formatRatio,
  formatRequestsPerJoule,
  formatRps,
  formatRuntime,
  formatSignificant,
  formatWatts,
} from "./figures";

describe("formatSignificant", () => {
  it("keeps about three significant digits", () => {
    expect(formatSignificant(11711.7277)).toBe("11,712");
    expect(formatSignificant(86.2203)).toBe("86.2");
    expect(formatSignificant(1.8)).toBe("1.8");
    expect(formatSignificant(0.0610840)).toBe("0.0611");
    expect(formatSignificant(0.0000123456)).toBe("0.0000123");
    expect(formatSignificant(0)).toBe("0");
  });

  it("gives null for what is not a finite number", () => {
    expect(formatSignificant(null)).toBeNull();
    expect(formatSignificant(Number.NaN)).toBeNull();
    expect(formatSignificant(Infinity)).toBeNull();
    expect(formatSignificant("12")).toBeNull();
  });
});

describe("figures with units", () => {
  it("labels each figure with its unit", () => {
    expect(formatRps(11711.7)).toBe("11,712 req/s");
    expect(formatMs(390.82)).toBe("391 ms");
    expect(formatWatts(715.4)).toBe("715 W");
    expect(formatJoulesPerRequest(0.017596)).toBe("0.0176 J/req");
    expect(formatRequestsPerJoule(56.83)).toBe("56.8 req/J");
  });

  it("shows a dash when the figure is missing", () => {
    expect(formatRps(undefined)).toBe(MISSING);
    expect(formatWatts(null)).toBe(MISSING);
  });

  it("switches runtimes to seconds past ten seconds", () => {
    expect(formatRuntime(0.871)).toBe("0.871 ms");
    expect(formatRuntime(945.371)).toBe("945 ms");
    expect(formatRuntime(12345)).toBe("12.3 s");
    expect(formatRuntime(null)).toBe(MISSING);
  });

  it("writes ratios with a times sign", () => {
    expect(formatRatio(1)).toBe("×1");
    expect(formatRatio(3.4714)).toBe("×3.47");
    expect(formatRatio(0.32718)).toBe("×0.327");
    expect(formatRatio(undefined)).toBe(MISSING);
  });

  it("clamps percentages", () => {
    expect(formatPercent(0.374)).toBe("37%");
    expect(formatPercent(1.2)).toBe("100%");
    expect(formatPercent(-1)).toBe("0%");
  });
});
