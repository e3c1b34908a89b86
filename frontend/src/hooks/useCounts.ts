import { useEffect, useState } from "react";
import { getListTotal } from "../api/client";
import { COUNTED_RESOURCES, type CountsSummary, summarizeCounts } from "../lib/counts";

export interface CountsState extends CountsSummary {
  loading: boolean;
}

const empty: CountsState = { counts: {}, authError: null, error: null, loading: false };

/**
 * Totals of clusters, applications, deployments and jobs once `signedIn` (the token was
 * accepted by /me); refetched when the token changes (`tokenKey`) or the API comes back.
 */
export function useCounts(signedIn: boolean, tokenKey: string | null, generation: number): CountsState {
  const [state, setState] = useState<CountsState>(empty);

  useEffect(() => {
    if (!signedIn || generation === 0) {
      setState(empty);
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    void Promise.allSettled(
      COUNTED_RESOURCES.map((resource) => getListTotal(resource, controller.signal)),
    ).then((results) => {
      if (!controller.signal.aborted) setState({ ...summarizeCounts(results), loading: false });
    });
    return () => controller.abort();
  }, [signedIn, tokenKey, generation]);

  return state;
}
