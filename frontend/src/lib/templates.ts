export interface TemplateSummary {
  name: string;
  description: string;
  instances: number; // microservice instances the application deploys
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Templates from a bare list or a `{items}` page, skipping malformed entries, sorted by name. */
export function parseTemplates(body: unknown): TemplateSummary[] {
  const items = Array.isArray(body) ? body : isRecord(body) ? body.items : undefined;
  if (!Array.isArray(items)) return [];
  return items
    .filter(isRecord)
    .filter((t): t is Record<string, unknown> & { name: string } => typeof t.name === "string")
    .map((t) => ({
      name: t.name,
      description: typeof t.description === "string" ? t.description : "",
      instances: typeof t.instances === "number" ? t.instances : 0,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function formatInstances(instances: number): string {
  return instances === 1 ? "1 instance" : `${instances.toLocaleString("en-US")} instances`;
}
