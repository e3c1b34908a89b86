import { useEffect, useState } from "react";
import type { EventRow } from "../api/client";
import { type EventBuffer, appendEvents, emptyBuffer } from "./eventBuffer";
import { EventStream, type EventStreamState } from "./eventStream";

/** Events kept in the browser; older ones fall off the timeline. */
export const TIMELINE_MAX = 1000;
/** Events read on first connecting (the newest); a reconnect resumes after the last one received. */
export const TIMELINE_FIRST = 200;

export interface EventTimeline extends EventStreamState {
  events: EventRow[];
  lastId: number;
}

/** The cluster's events from GET /events/stream: the newest TIMELINE_FIRST, then each as it is committed; resumes
 * after a loss. */
export function useEventTimeline(cluster: string, token: string | null): EventTimeline {
  const [buffer, setBuffer] = useState<EventBuffer<EventRow>>(emptyBuffer);
  const [stream, setStream] = useState<EventStreamState>({ connection: "connecting", error: null, attempt: 0 });

  useEffect(() => {
    setBuffer(emptyBuffer());
    if (!token) return;
    const s = new EventStream({
      cluster,
      token,
      last: TIMELINE_FIRST,
      onEvents: (events) => setBuffer((b) => appendEvents(b, events, TIMELINE_MAX)),
      onState: setStream,
    });
    s.start();
    return () => s.stop();
  }, [cluster, token]);

  return { ...stream, events: buffer.items, lastId: buffer.lastId };
}
