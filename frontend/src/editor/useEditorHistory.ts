import { useCallback, useState } from "react";

import { amendHistory, initHistory, pushHistory, redoHistory, undoHistory, type History } from "./history";

export interface EditorHistory<T> {
  present: T;
  canUndo: boolean;
  canRedo: boolean;
  /** A new snapshot; edits with the same non-null tag in a row are one undo step. */
  push: (next: T | ((current: T) => T), tag?: string | null) => void;
  undo: () => void;
  redo: () => void;
  /** Start over from `doc` with no history (after loading). */
  reset: (doc: T) => void;
  /** Replace the present without an undo step (what a save stored). */
  amend: (doc: T) => void;
}

/** Undo/redo over immutable snapshots of the editor's document. */
export function useEditorHistory<T>(initial: T): EditorHistory<T> {
  const [history, setHistory] = useState<History<T>>(() => initHistory(initial));
  const push = useCallback((next: T | ((current: T) => T), tag: string | null = null) => {
    setHistory((h) => pushHistory(h, typeof next === "function" ? (next as (c: T) => T)(h.present) : next, tag));
  }, []);
  const undo = useCallback(() => setHistory(undoHistory), []);
  const redo = useCallback(() => setHistory(redoHistory), []);
  const reset = useCallback((doc: T) => setHistory(initHistory(doc)), []);
  const amend = useCallback((doc: T) => setHistory((h) => amendHistory(h, doc)), []);
  return {
    present: history.present,
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    push,
    undo,
    redo,
    reset,
    amend,
  };
}
