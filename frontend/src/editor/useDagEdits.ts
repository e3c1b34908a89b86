import { useCallback } from "react";

import type { XY } from "../viz/dagLayout";
import { addEdge, addNode, movedNodes, newKey, removeElements, updateNode, type DagDocument, type DraftNode } from "./dagDocument";
import { freeSpot } from "./freeSpot";
import type { EditorHistory } from "./useEditorHistory";

export interface DagEdits {
  onDropService: (service: string, at: XY) => void;
  /** Adds a service where the person is looking, clear of other nodes (the palette's keyboard or double-click). */
  onAddFromPalette: (service: string) => void;
  onConnect: (from: string, to: string) => void;
  onMove: (moves: Record<string, XY>) => void;
  onDelete: (keys: string[], edges: number[]) => void;
  onNodeChange: (nodeKey: string, patch: Partial<Omit<DraftNode, "key">>, field: string) => void;
}

/** A new node's top-left, for its middle to sit at a point. */
const NODE_MIDDLE: XY = { x: 80, y: 30 };

/** The canvas's and the panels' edits, each one undo step (typing in one field is one). */
export function useDagEdits(
  push: EditorHistory<DagDocument>["push"],
  positions: DagDocument["positions"],
  selectOnly: (key: string | null) => void,
  viewCentre: () => XY,
): DagEdits {
  const onDropService = useCallback(
    (service: string, at: XY) => {
      const key = newKey();
      push((d) => addNode(d, service, at, key).doc);
      selectOnly(key);
    },
    [push, selectOnly],
  );
  const onAddFromPalette = useCallback(
    (service: string) => {
      const centre = viewCentre();
      onDropService(service, freeSpot(Object.values(positions), { x: centre.x - NODE_MIDDLE.x, y: centre.y - NODE_MIDDLE.y }));
    },
    [positions, viewCentre, onDropService],
  );
  const onConnect = useCallback((from: string, to: string) => push((d) => addEdge(d, from, to)), [push]);
  const onMove = useCallback((moves: Record<string, XY>) => push((d) => movedNodes(d, moves)), [push]);
  const onDelete = useCallback(
    (keys: string[], edges: number[]) => {
      push((d) => removeElements(d, keys, edges));
      selectOnly(null);
    },
    [push, selectOnly],
  );
  const onNodeChange = useCallback(
    (nodeKey: string, patch: Partial<Omit<DraftNode, "key">>, field: string) => push((d) => updateNode(d, nodeKey, patch), `${nodeKey}.${field}`),
    [push],
  );
  return { onDropService, onAddFromPalette, onConnect, onMove, onDelete, onNodeChange };
}
