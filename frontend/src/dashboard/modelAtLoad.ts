// The cost model beside the measurement, as the same quantity: the dashboard asks the API for the model of each
// application's placement at the load it measures (GET /deployments/{id}/model, docs/energy.md "The model at the
// measured load"), instead of showing the placement's prediction at its knee beside a figure measured at a
// hundredth of that load. The knee is shown apart, as the placement's capacity; the gap between model and
// measurement as a ratio, explained in its tooltip.

import { api, type components, unwrap } from "../api/http";
import { formatSignificant } from "../lib/figures";

export type ModelAtLoad = components["schemas"]["ModelAtLoadPublic"];

/** The load to ask the model at for a measured throughput: two significant figures, so that the second-to-second
 * wobble of a steady load is one question; null when nothing is measured (no request: the model is not asked). */
export function loadToAsk(measuredRps: number | null | undefined): number | null {
  if (typeof measuredRps !== "number" || !Number.isFinite(measuredRps) || measuredRps <= 0) return null;
  const magnitude = 10 ** (Math.floor(Math.log10(measuredRps)) - 1);
  return Math.max(magnitude, Math.round(measuredRps / magnitude) * magnitude);
}

/** The model of the deployment's placement at `offeredRps` entry requests/s. */
export async function fetchModelAtLoad(
  deploymentId: string,
  offeredRps: number,
  signal?: AbortSignal,
): Promise<ModelAtLoad> {
  return unwrap(
    await api.GET("/api/v1/deployments/{deployment_id}/model", {
      params: { path: { deployment_id: deploymentId }, query: { offered_rps: offeredRps } },
      signal,
    }),
  );
}

/** The load a model line is at, short enough to sit before its figure: "1,000/s", "29,000/s". */
export function formatLoad(rps: number): string {
  return `${formatSignificant(rps) ?? "?"}/s`;
}

/** measured / modelled as "1.07×" (two significant figures), or null when either is missing or the model is 0. */
export function gapRatio(measured: number | null | undefined, modelled: number | null | undefined): string | null {
  if (typeof measured !== "number" || typeof modelled !== "number") return null;
  if (!Number.isFinite(measured) || !Number.isFinite(modelled) || modelled <= 0 || measured < 0) return null;
  const text = formatSignificant(Number((measured / modelled).toPrecision(2)));
  return text === null ? null : `${text}×`;
}

/** What the gap between the measured and the modelled J/request means, for its tooltip. */
export function energyGapTitle(ratio: string, offeredRps: number): string {
  return (
    `measured J/request ÷ the model's at the same load (${formatSignificant(offeredRps)} req/s): ${ratio}. ` +
    "Both charge each node's idle watts to its instances by reserved cores and the power above idle by load; " +
    "the model takes its watts from the paper's tables (server idle, Table 1 per-service power), the measurement " +
    "from the nodes' power readings (here the agents' model of the emulated hardware: source in the badge). " +
    "Above 1: the nodes draw more per request than the paper's hardware would."
  );
}
