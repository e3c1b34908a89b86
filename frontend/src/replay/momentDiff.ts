// What changed between two moments of a cluster (GET /clusters/{name}/moment at each): instances that moved to
// another node (a migration), were promoted from backup (a failover), appeared or went; nodes whose state changed;
// and per application how throughput, latency, joules per request and power changed. Read from the earlier
// moment to the later, whichever was picked first. Pure.

import type { ClusterMoment } from "./momentApi";

export type { ClusterMoment };
type MomentApplication = ClusterMoment["applications"][number];

export interface MomentInstance {
  id: string;
  application: string;
  dagNode: string;
  shard: number;
  role: "primary" | "backup";
  node: string;
  nodeKind: string;
  state: string;
}

export interface Move {
  instance: MomentInstance;
  from: string;
  to: string;
}

export interface Promotion {
  instance: MomentInstance;
  /** Its node then (a promoted backup serves where it was). */
  node: string;
}

export interface NodeStateChange {
  node: string;
  from: string;
  to: string;
}

/** One figure at both moments (null: not measured then). */
export interface Change {
  before: number | null;
  after: number | null;
  /** after / before, when both are measured and before is not zero. */
  ratio: number | null;
}

export interface ApplicationChange {
  application: string;
  throughputRps: Change;
  avgLatencyUs: Change;
  p99LatencyUs: Change;
  joulesPerRequest: Change;
  watts: Change;
  /** Where each moment's watts came from (rapl | ipmi | model …), null when none was recorded. */
  sources: { before: string | null; after: string | null };
  /** Deployed at only one of the moments. */
  only: "before" | "after" | null;
}

export interface MomentDiff {
  before: number;
  after: number;
  moved: Move[];
  promoted: Promotion[];
  appeared: MomentInstance[];
  went: MomentInstance[];
  nodeStates: NodeStateChange[];
  applications: ApplicationChange[];
  /** Whether each moment's placement is known (before the first recorded change it is not). */
  known: { before: boolean; after: boolean };
}

/** The instances of a moment by id, with their names resolved. */
export function momentInstances(moment: ClusterMoment): Map<string, MomentInstance> {
  const { layout } = moment;
  const inst = layout.instances;
  const out = new Map<string, MomentInstance>();
  inst.id.forEach((id, i) => {
    const node = layout.nodes[inst.node[i] ?? -1];
    out.set(id, {
      id,
      application: layout.deployments[inst.deployment[i] ?? -1]?.application ?? "?",
      dagNode: inst.dag_node[i] ?? "?",
      shard: inst.shard[i] ?? 0,
      role: (inst.replica[i] ?? 0) === 0 ? "primary" : "backup",
      node: node?.name ?? "?",
      nodeKind: node?.kind ?? "?",
      state: inst.state[i] ?? "?",
    });
  });
  return out;
}

function change(before: number | null | undefined, after: number | null | undefined): Change {
  const b = before ?? null;
  const a = after ?? null;
  return { before: b, after: a, ratio: a !== null && b !== null && b !== 0 ? a / b : null };
}

function byApplication(moment: ClusterMoment): Map<string, MomentApplication> {
  // A rollout may hold two deployments of an application: the first listed (the older) speaks for it.
  const out = new Map<string, MomentApplication>();
  for (const app of moment.applications) if (!out.has(app.application)) out.set(app.application, app);
  return out;
}

function applicationChanges(earlier: ClusterMoment, later: ClusterMoment): ApplicationChange[] {
  const before = byApplication(earlier);
  const after = byApplication(later);
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  return names.map((application) => {
    const b = before.get(application);
    const a = after.get(application);
    return {
      application,
      throughputRps: change(b?.throughput_rps, a?.throughput_rps),
      avgLatencyUs: change(b?.avg_latency_us, a?.avg_latency_us),
      p99LatencyUs: change(b?.p99_latency_us, a?.p99_latency_us),
      joulesPerRequest: change(b?.joules_per_request, a?.joules_per_request),
      watts: change(b?.watts, a?.watts),
      sources: { before: b?.energy_source ?? null, after: a?.energy_source ?? null },
      only: b && a ? null : b ? "before" : "after",
    };
  });
}

const rank = (i: MomentInstance) => (i.role === "primary" ? 0 : 1);
const byPlace = (x: MomentInstance, y: MomentInstance) =>
  x.application.localeCompare(y.application) || x.dagNode.localeCompare(y.dagNode) || x.shard - y.shard ||
  rank(x) - rank(y) || x.id.localeCompare(y.id);

/** The differences between moments `first` and `second`, read from the earlier to the later. */
export function diffMoments(first: ClusterMoment, second: ClusterMoment): MomentDiff {
  const [earlier, later] = Date.parse(first.at) <= Date.parse(second.at) ? [first, second] : [second, first];
  const was = momentInstances(earlier);
  const now = momentInstances(later);
  const moved: Move[] = [];
  const promoted: Promotion[] = [];
  const appeared: MomentInstance[] = [];
  for (const [id, after] of now) {
    const before = was.get(id);
    if (!before) appeared.push(after);
    else {
      if (before.node !== after.node) moved.push({ instance: after, from: before.node, to: after.node });
      if (before.role === "backup" && after.role === "primary") promoted.push({ instance: after, node: after.node });
    }
  }
  const went = [...was.values()].filter((i) => !now.has(i.id));
  const stateThen = new Map(earlier.layout.nodes.map((n) => [n.name, n.state]));
  const nodeStates = later.layout.nodes
    .filter((n) => stateThen.has(n.name) && stateThen.get(n.name) !== n.state)
    .map((n) => ({ node: n.name, from: stateThen.get(n.name) ?? "?", to: n.state }));
  return {
    before: Date.parse(earlier.at),
    after: Date.parse(later.at),
    moved: moved.sort((x, y) => byPlace(x.instance, y.instance)),
    promoted: promoted.sort((x, y) => byPlace(x.instance, y.instance)),
    appeared: appeared.sort(byPlace),
    went: went.sort(byPlace),
    nodeStates,
    applications: applicationChanges(earlier, later),
    known: { before: earlier.placement_known, after: later.placement_known },
  };
}

/** Nothing moved, appeared, went or changed state (figures aside). */
export function placementUnchanged(diff: MomentDiff): boolean {
  return !diff.moved.length && !diff.promoted.length && !diff.appeared.length && !diff.went.length &&
    !diff.nodeStates.length;
}
