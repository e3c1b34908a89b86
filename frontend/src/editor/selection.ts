// What is selected on the canvas: nodes by key, edges by canvas id. Pure: no React, no DOM.
// The canvas is controlled: xyflow reports clicks, Shift+clicks and selection boxes as "select"
// changes, which are folded in here, and draws whatever this says is selected.

export interface Selection {
  nodes: readonly string[];
  edges: readonly string[];
}

export const NOTHING_SELECTED: Selection = { nodes: [], edges: [] };

/** The selection of one node (or of nothing). */
export function selectOnly(key: string | null): Selection {
  return key ? { nodes: [key], edges: [] } : NOTHING_SELECTED;
}

/** An edge's canvas id: "a->b"; a repeated edge (an error, but drawn) gets "#2", "#3"... */
export function edgeId(from: string, to: string, seen: Map<string, number>): string {
  const base = `${from}->${to}`;
  const n = (seen.get(base) ?? 0) + 1;
  seen.set(base, n);
  return n === 1 ? base : `${base}#${n}`;
}

interface SelectChange {
  type: string;
  id?: string;
  selected?: boolean;
}

/** `selection` with xyflow's "select" changes for `kind` applied (other changes ignored). */
export function applySelectChanges(selection: Selection, changes: readonly SelectChange[], kind: keyof Selection): Selection {
  const ids = new Set(selection[kind]);
  let changed = false;
  for (const c of changes) {
    if (c.type !== "select" || c.id === undefined) continue;
    if (c.selected && !ids.has(c.id)) ids.add(c.id);
    else if (!c.selected && ids.has(c.id)) ids.delete(c.id);
    else continue;
    changed = true;
  }
  return changed ? { ...selection, [kind]: [...ids] } : selection;
}
