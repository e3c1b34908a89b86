import { api, unwrap } from "../api/http";

/** GET /clusters/{name}/moment: the cluster as it was at `at` (ms since the epoch). */
export async function fetchMoment(cluster: string, at: number, signal?: AbortSignal) {
  return unwrap(await api.GET("/api/v1/clusters/{name}/moment", {
    params: { path: { name: cluster }, query: { at: new Date(at).toISOString() } },
    signal,
  }));
}

/** The moment as the generated client types it (schemas/layout.py ClusterMoment on the server). */
export type ClusterMoment = Awaited<ReturnType<typeof fetchMoment>>;
