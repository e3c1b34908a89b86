import { useCallback, useEffect, useState } from "react";
import { api, unwrap } from "../api/http";
import { describeError } from "../lib/errors";

async function fetchLayout(name: string, signal: AbortSignal) {
  return unwrap(await api.GET("/api/v1/clusters/{name}/layout", { params: { path: { name } }, signal }));
}

/** The layout as the generated client types it (schemas/layout.py on the server). */
export type ClusterLayout = Awaited<ReturnType<typeof fetchLayout>>;

export interface ClusterLayoutState {
  layout: ClusterLayout | null;
  /** performance.now() when the layout arrived (the render timer's start). */
  arrivedAt: number | null;
  loading: boolean;
  error: string | null;
  reload: () => void;
}

/** GET /clusters/{name}/layout: topology and every placed instance, in columns. */
export function useClusterLayout(clusterName: string): ClusterLayoutState {
  const [generation, setGeneration] = useState(0);
  const [state, setState] = useState<Omit<ClusterLayoutState, "reload">>({
    layout: null,
    arrivedAt: null,
    loading: true,
    error: null,
  });

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    fetchLayout(clusterName, controller.signal)
      .then((layout) => {
        if (!controller.signal.aborted) setState({ layout, arrivedAt: performance.now(), loading: false, error: null });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => ({ ...s, loading: false, error: describeError(error) }));
      });
    return () => controller.abort();
  }, [clusterName, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}
