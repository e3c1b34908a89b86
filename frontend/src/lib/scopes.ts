// Token scopes as /api/v1/me reports them, and what each one allows in the UI.

export const SCOPES = ["read", "write", "deploy", "admin", "agent"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Me {
  name: string;
  scopes: string[];
}

/**
 * Whether a token with `scopes` may do what `scope` grants. The API already lists
 * effective scopes, but the implications are applied here too so an older server
 * (or an admin token listing only "admin") is read the same way:
 * admin grants everything; write and deploy each include read.
 */
export function hasScope(scopes: readonly string[], scope: Scope): boolean {
  if (scopes.includes("admin") || scopes.includes(scope)) return true;
  return scope === "read" && (scopes.includes("write") || scopes.includes("deploy"));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A /me body, or null if it is not one. Unknown scopes are kept; only strings count. */
export function parseMe(body: unknown): Me | null {
  if (!isRecord(body)) return null;
  const scopes = Array.isArray(body.scopes) ? body.scopes.filter((s): s is string => typeof s === "string") : [];
  const name = typeof body.name === "string" && body.name !== "" ? body.name : "unnamed token";
  return { name, scopes };
}

/** "read, write, deploy" in the fixed order, unknown scopes last. */
export function formatScopes(scopes: readonly string[]): string {
  const known = SCOPES.filter((s) => scopes.includes(s));
  const other = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s)).sort();
  const all = [...known, ...other];
  return all.length === 0 ? "no scopes" : all.join(", ");
}
