import { useCallback } from "react";

import { draftKey, type StoredDraft } from "./dagDocument";

export interface DraftStore {
  read: () => StoredDraft | null;
  write: (draft: StoredDraft) => void;
  clear: () => void;
}

/** The editor's unsaved document in localStorage under `e3.draft.<app or "new">`. */
export function useDraft(applicationName: string | undefined): DraftStore {
  const key = draftKey(applicationName);
  const read = useCallback((): StoredDraft | null => {
    try {
      const text = window.localStorage.getItem(key);
      if (!text) return null;
      const value = JSON.parse(text) as StoredDraft;
      return value && typeof value === "object" && value.spec ? value : null;
    } catch {
      return null;
    }
  }, [key]);
  const write = useCallback(
    (draft: StoredDraft) => {
      try {
        window.localStorage.setItem(key, JSON.stringify(draft));
      } catch {
        // storage full or disabled: the draft still lives in the editor
      }
    },
    [key],
  );
  const clear = useCallback(() => {
    try {
      window.localStorage.removeItem(key);
    } catch {
      // nothing to do
    }
  }, [key]);
  return { read, write, clear };
}
