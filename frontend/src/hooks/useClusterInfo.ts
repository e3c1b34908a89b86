import { useEffect, useState } from "react";

import { api, type components, unwrap } from "../api/http";
import { describeError } from "../lib/errors";

type ClusterDetail = components["schemas"]["ClusterDetail"];

/** A computing node as the topology lists it, before any live data (so the node cards have their places). */
export interface PlannedNode {
  id: string;
  name: string;
  kind: string;
  server: string;
  rack: string;
}

export interface ClusterInfo {
  nodes: PlannedNode[];
  deployments: number;
  loading: boolean;
  error: string | null;
}

function plannedNodes(detail: ClusterDetail): PlannedNode[] {
  const out: PlannedNode[] = [];
  for (const rack of detail.topology) {
    for (const server of rack.servers) {
      for (const node of server.nodes) {
        out.push({ id: node.id, name: node.name, kind: node.kind, server: server.name, rack: rack.name });
      }
    }
  }
  return out;
}

/** GET /clusters/{name} (topology): the node cards' places before live data comes. */
export function useClusterInfo(clusterName: string): ClusterInfo {
  const [state, setState] = useState<ClusterInfo>({ nodes: [], deployments: 0, loading: true, error: null });
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    api.GET("/api/v1/clusters/{name}", { params: { path: { name: clusterName } }, signal }).then(unwrap).then(
      (detail) => {
        if (signal.aborted) return;
        setState({
          nodes: plannedNodes(detail),
          deployments: detail.deployments,
          loading: false,
          error: null,
        });
      },
      (error: unknown) => {
        if (!signal.aborted) setState((s) => ({ ...s, loading: false, error: describeError(error) }));
      },
    );
    return () => controller.abort();
  }, [clusterName]);
  return state;
}
