import { useEffect, useRef, useState } from "react";

import { type ModelAtLoad, fetchModelAtLoad, loadToAsk } from "./modelAtLoad";

/** How often the measured load is looked at, and the model asked again if it moved: a load that keeps wobbling
 * across a rounding boundary is asked about once a second at most, never left unasked. */
const ASK_EVERY_MS = 1000;

/** The model of the deployment's placement at its measured load (modelAtLoad.ts), asked again when the measured
 * load moves past its two significant figures, one question at a time. Null before the first answer, while
 * nothing is measured, and after a request failed (until one is answered). */
export function useModelAtLoad(deploymentId: string, measuredRps: number | null | undefined): ModelAtLoad | null {
  const load = loadToAsk(measuredRps);
  const wanted = useRef(load);
  useEffect(() => {
    wanted.current = load;
  });
  const [answer, setAnswer] = useState<ModelAtLoad | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    let asked: number | null = null;
    let asking = false;
    const ask = () => {
      const want = wanted.current;
      if (want === null || want === asked || asking) return;
      asking = true;
      asked = want;
      fetchModelAtLoad(deploymentId, want, controller.signal).then(
        (model) => {
          asking = false;
          if (!controller.signal.aborted) setAnswer(model);
        },
        () => {
          asking = false;
          asked = null; // asked again at the next look
          // refused (e.g. 409: an instance on a node that is down) or the API away: the last answer was for another
          // moment's placement, so it goes; the line falls back to the placement's prediction, labelled so
          if (!controller.signal.aborted) setAnswer(null);
        },
      );
    };
    const timer = setInterval(ask, ASK_EVERY_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [deploymentId]);
  return load !== null ? answer : null;
}
