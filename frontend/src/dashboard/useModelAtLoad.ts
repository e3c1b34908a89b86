import { useEffect, useState } from "react";

import { type ModelAtLoad, fetchModelAtLoad, loadToAsk } from "./modelAtLoad";

/** A load held this long is asked about: a changing load is one question once it settles. */
const SETTLE_MS = 1000;

/** The model of the deployment's placement at its measured load (modelAtLoad.ts), asked again when the measured
 * load moves past its two significant figures. Null before the first answer and while nothing is measured; a failed
 * request keeps the last answer, whose `offered_rps` says the load it is for. */
export function useModelAtLoad(deploymentId: string, measuredRps: number | null | undefined): ModelAtLoad | null {
  const load = loadToAsk(measuredRps);
  const [answer, setAnswer] = useState<ModelAtLoad | null>(null);
  useEffect(() => {
    if (load === null) return undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetchModelAtLoad(deploymentId, load, controller.signal).then(
        (model) => {
          if (!controller.signal.aborted) setAnswer(model);
        },
        () => undefined, // aborted, or the API away: the line says what it has
      );
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [deploymentId, load]);
  return load !== null ? answer : null;
}
