import { useEffect, useState } from "react";

import { describeError } from "../lib/errors";
import type { LiveRecorder } from "./recorder";
import { fetchServerHistory } from "./serverHistory";

export interface ServerHistoryState {
  /** True once the server's last minutes are in the recorder (the page redraws). */
  seeded: boolean;
  /** Why they could not be read; the sparklines then start with the live messages. */
  error: string | null;
}

/** The cluster's last minutes from the server, put into `recorder` once when the dashboard opens. */
export function useServerHistory(clusterName: string, recorder: LiveRecorder): ServerHistoryState {
  const [state, setState] = useState<ServerHistoryState>({ seeded: false, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ seeded: false, error: null });
    fetchServerHistory(clusterName, controller.signal).then(
      (history) => {
        if (controller.signal.aborted) return;
        recorder.seed(history);
        setState({ seeded: true, error: null });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ seeded: false, error: describeError(error) });
      },
    );
    return () => controller.abort();
  }, [clusterName, recorder]);
  return state;
}
