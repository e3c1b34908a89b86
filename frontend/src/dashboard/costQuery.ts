// The cost panel's request: the paper's cost efficiency of a live cluster as the API computes it
// (GET /clusters/{name}/cost-efficiency, docs/energy.md). The browser only passes the controls on and shows
// the answer; the API checks them, and its 422 message is shown at the control it names.

import { api, type components, unwrap } from "../api/http";
import { type Refusal, splitRefusal } from "../lib/errors";

export type CostEfficiency = components["schemas"]["CostEfficiencyPublic"];

/** The panel's controls as typed: an empty field leaves the API's default (5 years, the paper's price). */
export interface CostControls {
  years: string;
  price: string;
}

export type CostControl = keyof CostControls;

export type CostResult = { answer: CostEfficiency; refusal: null } | { answer: null; refusal: Refusal<CostControl> };

/** The query parameters of the controls. Text that is no number goes as NaN, which the API refuses naming the
 * field, so the person reads the API's own message rather than a second set of rules kept here. */
export function costQuery(controls: CostControls): { years?: number; price_per_kwh?: number } {
  const years = controls.years.trim();
  const price = controls.price.trim();
  return {
    ...(years === "" ? {} : { years: Number(years) }),
    ...(price === "" ? {} : { price_per_kwh: Number(price) }),
  };
}

/** The control an API field error belongs at. */
export function costControlOf(apiField: string): CostControl | null {
  if (apiField === "years") return "years";
  if (apiField === "price_per_kwh") return "price";
  return null;
}

/** The cluster's cost efficiency for the controls, or the API's refusal laid out on them (any other failure,
 * e.g. the cluster gone or the API unreachable, comes as a refusal without a field). */
export async function fetchCostEfficiency(
  clusterName: string,
  controls: CostControls,
  signal?: AbortSignal,
): Promise<CostResult> {
  try {
    const answer = unwrap(
      await api.GET("/api/v1/clusters/{name}/cost-efficiency", {
        params: { path: { name: clusterName }, query: costQuery(controls) },
        signal,
      }),
    );
    return { answer, refusal: null };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { answer: null, refusal: splitRefusal(error, costControlOf) };
  }
}

/** What the panel shows after a request: its answer; or, when a control was refused, no answer (the figures
 * were for other controls); or, on any other failure, the last answer kept (the panel marks it old). */
export function settleCost(last: CostEfficiency | null, result: CostResult): CostEfficiency | null {
  if (result.answer !== null) return result.answer;
  return Object.keys(result.refusal.byField).length > 0 ? null : last;
}
