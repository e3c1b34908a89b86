import { useEffect, useState } from "react";

import { api, unwrap, type components } from "../api/http";
import { describeError } from "../lib/errors";

export type ServiceType = components["schemas"]["ServiceTypePublic"];
export type TemplateInfo = components["schemas"]["TemplatePublic"];

export interface CatalogState {
  services: ServiceType[];
  templates: TemplateInfo[];
  error: string | null;
  loading: boolean;
}

/** The 16 microservice types and the 8 paper templates, for the editor's palette. */
export function useCatalog(): CatalogState {
  const [state, setState] = useState<CatalogState>({ services: [], templates: [], error: null, loading: true });
  useEffect(() => {
    const controller = new AbortController();
    Promise.all([
      api.GET("/api/v1/catalog/services", { signal: controller.signal }).then(unwrap),
      api.GET("/api/v1/templates", { signal: controller.signal }).then(unwrap),
    ]).then(
      ([services, templates]) => {
        if (!controller.signal.aborted) setState({ services, templates: templates.items, error: null, loading: false });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ ...s, error: describeError(error), loading: false }));
      },
    );
    return () => controller.abort();
  }, []);
  return state;
}
