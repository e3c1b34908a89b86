import { describe, expect, test } from "vitest";

import { energyGapTitle, formatLoad, gapRatio, loadToAsk } from "./modelAtLoad";

describe("the load the model is asked at", () => {
  test("two significant figures of the measured throughput, so a steady load is one question", () => {
    expect(loadToAsk(98.7)).toBe(99);
    expect(loadToAsk(101.4)).toBe(100);
    expect(loadToAsk(12_345)).toBe(12_000);
    expect(loadToAsk(0.034)).toBeCloseTo(0.034);
    expect(loadToAsk(3)).toBe(3);
  });

  test("never zero for a load that is there, and nothing asked when none is measured", () => {
    expect(loadToAsk(1.04)).toBe(1);
    expect(loadToAsk(0.0001)).toBeGreaterThan(0);
    for (const none of [null, undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) expect(loadToAsk(none)).toBeNull();
  });
});

describe("the gap between measured and modelled", () => {
  test("measured ÷ modelled, two significant figures", () => {
    expect(gapRatio(3.21, 3.0)).toBe("1.1×");
    expect(gapRatio(0.5, 2)).toBe("0.25×");
    expect(gapRatio(190, 1)).toBe("190×");
  });

  test("no ratio without both figures or with a model of zero", () => {
    expect(gapRatio(null, 2)).toBeNull();
    expect(gapRatio(2, null)).toBeNull();
    expect(gapRatio(2, 0)).toBeNull();
    expect(gapRatio(Number.NaN, 1)).toBeNull();
  });

  test("its explanation names the load both are at and where each one's watts come from", () => {
    const title = energyGapTitle("1.07×", 100);
    expect(title).toContain("100 req/s");
    expect(title).toContain("1.07×");
    expect(title).toContain("reserved cores");
    expect(title).toContain("source in the badge");
  });
});

test("a model line's load is short: the rate per second without its unit's name", () => {
  expect(formatLoad(1000)).toBe("1,000/s");
  expect(formatLoad(29000)).toBe("29,000/s");
  expect(formatLoad(0.5)).toBe("0.5/s");
});
