import { describe, expect, it } from "vitest";

import { MAX_POINTS, PRESETS, chooseStep, formatStep, isRangeProblem, rangeQuery } from "./timeRange";

describe("chooseStep", () => {
  it("keeps every preset at or under the chart's points, in whole rollups", () => {
    for (const preset of PRESETS) {
      const step = chooseStep(preset.seconds);
      expect(preset.seconds / step).toBeLessThanOrEqual(MAX_POINTS);
      expect(step % 10).toBe(0);
    }
  });

  it("asks for the rollup step itself over a short range, never less", () => {
    expect(chooseStep(15 * 60)).toBe(10);
    expect(chooseStep(60)).toBe(10);
  });

  it("chooses readable steps for the longer presets", () => {
    expect(chooseStep(3600)).toBe(20);
    expect(chooseStep(6 * 3600)).toBe(120);
    expect(chooseStep(24 * 3600)).toBe(300);
    expect(chooseStep(7 * 86400)).toBe(3600);
  });

  it("goes on in whole days past the table", () => {
    expect(chooseStep(400 * 86400)).toBe(2 * 86400);
  });
});

describe("rangeQuery", () => {
  const now = Date.parse("2026-11-26T12:34:56Z");

  it("ends a preset now and starts it on a step boundary", () => {
    const q = rangeQuery({ kind: "preset", preset: "1h" }, now);
    if (isRangeProblem(q)) throw new Error("problem");
    expect(q.to).toBe("2026-11-26T12:34:56.000Z");
    expect(q.step).toBe(20);
    expect(Date.parse(q.from) % 20_000).toBe(0);
    expect(now - Date.parse(q.from)).toBeGreaterThanOrEqual(3600_000);
    expect(now - Date.parse(q.from)).toBeLessThan(3600_000 + 20_000);
  });

  it("sends a custom range as typed, even backwards, so the API names the field", () => {
    const q = rangeQuery({ kind: "custom", from: "2026-11-26T12:00", to: "2026-11-26T11:00" }, now);
    if (isRangeProblem(q)) throw new Error("problem");
    expect(Date.parse(q.from)).toBeGreaterThan(Date.parse(q.to));
    expect(q.step).toBe(20);
  });

  it("names an empty custom field instead of sending it", () => {
    expect(rangeQuery({ kind: "custom", from: "", to: "2026-11-26T11:00" }, now)).toEqual({ field: "from", message: "choose a start time" });
    expect(rangeQuery({ kind: "custom", from: "2026-11-26T11:00", to: " " }, now)).toEqual({ field: "to", message: "choose an end time" });
  });
});

describe("formatStep", () => {
  it("says a step in its largest whole unit", () => {
    expect([10, 120, 3600, 86400, 90].map(formatStep)).toEqual(["10 s", "2 min", "1 h", "1 d", "90 s"]);
  });
});
