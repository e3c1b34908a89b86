// The last minutes of the cluster's figures read from the server when the dashboard opens (GET
// /clusters/{name}/history, docs/live.md "History at open"): the stored 1 s steps, put before the live messages'
// samples by LiveRecorder.seed, so that a reload shows the sparklines' last minutes at once.

import { api, unwrap } from "../api/http";
import { HISTORY_MS } from "./recorder";

/** GET /clusters/{name}/history's answer: per node, application and for the cluster, [time ms, figures…] a step. */
export type ServerHistory = Awaited<ReturnType<typeof fetchServerHistory>>;

export async function fetchServerHistory(clusterName: string, signal?: AbortSignal) {
  return unwrap(
    await api.GET("/api/v1/clusters/{cluster}/history", {
      params: { path: { cluster: clusterName }, query: { minutes: HISTORY_MS / 60_000 } },
      signal,
    }),
  );
}
