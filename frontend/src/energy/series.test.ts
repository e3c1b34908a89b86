import { describe, expect, it } from "vitest";

import { emptyPoint, history, point } from "./fixtures";
import { lineRuns, shapeEnergy, sourceClass, sourceLegend } from "./series";

describe("shapeEnergy", () => {
  it("keeps a step without data as a gap, not as zero", () => {
    const s = shapeEnergy(
      history([
        point("2026-11-26T12:00:00Z", 40, "rapl"),
        emptyPoint("2026-11-26T12:00:10Z"),
        emptyPoint("2026-11-26T12:00:20Z"),
        point("2026-11-26T12:00:30Z", 42, "rapl"),
      ]),
    );
    expect(s.steps.map((x) => x.wattsMean)).toEqual([40, 42]);
    expect(s.gaps).toEqual([{ t0: Date.parse("2026-11-26T12:00:10Z"), t1: Date.parse("2026-11-26T12:00:30Z") }]);
  });

  it("leaves a step whose rollup has not closed yet blank rather than a gap", () => {
    const h = history([point("2026-11-26T12:00:00Z", 40, "rapl"), emptyPoint("2026-11-26T12:00:10Z"), emptyPoint("2026-11-26T12:00:20Z")], "2026-11-26T12:00:00Z", "2026-11-26T12:00:30Z");
    // now 12:00:35: the rollup of 12:00:20–30 may not be written yet, that of 12:00:10–20 is
    const s = shapeEnergy(h, Date.parse("2026-11-26T12:00:35Z"));
    expect(s.gaps).toEqual([{ t0: Date.parse("2026-11-26T12:00:10Z"), t1: Date.parse("2026-11-26T12:00:20Z") }]);
    expect(s.open).toBe(1);
    // a range in the past has no open step
    expect(shapeEnergy(h).open).toBe(0);
  });

  it("splits a mixed step's mean watts by each source's share of its joules, measured first", () => {
    const p = point("2026-11-26T12:00:00Z", 100, "mixed", {
      sources: ["model", "rapl"],
      joules_by_source: { model: 250, rapl: 750 },
    });
    const [step] = shapeEnergy(history([p])).steps;
    expect(step?.parts).toEqual([
      { source: "rapl", watts: 75 },
      { source: "model", watts: 25 },
    ]);
    expect(step?.cls).toBe("mixed");
  });

  it("puts a step without a breakdown under its own source", () => {
    const p = point("2026-11-26T12:00:00Z", 30, "ipmi-split", { joules_by_source: {} });
    const s = shapeEnergy(history([p]));
    expect(s.steps[0]?.parts).toEqual([{ source: "ipmi-split", watts: 30 }]);
    expect(s.sources).toEqual(["ipmi-split"]);
  });

  it("lists the sources present, measured before the model", () => {
    const s = shapeEnergy(history([point("2026-11-26T12:00:00Z", 5, "model"), point("2026-11-26T12:00:10Z", 5, "ipmi")]));
    expect(s.sources).toEqual(["ipmi", "model"]);
  });

  it("ends the last step at the range's end, and orders the rows by time", () => {
    const s = shapeEnergy(
      history([point("2026-11-26T12:00:50Z", 1, "rapl"), point("2026-11-26T12:00:00Z", 2, "rapl")], "2026-11-26T12:00:00Z", "2026-11-26T12:00:55Z"),
    );
    expect(s.steps.map((x) => x.wattsMean)).toEqual([2, 1]);
    expect(s.steps[1]?.t1).toBe(Date.parse("2026-11-26T12:00:55Z"));
  });
});

describe("lineRuns", () => {
  it("breaks the line at a gap and at a missing row", () => {
    const s = shapeEnergy(
      history([
        point("2026-11-26T12:00:00Z", 1, "rapl"),
        point("2026-11-26T12:00:10Z", 2, "rapl"),
        emptyPoint("2026-11-26T12:00:20Z"),
        point("2026-11-26T12:00:30Z", 3, "rapl"),
        // 12:00:40 missing from the answer
        point("2026-11-26T12:00:50Z", 4, "rapl"),
      ]),
    );
    const runs = lineRuns(s.steps, (x) => x.wattsMean);
    expect(runs.map((r) => r.points.map((p) => p.v))).toEqual([[1, 2], [3], [4]]);
  });

  it("starts a dashed run where the source turns modelled, sharing the point so the line does not break", () => {
    const s = shapeEnergy(
      history([
        point("2026-11-26T12:00:00Z", 1, "rapl"),
        point("2026-11-26T12:00:10Z", 2, "rapl"),
        point("2026-11-26T12:00:20Z", 3, "model"),
      ]),
    );
    const runs = lineRuns(s.steps, (x) => x.wattsMean);
    expect(runs.map((r) => [r.cls, r.points.map((p) => p.v)])).toEqual([
      ["measured", [1, 2]],
      ["model", [2, 3]],
    ]);
  });

  it("leaves out a step whose figure is null (no requests: no J/request)", () => {
    const s = shapeEnergy(
      history([
        point("2026-11-26T12:00:00Z", 1, "rapl"),
        point("2026-11-26T12:00:10Z", 2, "rapl", { requests: 0, joules_per_request: null }),
        point("2026-11-26T12:00:20Z", 3, "rapl"),
      ]),
    );
    expect(lineRuns(s.steps, (x) => x.joulesPerRequest).map((r) => r.points.length)).toEqual([1, 1]);
  });
});

describe("sources", () => {
  it("calls the model's figures not measured, and a mix of measured sources measured", () => {
    expect(sourceLegend("model")).toBe("model (not measured)");
    expect(sourceClass("mixed", ["ipmi", "rapl"])).toBe("measured");
    expect(sourceClass("mixed", ["model", "rapl"])).toBe("mixed");
    expect(sourceClass("ipmi-split")).toBe("measured");
    expect(sourceClass(null)).toBe("none");
  });
});
