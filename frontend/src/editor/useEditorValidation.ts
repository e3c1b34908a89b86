import { useEffect, useMemo, useState } from "react";

import { api, unwrap } from "../api/http";
import { describeError } from "../lib/errors";
import { summaryMessage, validateDag, type FieldError, type ServiceCatalog, type SpecDocument } from "./dagValidation";
import type { ConfigSchemas } from "./serviceConfig";

export interface EditorValidation {
  valid: boolean;
  message: string;
  errors: FieldError[];
  /** "server" once the API has checked this very spec, else "local". */
  source: "local" | "server";
  /** Why the server could not check it, if it could not. */
  serverError: string | null;
}

const DEBOUNCE_MS = 400;

/**
 * Checks the spec locally at once and on the server after a pause in editing. Runs when the
 * spec changes (`specKey`), never when a node is only dragged.
 */
export function useEditorValidation(
  spec: SpecDocument,
  specKey: string,
  services: ServiceCatalog | null,
  configSchemas: ConfigSchemas | null,
  enabled: boolean,
): EditorValidation {
  // spec is derived from specKey: only recompute when the key changes
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const local = useMemo(() => validateDag(spec, services, configSchemas), [specKey, services, configSchemas]);
  const [server, setServer] = useState<{ key: string; valid: boolean; message: string; errors: FieldError[] } | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      api
        .POST("/api/v1/applications/validate", { body: spec as never, signal: controller.signal })
        .then(unwrap)
        .then(
          (report) => {
            if (controller.signal.aborted) return;
            setServer({ key: specKey, valid: report.valid, message: report.message, errors: (report.errors ?? []) as unknown as FieldError[] });
            setServerError(null);
          },
          (error: unknown) => {
            if (!controller.signal.aborted) setServerError(describeError(error));
          },
        );
    }, DEBOUNCE_MS);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [specKey, enabled]);

  if (server && server.key === specKey) {
    return { valid: server.valid, message: server.message, errors: server.errors, source: "server", serverError };
  }
  return { valid: local.length === 0, message: summaryMessage(local), errors: local, source: "local", serverError };
}
