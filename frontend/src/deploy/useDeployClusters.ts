import { useCallback, useEffect, useState } from "react";
import { api, unwrap } from "../api/http";
import { describeError } from "../lib/errors";

export interface ClusterOption {
  name: string;
  servers: number;
  serverTypes: Record<string, number>;
  deployments: number;
  /** Nodes an agent has registered for: 0 means nothing would execute a deployment there. */
  agentNodes: number;
}

export interface DeployClustersState {
  clusters: ClusterOption[];
  loading: boolean;
  error: string | null;
  /** More clusters exist than the pages fetched. */
  truncated: boolean;
  reload: () => void;
}

const PAGE_SIZE = 200;
const MAX_PAGES = 5;

/** The clusters to deploy on: GET /clusters, up to MAX_PAGES pages. */
export function useDeployClusters(): DeployClustersState {
  const [generation, setGeneration] = useState(0);
  const [state, setState] = useState<Omit<DeployClustersState, "reload">>({
    clusters: [],
    loading: true,
    error: null,
    truncated: false,
  });

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    (async () => {
      const clusters: ClusterOption[] = [];
      let total = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const body = unwrap(
          await api.GET("/api/v1/clusters", {
            params: { query: { limit: PAGE_SIZE, offset: page * PAGE_SIZE } },
            signal: controller.signal,
          }),
        );
        total = body.total;
        for (const c of body.items) {
          clusters.push({
            name: c.name,
            servers: c.servers,
            serverTypes: c.server_types,
            deployments: c.deployments,
            agentNodes: c.agent_nodes,
          });
        }
        if (body.items.length < PAGE_SIZE || clusters.length >= total) break;
      }
      return { clusters, truncated: clusters.length < total };
    })().then(
      ({ clusters, truncated }) => {
        if (!controller.signal.aborted) setState({ clusters, loading: false, error: null, truncated });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ clusters: [], loading: false, error: describeError(error), truncated: false });
        }
      },
    );
    return () => controller.abort();
  }, [generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}
