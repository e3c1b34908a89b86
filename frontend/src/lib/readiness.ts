export interface ReadinessCheck {
  ok: boolean;
  detail: string;
}

/** A /readyz body. */
export interface ReadinessBody {
  status: "ready" | "not_ready";
  checks: Record<string, ReadinessCheck>;
}

export interface CheckRow {
  name: string;
  label: string;
  ok: boolean;
  detail: string;
}

// The dependencies the backend checks today, in the order a person reads them.
const KNOWN_CHECKS: readonly [string, string][] = [
  ["postgres", "PostgreSQL"],
  ["redis", "Redis"],
  ["migrations", "Migrations"],
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toCheck(value: unknown): ReadinessCheck {
  if (!isRecord(value)) return { ok: false, detail: "no answer for this check" };
  return {
    ok: value.ok === true,
    detail: typeof value.detail === "string" ? value.detail : "",
  };
}

/** A /readyz body as the API promises it, or null if it is not one. */
export function parseReadiness(value: unknown): ReadinessBody | null {
  if (!isRecord(value) || !isRecord(value.checks)) return null;
  const checks: Record<string, ReadinessCheck> = {};
  for (const [name, check] of Object.entries(value.checks)) checks[name] = toCheck(check);
  return { status: value.status === "ready" ? "ready" : "not_ready", checks };
}

/** One row per check: known ones first in a fixed order, then any others by name. */
export function readinessRows(body: ReadinessBody | null): CheckRow[] {
  if (body === null) return [];
  const labels = new Map(KNOWN_CHECKS);
  const order = (name: string) => {
    const i = KNOWN_CHECKS.findIndex(([known]) => known === name);
    return i === -1 ? KNOWN_CHECKS.length : i;
  };
  return Object.entries(body.checks)
    .map(([name, check]) => ({
      name,
      label: labels.get(name) ?? name,
      ok: check.ok,
      detail: check.detail,
    }))
    .sort((a, b) => order(a.name) - order(b.name) || a.name.localeCompare(b.name));
}

/** "ready", or "not ready" with how many checks fail. */
export function readinessSummary(body: ReadinessBody | null): string {
  if (body === null) return "unknown";
  const rows = readinessRows(body);
  const failing = rows.filter((row) => !row.ok).length;
  if (body.status === "ready" && failing === 0) return "ready";
  if (failing === 0) return "not ready";
  return `not ready (${failing} of ${rows.length} checks failing)`;
}
