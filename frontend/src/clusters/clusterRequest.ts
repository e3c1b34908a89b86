// The "New cluster" form as the request the API takes: the generator's flat shorthand
// ({generator: "fattree", servers, server_type, servers_per_rack?, name?}) or a pasted spec sent as
// it is; and where the API's field errors are shown on the form.

import { load } from "js-yaml";
import { DEFAULT_SERVERS_PER_RACK, type ServerTypeInfo, type SizePreview, generatedSize, specSize } from "./clusterSize";

export interface GeneratorForm {
  name: string;
  servers: string;
  serverType: string;
  serversPerRack: string;
}

/** The form's generator fields, by the names the API gives them in its field errors. */
export type GeneratorField = "name" | "servers" | "server_type" | "servers_per_rack";

export interface GeneratorBody {
  generator: "fattree";
  servers: number;
  server_type: string;
  servers_per_rack?: number;
  name?: string;
}

/** The API's limits (cluster_spec.py), checked here only so the preview never counts nonsense. */
export const MAX_SERVERS = 100_000;
export const MAX_SERVERS_PER_RACK = 1000;

/** "12" → 12; anything but a whole number in [min, max] → null. */
function wholeNumber(text: string, min: number, max: number): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** The name the API gives a generated cluster that was not named. */
export function defaultClusterName(servers: string, serverType: string): string {
  return `fattree-${servers.trim() || "N"}-${serverType || "TYPE"}`;
}

/**
 * The request body of the generator form, or the form's own faults by field. The name is left to the
 * API (its rules and messages are the reference), a blank one takes the API's default.
 */
export function generatorBody(
  form: GeneratorForm,
): { ok: true; body: GeneratorBody } | { ok: false; errors: Partial<Record<GeneratorField, string[]>> } {
  const errors: Partial<Record<GeneratorField, string[]>> = {};
  const servers = wholeNumber(form.servers, 1, MAX_SERVERS);
  if (servers === null) errors.servers = [`a whole number from 1 to ${MAX_SERVERS.toLocaleString("en-US")}`];
  const perRackText = form.serversPerRack.trim();
  const perRack = perRackText === "" ? DEFAULT_SERVERS_PER_RACK : wholeNumber(perRackText, 1, MAX_SERVERS_PER_RACK);
  if (perRack === null) errors.servers_per_rack = [`a whole number from 1 to ${MAX_SERVERS_PER_RACK}`];
  if (form.serverType === "") errors.server_type = ["pick a server type"];
  if (servers === null || perRack === null || form.serverType === "") return { ok: false, errors };

  const body: GeneratorBody = { generator: "fattree", servers, server_type: form.serverType };
  if (perRackText !== "") body.servers_per_rack = perRack;
  if (form.name.trim() !== "") body.name = form.name.trim();
  return { ok: true, body };
}

/** The size the generator form describes. */
export function generatorPreview(form: GeneratorForm, types: readonly ServerTypeInfo[]): SizePreview {
  const request = generatorBody(form);
  if (!request.ok) {
    const [first] = Object.entries(request.errors);
    return { ok: false, problem: first ? `${first[0].replace(/_/g, " ")}: ${first[1][0]}` : "incomplete" };
  }
  const { servers, server_type, servers_per_rack = DEFAULT_SERVERS_PER_RACK } = request.body;
  return generatedSize(servers, server_type, servers_per_rack, types);
}

/** The size a pasted YAML or JSON spec describes (JSON is YAML, so one parser reads both). */
export function pastedPreview(text: string, types: readonly ServerTypeInfo[]): SizePreview {
  if (text.trim() === "") return { ok: false, problem: "paste a cluster spec (YAML or JSON)" };
  let doc: unknown;
  try {
    doc = load(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { ok: false, problem: `not readable as YAML or JSON: ${reason}` };
  }
  return specSize(doc, types);
}

/** Where an API field error of the generator form is shown; the rest is listed under the form. */
export function generatorFieldOf(apiField: string): GeneratorField | null {
  const known: readonly string[] = ["name", "servers", "server_type", "servers_per_rack"];
  return known.includes(apiField) ? (apiField as GeneratorField) : null;
}
