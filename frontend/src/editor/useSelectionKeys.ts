import { type Dispatch, type SetStateAction, useEffect, useRef } from "react";

import type { XY } from "../viz/dagLayout";
import { copyNodes, pasteClip, shiftedClip, type Clip } from "./clipboard";
import { newKey, shiftedNodes, type DagDocument } from "./dagDocument";
import { isTyping } from "./keyTarget";
import { NOTHING_SELECTED, type Selection } from "./selection";
import type { EditorHistory } from "./useEditorHistory";

/** How far an arrow key moves the selected nodes (px); with Shift, BIG_STEP. */
export const STEP = 10;
export const BIG_STEP = 50;
const ARROWS: Record<string, XY> = {
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
};

export interface SelectionKeysOptions {
  doc: DagDocument;
  selection: Selection;
  setSelection: Dispatch<SetStateAction<Selection>>;
  push: EditorHistory<DagDocument>["push"];
  editable: boolean;
}

/**
 * The keyboard on the canvas's selection: arrows move the selected nodes (Shift: further), Ctrl+C
 * copies them with the edges among them, Ctrl+V pastes them (one undo step, the pasted nodes
 * selected), Escape selects nothing. Text fields keep their own keys.
 */
export function useSelectionKeys({ doc, selection, setSelection, push, editable }: SelectionKeysOptions): void {
  const clip = useRef<Clip | null>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target)) return;
      const present = new Set(doc.nodes.map((n) => n.key));
      const keys = selection.nodes.filter((k) => present.has(k));
      const arrow = ARROWS[e.key];
      if (arrow && !e.ctrlKey && !e.metaKey && !e.altKey) {
        if (!editable || keys.length === 0) return;
        // ours, not xyflow's: its own arrow moves (from a focused node) would not reach the document
        e.preventDefault();
        e.stopPropagation();
        const step = e.shiftKey ? BIG_STEP : STEP;
        push((d) => shiftedNodes(d, keys, { x: arrow.x * step, y: arrow.y * step }), `move:${keys.join(",")}`);
        return;
      }
      if (e.key === "Escape" && (selection.nodes.length > 0 || selection.edges.length > 0)) {
        setSelection(NOTHING_SELECTED);
        return;
      }
      if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return;
      const key = e.key.toLowerCase();
      if (key === "c" && keys.length > 0 && !window.getSelection()?.toString()) {
        e.preventDefault();
        const copied = copyNodes(doc, keys);
        clip.current = copied && shiftedClip(copied);
      } else if (key === "v" && editable && clip.current) {
        e.preventDefault();
        const pasted = clip.current;
        const pastedKeys = pasted.nodes.map(() => newKey());
        clip.current = shiftedClip(pasted);
        push((d) => pasteClip(d, pasted, pastedKeys));
        setSelection({ nodes: pastedKeys, edges: [] });
      }
    };
    // capture: before the canvas's own handlers (xyflow's arrow moves on a focused node)
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [doc, selection, setSelection, push, editable]);
}
