import { useEffect, useState } from "react";

import type { LiveRecorder } from "./recorder";
import { fetchServerHistory } from "./serverHistory";

/** The cluster's last minutes from the server, put into `recorder` once when the dashboard opens; true once they
 * are in (the page redraws). A failure leaves the sparklines to start with the live messages, as before. */
export function useServerHistory(clusterName: string, recorder: LiveRecorder): boolean {
  const [seeded, setSeeded] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    fetchServerHistory(clusterName, controller.signal).then(
      (history) => {
        if (controller.signal.aborted) return;
        recorder.seed(history);
        setSeeded(true);
      },
      () => undefined, // aborted, or the API away: the live messages fill the sparklines as they come
    );
    return () => controller.abort();
  }, [clusterName, recorder]);
  return seeded;
}
