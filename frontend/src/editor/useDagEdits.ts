import { type Dispatch, type SetStateAction, useCallback } from "react";

import type { XY } from "../viz/dagLayout";
import { addEdge, addNode, movedNodes, removeElements, updateNode, type DagDocument, type DraftNode } from "./dagDocument";
import type { EditorHistory } from "./useEditorHistory";

export interface DagEdits {
  onDropService: (service: string, at: XY) => void;
  /** Adds a service right of the drawing (a click in the palette). */
  onAddFromPalette: (service: string) => void;
  onConnect: (from: string, to: string) => void;
  onMove: (moves: Record<string, XY>) => void;
  onDelete: (keys: string[], edges: number[]) => void;
  onNodeChange: (nodeKey: string, patch: Partial<Omit<DraftNode, "key">>, field: string) => void;
}

/** The canvas's and the panels' edits, each one undo step (typing in one field is one). */
export function useDagEdits(
  push: EditorHistory<DagDocument>["push"],
  positions: DagDocument["positions"],
  setSelectedKey: Dispatch<SetStateAction<string | null>>,
): DagEdits {
  const onDropService = useCallback(
    (service: string, at: XY) => {
      let added: string | null = null;
      push((d) => {
        const r = addNode(d, service, at);
        added = r.key;
        return r.doc;
      });
      if (added) setSelectedKey(added);
    },
    [push, setSelectedKey],
  );
  const onAddFromPalette = useCallback(
    (service: string) => {
      const maxX = Math.max(-220, ...Object.values(positions).map((p) => p.x));
      onDropService(service, { x: maxX + 220, y: 40 });
    },
    [positions, onDropService],
  );
  const onConnect = useCallback((from: string, to: string) => push((d) => addEdge(d, from, to)), [push]);
  const onMove = useCallback((moves: Record<string, XY>) => push((d) => movedNodes(d, moves)), [push]);
  const onDelete = useCallback((keys: string[], edges: number[]) => push((d) => removeElements(d, keys, edges)), [push]);
  const onNodeChange = useCallback(
    (nodeKey: string, patch: Partial<Omit<DraftNode, "key">>, field: string) => push((d) => updateNode(d, nodeKey, patch), `${nodeKey}.${field}`),
    [push],
  );
  return { onDropService, onAddFromPalette, onConnect, onMove, onDelete, onNodeChange };
}
