// The last minutes of the cluster's figures read from the server (GET /clusters/{name}/history, docs/live.md
// "History at open"): when the dashboard opens, the stored 1 s steps of the sparklines' 5 minutes, put before the
// live messages' samples by LiveRecorder.seed, so that a reload shows them at once; for a chart, its range (up to
// 7 days, in steps that grow with it).

import { api, unwrap } from "../api/http";
import { HISTORY_MS } from "./recorder";

/** GET /clusters/{name}/history's answer: per node, application and for the cluster, [time ms, figures…] a step. */
export type ServerHistory = Awaited<ReturnType<typeof fetchServerHistory>>;

export async function fetchServerHistory(clusterName: string, signal?: AbortSignal, minutes = HISTORY_MS / 60_000) {
  return unwrap(
    await api.GET("/api/v1/clusters/{cluster}/history", {
      params: { path: { cluster: clusterName }, query: { minutes } },
      signal,
    }),
  );
}
