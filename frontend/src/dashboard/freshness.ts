// Staleness display rules: whether a figure is shown as current, as old (greyed and struck through, with how
// old), or not at all. Nothing old is ever shown as current: a node is old when the live view says it is
// stale (its heartbeat is older than stale_after_ms by now, or the stream is not current), and the
// per-application and cluster figures are old whenever the stream is not current.

import { formatAge } from "./format";

/** current: shown as is; old: last known, greyed and struck; none: nothing to show yet. */
export type Freshness = "current" | "old" | "none";

export interface FreshnessNote {
  freshness: Freshness;
  /** What a person reads beside the figures ("no data for 3.2 s"). */
  note: string;
}

/** A node as the live view gives it: its heartbeat time, its age now, and the stale verdict. */
export interface NodeAge {
  ts: string | null;
  ageNowMs: number | null;
  stale: boolean;
}

/** How a node's figures are shown. */
export function nodeFreshness(node: NodeAge): FreshnessNote {
  if (node.ts === null || node.ageNowMs === null) return { freshness: "none", note: "no heartbeat yet" };
  if (node.stale) return { freshness: "old", note: `no data for ${formatAge(node.ageNowMs)}` };
  return { freshness: "current", note: "live" };
}

/** How the stream-wide figures (applications, cluster) are shown: `lastMessageAt` is when the last message
 * came (local ms, null: none yet), `current` the live view's verdict. */
export function streamFreshness(current: boolean, lastMessageAt: number | null, now: number): FreshnessNote {
  if (lastMessageAt === null) return { freshness: "none", note: "waiting for live data" };
  if (!current) return { freshness: "old", note: `no data for ${formatAge(Math.max(0, now - lastMessageAt))}` };
  return { freshness: "current", note: "live" };
}

/** The text of a figure under a freshness: a dash when there is nothing, the (possibly old) value otherwise;
 * `old` tells the component to grey and strike it. */
export function shownFigure(text: string, freshness: Freshness): { text: string; old: boolean } {
  if (freshness === "none") return { text: "—", old: false };
  return { text, old: freshness === "old" };
}

/** The badge tone of a node's membership state. */
export function stateTone(state: "up" | "suspect" | "down"): "ok" | "warn" | "bad" {
  return state === "up" ? "ok" : state === "suspect" ? "warn" : "bad";
}

/** A note for an aggregate over nodes that are not all reporting. */
export function partialNote(complete: boolean, nodesStale: number): string | null {
  if (complete) return null;
  return `partial: ${nodesStale} node${nodesStale === 1 ? "" : "s"} not reporting`;
}
