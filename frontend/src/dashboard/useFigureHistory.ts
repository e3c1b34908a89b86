import { useEffect, useState } from "react";

import { fetchEnergy } from "../energy/energyApi";
import type { EnergyScope } from "../energy/energyTypes";
import { type EnergySeries, shapeEnergy } from "../energy/series";
import { lastSecondsQuery } from "../energy/timeRange";
import { describeError } from "../lib/errors";
import { type ChartRef, figureSpec } from "./chartFigures";
import { type ChartRangeId, rangeSeconds, refreshMs } from "./chartRange";
import { type ServerHistory, fetchServerHistory } from "./serverHistory";

export interface FigureHistoryState {
  /** GET /clusters/{name}/history over the range; null before it, or when it failed. */
  history: ServerHistory | null;
  /** The energy history over the range (an energy figure's J/request or sources); null when not asked. */
  energy: EnergySeries | null;
  /** Why the range could not be read (the API's refusal, or the API away). */
  error: string | null;
  /** Why the energy history could not be read: the sources are then the live messages' only. */
  energyError: string | null;
  loading: boolean;
}

const EMPTY: FigureHistoryState = { history: null, energy: null, error: null, energyError: null, loading: true };

/** Whose energy history a figure reads, or null when it reads none. */
function energyScope(ref: ChartRef, clusterName: string): EnergyScope | null {
  const spec = figureSpec(ref);
  if (spec.values.from !== "energy" && spec.sources !== "energy") return null;
  if (ref.scope === "application") return { kind: "application", name: ref.name, cluster: clusterName };
  return ref.scope === "cluster" ? { kind: "cluster", name: clusterName } : null;
}

/** The server's history of one figure over the chosen range: the cluster's history (GET /clusters/{name}/history
 * ?minutes=) and, for an energy figure, the energy history; read again every 10 steps or so (refreshMs). A new
 * figure or range starts empty; a failed refresh keeps the last answer. */
export function useFigureHistory(clusterName: string, ref: ChartRef, range: ChartRangeId): FigureHistoryState {
  const [state, setState] = useState<FigureHistoryState>(EMPTY);
  const readsHistory = figureSpec(ref).values.from === "history";
  const scope = energyScope(ref, clusterName);
  const scopeKey = JSON.stringify(scope);
  const refKey = JSON.stringify(ref);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    const seconds = rangeSeconds(range);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      const [history, energy] = await Promise.all([
        readsHistory
          ? fetchServerHistory(clusterName, signal, seconds / 60).then(
              (answer) => ({ answer, error: null }),
              (error: unknown) => ({ answer: null, error: describeError(error) }),
            )
          : null,
        scope ? fetchEnergy(scope, lastSecondsQuery(seconds, Date.now()), signal) : null,
      ]);
      if (signal.aborted) return;
      const energySeries = energy?.answer ? shapeEnergy(energy.answer, Date.now()) : null;
      setState((s) => ({
        history: history?.answer ?? s.history,
        energy: energySeries ?? s.energy,
        error: history?.error ?? null,
        energyError: energy?.refusal?.message ?? null,
        loading: false,
      }));
      const stepS = history?.answer?.step_s ?? energySeries?.stepS ?? 1;
      timer = setTimeout(() => void ask().catch(() => undefined), refreshMs(stepS));
    };
    setState(EMPTY);
    ask().catch(() => undefined); // aborted: the figure or range changed, or the panel closed
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // the figure and its energy scope are compared by value (their keys)
  }, [clusterName, refKey, scopeKey, readsHistory, range]);
  return state;
}
