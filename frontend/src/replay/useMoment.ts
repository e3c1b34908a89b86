import { useEffect, useState } from "react";

import { describeError } from "../lib/errors";
import { type ClusterMoment, fetchMoment } from "./momentApi";

/** Requests while a slider is dragged wait this long for it to rest. */
const SETTLE_MS = 200;

export interface MomentState {
  /** The last moment read: while another is read it stays (the picture does not blank on every step). */
  moment: ClusterMoment | null;
  /** The moment asked for is not yet the one shown. */
  loading: boolean;
  error: string | null;
}

/** GET /clusters/{name}/moment at `at` (ms; null: none wanted). */
export function useMoment(cluster: string, at: number | null): MomentState {
  const [state, setState] = useState<MomentState>({ moment: null, loading: false, error: null });
  useEffect(() => {
    if (at === null) {
      setState({ moment: null, loading: false, error: null });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    const timer = setTimeout(() => {
      fetchMoment(cluster, at, controller.signal).then(
        (moment) => {
          if (!controller.signal.aborted) setState({ moment, loading: false, error: null });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setState({ moment: null, loading: false, error: describeError(error) });
        },
      );
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [cluster, at]);
  return state;
}
