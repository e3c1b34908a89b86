// The editor's document: an application DAG plus where its nodes sit on the canvas. Immutable;
// every edit returns a new document, so undo/redo is a list of snapshots. Pure (no React).
// Nodes carry a stable `key` (the canvas id) apart from their spec `id`, so renaming a node or
// typing a duplicate id never loses track of which box is which.

import { dump, load } from "js-yaml";

import { layoutDag, type XY } from "../viz/dagLayout";
import type { SpecDocument } from "./dagValidation";

export type Platform = "any" | "host" | "smartnic";

export interface DraftNode {
  key: string;
  id: string;
  service: string;
  /** A number when it parses as one; otherwise what was typed, so nothing is lost. */
  shards: number | string;
  replicas: number | string;
  platform: Platform | string;
  request_bytes: number | string;
  /** Service configuration handed to the agent (e.g. api_gateway's keys): strings by key, edited in the
   * properties panel's form (configFields.ts); anything else read from a YAML is kept as read, for the checks to name. */
  config?: unknown;
}

export interface DraftEdge {
  from: string;
  to: string;
}

export interface DagDocument {
  name: string;
  description: string;
  labels: Record<string, string>;
  nodes: readonly DraftNode[];
  edges: readonly DraftEdge[];
  /** node key -> top-left position on the canvas; not part of the spec. */
  positions: Readonly<Record<string, XY>>;
}

export const EMPTY_DOCUMENT: DagDocument = { name: "", description: "", labels: {}, nodes: [], edges: [], positions: {} };

/** Nothing typed or added yet: the editor's document as a new application starts. */
export function isBlank(doc: DagDocument): boolean {
  return doc.nodes.length === 0 && doc.edges.length === 0 && doc.name === "" && doc.description === "" && Object.keys(doc.labels).length === 0;
}

let keyCounter = 0;
export function newKey(): string {
  keyCounter += 1;
  return `n${Date.now().toString(36)}${keyCounter}`;
}

/** `service`, then `service-2`, `service-3`...: the first that no node uses. */
export function freshId(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const stem = /^[a-z]/.test(base) ? base : `n-${base}`;
  if (!used.has(stem)) return stem;
  for (let i = 2; ; i++) if (!used.has(`${stem}-${i}`)) return `${stem}-${i}`;
}

/** A node of `service` at `at`, under a new canvas key (or `key`, made beforehand with newKey()). */
export function addNode(doc: DagDocument, service: string, at: XY, key: string = newKey()): { doc: DagDocument; key: string } {
  const node: DraftNode = {
    key,
    id: freshId(service, doc.nodes.map((n) => n.id)),
    service,
    shards: 1,
    replicas: 1,
    platform: "any",
    request_bytes: 512,
  };
  return { doc: { ...doc, nodes: [...doc.nodes, node], positions: { ...doc.positions, [key]: at } }, key };
}

export function addEdge(doc: DagDocument, from: string, to: string): DagDocument {
  if (doc.edges.some((e) => e.from === from && e.to === to)) return doc;
  return { ...doc, edges: [...doc.edges, { from, to }] };
}

/** Changes one node; a new id is carried over to the edges that named the old one. */
export function updateNode(doc: DagDocument, key: string, patch: Partial<Omit<DraftNode, "key">>): DagDocument {
  const old = doc.nodes.find((n) => n.key === key);
  if (!old) return doc;
  const nodes = doc.nodes.map((n) => (n.key === key ? { ...n, ...patch } : n));
  let edges = doc.edges;
  if (patch.id !== undefined && patch.id !== old.id) {
    const stillNamed = doc.nodes.some((n) => n.key !== key && n.id === old.id);
    if (!stillNamed) {
      const to = patch.id;
      edges = edges.map((e) => ({ from: e.from === old.id ? to : e.from, to: e.to === old.id ? to : e.to }));
    }
  }
  return { ...doc, nodes, edges };
}

/** Removes nodes (by key) with the edges touching them, and edges (by index). */
export function removeElements(doc: DagDocument, nodeKeys: readonly string[], edgeIndices: readonly number[]): DagDocument {
  const gone = new Set(nodeKeys);
  const goneIds = new Set(doc.nodes.filter((n) => gone.has(n.key)).map((n) => n.id));
  const left = doc.nodes.filter((n) => !gone.has(n.key));
  const leftIds = new Set(left.map((n) => n.id));
  const dropIds = new Set([...goneIds].filter((id) => !leftIds.has(id)));
  const dropEdges = new Set(edgeIndices);
  const positions = { ...doc.positions };
  for (const k of gone) delete positions[k];
  return {
    ...doc,
    nodes: left,
    edges: doc.edges.filter((e, i) => !dropEdges.has(i) && !dropIds.has(e.from) && !dropIds.has(e.to)),
    positions,
  };
}

export function movedNodes(doc: DagDocument, moves: Readonly<Record<string, XY>>): DagDocument {
  return { ...doc, positions: { ...doc.positions, ...moves } };
}

/** The nodes with keys in `keys` moved by `by` (from the keyboard's arrows). */
export function shiftedNodes(doc: DagDocument, keys: readonly string[], by: XY): DagDocument {
  const moves: Record<string, XY> = {};
  for (const key of keys) {
    const p = doc.positions[key];
    if (p) moves[key] = { x: p.x + by.x, y: p.y + by.y };
  }
  return movedNodes(doc, moves);
}

/** What an integer field holds after typing `text`: the number if it is one, else the text. */
export function parseIntField(text: string): number | string {
  return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
}

// --- the spec document (API / YAML) ----------------------------------------------------------

/** The DAG spec as sent to the API (apiVersion e3/v1, kind Application). */
export function toSpec(doc: DagDocument): SpecDocument {
  return {
    apiVersion: "e3/v1",
    kind: "Application",
    metadata: { name: doc.name, description: doc.description, labels: { ...doc.labels } },
    spec: {
      nodes: doc.nodes.map((n) => ({
        id: n.id,
        service: n.service,
        shards: n.shards,
        replicas: n.replicas,
        constraints: { platform: n.platform },
        request_bytes: n.request_bytes,
        ...(n.config !== undefined && !(isRecord(n.config) && Object.keys(n.config).length === 0)
          ? { config: n.config }
          : {}),
      })),
      edges: doc.edges.map((e) => ({ from: e.from, to: e.to })),
    },
  };
}

/** The document with each node's config as the server stored it (the keys a save fills in, e.g. a generated
 * api_gateway key), matched by node id; the same document when nothing differs. */
export function withStoredConfig(doc: DagDocument, stored: unknown): DagDocument {
  const spec = isRecord(stored) && isRecord(stored.spec) ? stored.spec : null;
  const storedNodes = spec && Array.isArray(spec.nodes) ? spec.nodes.filter(isRecord) : [];
  const configById = new Map(storedNodes.filter((n) => isRecord(n.config)).map((n) => [String(n.id), n.config]));
  let changed = false;
  const nodes = doc.nodes.map((n) => {
    const config = configById.get(n.id);
    if (config === undefined || JSON.stringify(config) === JSON.stringify(n.config ?? {})) return n;
    changed = true;
    return { ...n, config };
  });
  return changed ? { ...doc, nodes } : doc;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function intOr(v: unknown, fallback: number): number | string {
  if (v === undefined) return fallback;
  if (typeof v === "number") return v;
  return String(v);
}

/** A document from a parsed spec; throws Error with a person-readable reason if it is not one. */
export function fromSpec(value: unknown, positions?: ReadonlyMap<string, XY>): DagDocument {
  if (!isRecord(value)) throw new Error("not a DAG spec: expected a mapping with apiVersion, kind, metadata, spec");
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const spec = isRecord(value.spec) ? value.spec : null;
  if (!spec) throw new Error("not a DAG spec: there is no 'spec' mapping with nodes and edges");
  const rawNodes = Array.isArray(spec.nodes) ? spec.nodes : [];
  const rawEdges = Array.isArray(spec.edges) ? spec.edges : [];
  const nodes: DraftNode[] = rawNodes.filter(isRecord).map((n) => ({
    key: newKey(),
    id: typeof n.id === "string" ? n.id : String(n.id ?? ""),
    service: typeof n.service === "string" ? n.service : String(n.service ?? ""),
    shards: intOr(n.shards, 1),
    replicas: intOr(n.replicas, 1),
    platform: isRecord(n.constraints) && n.constraints.platform !== undefined ? String(n.constraints.platform) : "any",
    request_bytes: intOr(n.request_bytes, 512),
    ...(n.config !== undefined ? { config: n.config } : {}),
  }));
  const edges: DraftEdge[] = rawEdges
    .filter(isRecord)
    .map((e) => ({ from: String(e.from ?? ""), to: String(e.to ?? "") }));
  const labels: Record<string, string> = {};
  if (isRecord(metadata.labels)) for (const [k, v] of Object.entries(metadata.labels)) labels[k] = String(v);
  const doc: DagDocument = {
    name: typeof metadata.name === "string" ? metadata.name : "",
    description: typeof metadata.description === "string" ? metadata.description : "",
    labels,
    nodes,
    edges,
    positions: {},
  };
  return positions ? { ...doc, positions: positionsByKey(doc, positions) } : autoLayout(doc);
}

function positionsByKey(doc: DagDocument, byId: ReadonlyMap<string, XY>): Record<string, XY> {
  const out: Record<string, XY> = {};
  doc.nodes.forEach((n, i) => (out[n.key] = byId.get(n.id) ?? { x: 0, y: i * 120 }));
  return out;
}

/** The same document with every node placed by the layered layout. */
export function autoLayout(doc: DagDocument): DagDocument {
  const byId = layoutDag(
    doc.nodes.map((n) => n.id),
    doc.edges,
  );
  return { ...doc, positions: positionsByKey(doc, byId) };
}

/** Parses YAML (or JSON) text into a document; throws Error with the parser's reason. */
export function parseYaml(text: string): DagDocument {
  let value: unknown;
  try {
    value = load(text);
  } catch (e) {
    throw new Error(`not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  return fromSpec(value);
}

/** The spec as YAML, never with anchors or aliases (the server refuses them). */
export function toYaml(doc: DagDocument): string {
  return dump(toSpec(doc), { noRefs: true, lineWidth: -1, sortKeys: false });
}

/** A string that changes when, and only when, the spec changes (not on moves). */
export function specKey(doc: DagDocument): string {
  return JSON.stringify(toSpec(doc));
}

// --- what survives a reload (localStorage) ---------------------------------------------------

export interface StoredDraft {
  /** Where the document came from: "app:<name>", "template:<name>" or "new". */
  source: string;
  etag: string | null;
  spec: SpecDocument;
  positions: Record<string, XY>;
}

export function draftKey(applicationName: string | undefined): string {
  return `e3.draft.${applicationName ?? "new"}`;
}

export function toStoredDraft(doc: DagDocument, source: string, etag: string | null): StoredDraft {
  const positions: Record<string, XY> = {};
  for (const n of doc.nodes) {
    const p = doc.positions[n.key];
    if (p) positions[n.id] = p;
  }
  return { source, etag, spec: toSpec(doc), positions };
}

export function fromStoredDraft(draft: StoredDraft): DagDocument {
  return fromSpec(draft.spec, new Map(Object.entries(draft.positions ?? {})));
}
