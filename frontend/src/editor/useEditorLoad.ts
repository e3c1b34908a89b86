import { useEffect, useState } from "react";

import { describeError } from "../lib/errors";
import { loadApplication, loadTemplate } from "./applicationApi";
import { EMPTY_DOCUMENT, fromStoredDraft, type DagDocument, type StoredDraft } from "./dagDocument";
import type { Target } from "./saveState";

export type StartEditing = (next: DagDocument, target: Target, fromDraft: boolean) => void;

/**
 * Loads the stored application, the template, or an empty document into the editor through `start`;
 * a draft wins over each. Returns why loading failed, if it did.
 */
export function useEditorLoad(
  applicationName: string | undefined,
  template: string | undefined,
  start: StartEditing,
  setLoaded: (loaded: boolean) => void,
): string | null {
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    setLoaded(false);
    setLoadError(null);
    const key = `e3.draft.${applicationName ?? "new"}`;
    let stored: StoredDraft | null = null;
    try {
      const text = window.localStorage.getItem(key);
      stored = text ? JSON.parse(text) : null;
    } catch {
      stored = null;
    }
    const restore = () => (stored ? fromStoredDraft(stored) : null);
    (async () => {
      try {
        if (applicationName) {
          const source = `app:${applicationName}`;
          try {
            const { doc: latest, etag } = await loadApplication(applicationName);
            if (cancelled) return;
            const fromDraft = stored && stored.source === source ? restore() : null;
            start(fromDraft ?? latest, { appName: applicationName, etag: (fromDraft && stored?.etag) || etag, source }, !!fromDraft);
          } catch (e) {
            const fromDraft = stored && stored.source === source ? restore() : null;
            if (cancelled) return;
            if (!fromDraft) throw e;
            start(fromDraft, { appName: applicationName, etag: stored?.etag ?? null, source }, true);
            setLoadError(`Could not load ${applicationName} (${describeError(e)}); showing your unsaved draft.`);
          }
        } else if (template) {
          const source = `template:${template}`;
          const fromDraft = stored && stored.source === source ? restore() : null;
          const next = fromDraft ?? (await loadTemplate(template));
          if (!cancelled) start(next, { appName: null, etag: null, source }, !!fromDraft);
        } else {
          const fromDraft = stored ? restore() : null;
          start(fromDraft ?? EMPTY_DOCUMENT, { appName: null, etag: null, source: stored?.source ?? "new" }, !!fromDraft);
        }
      } catch (e) {
        if (!cancelled) {
          setLoadError(describeError(e));
          setLoaded(true);
        }
      }
    })();
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [applicationName, template, start]);

  return loadError;
}
