// The energy history API's answer (GET /applications/{name}/energy, /clusters/{name}/energy,
// /nodes/{node_id}/energy; docs/energy.md): one point per step, null figures where the step has no data.

import type { components } from "../api/http";

export type EnergyHistory = components["schemas"]["EnergyHistoryPublic"];
export type EnergyPoint = components["schemas"]["EnergyPoint"];

/** Whose energy: an application (optionally on one cluster), a cluster, or one computing node. */
export type EnergyScope =
  | { kind: "application"; name: string; cluster?: string }
  | { kind: "cluster"; name: string }
  | { kind: "node"; nodeId: string };
