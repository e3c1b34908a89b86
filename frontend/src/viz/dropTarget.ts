// Where a dragged instance would land: the node box under the pointer, and whether a move there is
// worth asking the API about. Pure: the canvas calls it on every pointer move of a drag.
// The API has the last word (capacity, pinning, fault domains); this only rules out the obvious.

import type { ClusterGeometry, HitIndex, NodeBox } from "./clusterLayout";

export interface DropNode {
  name: string;
  state?: string;
}

export interface DropTarget {
  /** Index into the layout's nodes. */
  node: number;
  box: NodeBox;
  /** Worth a dry run: not the node it is on, and up. */
  ok: boolean;
  /** Why not, when not ok. */
  reason: string | null;
}

/** The node box containing the world point (x, y), through the hit index's grid. */
export function nodeBoxAt(g: ClusterGeometry, index: HitIndex, x: number, y: number): NodeBox | null {
  const col = Math.floor(x / index.cell);
  const row = Math.floor(y / index.cell);
  if (col < 0 || row < 0 || col >= index.cols || row >= index.rows) return null;
  for (const n of index.nodes.get(row * index.cols + col) ?? []) {
    const box = g.nodes[n];
    if (box && x >= box.x && x <= box.x + box.w && y >= box.y && y <= box.y + box.h) return box;
  }
  return null;
}

/** The drop target under (x, y) for an instance now on node `sourceNode`, or null over no node. */
export function dropTargetAt(
  g: ClusterGeometry,
  index: HitIndex,
  nodes: readonly DropNode[],
  sourceNode: number,
  x: number,
  y: number,
): DropTarget | null {
  const box = nodeBoxAt(g, index, x, y);
  if (box === null) return null;
  return { node: box.node, box, ...judgeTarget(nodes, sourceNode, box.node) };
}

/** Whether `target` is worth a dry run for an instance on `source`, and why not. */
export function judgeTarget(nodes: readonly DropNode[], source: number, target: number): { ok: boolean; reason: string | null } {
  if (target === source) return { ok: false, reason: "already on this node" };
  const state = nodes[target]?.state;
  if (state === "suspect" || state === "down") {
    return { ok: false, reason: `${nodes[target]?.name ?? "the node"} is ${state}` };
  }
  return { ok: true, reason: null };
}

/** A drag that moved less than this (CSS px) is a click, not a drag. */
export const DRAG_THRESHOLD_PX = 4;

export function movedEnough(dx: number, dy: number): boolean {
  return Math.hypot(dx, dy) >= DRAG_THRESHOLD_PX;
}
