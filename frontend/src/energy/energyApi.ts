// The energy history request (docs/energy.md, "Energy history"): the scope's endpoint, the range's query, and
// the API's refusal laid out on the picker's fields (a 422 names from, to or step).

import { api, unwrap } from "../api/http";
import { type Refusal, splitRefusal } from "../lib/errors";
import type { EnergyHistory, EnergyScope } from "./energyTypes";
import type { RangeQuery } from "./timeRange";

export type RangeField = "from" | "to" | "step";

export type EnergyResult = { answer: EnergyHistory; refusal: null } | { answer: null; refusal: Refusal<RangeField> };

/** The picker's field an API field error belongs at ("from", "query.from" → from). */
export function rangeFieldOf(apiField: string): RangeField | null {
  const name = apiField.replace(/^query\./, "");
  return name === "from" || name === "to" || name === "step" ? name : null;
}

/** GET the scope's history over the range (an application's may be narrowed to one cluster). */
async function getHistory(scope: EnergyScope, query: RangeQuery, signal?: AbortSignal): Promise<EnergyHistory> {
  switch (scope.kind) {
    case "application":
      return unwrap(
        await api.GET("/api/v1/applications/{name}/energy", {
          params: { path: { name: scope.name }, query: { ...query, ...(scope.cluster ? { cluster: scope.cluster } : {}) } },
          signal,
        }),
      );
    case "cluster":
      return unwrap(await api.GET("/api/v1/clusters/{name}/energy", { params: { path: { name: scope.name }, query }, signal }));
    case "node":
      return unwrap(await api.GET("/api/v1/nodes/{node_id}/energy", { params: { path: { node_id: scope.nodeId }, query }, signal }));
  }
}

/** One history request; any failure comes back as a refusal (by field where the API names one). */
export async function fetchEnergy(scope: EnergyScope, query: RangeQuery, signal?: AbortSignal): Promise<EnergyResult> {
  try {
    return { answer: await getHistory(scope, query, signal), refusal: null };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { answer: null, refusal: splitRefusal(error, rangeFieldOf) };
  }
}
