import { useEffect, useRef, useState } from "react";

import { type ModelAtLoad, fetchModelAtLoad, loadToAsk } from "./modelAtLoad";

/** How often the measured load is looked at, and the model asked again if it moved: a load that keeps wobbling
 * across a rounding boundary is asked about once a second at most, never left unasked. */
const ASK_EVERY_MS = 1000;

/** The model of the deployment's placement at its measured load (modelAtLoad.ts), asked again when the measured
 * load moves past its two significant figures, one question at a time. Null before the first answer and while
 * nothing is measured; a failed request keeps the last answer, whose `offered_rps` says the load it is for. */
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
          asked = null; // aborted, or the API away: asked again at the next look
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
