// The live data as a dashboard shows it: messages merged (a snapshot replaces, an update replaces the nodes
// it carries), and every figure's age reckoned at render time, so nothing old is shown as current.

import type { LiveApplication, LiveConnection, LiveInstance, LiveMessage, LiveNode, LiveTotals } from "./types";

/** A node as last received, with the local time it was received. */
interface HeldNode {
  node: LiveNode;
  receivedAt: number; // local ms (performance.now or Date.now, as long as it is one clock)
}

export interface LiveData {
  cluster: { id: string; name: string } | null;
  staleAfterMs: number;
  nodes: Map<string, HeldNode>;
  order: string[]; // node ids in the snapshot's order (rack, server, host before its NICs)
  instances: LiveInstance[];
  applications: LiveApplication[];
  totals: LiveTotals | null;
  serverTime: string | null; // of the last message
  receivedAt: number; // local ms of the last message
  seq: number;
}

export const emptyLiveData: LiveData = {
  cluster: null,
  staleAfterMs: 500,
  nodes: new Map(),
  order: [],
  instances: [],
  applications: [],
  totals: null,
  serverTime: null,
  receivedAt: 0,
  seq: 0,
};

/** The data after one message received at local time `now`. */
export function applyMessage(prev: LiveData, message: LiveMessage, now: number): LiveData {
  const base = message.type === "snapshot" ? emptyLiveData : prev;
  const nodes = new Map(base.nodes);
  for (const node of message.nodes) nodes.set(node.id, { node, receivedAt: now });
  return {
    cluster: message.type === "snapshot" ? (message.cluster ?? null) : prev.cluster,
    staleAfterMs: message.stale_after_ms,
    nodes,
    order: message.type === "snapshot" ? message.nodes.map((n) => n.id) : prev.order,
    instances: message.type === "snapshot" ? (message.instances ?? []) : prev.instances,
    applications: message.applications,
    totals: message.totals,
    serverTime: message.server_time,
    receivedAt: now,
    seq: message.seq,
  };
}

/** Whether the stream is delivering: connected, and a message came within `silentMs`. */
export function streamIsCurrent(data: LiveData, connection: LiveConnection, now: number, silentMs = 1000): boolean {
  return (connection === "live" || connection === "fallback") && data.seq > 0 && now - data.receivedAt <= silentMs;
}

export interface NodeNow extends LiveNode {
  /** The heartbeat's age now: its age when sent, plus the time since (null: never reported). */
  ageNowMs: number | null;
}

export interface LiveView {
  /** False while the stream is lost or silent: every figure is then shown as old, not current. */
  current: boolean;
  nodes: NodeNow[];
  /** Aggregates are over the nodes reporting; not current when the stream is not. */
  applications: LiveApplication[];
  totals: LiveTotals | null;
  instances: LiveInstance[];
}

/** What to show at local time `now`: a node is stale when the server said so, when its heartbeat is older than
 * stale_after_ms by now, or when the stream is not current. `gapMs`: the transport's normal wait between
 * messages beyond a stream's (the poll interval while polling), allowed for in both, so a node does not turn
 * stale between two polls only because the next answer has not come yet. */
export function liveView(data: LiveData, connection: LiveConnection, now: number, gapMs = 0): LiveView {
  const current = streamIsCurrent(data, connection, now, 1000 + gapMs);
  const nodes: NodeNow[] = [];
  for (const id of data.order) {
    const held = data.nodes.get(id);
    if (!held) continue;
    const { node, receivedAt } = held;
    const ageNowMs = node.age_ms == null ? null : node.age_ms + Math.max(0, now - receivedAt);
    const stale = !current || node.stale || ageNowMs == null || ageNowMs > data.staleAfterMs + gapMs;
    nodes.push({ ...node, ageNowMs, stale });
  }
  return {
    current,
    nodes,
    applications: data.applications,
    totals: data.totals,
    instances: data.instances,
  };
}
