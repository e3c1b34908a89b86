import { useMemo } from "react";

import { specKey, toSpec, type DagDocument } from "./dagDocument";
import { locateErrors, summaryMessage, type LocatedErrors, type ServiceCatalog, type SpecDocument } from "./dagValidation";
import type { SaveState } from "./saveState";
import type { ServiceType } from "./useCatalog";
import { useEditorValidation, type EditorValidation } from "./useEditorValidation";

export interface DagChecks {
  /** The document as a spec, and its specKey (what validation and saving look at). */
  key: string;
  spec: SpecDocument;
  /** Service types that run on hosts only. */
  hostOnly: ReadonlySet<string>;
  validation: EditorValidation;
  /** The validation's errors by node, edge and metadata field. */
  located: LocatedErrors;
}

/**
 * The document's spec and its checks: local at once, the server's after a pause, a refused save's
 * field errors while the spec is the one saved. Only when the spec changes, never on a drag.
 */
export function useDagChecks(doc: DagDocument, catalog: readonly ServiceType[], loaded: boolean, saveErrors: SaveState["errors"]): DagChecks {
  const key = useMemo(() => specKey(doc), [doc.name, doc.description, doc.labels, doc.nodes, doc.edges]); // eslint-disable-line react-hooks/exhaustive-deps
  const spec = useMemo(() => toSpec(doc), [key]); // eslint-disable-line react-hooks/exhaustive-deps
  const services = useMemo<ServiceCatalog | null>(
    () => (catalog.length > 0 ? Object.fromEntries(catalog.map((s) => [s.name, s.platforms])) : null),
    [catalog],
  );
  const hostOnly = useMemo(
    () => new Set(catalog.filter((s) => s.platforms.length === 1 && s.platforms[0] === "host").map((s) => s.name)),
    [catalog],
  );
  const checked = useEditorValidation(spec, key, services, loaded);
  const validation: EditorValidation = useMemo(() => {
    if (saveErrors && saveErrors.key === key) {
      const errors = saveErrors.errors;
      return { valid: false, message: summaryMessage(errors), errors, source: "server", serverError: null };
    }
    return checked;
  }, [checked, saveErrors, key]);
  const located = useMemo(
    () => locateErrors(validation.errors, doc.nodes.map((n) => n.id), doc.edges),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [validation.errors, key],
  );
  return { key, spec, hostOnly, validation, located };
}
