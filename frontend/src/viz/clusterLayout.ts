// Geometry of the cluster view, as plain data: racks in a grid, each server a row of node
// boxes (host first, then its SmartNICs), each placed instance a small square packed inside
// its node's box. Pure: no DOM, no React; the canvas (clusterCanvas.ts) only draws it.
// World units are CSS pixels at zoom 1.

import { type InstanceLook, instanceLook } from "./instanceLook";

/** The parts of GET /clusters/{name}/layout the geometry needs (the generated type fits). */
export interface ClusterLayoutData {
  cluster: string;
  racks: { name: string; pod: number }[];
  servers: { name: string; server_type: string; rack: number }[];
  nodes: { name: string; kind: string; server: number; cores: number; used_cores: number; memory_mb?: number; used_memory_mb?: number; state?: string }[];
  deployments: { application: string; edges: [string, string][] | string[][] }[];
  instances: {
    id: string[];
    node: number[];
    deployment: number[];
    dag_node: string[];
    service: string[];
    shard: number[];
    replica: number[];
    /** Each instance's state (placed | deploying | running | failed | seeding) and its agent's refusal. */
    state?: string[];
    error?: ({ code: string; message: string } | null)[];
  };
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface RackSummary {
  servers: number;
  hostNodes: number;
  smartnicNodes: number;
  /** Instances counted under the current filter. */
  instances: number;
  primaries: number;
  /** Instances counted that their agents refused. */
  failed: number;
  cores: number;
  usedCores: number;
  /** usedCores / cores, 0..1 */
  utilisation: number;
}

export interface RackBox extends Rect {
  rack: number;
  name: string;
  /** Drawn as one summary block (no servers, nodes or marks inside). */
  collapsed: boolean;
  /** Drawn in full although racks are collapsed: a click on its header collapses it again. */
  collapsible: boolean;
  /** The clickable title strip at the top of the rack. */
  header: Rect;
  summary: RackSummary;
  /** This rack's node boxes are nodes[nodeStart, nodeEnd); its marks marks[markStart, markEnd). */
  nodeStart: number;
  nodeEnd: number;
  markStart: number;
  markEnd: number;
}

/** A FatTree pod's racks framed together (drawn only when the cluster has two pods or more). */
export interface PodBox extends Rect {
  /** The racks' `pod` number. */
  pod: number;
  name: string;
  /** The title strip at the top of the pod. */
  header: Rect;
  /** Its racks (indices into racks, ascending). */
  racks: number[];
  /** Its racks' summaries added up. */
  summary: RackSummary;
}

export interface ServerRow extends Rect {
  server: number;
  name: string;
}

export interface NodeBox extends Rect {
  node: number;
  kind: string;
  /** used_cores / cores, clamped to 0..1 */
  utilisation: number;
  /** The fill bar for utilisation (full width = 100 %). */
  bar: Rect;
  /** Instances on it under the current filter. */
  instances: number;
}

export interface Mark extends Rect {
  instance: number;
  deployment: number;
  primary: boolean;
  /** How its state is drawn (instanceLook.ts). */
  look: InstanceLook;
}

export interface ClusterGeometry extends Rect {
  /** Empty unless the racks belong to two pods or more. */
  pods: PodBox[];
  /** racks[i] is rack i's box. */
  racks: RackBox[];
  servers: ServerRow[];
  nodes: NodeBox[];
  marks: Mark[];
  /** markOfInstance[i] is the index into marks of instance i's mark, or -1 when not drawn. */
  markOfInstance: Int32Array;
  /** Instances passing the filter, drawn or inside a collapsed rack. */
  filteredInstances: number;
}

export interface LayoutOptions {
  /** Collapse racks into summary blocks. */
  collapsed?: boolean;
  /** With `collapsed`, these racks (indices) are drawn in full anyway. */
  expandedRacks?: ReadonlySet<number>;
  /** Only this application's instances get marks (null/undefined/"": all). */
  application?: string | null;
  /** Width / height the rack grid should roughly have (the viewport's). */
  aspect?: number;
}

export const MARK_SIZE = 4;
const MARK_STEP = MARK_SIZE + 1;
const NODE_PAD = 2;
const BAR_H = 3;
const NODE_GAP = 3;
const ROW_GAP = 3;
const SERVER_LABEL_W = 62;
const RACK_PAD = 6;
const HEADER_H = 18;
const SUMMARY_H = 58;
const RACK_GAP = 18;
const POD_PAD = 8;
const POD_HEADER_H = 22;
const POD_GAP = 30;

function clamp01(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
}

/** Lays the cluster out; see the module comment. */
export function computeClusterLayout(data: ClusterLayoutData, options: LayoutOptions = {}): ClusterGeometry {
  const { racks, servers, nodes, deployments, instances } = data;
  const collapsedAll = options.collapsed ?? false;
  const expanded = options.expandedRacks ?? new Set<number>();
  const app = options.application || null;
  const aspect = options.aspect && options.aspect > 0 ? options.aspect : 1.6;
  const count = instances.node.length;

  // Which instances pass the filter.
  const depPasses = deployments.map((d) => app === null || d.application === app);
  const passes = new Uint8Array(count);
  for (let i = 0; i < count; i++) passes[i] = depPasses[instances.deployment[i] ?? -1] ? 1 : 0;

  // Instances per node (all of them, so box sizes do not jump when filtering).
  const perNodeAll = new Int32Array(nodes.length);
  for (let i = 0; i < count; i++) {
    const n = instances.node[i] ?? -1;
    if (n >= 0 && n < nodes.length) perNodeAll[n] = (perNodeAll[n] ?? 0) + 1;
  }
  let maxPerNode = 0;
  for (const c of perNodeAll) maxPerNode = Math.max(maxPerNode, c);

  // Node box size, uniform over the cluster: 8 marks per row unless a node holds very many.
  const cols = Math.max(8, Math.ceil(Math.sqrt(maxPerNode)));
  const rows = Math.max(1, Math.ceil(maxPerNode / cols));
  const nodeW = NODE_PAD * 2 + cols * MARK_STEP - 1;
  const nodeH = NODE_PAD * 2 + rows * MARK_STEP - 1 + 1 + BAR_H;
  const rowH = nodeH + ROW_GAP;

  // Servers per rack and nodes per server (host first, then the rest in order).
  const serversOfRack: number[][] = racks.map(() => []);
  servers.forEach((s, i) => serversOfRack[s.rack]?.push(i));
  const nodesOfServer: number[][] = servers.map(() => []);
  nodes.forEach((n, i) => nodesOfServer[n.server]?.push(i));
  for (const list of nodesOfServer) {
    list.sort((a, b) => {
      const ha = nodes[a]?.kind === "host" ? 0 : 1;
      const hb = nodes[b]?.kind === "host" ? 0 : 1;
      return ha - hb || a - b;
    });
  }
  let maxNodesPerServer = 1;
  for (const list of nodesOfServer) maxNodesPerServer = Math.max(maxNodesPerServer, list.length);

  // Instances per node, in API order (deployments arrive grouped).
  const instancesOfNode: number[][] = nodes.map(() => []);
  for (let i = 0; i < count; i++) {
    if (passes[i]) instancesOfNode[instances.node[i] ?? -1]?.push(i);
  }

  const rackW = RACK_PAD * 2 + SERVER_LABEL_W + maxNodesPerServer * (nodeW + NODE_GAP) - NODE_GAP;
  const isCollapsed = (r: number) => collapsedAll && !expanded.has(r);
  const rackH = (r: number) =>
    isCollapsed(r) ? HEADER_H + SUMMARY_H : HEADER_H + (serversOfRack[r]?.length ?? 0) * rowH + RACK_PAD;

  const nRacks = racks.length;
  const placed = placeRacks(racks, rackW, rackH, aspect);

  const geometry: ClusterGeometry = {
    x: 0,
    y: 0,
    w: placed.w,
    h: placed.h,
    pods: placed.pods,
    racks: [],
    servers: [],
    nodes: [],
    marks: [],
    markOfInstance: new Int32Array(count).fill(-1),
    filteredInstances: 0,
  };

  for (let r = 0; r < nRacks; r++) {
    const x = placed.x[r]!;
    const y = placed.y[r]!;
    const h = rackH(r);
    const collapsed = isCollapsed(r);
    const summary: RackSummary = { ...addSummaries([]), servers: serversOfRack[r]?.length ?? 0 };
    const box: RackBox = {
      rack: r,
      name: racks[r]?.name ?? `rack ${r}`,
      x,
      y,
      w: rackW,
      h,
      collapsed,
      collapsible: collapsedAll && !collapsed,
      header: { x, y, w: rackW, h: HEADER_H },
      summary,
      nodeStart: geometry.nodes.length,
      nodeEnd: geometry.nodes.length,
      markStart: geometry.marks.length,
      markEnd: geometry.marks.length,
    };
    (serversOfRack[r] ?? []).forEach((s, row) => {
      const sy = y + HEADER_H + row * rowH;
      if (!collapsed) {
        geometry.servers.push({ server: s, name: servers[s]?.name ?? "", x: x + RACK_PAD, y: sy, w: rackW - RACK_PAD * 2, h: nodeH });
      }
      (nodesOfServer[s] ?? []).forEach((n, col) => {
        const node = nodes[n];
        if (node === undefined) return;
        const onNode = instancesOfNode[n] ?? [];
        if (node.kind === "host") summary.hostNodes++;
        else summary.smartnicNodes++;
        summary.cores += node.cores;
        summary.usedCores += node.used_cores;
        summary.instances += onNode.length;
        for (const i of onNode) {
          if ((instances.replica[i] ?? 0) === 0) summary.primaries++;
          if (instances.state?.[i] === "failed") summary.failed++;
        }
        if (collapsed) return;
        const nx = x + RACK_PAD + SERVER_LABEL_W + col * (nodeW + NODE_GAP);
        const utilisation = clamp01(node.cores > 0 ? node.used_cores / node.cores : 0);
        geometry.nodes.push({
          node: n,
          kind: node.kind,
          x: nx,
          y: sy,
          w: nodeW,
          h: nodeH,
          utilisation,
          bar: { x: nx + NODE_PAD, y: sy + nodeH - NODE_PAD - BAR_H, w: (nodeW - NODE_PAD * 2) * utilisation, h: BAR_H },
          instances: onNode.length,
        });
        onNode.forEach((i, slot) => {
          geometry.markOfInstance[i] = geometry.marks.length;
          geometry.marks.push({
            instance: i,
            deployment: instances.deployment[i] ?? -1,
            primary: (instances.replica[i] ?? 0) === 0,
            look: instanceLook(instances.state?.[i]),
            x: nx + NODE_PAD + (slot % cols) * MARK_STEP,
            y: sy + NODE_PAD + Math.floor(slot / cols) * MARK_STEP,
            w: MARK_SIZE,
            h: MARK_SIZE,
          });
        });
      });
    });
    summary.utilisation = clamp01(summary.cores > 0 ? summary.usedCores / summary.cores : 0);
    geometry.filteredInstances += summary.instances;
    box.nodeEnd = geometry.nodes.length;
    box.markEnd = geometry.marks.length;
    geometry.racks.push(box);
  }
  for (const pod of geometry.pods) pod.summary = addSummaries(pod.racks.map((r) => geometry.racks[r]!.summary));
  return geometry;
}

function addSummaries(parts: RackSummary[]): RackSummary {
  const sum = (key: keyof RackSummary) => parts.reduce((total, p) => total + p[key], 0);
  const cores = sum("cores");
  const usedCores = sum("usedCores");
  return {
    servers: sum("servers"),
    hostNodes: sum("hostNodes"),
    smartnicNodes: sum("smartnicNodes"),
    instances: sum("instances"),
    primaries: sum("primaries"),
    failed: sum("failed"),
    cores,
    usedCores,
    utilisation: clamp01(cores > 0 ? usedCores / cores : 0),
  };
}

/** Rows of `items` (heights by index) `cols` wide, `gap` apart: each item's offset from the block's corner. */
function gridOf(items: number[], heightOf: (item: number) => number, cols: number, itemW: number, gap: number) {
  const at = new Map<number, { x: number; y: number }>();
  let y = 0;
  let w = 0;
  for (let start = 0; start < items.length; start += cols) {
    let rowH = 0;
    for (let c = 0; c < cols && start + c < items.length; c++) {
      const item = items[start + c]!;
      at.set(item, { x: c * (itemW + gap), y });
      rowH = Math.max(rowH, heightOf(item));
      w = Math.max(w, c * (itemW + gap) + itemW);
    }
    y += rowH + gap;
  }
  return { at, w, h: Math.max(0, y - gap) };
}

/** Columns for `n` items of `itemW` × `itemH` so the grid is roughly `aspect` wide. */
function columnsFor(n: number, itemW: number, itemH: number, aspect: number): number {
  return n === 0 ? 1 : Math.min(n, Math.max(1, Math.round(Math.sqrt((n * aspect * itemH) / itemW))));
}

/** Where each rack goes: one grid, roughly `aspect` wide; with two pods or more, each pod's racks in a framed
 * square-ish block, the blocks in a grid roughly `aspect` wide. */
function placeRacks(
  racks: ClusterLayoutData["racks"],
  rackW: number,
  rackH: (rack: number) => number,
  aspect: number,
): { x: Float64Array; y: Float64Array; w: number; h: number; pods: PodBox[] } {
  const x = new Float64Array(racks.length);
  const y = new Float64Array(racks.length);
  let typicalH = 0;
  for (let r = 0; r < racks.length; r++) typicalH = Math.max(typicalH, rackH(r));
  const byPod = new Map<number, number[]>();
  racks.forEach((rack, r) => {
    const list = byPod.get(rack.pod);
    if (list) list.push(r);
    else byPod.set(rack.pod, [r]);
  });
  const all = racks.map((_, r) => r);
  if (byPod.size < 2) {
    const grid = gridOf(all, rackH, columnsFor(racks.length, rackW + RACK_GAP, typicalH + RACK_GAP, aspect), rackW, RACK_GAP);
    for (const [r, at] of grid.at) [x[r], y[r]] = [at.x, at.y];
    return { x, y, w: grid.w, h: grid.h, pods: [] };
  }
  const largest = Math.max(...[...byPod.values()].map((list) => list.length));
  const podCols = columnsFor(largest, rackW + RACK_GAP, typicalH + RACK_GAP, 1);
  const blocks = [...byPod].map(([pod, list]) => ({ pod, racks: list, grid: gridOf(list, rackH, podCols, rackW, RACK_GAP) }));
  const podW = POD_PAD * 2 + Math.max(...blocks.map((b) => b.grid.w));
  const podH = (b: number) => POD_HEADER_H + blocks[b]!.grid.h + POD_PAD;
  const typicalPodH = Math.max(...blocks.map((_, b) => podH(b)));
  const outer = gridOf(
    blocks.map((_, b) => b),
    podH,
    columnsFor(blocks.length, podW + POD_GAP, typicalPodH + POD_GAP, aspect),
    podW,
    POD_GAP,
  );
  const pods = blocks.map((block, b): PodBox => {
    const at = outer.at.get(b)!;
    for (const r of block.racks) {
      const inner = block.grid.at.get(r)!;
      x[r] = at.x + POD_PAD + inner.x;
      y[r] = at.y + POD_HEADER_H + inner.y;
    }
    return {
      pod: block.pod,
      name: `pod ${block.pod}`,
      x: at.x,
      y: at.y,
      w: podW,
      h: podH(b),
      header: { x: at.x, y: at.y, w: podW, h: POD_HEADER_H },
      racks: block.racks,
      summary: addSummaries([]),
    };
  });
  return { x, y, w: outer.w, h: outer.h, pods };
}

/** What is under a point of the drawing; `pod` indexes geometry.pods. */
export type Hit =
  | { kind: "instance"; instance: number }
  | { kind: "node"; node: number }
  | { kind: "rack"; rack: number; header: boolean; block?: boolean }
  | { kind: "pod"; pod: number };

/** A rack narrower than this on screen (CSS px) is drawn as one block coloured by its heat. */
export const COARSE_RACK_PX = 48;
/** Racks narrower than this on screen (CSS px), too narrow for their names: each pod is drawn as one block. */
export const COARSE_POD_RACK_PX = 24;

/** What the drawing shows whole at zoom `k`: every pod as one block, every rack as one block, or the racks'
 * nodes (every rack has the same width, so it is one or the other for all). */
export function coarseLevel(g: ClusterGeometry, k: number): "pod" | "rack" | null {
  const rackPx = (g.racks[0]?.w ?? 0) * k;
  if (g.pods.length > 0 && rackPx < COARSE_POD_RACK_PX) return "pod";
  return rackPx < COARSE_RACK_PX ? "rack" : null;
}

/** The pod or rack block under (x, y) when they are drawn as blocks (`coarseLevel`). */
export function blockAt(g: ClusterGeometry, level: "pod" | "rack", x: number, y: number): Hit | null {
  if (level === "pod") {
    const pod = g.pods.findIndex((p) => inside(p, x, y));
    return pod >= 0 ? { kind: "pod", pod } : null;
  }
  const rack = g.racks.find((r) => !r.collapsed && inside(r, x, y));
  return rack ? { kind: "rack", rack: rack.rack, header: false, block: true } : null;
}

/** A uniform grid over marks and node boxes, for hit-testing thousands of them per mouse move. */
export interface HitIndex {
  cell: number;
  cols: number;
  rows: number;
  marks: Map<number, number[]>;
  nodes: Map<number, number[]>;
}

const CELL = 32;

function insert(map: Map<number, number[]>, index: HitIndex, r: Rect, item: number): void {
  const c0 = Math.max(0, Math.floor(r.x / index.cell));
  const c1 = Math.min(index.cols - 1, Math.floor((r.x + r.w) / index.cell));
  const r0 = Math.max(0, Math.floor(r.y / index.cell));
  const r1 = Math.min(index.rows - 1, Math.floor((r.y + r.h) / index.cell));
  for (let row = r0; row <= r1; row++) {
    for (let col = c0; col <= c1; col++) {
      const key = row * index.cols + col;
      const list = map.get(key);
      if (list) list.push(item);
      else map.set(key, [item]);
    }
  }
}

export function buildHitIndex(g: ClusterGeometry): HitIndex {
  const index: HitIndex = {
    cell: CELL,
    cols: Math.max(1, Math.ceil(g.w / CELL) + 1),
    rows: Math.max(1, Math.ceil(g.h / CELL) + 1),
    marks: new Map(),
    nodes: new Map(),
  };
  g.marks.forEach((m, i) => insert(index.marks, index, m, i));
  g.nodes.forEach((n, i) => insert(index.nodes, index, n, i));
  return index;
}

function inside(r: Rect, x: number, y: number): boolean {
  return x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
}

function distanceTo(r: Rect, x: number, y: number): number {
  const dx = Math.max(r.x - x, 0, x - (r.x + r.w));
  const dy = Math.max(r.y - y, 0, y - (r.y + r.h));
  return Math.hypot(dx, dy);
}

/** The instance mark nearest (x, y) within `slop` world units, else the node box, else the rack. */
export function hitTest(g: ClusterGeometry, index: HitIndex, x: number, y: number, slop = 0): Hit | null {
  let best = -1;
  let bestD = Infinity;
  const c0 = Math.max(0, Math.floor((x - slop) / index.cell));
  const c1 = Math.min(index.cols - 1, Math.floor((x + slop) / index.cell));
  const r0 = Math.max(0, Math.floor((y - slop) / index.cell));
  const r1 = Math.min(index.rows - 1, Math.floor((y + slop) / index.cell));
  for (let row = r0; row <= r1; row++) {
    for (let col = c0; col <= c1; col++) {
      for (const m of index.marks.get(row * index.cols + col) ?? []) {
        const mark = g.marks[m];
        if (mark === undefined) continue;
        const d = distanceTo(mark, x, y);
        if (d <= slop && d < bestD) {
          bestD = d;
          best = m;
        }
      }
    }
  }
  if (best >= 0) return { kind: "instance", instance: g.marks[best]!.instance };
  const col = Math.floor(x / index.cell);
  const row = Math.floor(y / index.cell);
  if (col >= 0 && row >= 0 && col < index.cols && row < index.rows) {
    for (const n of index.nodes.get(row * index.cols + col) ?? []) {
      const box = g.nodes[n];
      if (box && inside(box, x, y)) return { kind: "node", node: box.node };
    }
  }
  for (const rack of g.racks) {
    if (inside(rack, x, y)) return { kind: "rack", rack: rack.rack, header: inside(rack.header, x, y) };
  }
  return null;
}
