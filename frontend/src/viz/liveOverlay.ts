// The placement view's live colouring, as data: each instance coloured by the ingress queue of the
// node it runs on (its requests wait there), each DAG edge between primaries drawn by its estimated
// traffic, and nodes whose figures are not current greyed out. Pure: from the layout and the live
// view (live/liveState.ts), no DOM.
//
// Heartbeats carry a queue per node and a request rate per instance, not per edge: an edge's traffic
// is estimated by splitting each downstream instance's request rate over its upstream primaries in
// proportion to their own rates. It is labelled an estimate wherever it is shown.

import { interpolateRgb, scaleLinear, scaleSequentialSqrt, interpolateBlues } from "d3";

/** The parts of the layout it needs (the generated layout type fits). */
export interface OverlayLayout {
  nodes: { id: string }[];
  deployments: { edges: [string, string][] | string[][] }[];
  instances: { id: string[]; node: number[]; deployment: number[]; dag_node: string[]; replica: number[] };
}

/** The parts of a live node it needs (live/liveState.ts NodeNow fits). */
export interface OverlayNode {
  id: string;
  stale: boolean;
  ts: string | null;
  queue_len: number | null;
  instances: { id: string; requests_per_s: number | null }[];
}

export interface LiveEdge {
  from: number;
  to: number;
  /** Estimated requests/s along it; null when either end is not current. */
  rps: number | null;
  color: string;
  /** CSS pixels. */
  width: number;
}

export interface LiveOverlay {
  /** Fill per layout instance. */
  instanceColors: string[];
  /** 1 where the node's figures are not current (stale, down, never reported). */
  staleNodes: Uint8Array;
  edges: LiveEdge[];
  /** The largest edge rate, for the legend. */
  maxRps: number;
  /** Nodes reporting current figures. */
  reporting: number;
}

export const STALE_COLOR = "#7d8590";
/** An edge whose traffic is not known: faint, so the known ones stand out. */
export const UNKNOWN_EDGE_COLOR = "rgba(125, 133, 144, 0.3)";
/** A standing queue for the orchestrator's detection (docs/orchestrator.md, queue_threshold). */
export const QUEUE_STANDING = 32;
export const QUEUE_FULL_SCALE = 64;

const queueScale = scaleLinear<string>()
  .domain([0, QUEUE_STANDING / 4, QUEUE_STANDING, QUEUE_FULL_SCALE])
  .range(["#2f9e6b", "#9bc53d", "#e8a317", "#d1495b"])
  .interpolate(interpolateRgb)
  .clamp(true);

/** The colour of an ingress queue of `packets` (green empty, amber standing, red at twice that). */
export function queueColor(packets: number | null): string {
  return packets === null || !Number.isFinite(packets) ? STALE_COLOR : queueScale(Math.max(0, packets));
}

/** Stops for the legend's gradient. */
export const QUEUE_LEGEND = [0, QUEUE_STANDING / 4, QUEUE_STANDING, QUEUE_FULL_SCALE].map((q) => ({ packets: q, color: queueColor(q) }));

/** An edge's colour and width for `rps` on a scale up to `max`. */
export function trafficStyle(rps: number | null, max: number): { color: string; width: number } {
  if (rps === null) return { color: UNKNOWN_EDGE_COLOR, width: 0.6 };
  const top = max > 0 ? max : 1;
  const t = Math.min(1, Math.max(0, rps / top));
  const color = scaleSequentialSqrt(interpolateBlues).domain([0, top]).clamp(true)(rps * 0.8 + top * 0.2);
  return { color, width: 0.75 + 3.25 * Math.sqrt(t) };
}

/**
 * Estimated requests/s on every DAG edge between primaries: a downstream primary's rate split over the
 * upstream primaries feeding it, in proportion to their rates (evenly when they are all 0). Null when the
 * downstream rate or any feeder's rate is not known.
 */
export function edgeTraffic(layout: OverlayLayout, rateOf: (instance: number) => number | null): { from: number; to: number; rps: number | null }[] {
  const inst = layout.instances;
  // Primaries by deployment and DAG node.
  const primaries = new Map<string, number[]>();
  for (let i = 0; i < inst.id.length; i++) {
    if ((inst.replica[i] ?? 0) !== 0) continue;
    const key = `${inst.deployment[i]}|${inst.dag_node[i]}`;
    const list = primaries.get(key);
    if (list) list.push(i);
    else primaries.set(key, [i]);
  }
  const out: { from: number; to: number; rps: number | null }[] = [];
  layout.deployments.forEach((dep, d) => {
    const edges = dep.edges as string[][];
    const upstreamOf = new Map<string, string[]>();
    for (const [a, b] of edges) {
      if (a === undefined || b === undefined) continue;
      const list = upstreamOf.get(b);
      if (list) list.push(a);
      else upstreamOf.set(b, [a]);
    }
    for (const [b, ups] of upstreamOf) {
      const downs = primaries.get(`${d}|${b}`) ?? [];
      const feeders = ups.flatMap((a) => primaries.get(`${d}|${a}`) ?? []);
      if (feeders.length === 0) continue;
      // A split over partly known rates would be a guess shown as a figure: one unknown feeder makes the
      // whole fan-in unknown.
      const known = feeders.map((f) => rateOf(f));
      const complete = known.every((r) => r !== null);
      const sum = known.reduce<number>((s, r) => s + (r ?? 0), 0);
      const weights = sum > 0 ? known.map((r) => (r ?? 0) / sum) : feeders.map(() => 1 / feeders.length);
      for (const bj of downs) {
        const rate = complete ? rateOf(bj) : null;
        feeders.forEach((ai, k) => out.push({ from: ai, to: bj, rps: rate === null ? null : rate * weights[k]! }));
      }
    }
  });
  return out;
}

/** The overlay for `layout` from the live nodes; at most `maxEdges` edges (the busiest kept). */
export function liveOverlay(layout: OverlayLayout, nodes: readonly OverlayNode[], maxEdges = 3000): LiveOverlay {
  const nodeIndex = new Map(layout.nodes.map((n, i) => [n.id, i]));
  const staleNodes = new Uint8Array(layout.nodes.length).fill(1);
  const queue = new Array<number | null>(layout.nodes.length).fill(null);
  const rate = new Map<string, number | null>();
  let reporting = 0;
  for (const n of nodes) {
    const i = nodeIndex.get(n.id);
    const current = !n.stale && n.ts !== null;
    if (current) reporting++;
    for (const f of n.instances) rate.set(f.id, current ? f.requests_per_s : null);
    if (i === undefined) continue;
    staleNodes[i] = current ? 0 : 1;
    queue[i] = current ? n.queue_len : null;
  }
  const inst = layout.instances;
  const instanceColors = new Array<string>(inst.id.length);
  for (let i = 0; i < inst.id.length; i++) {
    const node = inst.node[i] ?? -1;
    instanceColors[i] = node >= 0 && staleNodes[node] === 0 ? queueColor(queue[node] ?? null) : STALE_COLOR;
  }
  const rateOf = (i: number): number | null => {
    const node = inst.node[i] ?? -1;
    if (node < 0 || staleNodes[node] === 1) return null;
    return rate.get(inst.id[i]!) ?? null;
  };
  let traffic = edgeTraffic(layout, rateOf);
  if (traffic.length > maxEdges) traffic = [...traffic].sort((a, b) => (b.rps ?? -1) - (a.rps ?? -1)).slice(0, maxEdges);
  const maxRps = traffic.reduce((m, e) => Math.max(m, e.rps ?? 0), 0);
  const edges = traffic.map((e) => ({ ...e, ...trafficStyle(e.rps, maxRps) }));
  return { instanceColors, staleNodes, edges, maxRps, reporting };
}
