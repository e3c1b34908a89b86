import { useEffect, useState } from "react";
import { getTemplates } from "../api/client";
import type { TemplateSummary } from "../lib/templates";
import { ApiError, describeError } from "../lib/errors";

export interface TemplatesState {
  templates: TemplateSummary[];
  error: string | null;
  loading: boolean;
}

/** The paper's application templates once `signedIn`; refetched when the token changes or the API comes back. */
export function useTemplates(signedIn: boolean, tokenKey: string | null, generation: number): TemplatesState {
  const [state, setState] = useState<TemplatesState>({ templates: [], error: null, loading: true });

  useEffect(() => {
    if (generation === 0) return;
    if (!signedIn) {
      setState({ templates: [], error: "Sign in to see the templates.", loading: false });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    getTemplates(controller.signal).then(
      (templates) => {
        if (!controller.signal.aborted) setState({ templates, error: null, loading: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const message =
          error instanceof ApiError && error.status === 401 ? "Sign in to see the templates." : describeError(error);
        setState({ templates: [], error: message, loading: false });
      },
    );
    return () => controller.abort();
  }, [signedIn, tokenKey, generation]);

  return state;
}
