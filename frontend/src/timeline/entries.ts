// Events (GET /events, /events/stream) as timeline entries: a category to filter by, one line of
// text, and the nodes and instances each concerns, resolved against the cluster's layout so a click
// can find them on the drawing. An event's application is its own (recorded with it, so it survives
// the instance); only events without one (a node's own, or recorded before events named it) are
// given the applications the layout places on their instances and nodes. Pure.

import type { EventRow } from "../api/client";
import { shortId } from "../lib/format";
import { instanceName } from "../lib/instanceName";

export type Category = "detection" | "migration" | "failover" | "node" | "refusal" | "other";

export const CATEGORIES: { key: Category; label: string }[] = [
  { key: "detection", label: "Detections" },
  { key: "migration", label: "Migrations" },
  { key: "failover", label: "Failovers" },
  { key: "node", label: "Node state" },
  { key: "refusal", label: "Refusals" },
  { key: "other", label: "Other" },
];

/** What was refused: an agent's NACK of a command, a deployment not placed or not sent to its agents. */
const REFUSALS = new Set(["command.nack", "deployment.failed", "deployment.commands_failed"]);

export function categoryOf(kind: string): Category {
  if (kind.startsWith("orchestrator.") && kind !== "orchestrator.mode") return "detection";
  if (kind.startsWith("migration.")) return "migration";
  if (kind.startsWith("failover.")) return "failover";
  if (kind.startsWith("node.")) return "node";
  if (REFUSALS.has(kind)) return "refusal";
  return "other";
}

/** The parts of the cluster layout entries are resolved against (the generated layout type fits). */
export interface LookupSource {
  nodes: { id: string; name: string }[];
  deployments: { id?: string; application: string }[];
  instances: { id: string[]; node: number[]; deployment: number[]; dag_node: string[]; shard: number[]; replica: number[] };
}

export interface Lookup {
  nodeById: Map<string, number>;
  nodeByName: Map<string, number>;
  instanceById: Map<string, number>;
  /** Applications with an instance on each node (by node index). */
  appsOfNode: Map<number, Set<string>>;
  /** A deployment's application, by deployment id. */
  appOfDeployment: Map<string, string>;
  source: LookupSource | null;
}

export const emptyLookup: Lookup = {
  nodeById: new Map(),
  nodeByName: new Map(),
  instanceById: new Map(),
  appsOfNode: new Map(),
  appOfDeployment: new Map(),
  source: null,
};

export function buildLookup(data: LookupSource | null): Lookup {
  if (data === null) return emptyLookup;
  const nodeById = new Map<string, number>();
  const nodeByName = new Map<string, number>();
  data.nodes.forEach((n, i) => {
    nodeById.set(n.id, i);
    nodeByName.set(n.name, i);
  });
  const instanceById = new Map<string, number>();
  const appsOfNode = new Map<number, Set<string>>();
  const inst = data.instances;
  for (let i = 0; i < inst.id.length; i++) {
    instanceById.set(inst.id[i]!, i);
    const app = data.deployments[inst.deployment[i] ?? -1]?.application;
    const node = inst.node[i] ?? -1;
    if (app === undefined || node < 0) continue;
    let apps = appsOfNode.get(node);
    if (!apps) appsOfNode.set(node, (apps = new Set()));
    apps.add(app);
  }
  const appOfDeployment = new Map<string, string>();
  for (const d of data.deployments) if (d.id) appOfDeployment.set(d.id, d.application);
  return { nodeById, nodeByName, instanceById, appsOfNode, appOfDeployment, source: data };
}

export interface NodeRef {
  kind: "node";
  /** Index into the layout's nodes; null when the layout does not know it (another cluster, deleted). */
  index: number | null;
  label: string;
}

export interface InstanceRef {
  kind: "instance";
  index: number | null;
  id: string;
  label: string;
}

export type Ref = NodeRef | InstanceRef;

export type Tone = "ok" | "bad" | "warn" | "info";

/** One line of a migration's entry: its request, start, a step (with its commands' answers), roll-back or end. */
export interface MigrationViewLine {
  id: number;
  ts: string;
  /** A step's name, else the event's kind. */
  name: string;
  state: string;
  text: string;
  tone: Tone;
  answers: { id: number; ok: boolean; text: string }[];
}

/** A migration's entry, opened: its lines in protocol order. */
export interface MigrationView {
  key: string;
  state: string;
  lines: MigrationViewLine[];
}

export interface TimelineEntry {
  /** The event's id; a migration's: its first event's. */
  id: number;
  ts: string;
  /** The event's kind; "migration" for a migration's events gathered in one entry. */
  kind: string;
  category: Category;
  text: string;
  refs: Ref[];
  /** Applications it concerns: the event's own, else through its instances or the instances on its nodes. */
  applications: string[];
  tone: Tone;
  /** A migration's events gathered in one entry (timelineRows.ts). */
  migration?: MigrationView;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}



export function instanceRef(lookup: Lookup, id: string): InstanceRef {
  const index = lookup.instanceById.get(id) ?? null;
  const inst = lookup.source?.instances;
  const label =
    index !== null && inst
      ? instanceName(inst, index)
      : `instance ${shortId(id)}`;
  return { kind: "instance", index, id, label };
}

export function nodeRefById(lookup: Lookup, id: string, name?: string | null): NodeRef {
  const index = lookup.nodeById.get(id) ?? null;
  const label = name ?? (index !== null ? lookup.source?.nodes[index]?.name : null) ?? `node ${shortId(id)}`;
  return { kind: "node", index, label };
}

function nodeRefByName(lookup: Lookup, name: string): NodeRef {
  return { kind: "node", index: lookup.nodeByName.get(name) ?? null, label: name };
}

function trouble(v: unknown): string {
  return v === "host_starvation" ? "host starvation" : v === "overload" ? "overload" : String(v ?? "trouble");
}

/** The entry for one event. */
export function toEntry(e: Pick<EventRow, "id" | "ts" | "kind" | "subject" | "data" | "application">, lookup: Lookup): TimelineEntry {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const [subjectKind, subjectId] = e.subject.includes("/") ? [e.subject.slice(0, e.subject.indexOf("/")), e.subject.slice(e.subject.indexOf("/") + 1)] : [e.subject, ""];
  const refs: Ref[] = [];
  const add = (r: Ref | null) => {
    if (r && !refs.some((x) => x.kind === r.kind && x.label === r.label)) refs.push(r);
  };
  const subjectNode = subjectKind === "node" && subjectId ? nodeRefById(lookup, subjectId, str(d.name)) : null;
  const subjectInstance = subjectKind === "instance" && subjectId ? instanceRef(lookup, subjectId) : null;
  add(subjectInstance);
  add(subjectNode);
  const nodeName = subjectNode?.label ?? "";
  const instLabel = subjectInstance?.label ?? "";
  let text: string;
  let tone: TimelineEntry["tone"] = "info";

  switch (e.kind) {
    case "node.up":
    case "node.suspect":
    case "node.down": {
      const state = e.kind.slice(5);
      text = `${nodeName} ${state}${str(d.previous) ? ` (was ${d.previous})` : ""}`;
      tone = state === "up" ? "ok" : state === "down" ? "bad" : "warn";
      break;
    }
    case "node.registered":
      text = `${nodeName} registered${str(d.address) ? ` at ${d.address}` : ""}`;
      break;
    case "orchestrator.detection": {
      const inst = str(d.instance_id);
      const ref = inst ? instanceRef(lookup, inst) : null;
      add(ref);
      text = `Detection on ${nodeName}: ${trouble(d.trouble)}${ref ? ` of ${ref.label}` : ""}`;
      tone = "warn";
      break;
    }
    case "orchestrator.decision": {
      const inst = str(d.instance_id);
      const target = str(d.target_node_id);
      const ref = inst ? instanceRef(lookup, inst) : null;
      const tref = target ? nodeRefById(lookup, target) : null;
      add(ref);
      add(tref);
      const level = num(d.level);
      text =
        `Decision (${trouble(d.trouble)} on ${nodeName}): move ${ref?.label ?? "an instance"} to ${tref?.label ?? "?"}` +
        `${level !== null ? ` (level ${level})` : ""}${d.mode && d.mode !== "migrate" ? `, ${d.mode} only` : ""}`;
      break;
    }
    case "orchestrator.no_decision":
      text = `No decision (${trouble(d.trouble)} on ${nodeName}): ${str(d.reason) ?? "no reason given"}`;
      tone = "warn";
      break;
    case "migration.requested":
    case "migration.started": {
      const source = str(d.source);
      const target = str(d.target);
      if (source) add(nodeRefByName(lookup, source));
      if (target) add(nodeRefByName(lookup, target));
      const verb = e.kind === "migration.requested" ? "requested" : "started";
      const why = e.kind === "migration.requested" ? ` (${str(d.reason) ?? "manual"}${str(d.requested_by) ? `, by ${d.requested_by}` : ""})` : "";
      text = `Migration of ${instLabel} ${verb}: ${source ?? "?"} → ${target ?? "?"}${why}`;
      break;
    }
    case "migration.step": {
      const ms = num(d.ms);
      const state = str(d.state) ?? "?";
      text = `${instLabel}: step ${str(d.step) ?? "?"} ${state}${ms !== null ? ` in ${Math.round(ms)} ms` : ""}${str(d.error) ? `: ${d.error}` : ""}`;
      tone = state === "failed" ? "bad" : state === "done" ? "ok" : "info";
      break;
    }
    case "migration.rolling_back":
      text = `Migration of ${instLabel} rolling back: ${str(d.error) ?? "?"}`;
      tone = "warn";
      break;
    case "migration.succeeded":
    case "migration.rolled_back":
    case "migration.failed": {
      const state = e.kind.slice(10).replace("_", " ");
      const source = str(d.source);
      const target = str(d.target);
      if (source) add(nodeRefByName(lookup, source));
      if (target) add(nodeRefByName(lookup, target));
      const total = num(d.total_ms);
      const seed = d.migration_kind === "seed" ? "Seed" : "Migration";
      text =
        `${seed} of ${instLabel} ${state}${source && target ? ` (${source} → ${target})` : ""}` +
        `${total !== null ? `, steps ${Math.round(total)} ms` : ""}${str(d.error) ? `: ${d.error}` : ""}`;
      tone = e.kind === "migration.succeeded" ? "ok" : "bad";
      break;
    }
    case "failover.started":
      text = `Failover of ${nodeName}: ${num(d.instances) ?? "?"} instances lost`;
      tone = "bad";
      break;
    case "failover.done":
      text = `Failover of ${nodeName} done${num(d.seeds) !== null ? `, ${d.seeds} new backups seeding` : ""}`;
      tone = "ok";
      break;
    case "failover.promoted": {
      const node = str(d.node);
      const lost = str(d.lost_node);
      if (node) add(nodeRefByName(lookup, node));
      if (lost) add(nodeRefByName(lookup, lost));
      text = `${str(d.dag_node) ?? "?"} shard ${num(d.shard) ?? "?"}: backup promoted on ${node ?? "?"}${lost ? ` (primary lost on ${lost})` : ""}`;
      tone = "ok";
      break;
    }
    case "failover.replaced": {
      const node = str(d.node);
      if (node) add(nodeRefByName(lookup, node));
      text = `${instLabel} placed again on ${node ?? "?"}${d.stateful ? " (starts without its state)" : ""}`;
      break;
    }
    case "failover.backup_placed": {
      const node = str(d.node);
      const primary = str(d.primary);
      if (primary) add(instanceRef(lookup, primary));
      if (node) add(nodeRefByName(lookup, node));
      text = `${str(d.dag_node) ?? "?"} shard ${num(d.shard) ?? "?"}: new backup on ${node ?? "?"}, seeding`;
      break;
    }
    case "failover.state_lost":
    case "failover.unplaced":
    case "failover.unprotected": {
      const what = { "failover.state_lost": "state lost", "failover.unplaced": "not placed", "failover.unprotected": "left without a backup" }[e.kind];
      text = `${str(d.dag_node) ?? instLabel} shard ${num(d.shard) ?? "?"}: ${what}${str(d.reason) ? ` (${d.reason})` : ""}`;
      tone = "bad";
      break;
    }
    case "command.ack":
    case "command.nack": {
      const inst = str(d.instance_id);
      const ref = inst ? instanceRef(lookup, inst) : null;
      add(ref);
      const what = `${str(d.command)?.replace(/_/g, " ") ?? `command v${num(d.version) ?? "?"}`}${ref ? ` of ${ref.label}` : ""}`;
      if (e.kind === "command.ack") {
        text = `Agent on ${nodeName} ACKed ${what}`;
        tone = "ok";
      } else {
        const reason = [str(d.error_code), str(d.error_message) ?? str(d.error)].filter((x): x is string => x !== null);
        if (reason.length === 2 && reason[0] === reason[1]) reason.pop(); // an agent that gave only a code
        text = `Agent on ${nodeName} refused ${what}${reason.length > 0 ? `: ${reason.join(": ")}` : ""}`;
        tone = "bad";
      }
      break;
    }
    case "deployment.placed":
      text = `Deployment ${shortId(subjectId)} placed: ${num(d.instances) ?? "?"} instances`;
      break;
    case "deployment.failed":
    case "deployment.commands_failed": {
      const what = e.kind === "deployment.failed" ? "not placed" : "not sent to its agents";
      text = `Deployment ${shortId(subjectId)} ${what}${str(d.error) ? `: ${d.error}` : ""}`;
      tone = "bad";
      break;
    }
    default: {
      const detail = str(d.message) ?? str(d.error) ?? str(d.mode);
      text = `${e.kind}${subjectNode ? ` on ${nodeName}` : subjectInstance ? ` of ${instLabel}` : ` ${e.subject}`}${detail ? `: ${detail}` : ""}`;
      tone = e.kind.endsWith(".nack") || e.kind.endsWith("failed") ? "bad" : "info";
    }
  }

  const own = str(e.application) ?? str(d.application);
  const category = categoryOf(e.kind);
  if (own !== null) return { id: e.id, ts: e.ts, kind: e.kind, category, text, refs, applications: [own], tone };
  // An event about a node names the applications it had instances of then: they may have moved away since
  const applications = new Set<string>(Array.isArray(d.applications) ? d.applications.filter((a): a is string => typeof a === "string") : []);
  const deploymentApp = subjectKind === "deployment" ? lookup.appOfDeployment.get(subjectId) : undefined;
  if (deploymentApp) applications.add(deploymentApp);
  const src = lookup.source;
  for (const r of refs) {
    if (r.index === null || !src) continue;
    if (r.kind === "instance") {
      const app = src.deployments[src.instances.deployment[r.index] ?? -1]?.application;
      if (app) applications.add(app);
    } else {
      for (const app of lookup.appsOfNode.get(r.index) ?? []) applications.add(app);
    }
  }
  return { id: e.id, ts: e.ts, kind: e.kind, category, text, refs, applications: [...applications].sort(), tone };
}

export interface TimelineFilter {
  /** "" for every application. */
  application: string;
  categories: ReadonlySet<Category>;
}

export function matches(entry: TimelineEntry, f: TimelineFilter): boolean {
  if (!f.categories.has(entry.category)) return false;
  return f.application === "" || entry.applications.includes(f.application);
}

/** Entries to show, newest first, at most `max`. */
export function visibleEntries(entries: readonly TimelineEntry[], f: TimelineFilter, max = 200): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (let i = entries.length - 1; i >= 0 && out.length < max; i--) {
    const e = entries[i]!;
    if (matches(e, f)) out.push(e);
  }
  return out;
}
