// The admin page's calls: API tokens (scope admin) and the orchestrator's mode (read; set with scope deploy).

import type { PageQuery } from "../api/client";
import { api, type components, unwrap } from "../api/http";
import type { ListPage } from "../api/types";

type Schemas = components["schemas"];
export type TokenRow = Schemas["TokenPublic"];
export type TokenCreated = Schemas["TokenCreated"];
export type TokenCreate = Schemas["TokenCreate"];
export type OrchestratorState = Schemas["OrchestratorModePublic"];
export type OrchestratorModeName = OrchestratorState["mode"];

/** Tokens, newest first (never their secrets). */
export async function listTokens(query: PageQuery, signal?: AbortSignal): Promise<ListPage<TokenRow>> {
  return unwrap(await api.GET("/api/v1/tokens", { params: { query }, signal }));
}

/** Creates a token; the answer carries its secret, the only time the API gives it. */
export async function createToken(body: TokenCreate): Promise<TokenCreated> {
  return unwrap(await api.POST("/api/v1/tokens", { body }));
}

/** Revokes a token at once; requests with it are refused from then on. */
export async function revokeToken(id: string): Promise<TokenRow> {
  return unwrap(await api.DELETE("/api/v1/tokens/{token_id}", { params: { path: { token_id: id } } }));
}

export async function getOrchestratorMode(signal?: AbortSignal): Promise<OrchestratorState> {
  return unwrap(await api.GET("/api/v1/orchestrator", { signal }));
}

/** Sets the mode (the controller follows within about a second); audited. */
export async function setOrchestratorMode(mode: OrchestratorModeName): Promise<OrchestratorState> {
  return unwrap(await api.PUT("/api/v1/orchestrator", { body: { mode } }));
}
