import { type Dispatch, type RefObject, type SetStateAction, useCallback, useEffect, useRef, useState } from "react";

import { EMPTY_DOCUMENT, toStoredDraft, type DagDocument } from "./dagDocument";
import { IDLE, type SaveState, type Target } from "./saveState";
import { type DraftStore, useDraft } from "./useDraft";
import { type StartEditing, useEditorLoad } from "./useEditorLoad";

export interface EditorSession {
  target: Target;
  setTarget: Dispatch<SetStateAction<Target>>;
  loaded: boolean;
  loadError: string | null;
  save: SaveState;
  setSave: Dispatch<SetStateAction<SaveState>>;
  /** The document as loaded or last saved: any other one is unsaved work. */
  baseline: RefObject<DagDocument>;
  draft: DraftStore;
  /** Starts over on a loaded document: no history, nothing selected, fitted into view. */
  start: StartEditing;
}

export interface EditorSessionOptions {
  applicationName: string | undefined;
  template: string | undefined;
  /** The document being edited. */
  doc: DagDocument;
  /** Starts the undo history over from a document. */
  reset: (doc: DagDocument) => void;
  /** Selects one node (or, with null, nothing). */
  selectOnly: (key: string | null) => void;
  setFitToken: Dispatch<SetStateAction<number>>;
}

/**
 * What the editor has open and where it saves to: loads it (useEditorLoad) and keeps unsaved work in
 * localStorage, so a reload or a failed save loses nothing.
 */
export function useEditorSession({ applicationName, template, doc, reset, selectOnly, setFitToken }: EditorSessionOptions): EditorSession {
  const [target, setTarget] = useState<Target>({ appName: applicationName ?? null, etag: null, source: "new" });
  const [loaded, setLoaded] = useState(false);
  const [save, setSave] = useState<SaveState>(IDLE);
  const baseline = useRef<DagDocument>(EMPTY_DOCUMENT);
  const draft = useDraft(target.appName ?? undefined);

  const start = useCallback(
    (next: DagDocument, t: Target, fromDraft: boolean) => {
      reset(next);
      baseline.current = fromDraft ? EMPTY_DOCUMENT : next;
      setTarget(t);
      selectOnly(null);
      setSave(IDLE);
      setLoaded(true);
      setFitToken((n) => n + 1);
    },
    [reset, selectOnly, setFitToken],
  );

  const loadError = useEditorLoad(applicationName, template, start, setLoaded);

  useEffect(() => {
    if (!loaded) return;
    if (doc === baseline.current) return;
    draft.write(toStoredDraft(doc, target.appName ? `app:${target.appName}` : target.source, target.etag));
  }, [doc, loaded, target, draft]);

  return { target, setTarget, loaded, loadError, save, setSave, baseline, draft, start };
}
