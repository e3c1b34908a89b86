// The cluster life cycle's calls: the server types (for the form and its preview), create, delete.

import type { ClusterRow } from "../api/client";
import { api, type components, unwrap } from "../api/http";
import { ApiError } from "../lib/errors";
import type { GeneratorBody } from "./clusterRequest";

export type ServerTypeRow = components["schemas"]["ServerTypePublic"];
type ClusterAccepted = components["schemas"]["ClusterAccepted"];

const JOB_POLL_MS = 500;

/** The server types of paper Table 4, with their SmartNICs per server. */
export async function listServerTypes(signal?: AbortSignal): Promise<ServerTypeRow[]> {
  return unwrap(await api.GET("/api/v1/catalog/server-types", { signal }));
}

/** Creates a cluster from the generator's fields, or from a pasted spec (YAML or JSON) sent as typed. */
export async function createCluster(request: { generator: GeneratorBody } | { spec: string }): Promise<ClusterRow> {
  if ("generator" in request) {
    return built(unwrap(await api.POST("/api/v1/clusters", { body: request.generator as never })));
  }
  // Sent as YAML (JSON is YAML too), so the API's own parser judges it and its line numbers are the ones shown.
  return built(
    unwrap(
      await api.POST("/api/v1/clusters", {
        body: request.spec,
        bodySerializer: (text) => text as string,
        headers: { "Content-Type": "application/yaml" },
      }),
    ),
  );
}

/** The created cluster: a large one is answered 202 and built by a worker, so its job is awaited first. */
async function built(answer: ClusterRow | ClusterAccepted): Promise<ClusterRow> {
  if (!("job_id" in answer)) return answer;
  for (;;) {
    const job = unwrap(await api.GET("/api/v1/jobs/{job_id}", { params: { path: { job_id: answer.job_id } } }));
    if (job.state === "failed") {
      const error = job.error as { code?: string; message?: string } | null;
      throw new ApiError(409, { code: error?.code ?? "job_failed", message: error?.message ?? job.message, errors: [] });
    }
    if (job.state === "succeeded") {
      return unwrap(await api.GET("/api/v1/clusters/{name}", { params: { path: { name: answer.name } } }));
    }
    await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
  }
}

/** Deletes a cluster with its racks, servers and nodes; refused (409 cluster_in_use) while deployments run on it. */
export async function deleteCluster(name: string): Promise<void> {
  unwrap(await api.DELETE("/api/v1/clusters/{name}", { params: { path: { name } } }));
}
