import { useEffect, useState } from "react";

import type { Refusal } from "../lib/errors";
import { type CostControl, type CostControls, type CostEfficiency, fetchCostEfficiency, settleCost } from "./costQuery";

/** Typing settles this long before the API is asked, so a price typed digit by digit is one request. */
const SETTLE_MS = 300;
/** The live figures move every second; the table follows them at this pace (each answer can take ~1 s). */
const REFRESH_MS = 5000;

export interface CostEfficiencyState {
  /** The API's last answer for the current controls; null before the first, or while the controls are refused. */
  answer: CostEfficiency | null;
  /** Why the last request failed: the API's message, by control where it names one. */
  refusal: Refusal<CostControl> | null;
  loading: boolean;
}

/** GET /clusters/{name}/cost-efficiency for the panel's controls, asked again every few seconds. A failed
 * refresh keeps the last answer (the panel marks it old); a refused control clears it. */
export function useCostEfficiency(clusterName: string, controls: CostControls): CostEfficiencyState {
  const [state, setState] = useState<CostEfficiencyState>({ answer: null, refusal: null, loading: true });
  const { years, price } = controls;
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const ask = () => {
      setState((s) => ({ ...s, loading: true }));
      fetchCostEfficiency(clusterName, { years, price }, controller.signal).then(
        (result) => {
          if (controller.signal.aborted) return;
          setState((s) => ({ answer: settleCost(s.answer, result), refusal: result.refusal, loading: false }));
          timer = setTimeout(ask, REFRESH_MS);
        },
        () => undefined, // aborted: the controls changed or the page left
      );
    };
    timer = setTimeout(ask, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [clusterName, years, price]);
  return state;
}
