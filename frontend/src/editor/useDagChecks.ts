import { useMemo } from "react";

import { isBlank, specKey, toSpec, type DagDocument } from "./dagDocument";
import { locateErrors, summaryMessage, type LocatedErrors, type ServiceCatalog, type SpecDocument } from "./dagValidation";
import { inPlainWords } from "./errorText";
import { currentFailure, type SaveFailure, type SaveState } from "./saveState";
import { readConfigSchema, type ConfigSchemas } from "./serviceConfig";
import type { ServiceType } from "./useCatalog";
import { useEditorValidation, type EditorValidation } from "./useEditorValidation";

export interface DagChecks {
  /** The document as a spec, and its specKey (what validation and saving look at). */
  key: string;
  spec: SpecDocument;
  /** Service types that run on hosts only. */
  hostOnly: ReadonlySet<string>;
  /** Each service's configuration schema; null while the catalogue loads. */
  configSchemas: ConfigSchemas | null;
  /** Messages in plain words (errorText), as the panels and the canvas show them. */
  validation: EditorValidation;
  /** The validation's errors by node, edge and metadata field; none while `quiet`. */
  located: LocatedErrors;
  /** Nothing typed or added yet (and no save tried): no errors are shown, only hints. */
  quiet: boolean;
  /** The last save's failure while the document is still the one it refused. */
  failure: SaveFailure | null;
}

const NOWHERE: LocatedErrors = { nodes: new Map(), edges: new Map(), metadata: new Map(), canvas: [], general: [] };

/**
 * The document's spec and its checks: local at once, the server's after a pause, a refused save's
 * field errors while the spec is the one saved (an edit makes that failure past). Only when the
 * spec changes, never on a drag.
 */
export function useDagChecks(doc: DagDocument, catalog: readonly ServiceType[], loaded: boolean, save: SaveState): DagChecks {
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
  const configSchemas = useMemo<ConfigSchemas | null>(
    () => (catalog.length > 0 ? Object.fromEntries(catalog.map((s) => [s.name, readConfigSchema(s.config_schema)])) : null),
    [catalog],
  );
  const checked = useEditorValidation(spec, key, services, configSchemas, loaded);
  const failure = currentFailure(save, key);
  const refused = failure && failure.errors.length > 0 ? failure.errors : null;
  // each list rewritten once, so the located errors (and the canvas) change only with them
  const shown = useMemo(() => inPlainWords(refused ?? checked.errors), [refused, checked.errors]);
  const validation: EditorValidation = refused
    ? { valid: false, message: summaryMessage(refused), errors: shown, source: "server", serverError: null }
    : { ...checked, errors: shown };
  const quiet = isBlank(doc) && !failure;
  const located = useMemo(
    () => (quiet ? NOWHERE : locateErrors(shown, doc.nodes.map((n) => n.id), doc.edges)),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [shown, key, quiet],
  );
  return { key, spec, hostOnly, configSchemas, validation, located, quiet, failure };
}
