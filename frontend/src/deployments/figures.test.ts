import { describe, expect, it } from "vitest";
import type { PredictedFigures } from "../deploy/deployPreview";
import type { LiveApplication } from "../live/types";
import { compareFigures, measuredGap } from "./figures";

const prediction: PredictedFigures = {
  throughputRps: 50_000, offeredRps: null, saturated: false, avgLatencyMs: 0.2, p99LatencyMs: 0.5,
  powerWatts: 120, joulesPerRequest: 0.0024, requestsPerJoule: 416, bottleneck: null,
};

const live = {
  application: "shop", deployment_id: "d1", version: 1, instances: 3, complete: true, nodes_stale: 0,
  throughput_rps: 1000, joules_per_request: 0.05, predicted: null,
  latency: { avg_us: 150, basis: "measured_at_entry", exec_path_us: 40, p99_is_upper_bound: true, p99_us: 400 },
  power: { watts: 50, source: "model", sources: ["model"] },
} satisfies LiveApplication;

describe("modelled vs measured", () => {
  it("puts the cost model's figures beside the agents' measured ones", () => {
    const rows = compareFigures(prediction, live);
    expect(rows.map((r) => [r.label, r.modelled, r.measured])).toEqual([
      ["Throughput", "50,000 req/s", "1,000 req/s"],
      ["Avg latency", "0.2 ms", "0.15 ms"],
      ["Power", "120 W", "50 W"],
      ["Energy", "0.0024 J/req", "0.05 J/req"],
    ]);
    expect(rows[0]!.note).toMatch(/knee/);
    expect(rows[2]!.note).toBe("measured source: model");
  });

  it("shows dashes where nothing is measured, and says why", () => {
    expect(compareFigures(prediction, null).every((r) => r.measured === "—")).toBe(true);
    expect(compareFigures(null, null).every((r) => r.modelled === "—")).toBe(true);
    expect(measuredGap("placed", true, null)).toMatch(/nothing executes it/);
    expect(measuredGap("running", false, live)).toMatch(/not delivering/);
    expect(measuredGap("running", true, null)).toMatch(/no agent reports/);
    expect(measuredGap("degraded", true, live)).toBeNull();
  });
});
