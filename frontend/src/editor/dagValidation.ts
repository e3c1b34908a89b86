// The DAG spec's rules, checked locally while editing, with the API's exact messages
// (backend/e3/schemas/dag.py and docs/specs.md "Validation"). Pure: no React, no DOM.
// The server stays the authority (POST /api/v1/applications/validate); this only makes
// the editor answer on the keystroke rather than after a round trip.

import { cycleLabel } from "./errorText";
import { pyStrRepr } from "./pythonRepr";
import { configErrors, type ConfigSchemas } from "./serviceConfig";

export const NAME_PATTERN = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$";
export const NODE_ID_PATTERN = "^[a-z][a-z0-9_-]{0,62}$";
// A config key is a service's (the agent's own keys have a '.'); a value cannot hold the agent's separators.
export const CONFIG_KEY_PATTERN = "^[a-z][a-z0-9_]{0,31}$";
export const CONFIG_VALUE_PATTERN = "^[^;=\\n]{0,1024}$";
const NAME_RE = new RegExp(NAME_PATTERN);
const NODE_ID_RE = new RegExp(NODE_ID_PATTERN);
const CONFIG_KEY_RE = new RegExp(CONFIG_KEY_PATTERN, "u");
const CONFIG_VALUE_RE = new RegExp(CONFIG_VALUE_PATTERN, "u");
export const MAX_CONFIG_KEYS = 32;
export const MAX_NODES = 1000;
export const MAX_EDGES = 10_000;
export const MAX_INSTANCES = 100_000;
const MAX_ERRORS = 200;

const PATTERN_HELP: Record<string, string> = {
  [NAME_PATTERN]: "1-63 lowercase letters, digits or '-', starting and ending with a letter or digit",
  [NODE_ID_PATTERN]: "1-63 characters: a lowercase letter, then lowercase letters, digits, '_' or '-'",
  [CONFIG_KEY_PATTERN]: "1-32 lowercase letters, digits or '_', starting with a letter",
  [CONFIG_VALUE_PATTERN]: "at most 1024 characters, none of them ';', '=' or a newline",
};

const PINNING_REASONS: Record<string, string> = {
  sql:
    "sql is host-only in the paper: its state cannot migrate to the SmartNIC (E3's reliable " +
    "collections hold only hashtables and arrays), so SQL instances are pinned to host processors",
};

/** One problem, located by a dotted path such as `spec.nodes[2].service` (as the API reports it). */
export interface FieldError {
  field: string;
  message: string;
  code: string;
  /** For code "cycle": the node ids on the loop, in order. */
  cycle?: string[];
}

/** The document as it would be sent; values are `unknown` because a person may type anything. */
export interface SpecNode {
  id: unknown;
  service: unknown;
  shards: unknown;
  replicas: unknown;
  constraints: { platform: unknown };
  request_bytes: unknown;
  /** Service configuration: a mapping of strings, checked against the service's schema (serviceConfig.ts). */
  config?: unknown;
}
export interface SpecEdge {
  from: unknown;
  to: unknown;
}
export interface SpecDocument {
  apiVersion: string;
  kind: string;
  metadata: { name: unknown; description: unknown; labels?: Record<string, string> };
  spec: { nodes: SpecNode[]; edges: SpecEdge[] };
}

/** Service name -> the platforms it may run on ("host", "smartnic"). */
export type ServiceCatalog = Record<string, readonly string[]>;

// --- Python's repr and the backend's value descriptions ------------------------------------

function pyRepr(value: unknown): string {
  if (typeof value === "string") return pyStrRepr(value);
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return pyNumber(value);
  return JSON.stringify(value);
}

function pyNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(n);
}

/** backend short_repr: repr cut to 40 characters. */
export function shortRepr(value: unknown, limit = 40): string {
  const text = pyRepr(value);
  return [...text].length <= limit ? text : [...text].slice(0, limit - 3).join("") + "...";
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return `${value} (a boolean)`;
  if (typeof value === "number") return Number.isInteger(value) ? `${value} (a number)` : `${value} (not a whole number)`;
  if (typeof value === "string") return `${shortRepr(value)} (a string)`;
  if (Array.isArray(value)) return "a list";
  return "an object";
}

// --- field checks (pydantic's, in the backend's words) ------------------------------------

function checkInt(value: unknown, min: number, max: number, field: string, errors: FieldError[]): boolean {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    errors.push({ field, message: `must be an integer, got ${describe(value)}`, code: "wrong_type" });
    return false;
  }
  if (value < min) {
    errors.push({ field, message: `must be at least ${min}, got ${value}`, code: "out_of_range" });
    return false;
  }
  if (value > max) {
    errors.push({ field, message: `must be at most ${max}, got ${value}`, code: "out_of_range" });
    return false;
  }
  return true;
}

function checkPattern(value: unknown, pattern: string, re: RegExp, field: string, errors: FieldError[]): boolean {
  if (typeof value !== "string") {
    errors.push({ field, message: `must be a string, got ${describe(value)}`, code: "wrong_type" });
    return false;
  }
  if (!re.test(value)) {
    errors.push({
      field,
      message: `${shortRepr(value)} is not valid: ${PATTERN_HELP[pattern]} (pattern ${pattern})`,
      code: "pattern_mismatch",
    });
    return false;
  }
  return true;
}

const PLATFORMS = ["host", "smartnic", "any"];

function checkNode(node: SpecNode, i: number, errors: FieldError[]): boolean {
  const at = `spec.nodes[${i}]`;
  let ok = checkPattern(node.id, NODE_ID_PATTERN, NODE_ID_RE, `${at}.id`, errors);
  if (typeof node.service !== "string") {
    errors.push({ field: `${at}.service`, message: `must be a string, got ${describe(node.service)}`, code: "wrong_type" });
    ok = false;
  }
  ok = checkInt(node.shards, 1, 1000, `${at}.shards`, errors) && ok;
  ok = checkInt(node.replicas, 0, 1000, `${at}.replicas`, errors) && ok;
  const platform = node.constraints.platform;
  if (typeof platform !== "string" || !PLATFORMS.includes(platform)) {
    errors.push({
      field: `${at}.constraints.platform`,
      message: `must be 'host', 'smartnic' or 'any', got ${describe(platform)}`,
      code: "invalid_choice",
    });
    ok = false;
  }
  ok = checkInt(node.request_bytes, 1, 65535, `${at}.request_bytes`, errors) && ok;
  ok = checkConfigShape(node.config, `${at}.config`, errors) && ok;
  return ok;
}

/** The spec's own rules for `config` (a mapping of at most 32 keys to strings), before its service's schema. */
function checkConfigShape(config: unknown, field: string, errors: FieldError[]): boolean {
  if (config === undefined) return true;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    errors.push({ field, message: `must be an object (mapping), got ${describe(config)}`, code: "wrong_type" });
    return false;
  }
  const entries = Object.entries(config);
  if (entries.length > MAX_CONFIG_KEYS) {
    // pydantic gives no length for a mapping, and the API says so
    errors.push({ field, message: `must have at most ${MAX_CONFIG_KEYS} items, got None`, code: "too_long" });
    return false;
  }
  let ok = true;
  for (const [key, value] of entries) {
    ok = checkPattern(key, CONFIG_KEY_PATTERN, CONFIG_KEY_RE, `${field}.${key}`, errors) && ok;
    ok = checkPattern(value, CONFIG_VALUE_PATTERN, CONFIG_VALUE_RE, `${field}.${key}`, errors) && ok;
  }
  return ok;
}

// --- graph checks ---------------------------------------------------------------------------

/** One cycle as [a, b, c] (a -> b -> c -> a) or null: the backend's deterministic DFS. */
export function findCycle(order: readonly string[], edges: readonly (readonly [string, string])[]): string[] | null {
  const adjacency = new Map<string, string[]>();
  for (const [a, b] of edges) {
    const list = adjacency.get(a);
    if (list) list.push(b);
    else adjacency.set(a, [b]);
  }
  const state = new Map<string, 1 | 2>();
  for (const root of order) {
    if (state.has(root)) continue;
    const path = [root];
    const pending: { list: string[]; at: number }[] = [{ list: adjacency.get(root) ?? [], at: 0 }];
    state.set(root, 1);
    while (pending.length > 0) {
      const top = pending[pending.length - 1]!;
      const nxt = top.at < top.list.length ? top.list[top.at++] : undefined;
      if (nxt === undefined) {
        state.set(path.pop()!, 2);
        pending.pop();
      } else if (state.get(nxt) === 1) {
        return path.slice(path.indexOf(nxt));
      } else if (!state.has(nxt)) {
        state.set(nxt, 1);
        path.push(nxt);
        pending.push({ list: adjacency.get(nxt) ?? [], at: 0 });
      }
    }
  }
  return null;
}

/**
 * Every problem in `doc`, in the order and words the API uses. `services` is the catalogue
 * (GET /api/v1/catalog/services); when null, service names and platforms are not checked.
 * `configSchemas` (the catalogue's too) checks each node's config against its service's schema.
 */
export function validateDag(doc: SpecDocument, services: ServiceCatalog | null, configSchemas: ConfigSchemas | null = null): FieldError[] {
  const errors: FieldError[] = [];
  // pydantic's field checks, in declaration order
  checkPattern(doc.metadata.name, NAME_PATTERN, NAME_RE, "metadata.name", errors);
  if (typeof doc.metadata.description === "string" && doc.metadata.description.length > 1000) {
    errors.push({ field: "metadata.description", message: "must be at most 1000 characters", code: "too_long" });
  }
  const nodes = doc.spec.nodes;
  const edges = doc.spec.edges;
  const validNodes: { i: number; node: SpecNode }[] = [];
  if (nodes.length === 0) {
    errors.push({ field: "spec.nodes", message: "an application needs at least one node", code: "too_short" });
  } else if (nodes.length > MAX_NODES) {
    errors.push({
      field: "spec.nodes",
      message: `must have at most ${MAX_NODES} items, got ${nodes.length}`,
      code: "too_long",
    });
  }
  nodes.slice(0, MAX_NODES).forEach((node, i) => {
    if (checkNode(node, i, errors)) validNodes.push({ i, node });
  });
  if (edges.length > MAX_EDGES) {
    errors.push({ field: "spec.edges", message: `must have at most ${MAX_EDGES} items, got ${edges.length}`, code: "too_long" });
  }
  const validEdges: { i: number; from: string; to: string }[] = [];
  edges.slice(0, MAX_EDGES).forEach((e, i) => {
    let ok = true;
    for (const [end, value] of [["from", e.from], ["to", e.to]] as const) {
      if (typeof value !== "string") {
        errors.push({ field: `spec.edges[${i}].${end}`, message: `must be a string, got ${describe(value)}`, code: "wrong_type" });
        ok = false;
      }
    }
    if (ok) validEdges.push({ i, from: e.from as string, to: e.to as string });
  });

  // graph-level checks on the well-formed parts (backend _salvage/_check_nodes/_check_edges)
  const ids: { i: number; id: string }[] = [];
  nodes.slice(0, MAX_NODES).forEach((n, i) => {
    if (typeof n.id === "string" && NODE_ID_RE.test(n.id)) ids.push({ i, id: n.id });
  });
  if (services) {
    const valid = Object.keys(services).sort();
    nodes.slice(0, MAX_NODES).forEach((n, i) => {
      if (typeof n.service === "string" && !(n.service in services)) {
        errors.push({
          field: `spec.nodes[${i}].service`,
          message: `unknown service ${shortRepr(n.service)}; valid services: ${valid.join(", ")}`,
          code: "unknown_service",
        });
      }
    });
  }
  const firstAt = new Map<string, number>();
  for (const { i, id } of ids) {
    const first = firstAt.get(id);
    if (first !== undefined) {
      errors.push({
        field: `spec.nodes[${i}].id`,
        message: `duplicate node id ${pyStrRepr(id)} (first used by spec.nodes[${first}])`,
        code: "duplicate",
      });
    } else firstAt.set(id, i);
  }
  if (services) {
    for (const { i, node } of validNodes) {
      const service = node.service as string;
      const allowed = services[service];
      if (!allowed) continue;
      const platform = node.constraints.platform as string;
      if (platform !== "any" && !allowed.includes(platform)) {
        const choices = ["any", ...allowed].sort();
        const reason = PINNING_REASONS[service] ?? `${service} runs only on: ${allowed.join(", ")}`;
        errors.push({
          field: `spec.nodes[${i}].constraints.platform`,
          message: `${reason}; platform ${pyStrRepr(platform)} is not possible, use ${choices.join(" or ")}`,
          code: "platform_not_supported",
        });
      }
      const schema = configSchemas && Object.hasOwn(configSchemas, service) ? configSchemas[service] : undefined;
      if (schema) errors.push(...configErrors(service, schema, (node.config ?? {}) as Record<string, string>, `spec.nodes[${i}].config`));
    }
  }
  const total = validNodes.reduce(
    (sum, { node }) => sum + (node.shards as number) * (1 + (node.replicas as number)),
    0,
  );
  if (total > MAX_INSTANCES) {
    errors.push({
      field: "spec.nodes",
      message: `the application has ${total} instances (shards x (1 + replicas), summed); the limit is ${MAX_INSTANCES}`,
      code: "too_many_instances",
    });
  }

  const known = new Set(ids.map((x) => x.id));
  const seen = new Map<string, number>();
  const good: [string, string][] = [];
  for (const { i, from, to } of validEdges) {
    let endsOk = true;
    for (const [end, id] of [["from", from], ["to", to]] as const) {
      if (!known.has(id)) {
        errors.push({
          field: `spec.edges[${i}].${end}`,
          message: `unknown node ${shortRepr(id)}: no node in spec.nodes has this id`,
          code: "unknown_node",
        });
        endsOk = false;
      }
    }
    if (!endsOk) continue;
    const key = `${from}\u0000${to}`;
    if (from === to) {
      errors.push({
        field: `spec.edges[${i}]`,
        message: `self-loop: ${from} -> ${to}; a node cannot send to itself in a DAG`,
        code: "self_loop",
      });
    } else if (seen.has(key)) {
      errors.push({
        field: `spec.edges[${i}]`,
        message: `duplicate edge ${from} -> ${to} (same as spec.edges[${seen.get(key)}])`,
        code: "duplicate",
      });
    } else {
      seen.set(key, i);
      good.push([from, to]);
    }
  }
  const cycle = findCycle(
    ids.map((x) => x.id),
    good,
  );
  if (cycle) {
    const shown = cycle.length <= 12 ? cycle : [...cycle.slice(0, 10), `... (${cycle.length} nodes)`];
    errors.push({
      field: "spec.edges",
      message: `cycle: ${[...shown, cycle[0]].join(" -> ")}; an application must be acyclic`,
      code: "cycle",
      cycle,
    });
  }
  return errors;
}

/** The API's one-line message for a failed validation: "field: message (and N more)". */
export function summaryMessage(errors: readonly FieldError[]): string {
  const first = errors[0];
  if (!first) return "valid";
  if (errors.length > MAX_ERRORS) {
    return `${first.field}: ${first.message} (and ${errors.length - 1} more; the first ${MAX_ERRORS} are listed)`;
  }
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return `${first.field}: ${first.message}${more}`;
}

// --- where an error belongs on the canvas ---------------------------------------------------

export interface LocatedErrors {
  /** Node index in spec.nodes -> messages. */
  nodes: Map<number, string[]>;
  /** Edge index in spec.edges -> its labels; present (maybe with no label) when the edge is at fault. */
  edges: Map<number, string[]>;
  /** metadata.* field -> messages (e.g. "metadata.name"). */
  metadata: Map<string, string[]>;
  /** Labels about the drawing as a whole, shown once on the canvas (a cycle: "cycle: a → b → a"). */
  canvas: string[];
  /** Errors about the document as a whole (empty DAG, too many instances, body). */
  general: FieldError[];
}

/** A node on a cycle says only that: the cycle itself is labelled once, on the canvas. */
export const ON_CYCLE = "on a cycle";

function push<K>(map: Map<K, string[]>, key: K, message: string): void {
  const list = map.get(key);
  if (list) list.push(message);
  else map.set(key, [message]);
}

/**
 * Maps errors onto the document: `spec.nodes[i]...` to node i (a config key's message named by its
 * key, "rate: must be ..."), `spec.edges[j]...` to edge j,
 * a cycle (at `spec.edges`, with its node ids) to every node and edge on the loop: each is marked
 * (edges red, without a label), and the canvas carries the one short label, so the message is
 * neither repeated nor drawn over the nodes.
 */
export function locateErrors(
  errors: readonly FieldError[],
  nodeIds: readonly string[],
  edges: readonly { from: string; to: string }[],
): LocatedErrors {
  const out: LocatedErrors = { nodes: new Map(), edges: new Map(), metadata: new Map(), canvas: [], general: [] };
  for (const e of errors) {
    const node = /^spec\.nodes\[(\d+)\](?:\.config\.(.+))?/.exec(e.field);
    const edge = /^spec\.edges\[(\d+)\]/.exec(e.field);
    if (node) push(out.nodes, Number(node[1]), node[2] ? `${node[2]}: ${e.message}` : e.message);
    else if (edge) push(out.edges, Number(edge[1]), e.message);
    else if (e.field.startsWith("metadata.")) push(out.metadata, e.field, e.message);
    else if (e.code === "cycle" && Array.isArray(e.cycle) && e.cycle.length > 0) {
      const loop = e.cycle;
      const onLoop = new Set<string>();
      loop.forEach((a, k) => onLoop.add(`${a}\u0000${loop[(k + 1) % loop.length]}`));
      nodeIds.forEach((id, i) => {
        if (loop.includes(id)) push(out.nodes, i, ON_CYCLE);
      });
      const marked = new Set<string>();
      edges.forEach((ed, j) => {
        const key = `${ed.from}\u0000${ed.to}`;
        if (onLoop.has(key) && !marked.has(key)) {
          marked.add(key);
          if (!out.edges.has(j)) out.edges.set(j, []);
        }
      });
      out.canvas.push(cycleLabel(loop));
      out.general.push(e);
    } else out.general.push(e);
  }
  return out;
}
