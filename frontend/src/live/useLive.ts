import { useEffect, useState, useSyncExternalStore } from "react";

import { LiveClient, type LiveClientOptions, type LiveClientState } from "./LiveClient";
import { emptyLiveData, liveView, type LiveView } from "./liveState";

const RENDER_MS = 250; // ages are reckoned again this often, so a silent node turns stale on time

const idle: LiveClientState = {
  connection: "connecting",
  transport: "websocket",
  error: null,
  attempt: 0,
  data: emptyLiveData,
};
const noStore = { subscribe: () => () => {}, getState: () => idle };

export interface UseLive extends Omit<LiveClientState, "data"> {
  view: LiveView;
}

/** A cluster's live state (docs/live.md), connected while `cluster` and `token` are set. */
export function useLive(
  cluster: string | null,
  token: string | null,
  options: Omit<LiveClientOptions, "cluster" | "token"> = {},
): UseLive {
  const [client, setClient] = useState<LiveClient | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (!cluster || !token) return;
    const next = new LiveClient({ ...options, cluster, token });
    setClient(next);
    next.start();
    return () => {
      next.stop();
      setClient(null);
    };
    // options are read when the client is made; a new cluster or token makes a new one
  }, [cluster, token]);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), RENDER_MS);
    return () => clearInterval(timer);
  }, []);

  const store = client ?? noStore;
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { data, ...rest } = state;
  const gapMs = client?.deliveryGapMs ?? 0;
  return { ...rest, view: liveView(data, state.connection, Math.max(now, data.receivedAt), gapMs) };
}
