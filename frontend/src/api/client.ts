// A small typed fetch wrapper over the E3 REST API. Everything that talks HTTP
// goes through here, so a client generated from the OpenAPI spec can replace
// this file without touching hooks or components.

import { totalOf } from "../lib/counts";
import { ApiError, NetworkError, parseErrorBody } from "../lib/errors";
import { parseReadiness } from "../lib/readiness";
import { parseTemplates } from "../lib/templates";
import { bearerHeader } from "../lib/token";
import type {
  HealthBody,
  ListPage,
  LocalTokenBody,
  ReadinessBody,
  TemplateSummary,
} from "./types";

export const API_PREFIX = "/api/v1";

export interface RequestOptions {
  token?: string | null;
  signal?: AbortSignal;
  /** Statuses besides 2xx whose body is a normal answer (e.g. 503 from /readyz). */
  acceptStatuses?: readonly number[];
}

/** GETs `path` and returns its JSON body; throws ApiError for error statuses, NetworkError when unreachable. */
export async function getJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.token) headers.Authorization = bearerHeader(options.token);

  let response: Response;
  try {
    response = await fetch(path, { headers, signal: options.signal ?? null });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new NetworkError();
  }

  const text = await response.text();
  const accepted = response.ok || (options.acceptStatuses ?? []).includes(response.status);
  if (!accepted) throw new ApiError(response.status, parseErrorBody(response.status, text));
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(response.status, {
      code: "bad_response",
      message: `Unreadable answer from ${path}`,
      errors: [],
    });
  }
}

export function getHealth(signal?: AbortSignal): Promise<HealthBody> {
  return getJson<HealthBody>("/healthz", { signal });
}

/** /readyz answers 503 with the same body when a dependency is down. */
export async function getReadiness(signal?: AbortSignal): Promise<ReadinessBody> {
  const body = parseReadiness(await getJson<unknown>("/readyz", { signal, acceptStatuses: [503] }));
  if (body === null) {
    throw new ApiError(200, { code: "bad_response", message: "Unreadable answer from /readyz", errors: [] });
  }
  return body;
}

/** The local-mode token, or null when the server is not in local mode (404). */
export async function getLocalToken(signal?: AbortSignal): Promise<string | null> {
  try {
    const body = await getJson<LocalTokenBody>(`${API_PREFIX}/local-token`, { signal });
    return typeof body.token === "string" && body.token !== "" ? body.token : null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** The `total` of a list endpoint, fetching a single item. */
export async function getListTotal(
  resource: string,
  token: string,
  signal?: AbortSignal,
): Promise<number> {
  const path = `${API_PREFIX}/${resource}?limit=1`;
  const total = totalOf(await getJson<ListPage<unknown>>(path, { token, signal }));
  if (total === null) {
    throw new ApiError(200, { code: "bad_response", message: `No total in ${path}`, errors: [] });
  }
  return total;
}

/** The paper's application templates, sorted by name. */
export async function getTemplates(
  token: string | null,
  signal?: AbortSignal,
): Promise<TemplateSummary[]> {
  return parseTemplates(await getJson<unknown>(`${API_PREFIX}/templates`, { token, signal }));
}
