// The resource counts shown once signed in.

import { ApiError, describeError } from "./errors";

export const COUNTED_RESOURCES = ["clusters", "applications", "deployments", "jobs"] as const;

export type CountedResource = (typeof COUNTED_RESOURCES)[number];

export const RESOURCE_LABELS: Record<CountedResource, string> = {
  clusters: "Clusters",
  applications: "Applications",
  deployments: "Deployments",
  jobs: "Jobs",
};

/** The `total` of a list page, or null if the body has none. */
export function totalOf(body: unknown): number | null {
  if (typeof body !== "object" || body === null) return null;
  const total = (body as { total?: unknown }).total;
  return typeof total === "number" && Number.isInteger(total) && total >= 0 ? total : null;
}

/** A count for display: grouped digits, or a dash while unknown. */
export function formatCount(count: number | null | undefined): string {
  return count == null ? "—" : count.toLocaleString("en-US");
}

export interface CountsSummary {
  counts: Partial<Record<CountedResource, number>>;
  /** The API's message when the token was refused (401/403). */
  authError: string | null;
  /** Any other failure, for the counts panel. */
  error: string | null;
}

/** Folds the settled count calls (in COUNTED_RESOURCES order) into what the page shows. */
export function summarizeCounts(results: readonly PromiseSettledResult<number>[]): CountsSummary {
  const summary: CountsSummary = { counts: {}, authError: null, error: null };
  results.forEach((result, i) => {
    const resource = COUNTED_RESOURCES[i];
    if (resource === undefined) return;
    if (result.status === "fulfilled") {
      summary.counts[resource] = result.value;
    } else if (result.reason instanceof ApiError && result.reason.isAuth) {
      summary.authError ??= result.reason.message;
    } else {
      summary.error ??= `${RESOURCE_LABELS[resource]}: ${describeError(result.reason)}`;
    }
  });
  return summary;
}
