// The energy history API's answer (GET /applications/{name}/energy, /clusters/{name}/energy,
// /nodes/{node_id}/energy; docs/energy.md): one row per step, null figures where the step has no data.

/** Where a step's joules came from: measured (RAPL, IPMI, a server's IPMI split to its nodes), the model, or a mix. */
export type EnergySource = "rapl" | "ipmi" | "ipmi-split" | "model" | "mixed";

export interface EnergyPoint {
  /** The step's start (ISO). */
  ts: string;
  joules: number | null;
  requests: number | null;
  seconds: number | null;
  watts_mean: number | null;
  watts_max: number | null;
  joules_per_request: number | null;
  source: string | null;
  sources: string[];
  /** The step's joules by source ("model": 12.5, "rapl": 30.1). */
  joules_by_source: Record<string, number>;
}

export interface EnergyHistory {
  scope: { kind: "application" | "cluster" | "node"; name?: string | null; cluster?: string | null; node_id?: string | null };
  from: string;
  to: string;
  step_s: number;
  rollup_step_s: number;
  retention_days: number;
  points: EnergyPoint[];
  totals: { joules: number | null; requests: number | null; joules_per_request: number | null; sources: string[] };
}

/** Whose energy: an application (optionally on one cluster), a cluster, or one computing node. */
export type EnergyScope =
  | { kind: "application"; name: string; cluster?: string }
  | { kind: "cluster"; name: string }
  | { kind: "node"; nodeId: string };
