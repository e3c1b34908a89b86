// Copy and paste of nodes within the editor. Pure: no React, no DOM.
// A copy holds the selected nodes (settings and positions) and the edges among them; a paste adds
// them again under new keys and fresh ids, with those edges renamed to the new ids, each paste
// offset from the last (shiftedClip), so copies never hide under their originals.

import type { XY } from "../viz/dagLayout";
import { freshId, type DagDocument, type DraftNode } from "./dagDocument";

export interface Clip {
  nodes: readonly Omit<DraftNode, "key">[];
  /** Top-left of each node, in `nodes` order. */
  positions: readonly XY[];
  /** Edges among the copied nodes, as [from, to] indices into `nodes`. */
  edges: readonly (readonly [number, number])[];
}

/** Where a paste lands relative to what was copied (or last pasted). */
export const PASTE_OFFSET: XY = { x: 40, y: 40 };

/** The nodes with keys in `keys`, and the edges between two of them; null when none is in `doc`. */
export function copyNodes(doc: DagDocument, keys: Iterable<string>): Clip | null {
  const wanted = new Set(keys);
  const picked = doc.nodes.filter((n) => wanted.has(n.key));
  if (picked.length === 0) return null;
  const indexOf = new Map<string, number>();
  picked.forEach((n, i) => {
    if (!indexOf.has(n.id)) indexOf.set(n.id, i);
  });
  const edges: [number, number][] = [];
  for (const e of doc.edges) {
    const from = indexOf.get(e.from);
    const to = indexOf.get(e.to);
    if (from !== undefined && to !== undefined) edges.push([from, to]);
  }
  return {
    nodes: picked.map(({ key: _key, ...rest }) => rest),
    positions: picked.map((n) => doc.positions[n.key] ?? { x: 0, y: 0 }),
    edges,
  };
}

/** `kvs` -> `kvs-2`; `kvs-2` -> `kvs-3` (the first id no node uses, from the id without its number). */
export function copyId(id: string, taken: Iterable<string>): string {
  return freshId(id.replace(/-\d+$/, "") || id, taken);
}

/** The clip moved by `offset`: what the next paste adds. */
export function shiftedClip(clip: Clip, offset: XY = PASTE_OFFSET): Clip {
  return { ...clip, positions: clip.positions.map((p) => ({ x: p.x + offset.x, y: p.y + offset.y })) };
}

/**
 * `clip` added to `doc` under `keys` (one new canvas key per node, e.g. from newKey()), with new
 * unique ids (`kvs` -> `kvs-2`), the edges among them renamed to match, at the clip's positions.
 */
export function pasteClip(doc: DagDocument, clip: Clip, keys: readonly string[]): DagDocument {
  const taken = doc.nodes.map((n) => n.id);
  const positions: Record<string, XY> = { ...doc.positions };
  const added: DraftNode[] = clip.nodes.map((n, i) => {
    const id = copyId(n.id, taken);
    taken.push(id);
    positions[keys[i]!] = clip.positions[i]!;
    return { ...n, key: keys[i]!, id };
  });
  const edges = clip.edges.map(([from, to]) => ({ from: added[from]!.id, to: added[to]!.id }));
  return { ...doc, nodes: [...doc.nodes, ...added], edges: [...doc.edges, ...edges], positions };
}
