import { useRef } from "react";

import type { LiveView } from "../live/liveState";
import { LiveRecorder } from "./recorder";

/** The history of a live view, kept for the page's life. Recorded during render, not in an effect: recording
 * is idempotent (by heartbeat time and message identity), and this way the sparklines drawn in the same render
 * already hold the newest sample instead of lagging one render behind. */
export function useLiveHistory(view: LiveView): LiveRecorder {
  const ref = useRef<LiveRecorder | null>(null);
  if (ref.current === null) ref.current = new LiveRecorder();
  ref.current.record(view, Date.now());
  return ref.current;
}
