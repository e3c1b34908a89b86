// The shell's calls to the E3 REST API. Everything under /api/v1 that the OpenAPI
// document describes goes through the generated client (`api` from ./http); only
// what it does not describe stays on the small fetch wrapper `getJson`: /healthz,
// /readyz (a 503 there is a normal answer) and the local-mode token.

import { totalOf } from "../lib/counts";
import { ApiError, NetworkError, parseErrorBody } from "../lib/errors";
import { parseReadiness, type ReadinessBody } from "../lib/readiness";
import { parseTemplates, type TemplateSummary } from "../lib/templates";
import { bearerHeader } from "../lib/token";
import { parseMe, type Me } from "../lib/scopes";
import { api, type components, unwrap } from "./http";
import type { HealthBody, ListPage, LocalTokenBody } from "./types";

type Schemas = components["schemas"];
export type ClusterRow = Schemas["ClusterPublic"];
export type ApplicationRow = Schemas["ApplicationPublic"];
export type ApplicationVersionRow = Schemas["ApplicationVersionPublic"];
export type DeploymentRow = Schemas["DeploymentPublic"];
export type JobRow = Schemas["JobPublic"];

/** One page request of a list endpoint. */
export interface PageQuery {
  limit: number;
  offset: number;
}

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
  resource: "clusters" | "applications" | "deployments" | "jobs",
  signal?: AbortSignal,
): Promise<number> {
  const path = `${API_PREFIX}/${resource}` as const;
  const total = totalOf(unwrap(await api.GET(path, { params: { query: { limit: 1 } }, signal })));
  if (total === null) {
    throw new ApiError(200, { code: "bad_response", message: `No total in ${path}`, errors: [] });
  }
  return total;
}

/** The paper's application templates, sorted by name. */
export async function getTemplates(signal?: AbortSignal): Promise<TemplateSummary[]> {
  return parseTemplates(unwrap(await api.GET("/api/v1/templates", { signal })));
}

/** The calling token's name and effective scopes. */
export async function getMe(signal?: AbortSignal): Promise<Me> {
  const me = parseMe(unwrap(await api.GET("/api/v1/me", { signal })));
  if (me === null) throw new ApiError(200, { code: "bad_response", message: "Unreadable answer from /me", errors: [] });
  return me;
}

export async function listClusters(query: PageQuery, signal?: AbortSignal): Promise<ListPage<ClusterRow>> {
  return unwrap(await api.GET("/api/v1/clusters", { params: { query }, signal }));
}

export async function listApplications(query: PageQuery, signal?: AbortSignal): Promise<ListPage<ApplicationRow>> {
  return unwrap(await api.GET("/api/v1/applications", { params: { query }, signal }));
}

export async function listApplicationVersions(
  name: string,
  query: PageQuery,
  signal?: AbortSignal,
): Promise<ListPage<ApplicationVersionRow>> {
  return unwrap(
    await api.GET("/api/v1/applications/{name}/versions", { params: { path: { name }, query }, signal }),
  );
}

/** Deployments, newest first; `filter` keeps one application's or one cluster's. */
export async function listDeployments(
  query: PageQuery,
  signal?: AbortSignal,
  filter: { application?: string; cluster?: string } = {},
): Promise<ListPage<DeploymentRow>> {
  return unwrap(await api.GET("/api/v1/deployments", { params: { query: { ...query, ...filter } }, signal }));
}

export async function listJobs(query: PageQuery, signal?: AbortSignal): Promise<ListPage<JobRow>> {
  return unwrap(await api.GET("/api/v1/jobs", { params: { query }, signal }));
}

type UnauthorizedListener = (message: string) => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();
let watchingUnauthorized = false;

/**
 * Calls `listener` with the API's message whenever any call through the generated
 * client (the shell's or a page's) answers 401, so the shell can ask for a token
 * again. Returns the unsubscribe function.
 */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  if (!watchingUnauthorized) {
    watchingUnauthorized = true;
    api.use({
      async onResponse({ response }) {
        if (response.status === 401 && unauthorizedListeners.size > 0) {
          const text = await response.clone().text().catch(() => "");
          const { message } = parseErrorBody(401, text);
          for (const l of unauthorizedListeners) l(message);
        }
        return undefined;
      },
    });
  }
  unauthorizedListeners.add(listener);
  return () => {
    unauthorizedListeners.delete(listener);
  };
}

export type MigrationRow = Schemas["MigrationPublic"];
export type MigrationStepRow = Schemas["MigrationStep"];
export type MigrationAnswer = Schemas["MigrationAnswer"];
export type EventRow = Schemas["EventPublic"];

/**
 * POST /instances/{id}/migrations: with `dryRun` the cost model's predicted change (200), else the
 * accepted migration (202, `migration_id`). A refusal throws ApiError with the API's reason.
 */
export async function requestMigration(
  instanceId: string,
  targetNode: string,
  dryRun: boolean,
  signal?: AbortSignal,
): Promise<MigrationAnswer> {
  return unwrap(
    await api.POST("/api/v1/instances/{instance_id}/migrations", {
      params: { path: { instance_id: instanceId } },
      body: { target_node: targetNode, dry_run: dryRun },
      signal,
    }),
  );
}

export async function getMigration(id: string, signal?: AbortSignal): Promise<MigrationRow> {
  return unwrap(await api.GET("/api/v1/migrations/{migration_id}", { params: { path: { migration_id: id } }, signal }));
}

/** Migrations on `cluster`, newest first, with their steps and step timings. */
export async function listMigrations(cluster: string, query: PageQuery, signal?: AbortSignal): Promise<ListPage<MigrationRow>> {
  return unwrap(await api.GET("/api/v1/migrations", { params: { query: { ...query, cluster } }, signal }));
}
