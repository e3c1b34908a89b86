// The dry run's predicted change as rows to show: before, after, change, for the figures a person
// weighs a move by. Every figure is the cost model's, never a measurement (the API says "source": "model").

import type { MigrationAnswer } from "../api/client";

export interface PredictionRow {
  key: "avg_latency_ms" | "p99_latency_ms" | "joules_per_request" | "power_watts";
  label: string;
  unit: string;
  before: number | null;
  after: number | null;
  change: number | null;
  /** Lower is better for every figure shown: "better" when it falls. */
  tone: "better" | "worse" | "same" | "unknown";
}

const FIGURES: { key: PredictionRow["key"]; label: string; unit: string }[] = [
  { key: "avg_latency_ms", label: "Average latency", unit: "ms" },
  { key: "p99_latency_ms", label: "p99 latency", unit: "ms" },
  { key: "joules_per_request", label: "Joules per request (model)", unit: "J" },
  { key: "power_watts", label: "Power (model)", unit: "W" },
];

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function predictionRows(answer: Pick<MigrationAnswer, "prediction">): PredictionRow[] {
  const p = answer.prediction;
  return FIGURES.map(({ key, label, unit }) => {
    const before = num(p.before[key]);
    const after = num(p.after[key]);
    const change = num(p.change[key]) ?? (before !== null && after !== null ? after - before : null);
    const rel = change === null || before === null || before === 0 ? null : change / Math.abs(before);
    const tone = change === null ? "unknown" : rel !== null && Math.abs(rel) < 0.005 ? "same" : change < 0 ? "better" : change > 0 ? "worse" : "same";
    return { key, label, unit, before, after, change, tone };
  });
}

/** A figure with a few significant digits: 0.0143, 1.95, 344. */
export function formatFigure(v: number | null): string {
  if (v === null) return "—";
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a >= 1000) return Math.round(v).toLocaleString("en-US");
  if (a >= 100) return v.toFixed(0);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(3);
}

/** "+12.5 %" / "−3.1 %" / "±0 %" of the change relative to before; "" when unknown. */
export function formatChange(row: Pick<PredictionRow, "before" | "change">): string {
  if (row.change === null || row.before === null || row.before === 0) return "";
  const pct = (row.change / Math.abs(row.before)) * 100;
  if (Math.abs(pct) < 0.05) return "±0 %";
  return `${pct > 0 ? "+" : "−"}${Math.abs(pct).toFixed(1)} %`;
}

/** "same node" .. "another pod": HCM's communication level between source and target. */
export function levelLabel(level: number | null | undefined): string {
  switch (level) {
    case 0:
      return "same node";
    case 1:
      return "same server (PCIe)";
    case 2:
      return "a SmartNIC in the same rack";
    case 3:
      return "a host in the same rack";
    case 4:
      return "same pod";
    case 5:
      return "another pod";
    default:
      return "unknown";
  }
}
