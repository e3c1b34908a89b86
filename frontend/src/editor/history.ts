// Undo/redo over immutable snapshots. Pure; the hook useEditorHistory wraps it in React state.

export interface History<T> {
  past: readonly T[];
  present: T;
  future: readonly T[];
  /** Consecutive edits with the same tag (typing in one field) become one undo step. */
  lastTag: string | null;
}

export const HISTORY_LIMIT = 200;

export function initHistory<T>(present: T): History<T> {
  return { past: [], present, future: [], lastTag: null };
}

export function pushHistory<T>(h: History<T>, next: T, tag: string | null = null): History<T> {
  if (next === h.present) return h;
  if (tag !== null && tag === h.lastTag) return { ...h, present: next, future: [] };
  const past = [...h.past, h.present];
  return { past: past.length > HISTORY_LIMIT ? past.slice(-HISTORY_LIMIT) : past, present: next, future: [], lastTag: tag };
}

/** The present replaced, no undo step added: what the server filled in on a save, not an edit. */
export function amendHistory<T>(h: History<T>, next: T): History<T> {
  return next === h.present ? h : { ...h, present: next };
}

export function undoHistory<T>(h: History<T>): History<T> {
  const prev = h.past[h.past.length - 1];
  if (prev === undefined) return h;
  return { past: h.past.slice(0, -1), present: prev, future: [h.present, ...h.future], lastTag: null };
}

export function redoHistory<T>(h: History<T>): History<T> {
  const [next, ...rest] = h.future;
  if (next === undefined) return h;
  return { past: [...h.past, h.present], present: next, future: rest, lastTag: null };
}
