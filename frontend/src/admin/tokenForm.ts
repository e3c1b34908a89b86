// The "New token" form as the request the API takes, what each scope allows, and a token's state in words.

import { formatTime } from "../lib/format";
import type { Scope } from "../lib/scopes";
import type { TokenCreate } from "./adminApi";

/** The scopes a token can be given, with what each allows (backend/e3/core/security.py). */
export const SCOPE_MEANINGS: { scope: Scope; meaning: string }[] = [
  { scope: "read", meaning: "read everything but tokens and the audit log" },
  { scope: "write", meaning: "create, change and delete applications and clusters (includes read)" },
  { scope: "deploy", meaning: "deploy, undeploy, migrate, set the orchestrator's mode (includes read)" },
  { scope: "admin", meaning: "everything, tokens and the audit log included" },
  { scope: "agent", meaning: "for an e3-agent or e3-nic talking to the controller; reads nothing of the API" },
];

export interface TokenForm {
  name: string;
  scopes: readonly Scope[];
  /** Days until it expires; blank for never. */
  expiresInDays: string;
}

export type TokenField = "name" | "scopes" | "expires_in_days";

export const MAX_EXPIRY_DAYS = 3650;

/** The request body, or the form's own faults by field (the name's rules are the API's to check). */
export function tokenBody(form: TokenForm): { ok: true; body: TokenCreate } | { ok: false; errors: Partial<Record<TokenField, string[]>> } {
  const errors: Partial<Record<TokenField, string[]>> = {};
  if (form.name.trim() === "") errors.name = ["give the token a name (who or what will use it)"];
  if (form.scopes.length === 0) errors.scopes = ["pick at least one scope"];
  const days = form.expiresInDays.trim();
  const expires = days === "" ? null : /^\d+$/.test(days) ? Number(days) : NaN;
  if (expires !== null && !(expires >= 1 && expires <= MAX_EXPIRY_DAYS)) {
    errors.expires_in_days = [`a whole number of days from 1 to ${MAX_EXPIRY_DAYS}, or blank for never`];
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // In the fixed order of SCOPE_MEANINGS, whatever order they were ticked in.
  const scopes = SCOPE_MEANINGS.map((s) => s.scope).filter((s) => form.scopes.includes(s));
  return { ok: true, body: { name: form.name.trim(), scopes, expires_in_days: expires } };
}

/** Where an API field error of the token form is shown ("scopes" also covers "scopes[0]"). */
export function tokenFieldOf(apiField: string): TokenField | null {
  const name = apiField.split(/[.[]/)[0];
  return name === "name" || name === "scopes" || name === "expires_in_days" ? name : null;
}

export type TokenState = "active" | "revoked" | "expired";

/** Whether a token still works at `now`, and since when it does not. */
export function tokenState(token: { revoked_at: string | null; expires_at: string | null }, now: Date): { state: TokenState; label: string } {
  if (token.revoked_at !== null) return { state: "revoked", label: `revoked ${formatTime(token.revoked_at)}` };
  if (token.expires_at !== null && new Date(token.expires_at).getTime() <= now.getTime()) {
    return { state: "expired", label: `expired ${formatTime(token.expires_at)}` };
  }
  return { state: "active", label: "active" };
}
