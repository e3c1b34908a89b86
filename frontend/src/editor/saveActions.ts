// Saving the editor's document: over the stored application (If-Match the ETag it was loaded at,
// unless overwriting after a conflict) or as a new one, and taking the stored one back after a conflict.

import { ApiError } from "../api/http";
import { describeError } from "../lib/errors";
import { loadApplication, saveApplication } from "./applicationApi";
import { type DagDocument, withStoredConfig } from "./dagDocument";
import type { FieldError, SpecDocument } from "./dagValidation";
import { IDLE } from "./saveState";
import type { EditorSession } from "./useEditorSession";

export interface SaveContext {
  session: EditorSession;
  doc: DagDocument;
  /** The spec being saved, and its specKey. */
  spec: SpecDocument;
  key: string;
  /** Replaces the document without an undo step. */
  amend: (doc: DagDocument) => void;
}

export interface SaveActions {
  /** Saves; `ifMatch` false overwrites whatever is stored. */
  doSave: (ifMatch: boolean) => Promise<void>;
  /** Drops the edits (and the draft) for the stored application as it is now. */
  onReloadLatest: () => Promise<void>;
}

export function saveActions({ session, doc, spec, key, amend }: SaveContext): SaveActions {
  const { target, setTarget, setSave, baseline, draft, start } = session;

  const doSave = async (ifMatch: boolean) => {
    const sentKey = key;
    setSave((s) => ({ ...s, saving: true, failure: null, conflict: null }));
    try {
      const app = await saveApplication(spec, target.appName, ifMatch ? target.etag : null);
      draft.clear();
      if (!target.appName) {
        try {
          window.localStorage.removeItem("e3.draft.new");
        } catch {
          // ignore
        }
      }
      // The form shows what was stored at once (e.g. api_gateway's generated key), not "generated when saved".
      const stored = withStoredConfig(doc, app.spec);
      baseline.current = stored;
      if (stored !== doc) amend(stored);
      setTarget({ appName: app.name, etag: app.etag, source: `app:${app.name}` });
      setSave({ ...IDLE, saved: { name: app.name, version: app.latest_version } });
      if (window.location.hash !== `#/editor/${app.name}`) window.history.replaceState(null, "", `#/editor/${app.name}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) {
        setSave({ ...IDLE, conflict: e.message });
      } else if (e instanceof ApiError && e.errors.length > 0) {
        setSave({ ...IDLE, failure: { key: sentKey, message: e.message, errors: e.errors as FieldError[] } });
      } else {
        setSave({ ...IDLE, failure: { key: sentKey, message: describeError(e), errors: [] } });
      }
    }
  };

  const onReloadLatest = async () => {
    if (!target.appName) return;
    try {
      const { doc: latest, etag } = await loadApplication(target.appName);
      draft.clear();
      start(latest, { appName: target.appName, etag, source: `app:${target.appName}` }, false);
    } catch (e) {
      setSave({ ...IDLE, failure: { key, message: describeError(e), errors: [] } });
    }
  };

  return { doSave, onReloadLatest };
}
