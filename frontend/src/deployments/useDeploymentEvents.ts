import { useEffect, useState } from "react";
import type { DeploymentRow } from "../api/client";
import { api, unwrap } from "../api/http";
import { describeError } from "../lib/errors";
import { type TimelineEntry, buildLookup, toEntry } from "../timeline/entries";
import { lookupSourceOf } from "./deploymentEvents";

/** Its newest events read at a time. */
export const EVENTS_READ = 200;
/** Its instances read to name them in the events (beyond these, an instance is named by its id). */
const NAMED_INSTANCES = 1000;

export interface DeploymentEventsState {
  /** Newest first. */
  entries: TimelineEntry[];
  loading: boolean;
  error: string | null;
}

/** The deployment's events (GET /events?deployment=: its own and its instances'), as timeline entries naming its
 * instances; read again whenever `refreshKey` changes. */
export function useDeploymentEvents(deployment: DeploymentRow | null, refreshKey: string): DeploymentEventsState {
  const [state, setState] = useState<DeploymentEventsState>({ entries: [], loading: true, error: null });
  const id = deployment?.id ?? null;
  const application = deployment?.application ?? "";

  useEffect(() => {
    if (id === null) return;
    const controller = new AbortController();
    const signal = controller.signal;
    setState((s) => ({ ...s, loading: true }));
    Promise.all([
      api.GET("/api/v1/events", { params: { query: { deployment: id, last: EVENTS_READ } }, signal }).then(unwrap),
      api.GET("/api/v1/deployments/{deployment_id}/placement", {
        params: { path: { deployment_id: id }, query: { limit: NAMED_INSTANCES } },
        signal,
      }).then(unwrap),
    ]).then(
      ([events, placement]) => {
        if (signal.aborted) return;
        const lookup = buildLookup(lookupSourceOf(application, id, placement.items));
        const entries = events.items.map((e) => toEntry(e, lookup)).reverse();
        setState({ entries, loading: false, error: null });
      },
      (error: unknown) => {
        if (!signal.aborted) setState((s) => ({ ...s, loading: false, error: describeError(error) }));
      },
    );
    return () => controller.abort();
  }, [id, application, refreshKey]);

  return state;
}
