// The live graph of one application's DAG: where its boxes and edges go, how thick an edge is by its rate, and
// which colour a DAG node takes by the figure chosen. Pure: ApplicationGraph.tsx draws what these return.

import { formatRatio } from "../lib/figures";
import type { LiveApplication, LiveInstance, LiveNode } from "../live/types";
import { layoutDag, type XY } from "../viz/dagLayout";
import { heatColour } from "../viz/heatRamp";
import {
  MISSING,
  formatCount,
  formatJoulesPerRequest,
  formatLatencyUs,
  formatPercent,
  formatQueue,
  formatRps,
} from "./format";

export type LiveDagNode = NonNullable<LiveApplication["dag_nodes"]>[number];
export type LiveEdge = NonNullable<LiveApplication["edges"]>[number];
type GraphShape = Pick<LiveApplication, "dag_nodes" | "edges">;

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const positive = (v: unknown): v is number => finite(v) && v > 0;

// ---- layout ----

/** The editor's layered layout, tighter: the graph sits under a dashboard row, not on a canvas of its own. */
export const GRAPH_BOX = { nodeWidth: 190, nodeHeight: 62, layerGap: 70, nodeGap: 16 } as const;

// The bottom margin leaves room for the last box's "N not reporting", written under its box.
const MARGIN = { top: 4, right: 4, bottom: 14, left: 4 } as const;

/** Length of an edge's arrow head: its path stops this short of the target box so the head fills the rest. */
export const ARROW_PX = 9;

export interface EdgeGeometry {
  from: string;
  to: string;
  /** A cubic bezier from the right middle of the source box towards the left middle of the target box. */
  path: string;
  /** The bezier's middle, where its label goes. */
  mid: XY;
}

export interface GraphLayout {
  width: number;
  height: number;
  /** Top-left corner of each DAG node's box. */
  boxes: Map<string, XY>;
  /** By `edgeKey(from, to)`; edges naming an unknown DAG node, or their own source, are left out. */
  edges: Map<string, EdgeGeometry>;
}

export const edgeKey = (from: string, to: string): string => `${from}\u0000${to}`;

const dagIds = (app: GraphShape): string[] => (app.dag_nodes ?? []).map((n) => n.dag_node);

/** Whether the live channel sent a DAG to draw. */
export const hasGraph = (app: GraphShape): boolean => (app.dag_nodes ?? []).length > 0;

/** The DAG's ids and edges as one string: the layout depends on these only, never on the figures. */
export const graphShapeKey = (app: GraphShape): string =>
  JSON.stringify([dagIds(app), (app.edges ?? []).map((e) => [e.from, e.to])]);

// One decimal is finer than a pixel, and keeps the path strings short.
const px = (v: number): number => Math.round(v * 10) / 10;

function edgeGeometry(from: string, to: string, source: XY, target: XY): EdgeGeometry {
  const start = { x: source.x + GRAPH_BOX.nodeWidth, y: source.y + GRAPH_BOX.nodeHeight / 2 };
  const end = { x: target.x - ARROW_PX, y: target.y + GRAPH_BOX.nodeHeight / 2 };
  // Control points level with each end, so the edge leaves and enters its boxes horizontally.
  const pull = Math.max(20, (end.x - start.x) / 2);
  const path =
    `M${px(start.x)},${px(start.y)} C${px(start.x + pull)},${px(start.y)} ` +
    `${px(end.x - pull)},${px(end.y)} ${px(end.x)},${px(end.y)}`;
  // With control points mirrored like these, the bezier at t = 0.5 is the midpoint of its ends.
  return { from, to, path, mid: { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 } };
}

/** The boxes by the editor's layered layout (left to right), each edge's path, and the SVG's size. */
export function graphLayout(app: GraphShape): GraphLayout {
  const placed = layoutDag(dagIds(app), app.edges ?? [], GRAPH_BOX);
  const boxes = new Map<string, XY>();
  for (const [id, p] of placed) boxes.set(id, { x: p.x + MARGIN.left, y: p.y + MARGIN.top });
  const edges = new Map<string, EdgeGeometry>();
  for (const e of app.edges ?? []) {
    const source = boxes.get(e.from);
    const target = boxes.get(e.to);
    if (!source || !target || e.from === e.to) continue;
    edges.set(edgeKey(e.from, e.to), edgeGeometry(e.from, e.to, source, target));
  }
  if (boxes.size === 0) return { width: 0, height: 0, boxes, edges };
  const corners = [...boxes.values()];
  return {
    width: Math.max(...corners.map((c) => c.x)) + GRAPH_BOX.nodeWidth + MARGIN.right,
    height: Math.max(...corners.map((c) => c.y)) + GRAPH_BOX.nodeHeight + MARGIN.bottom,
    boxes,
    edges,
  };
}

// ---- edges ----

export const EDGE_WIDTH = { idle: 1, least: 1.5, most: 8 } as const;

/** The largest rate among the edges, 0 when none has one. */
export const maxEdgeRate = (edges: readonly LiveEdge[]): number =>
  Math.max(0, ...edges.map((e) => e.rate_rps).filter(positive));

/** Stroke width in px: a sqrt scale, so the area of the line follows the rate, from `least` to `most` at
 * `maxRate` (and capped there); `idle` for no rate. */
export function edgeWidth(rate: number | null | undefined, maxRate: number | null | undefined): number {
  if (!positive(rate)) return EDGE_WIDTH.idle;
  const top = Math.max(rate, positive(maxRate) ? maxRate : 0);
  return EDGE_WIDTH.least + (EDGE_WIDTH.most - EDGE_WIDTH.least) * Math.sqrt(rate / top);
}

export interface EdgeLook {
  width: number;
  /** Drawn dashed: an estimate, or nothing measured. */
  dashed: boolean;
  /** Drawn grey: no traffic seen along it, or not measured. */
  muted: boolean;
}

export function edgeLook(edge: LiveEdge, maxRate: number): EdgeLook {
  const muted = !positive(edge.rate_rps) || edge.basis === "not_measured";
  return { width: edgeWidth(edge.rate_rps, maxRate), dashed: muted || edge.basis === "split_by_caller_rate", muted };
}

// A request of the source making one call along the edge is the usual case: only other counts are written.
const PER_REQUEST_TOLERANCE = 0.05;

/** The edge's label: its rate, and "×N" when a request of its source makes other than one call along it. */
export function edgeLabel(edge: LiveEdge): string {
  const rate = formatRps(edge.rate_rps);
  const n = edge.per_request;
  return finite(n) && Math.abs(n - 1) > PER_REQUEST_TOLERANCE ? `${rate} ${formatRatio(n)}` : rate;
}

/** The edge's tooltip: what its rate is. */
export function edgeTitle(edge: LiveEdge): string {
  const route = `${edge.from} → ${edge.to}: ${edgeLabel(edge)}`;
  switch (edge.basis) {
    case "split_by_caller_rate":
      return `${route}, an estimate: ${edge.to}'s throughput split among its callers by their throughput`;
    case "not_measured":
      return `${route}, not measured`;
    default:
      return `${route}, ${edge.to}'s throughput`;
  }
}

// ---- colour ----

export type ColourBy = "joules" | "latency" | "utilisation" | "queue";

export interface ColourChoice {
  label: string;
  unit: string;
  /** The figure as text, with its unit. */
  format: (value: number | null) => string;
  /** What the figure is, for a tooltip. */
  title: string;
}

export const COLOUR_CHOICES: Record<ColourBy, ColourChoice> = {
  joules: {
    label: "J/request",
    unit: "J/req",
    format: formatJoulesPerRequest,
    title: "the watts attributed to its instances over its throughput",
  },
  latency: {
    label: "p99 latency",
    unit: "µs",
    format: formatLatencyUs,
    title: "the highest per-heartbeat p99 among its primaries (an upper bound); the average where no p99 is measured",
  },
  utilisation: {
    label: "CPU share",
    unit: "%",
    format: formatPercent,
    title: "the mean CPU share of its primaries",
  },
  queue: {
    label: "queue depth",
    unit: "pkt",
    format: formatQueue,
    title: "the deepest queue of the nodes its primaries run on",
  },
};

export const COLOUR_ORDER: readonly ColourBy[] = ["joules", "latency", "utilisation", "queue"];

/** The fill of a DAG node without the figure. */
export const NOT_MEASURED_FILL = "#c9ced6";

/** The DAG node's figure that picks its colour, null when not measured. */
export function figureOf(node: LiveDagNode, by: ColourBy): number | null {
  const value = rawFigure(node, by);
  return finite(value) ? value : null;
}

function rawFigure(node: LiveDagNode, by: ColourBy): number | null {
  switch (by) {
    case "joules":
      return node.joules_per_request;
    case "latency":
      return finite(node.p99_latency_us) ? node.p99_latency_us : node.avg_latency_us;
    case "utilisation":
      return node.cpu_share;
    case "queue":
      return node.queue_max;
  }
}

export interface ColourScale {
  colour: (value: number | null) => string;
  /** Null when no DAG node has the figure. */
  min: number | null;
  max: number | null;
  unit: string;
}

/** Yellow (the least among the DAG nodes) to red (the most); grey for none; one value alone is mid-ramp. */
export function colourScale(nodes: readonly LiveDagNode[], by: ColourBy): ColourScale {
  const values = nodes.map((n) => figureOf(n, by)).filter(finite);
  const min = values.length > 0 ? Math.min(...values) : null;
  const max = values.length > 0 ? Math.max(...values) : null;
  const colour = (value: number | null): string => {
    if (!finite(value) || min === null || max === null) return NOT_MEASURED_FILL;
    if (max === min) return heatColour(0.5);
    return heatColour((value - min) / (max - min));
  };
  return { colour, min, max, unit: COLOUR_CHOICES[by].unit };
}

// ---- text ----

const PLATFORM_NAMES: Record<string, string> = { host: "host", smartnic: "NIC", unknown: "unknown" };
const PLATFORM_ORDER = Object.keys(PLATFORM_NAMES);

/** Its instances by platform: "2 host · 1 NIC" (zero counts left out), "no instance" when none. */
export function platformText(instances: Record<string, number> | null | undefined): string {
  const counts = instances ?? {};
  const others = Object.keys(counts).filter((k) => !PLATFORM_ORDER.includes(k)).sort();
  const parts = [...PLATFORM_ORDER, ...others]
    .filter((k) => positive(counts[k]))
    .map((k) => `${formatCount(counts[k])} ${PLATFORM_NAMES[k] ?? k}`);
  return parts.length > 0 ? parts.join(" · ") : "no instance";
}

/** The box's latency: the p99 when measured ("p99 ≤", an upper bound), else the average. */
export function nodeLatencyText(node: LiveDagNode): string {
  if (finite(node.p99_latency_us)) return `p99 ≤ ${formatLatencyUs(node.p99_latency_us)}`;
  return `avg ${formatLatencyUs(node.avg_latency_us)}`;
}

/** "N not reporting" when some of its instances are on nodes not reporting, else null. */
export const staleText = (node: LiveDagNode): string | null =>
  node.instances_stale > 0 ? `${formatCount(node.instances_stale)} not reporting` : null;

// About the characters of bold 0.72rem text that fit across a box; a longer id is cut, its box's title has it all.
const ID_CHARS = 26;

/** The DAG node's id as it fits in its box, cut with "…" when longer. */
export const boxTitle = (id: string): string => (id.length > ID_CHARS ? `${id.slice(0, ID_CHARS - 1)}…` : id);

/** The DAG node's figures, label and text, for the details box. */
export function dagNodeDetails(node: LiveDagNode): [label: string, text: string][] {
  return [
    ["Instances", platformText(node.instances)],
    ["Primaries", formatCount(node.primaries)],
    ["Not reporting", formatCount(node.instances_stale)],
    ["Throughput", formatRps(node.throughput_rps)],
    ["Avg latency", formatLatencyUs(node.avg_latency_us)],
    ["p99 latency", finite(node.p99_latency_us) ? `≤ ${formatLatencyUs(node.p99_latency_us)}` : MISSING],
    ["Energy", formatJoulesPerRequest(node.joules_per_request)],
    ["CPU share", formatPercent(node.cpu_share)],
    ["Queue", formatQueue(node.queue_max)],
  ];
}

/** One instance of a DAG node as its details list it: where it runs and in what state. */
export interface DagNodeInstance {
  id: string;
  role: string;
  shard: number;
  replica: number;
  node: string;
  platform: string;
  state: string;
}

/** The DAG node's instances (of one deployment), by shard then replica (the primary first), each with its node's
 * name, platform and membership state ("unknown" for a node the channel does not list). */
export function dagNodeInstances(
  dagNode: string,
  deploymentId: string,
  instances: readonly LiveInstance[],
  nodes: readonly Pick<LiveNode, "id" | "name" | "kind" | "state">[],
): DagNodeInstance[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return instances
    .filter((i) => i.deployment_id === deploymentId && i.dag_node === dagNode)
    .sort((a, b) => a.shard - b.shard || a.replica - b.replica)
    .map((i) => {
      const node = byId.get(i.node_id);
      return {
        id: i.id,
        role: i.role,
        shard: i.shard,
        replica: i.replica,
        node: node?.name ?? i.node_id,
        platform: node ? (PLATFORM_NAMES[node.kind] ?? node.kind) : "unknown",
        state: node?.state ?? "unknown",
      };
    });
}
