// The cluster life cycle's calls: the server types (for the form and its preview), create, delete.

import type { ClusterRow } from "../api/client";
import { api, type components, unwrap } from "../api/http";
import type { GeneratorBody } from "./clusterRequest";

export type ServerTypeRow = components["schemas"]["ServerTypePublic"];

/** The server types of paper Table 4, with their SmartNICs per server. */
export async function listServerTypes(signal?: AbortSignal): Promise<ServerTypeRow[]> {
  return unwrap(await api.GET("/api/v1/catalog/server-types", { signal }));
}

/** Creates a cluster from the generator's fields, or from a pasted spec (YAML or JSON) sent as typed. */
export async function createCluster(request: { generator: GeneratorBody } | { spec: string }): Promise<ClusterRow> {
  if ("generator" in request) {
    return unwrap(await api.POST("/api/v1/clusters", { body: request.generator as never }));
  }
  // Sent as YAML (JSON is YAML too), so the API's own parser judges it and its line numbers are the ones shown.
  return unwrap(
    await api.POST("/api/v1/clusters", {
      body: request.spec,
      bodySerializer: (text) => text as string,
      headers: { "Content-Type": "application/yaml" },
    }),
  );
}

/** Deletes a cluster with its racks, servers and nodes; refused (409 cluster_in_use) while deployments run on it. */
export async function deleteCluster(name: string): Promise<void> {
  unwrap(await api.DELETE("/api/v1/clusters/{name}", { params: { path: { name } } }));
}
