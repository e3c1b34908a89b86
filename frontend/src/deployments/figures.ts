// The deployment's figures as the cost model predicted them (labelled modelled) beside what the agents measure
// now (the live channel's figures for it), row by row. Pure.

import type { PredictedFigures } from "../deploy/deployPreview";
import { MISSING, formatJoulesPerRequest, formatMs, formatRps, formatWatts } from "../lib/figures";
import type { LiveApplication } from "../live/types";

export interface FigureRow {
  key: "throughput" | "latency" | "power" | "jpr";
  label: string;
  modelled: string;
  measured: string;
  /** What the two figures are, where they differ in kind. */
  note: string | null;
}

/** Rows of modelled vs measured figures; `measured` is null when no current figures exist (all dashes). */
export function compareFigures(prediction: PredictedFigures | null, measured: LiveApplication | null): FigureRow[] {
  const m = measured;
  const latencyUs = m?.latency.avg_us;
  return [
    {
      key: "throughput",
      label: "Throughput",
      modelled: formatRps(prediction?.throughputRps),
      measured: m ? formatRps(m.throughput_rps) : MISSING,
      note: prediction?.offeredRps == null ? "modelled: at the placement's knee (its capacity); measured: the load offered now" : null,
    },
    {
      key: "latency",
      label: "Avg latency",
      modelled: formatMs(prediction?.avgLatencyMs),
      measured: m && typeof latencyUs === "number" ? formatMs(latencyUs / 1000) : MISSING,
      note: m?.latency.basis === "exec_time_path" ? "measured: execution times along the slowest path (a lower bound)" : null,
    },
    {
      key: "power",
      label: "Power",
      modelled: formatWatts(prediction?.powerWatts),
      measured: m ? formatWatts(m.power.watts) : MISSING,
      note: m?.power.source ? `measured source: ${m.power.source}` : null,
    },
    {
      key: "jpr",
      label: "Energy",
      modelled: formatJoulesPerRequest(prediction?.joulesPerRequest),
      measured: m ? formatJoulesPerRequest(m.joules_per_request) : MISSING,
      note: null,
    },
  ];
}

/** Why no measured figure is shown, or null when they are. */
export function measuredGap(status: string, liveCurrent: boolean, measured: LiveApplication | null): string | null {
  if (status === "placed") return "nothing executes it (no agent runs its nodes): there is nothing to measure";
  if (status === "placing" || status === "failed") return "nothing of it runs: there is nothing to measure";
  if (!liveCurrent) return "the live channel is not delivering current figures";
  if (measured === null) return "no agent reports figures for it yet";
  return null;
}
