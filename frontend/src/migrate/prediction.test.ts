import { describe, expect, it } from "vitest";
import type { MigrationAnswer } from "../api/client";
import { formatChange, formatFigure, levelLabel, predictionRows } from "./prediction";

const figures = (avg: number, p99: number, j: number | null, w: number) => ({
  avg_latency_ms: avg,
  p99_latency_ms: p99,
  joules_per_request: j,
  power_watts: w,
  knee_rps: 1000,
});

const answer = {
  prediction: {
    offered_rps: 900,
    before: figures(3.75, 25.4, 0.0296, 344),
    after: figures(1.95, 5.38, null, 344),
    change: { avg_latency_ms: -1.8, p99_latency_ms: -20.02, joules_per_request: null, power_watts: 0 },
    level: 1,
    source: "model",
  },
} as unknown as MigrationAnswer;

describe("the dry run's prediction", () => {
  it("lists latency and J/request before, after and their change, J/request labelled as the model's", () => {
    const rows = predictionRows(answer);
    expect(rows.map((r) => r.key)).toEqual(["avg_latency_ms", "p99_latency_ms", "joules_per_request", "power_watts"]);
    expect(rows[0]).toMatchObject({ before: 3.75, after: 1.95, change: -1.8, tone: "better" });
    expect(rows[2]).toMatchObject({ label: "Joules per request (model)", after: null, change: null, tone: "unknown" });
    expect(rows[3]).toMatchObject({ tone: "same" });
  });

  it("computes the change when the API leaves it out", () => {
    const a = { prediction: { ...answer.prediction, change: {} } } as unknown as MigrationAnswer;
    expect(predictionRows(a)[1]!.change).toBeCloseTo(-20.02);
  });

  it("formats figures and relative changes", () => {
    expect(formatFigure(0.0296)).toBe("0.0296");
    expect(formatFigure(3.754)).toBe("3.75");
    expect(formatFigure(344.2)).toBe("344");
    expect(formatFigure(916404.4)).toBe("916,404");
    expect(formatFigure(null)).toBe("—");
    expect(formatChange({ before: 3.75, change: -1.8 })).toBe("−48.0 %");
    expect(formatChange({ before: 2, change: 0.5 })).toBe("+25.0 %");
    expect(formatChange({ before: null, change: 1 })).toBe("");
    expect(levelLabel(1)).toBe("same server (PCIe)");
    expect(levelLabel(null)).toBe("unknown");
  });
});
