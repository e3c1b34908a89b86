import { useEffect, useState } from "react";

import type { Refusal } from "../lib/errors";
import { fetchEnergy, type RangeField } from "./energyApi";
import type { EnergyHistory, EnergyScope } from "./energyTypes";
import { isRangeProblem, type RangeChoice, type RangeProblem, type RangeQuery, rangeQuery } from "./timeRange";

/** A preset range ends now: it is asked again this often, as the history's rollups close every 10 s. */
const REFRESH_MS = 10_000;

export interface EnergyHistoryState {
  /** The last answer for the current range; null before it, or when the range was refused. */
  answer: EnergyHistory | null;
  /** The API's refusal (a 422 names from, to or step), or why the request failed. */
  refusal: Refusal<RangeField> | null;
  /** A custom range the picker could not send (a field left empty). */
  problem: RangeProblem | null;
  /** The request last sent. */
  query: RangeQuery | null;
  loading: boolean;
}

/** GET the scope's energy history for the picked range; a preset range follows the clock. A failed refresh
 * keeps the last answer; a refused range clears it, so no chart is shown for a range the API did not accept. */
export function useEnergyHistory(scope: EnergyScope, choice: RangeChoice): EnergyHistoryState {
  const [state, setState] = useState<EnergyHistoryState>({ answer: null, refusal: null, problem: null, query: null, loading: true });
  const scopeKey = JSON.stringify(scope);
  const choiceKey = JSON.stringify(choice);
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = () => {
      const query = rangeQuery(choice, Date.now());
      if (isRangeProblem(query)) {
        setState({ answer: null, refusal: null, problem: query, query: null, loading: false });
        return;
      }
      setState((s) => ({ ...s, problem: null, query, loading: true }));
      fetchEnergy(scope, query, controller.signal).then(
        (result) => {
          if (controller.signal.aborted) return;
          const refusedRange = result.refusal !== null && Object.keys(result.refusal.byField).length > 0;
          setState((s) => ({
            answer: result.answer ?? (refusedRange ? null : s.answer),
            refusal: result.refusal,
            problem: null,
            query,
            loading: false,
          }));
          if (choice.kind === "preset") timer = setTimeout(ask, REFRESH_MS);
        },
        () => undefined, // aborted: the range or scope changed, or the page left
      );
    };
    // a new range or scope starts empty: the last chart was for another range
    setState({ answer: null, refusal: null, problem: null, query: null, loading: true });
    ask();
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // scope and choice are compared by value (their keys)
  }, [scopeKey, choiceKey]);
  return state;
}
