// A layered (Sugiyama-style) layout for application DAGs, left to right. Pure: returns positions.
// 1. Longest-path layering: a node sits one layer right of its furthest predecessor.
// 2. Order within each layer by the barycentre of the neighbours' positions, sweeping down then up.
// Edges that would close a cycle, self-loops and edges naming unknown nodes are ignored, so a
// DAG that is still being edited (and not yet valid) is laid out too.

export interface LayoutEdge {
  from: string;
  to: string;
}

export interface LayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  /** Horizontal space between layers. */
  layerGap: number;
  /** Vertical space between nodes of one layer. */
  nodeGap: number;
  /** Barycentre sweeps (each one down and one up). */
  sweeps: number;
}

export interface XY {
  x: number;
  y: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = { nodeWidth: 180, nodeHeight: 80, layerGap: 90, nodeGap: 40, sweeps: 4 };

/** The acyclic part of the edges: back edges found by a DFS in `ids` order are dropped. */
export function acyclicEdges(ids: readonly string[], edges: readonly LayoutEdge[]): LayoutEdge[] {
  const known = new Set(ids);
  const out = new Map<string, LayoutEdge[]>();
  for (const e of edges) {
    if (e.from === e.to || !known.has(e.from) || !known.has(e.to)) continue;
    const list = out.get(e.from);
    if (list) list.push(e);
    else out.set(e.from, [e]);
  }
  const state = new Map<string, 1 | 2>();
  const kept: LayoutEdge[] = [];
  const seen = new Set<string>();
  for (const root of ids) {
    if (state.has(root)) continue;
    const stack: { id: string; at: number }[] = [{ id: root, at: 0 }];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const list = out.get(top.id) ?? [];
      const e = list[top.at++];
      if (!e) {
        state.set(top.id, 2);
        stack.pop();
        continue;
      }
      const s = state.get(e.to);
      if (s === 1) continue; // back edge: would close a cycle
      const key = `${e.from}\u0000${e.to}`;
      if (!seen.has(key)) {
        seen.add(key);
        kept.push(e);
      }
      if (s === undefined) {
        state.set(e.to, 1);
        stack.push({ id: e.to, at: 0 });
      }
    }
  }
  return kept;
}

/** Layer index per node: 0 for sources, else 1 + the largest layer among its predecessors. */
export function longestPathLayers(ids: readonly string[], edges: readonly LayoutEdge[]): Map<string, number> {
  const dag = acyclicEdges(ids, edges);
  const preds = new Map<string, string[]>(ids.map((id) => [id, []]));
  const succs = new Map<string, string[]>(ids.map((id) => [id, []]));
  const indegree = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const e of dag) {
    preds.get(e.to)!.push(e.from);
    succs.get(e.from)!.push(e.to);
    indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  }
  const layer = new Map<string, number>();
  const queue = ids.filter((id) => indegree.get(id) === 0);
  for (let k = 0; k < queue.length; k++) {
    const id = queue[k]!;
    layer.set(id, Math.max(0, ...preds.get(id)!.map((p) => (layer.get(p) ?? 0) + 1)));
    for (const s of succs.get(id)!) {
      const d = (indegree.get(s) ?? 0) - 1;
      indegree.set(s, d);
      if (d === 0) queue.push(s);
    }
  }
  for (const id of ids) if (!layer.has(id)) layer.set(id, 0); // unreachable with acyclic input
  return layer;
}

function barycentre(neighbours: readonly string[], index: Map<string, number>): number | null {
  const values = neighbours.map((n) => index.get(n)).filter((v): v is number => v !== undefined);
  if (values.length === 0) return null;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Reorders `layer` by the barycentre of each node's neighbours; nodes without any keep their slot. */
function sortByBarycentre(layer: string[], neighbours: Map<string, string[]>, index: Map<string, number>): string[] {
  const keyed = layer.map((id, i) => ({ id, i, b: barycentre(neighbours.get(id) ?? [], index) }));
  return keyed
    .map((k) => ({ ...k, b: k.b ?? k.i }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((k) => k.id);
}

/** Layers, each ordered top to bottom. */
export function orderLayers(
  ids: readonly string[],
  edges: readonly LayoutEdge[],
  sweeps = DEFAULT_LAYOUT.sweeps,
): string[][] {
  const layerOf = longestPathLayers(ids, edges);
  const depth = Math.max(-1, ...layerOf.values()) + 1;
  const layers: string[][] = Array.from({ length: depth }, () => []);
  for (const id of ids) layers[layerOf.get(id)!]!.push(id);
  const dag = acyclicEdges(ids, edges);
  const preds = new Map<string, string[]>();
  const succs = new Map<string, string[]>();
  for (const e of dag) {
    preds.set(e.to, [...(preds.get(e.to) ?? []), e.from]);
    succs.set(e.from, [...(succs.get(e.from) ?? []), e.to]);
  }
  const index = new Map<string, number>();
  const reindex = (layer: string[]) => layer.forEach((id, i) => index.set(id, i));
  layers.forEach(reindex);
  for (let s = 0; s < sweeps; s++) {
    for (let l = 1; l < layers.length; l++) {
      layers[l] = sortByBarycentre(layers[l]!, preds, index);
      reindex(layers[l]!);
    }
    for (let l = layers.length - 2; l >= 0; l--) {
      layers[l] = sortByBarycentre(layers[l]!, succs, index);
      reindex(layers[l]!);
    }
  }
  return layers;
}

/** Top-left positions per node id: layers left to right, each centred vertically. */
export function layoutDag(
  ids: readonly string[],
  edges: readonly LayoutEdge[],
  options: Partial<LayoutOptions> = {},
): Map<string, XY> {
  const o = { ...DEFAULT_LAYOUT, ...options };
  const unique = [...new Set(ids)];
  const layers = orderLayers(unique, edges, o.sweeps);
  const tallest = Math.max(0, ...layers.map((l) => l.length));
  const step = o.nodeHeight + o.nodeGap;
  const positions = new Map<string, XY>();
  layers.forEach((layer, l) => {
    const offset = ((tallest - layer.length) * step) / 2;
    layer.forEach((id, i) => positions.set(id, { x: l * (o.nodeWidth + o.layerGap), y: offset + i * step }));
  });
  return positions;
}
