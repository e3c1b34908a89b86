// The energy history request (docs/energy.md, "Energy history"): the scope's path, the range's query, and
// the API's refusal laid out on the picker's fields (a 422 names from, to or step).

import { API_PREFIX, getJson } from "../api/client";
import { type Refusal, splitRefusal } from "../lib/errors";
import type { EnergyHistory, EnergyScope } from "./energyTypes";
import type { RangeQuery } from "./timeRange";

export type RangeField = "from" | "to" | "step";

export type EnergyResult = { answer: EnergyHistory; refusal: null } | { answer: null; refusal: Refusal<RangeField> };

/** The API path of a scope's history. */
export function energyPath(scope: EnergyScope): string {
  switch (scope.kind) {
    case "application":
      return `${API_PREFIX}/applications/${encodeURIComponent(scope.name)}/energy`;
    case "cluster":
      return `${API_PREFIX}/clusters/${encodeURIComponent(scope.name)}/energy`;
    case "node":
      return `${API_PREFIX}/nodes/${encodeURIComponent(scope.nodeId)}/energy`;
  }
}

/** The full request URL: path and query (an application's may be narrowed to one cluster). */
export function energyUrl(scope: EnergyScope, query: RangeQuery): string {
  const params = new URLSearchParams({ from: query.from, to: query.to, step: String(query.step) });
  if (scope.kind === "application" && scope.cluster) params.set("cluster", scope.cluster);
  return `${energyPath(scope)}?${params.toString()}`;
}

/** The picker's field an API field error belongs at ("from", "query.from" → from). */
export function rangeFieldOf(apiField: string): RangeField | null {
  const name = apiField.replace(/^query\./, "");
  return name === "from" || name === "to" || name === "step" ? name : null;
}

/** One history request; any failure comes back as a refusal (by field where the API names one). */
export async function fetchEnergy(
  scope: EnergyScope,
  query: RangeQuery,
  token: string | null,
  signal?: AbortSignal,
): Promise<EnergyResult> {
  try {
    const answer = await getJson<EnergyHistory>(energyUrl(scope, query), { token, signal });
    return { answer, refusal: null };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { answer: null, refusal: splitRefusal(error, rangeFieldOf) };
  }
}
