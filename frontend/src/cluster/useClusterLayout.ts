import { useCallback, useEffect, useRef, useState } from "react";
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

/** GET /clusters/{name}/layout: topology and every placed instance, in columns. `reload()` during a read lets
 * that read finish and be drawn, then reads again: a move announced while the page opens (its first read under
 * way) no longer throws that read away and delays the first drawing by a whole read. */
export function useClusterLayout(clusterName: string): ClusterLayoutState {
  const [generation, setGeneration] = useState(0);
  const [state, setState] = useState<Omit<ClusterLayoutState, "reload">>({
    layout: null,
    arrivedAt: null,
    loading: true,
    error: null,
  });
  const reading = useRef(false);
  const again = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    reading.current = true;
    again.current = false;
    setState((s) => ({ ...s, loading: true, error: null }));
    const settled = () => {
      reading.current = false;
      if (again.current) setGeneration((g) => g + 1);
    };
    fetchLayout(clusterName, controller.signal)
      .then((layout) => {
        if (controller.signal.aborted) return;
        setState({ layout, arrivedAt: performance.now(), loading: false, error: null });
        settled();
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => ({ ...s, loading: false, error: describeError(error) }));
        settled();
      });
    return () => {
      reading.current = false;
      controller.abort();
    };
  }, [clusterName, generation]);

  const reload = useCallback(() => {
    if (reading.current) again.current = true;
    else setGeneration((g) => g + 1);
  }, []);
  return { ...state, reload };
}
