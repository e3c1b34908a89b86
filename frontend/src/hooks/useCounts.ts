import { useEffect, useState } from "react";
import { getListTotal } from "../api/client";
import { COUNTED_RESOURCES, type CountsSummary, summarizeCounts } from "../lib/counts";

export interface CountsState extends CountsSummary {
  loading: boolean;
}

const empty: CountsState = { counts: {}, authError: null, error: null, loading: false };

/** Totals of clusters, applications, deployments and jobs for `token`; refetched on reconnect. */
export function useCounts(token: string | null, generation: number): CountsState {
  const [state, setState] = useState<CountsState>(empty);

  useEffect(() => {
    if (token === null || generation === 0) {
      setState(empty);
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    void Promise.allSettled(
      COUNTED_RESOURCES.map((resource) => getListTotal(resource, token, controller.signal)),
    ).then((results) => {
      if (!controller.signal.aborted) setState({ ...summarizeCounts(results), loading: false });
    });
    return () => controller.abort();
  }, [token, generation]);

  return state;
}
