// The editor's calls to the API: a stored application (as a document, with the ETag it was loaded
// at), a paper template (its YAML), and saving a spec as a new application or over a stored one.

import { api, unwrap } from "../api/http";
import { fromSpec, parseYaml, type DagDocument } from "./dagDocument";
import type { SpecDocument } from "./dagValidation";

export async function loadApplication(name: string): Promise<{ doc: DagDocument; etag: string }> {
  const body = unwrap(await api.GET("/api/v1/applications/{name}", { params: { path: { name } } }));
  return { doc: fromSpec(body.spec), etag: body.etag };
}

export async function loadTemplate(name: string): Promise<DagDocument> {
  const result = await api.GET("/api/v1/templates/{name}", { params: { path: { name } }, parseAs: "text" });
  return parseYaml(unwrap(result) as string);
}

/** PUTs `spec` over the stored application `appName` (If-Match `etag` when given), or POSTs it as a new one. */
export async function saveApplication(spec: SpecDocument, appName: string | null, etag: string | null) {
  const body = appName
    ? await api.PUT("/api/v1/applications/{name}", {
        params: { path: { name: appName }, header: etag ? { "if-match": etag } : {} },
        body: spec as never,
      })
    : await api.POST("/api/v1/applications", { body: spec as never });
  return unwrap(body);
}
