// Finding a node, a server, an instance or an application of the cluster layout by name, for the placement
// view's search box: at 10,000 servers a person cannot find one by eye. Case-insensitive; a name that starts with
// the query comes before one that merely holds it; instances are found by DAG node ("kv", "kv shard 3") or by
// id prefix. Pure.

import { instanceName } from "../lib/instanceName";
import type { ClusterLayoutData } from "../viz/clusterLayout";

export type SearchHit =
  | { kind: "node"; node: number; label: string; detail: string }
  | { kind: "instance"; instance: number; label: string; detail: string }
  | { kind: "application"; application: string; label: string; detail: string };

type Layout = Pick<ClusterLayoutData, "nodes" | "servers" | "deployments" | "instances">;

/** How well `name` matches `q` (lower case): 0 starts with it, 1 holds it, null neither. */
function rank(name: string, q: string): number | null {
  const lower = name.toLowerCase();
  if (lower.startsWith(q)) return 0;
  return lower.includes(q) ? 1 : null;
}

/** The hits for `query` (trimmed; fewer than 2 characters find nothing), at most `max`, best first: applications,
 * then nodes (a server's name finds its nodes), then instances. */
export function searchCluster(layout: Layout, query: string, max = 20): SearchHit[] {
  const q = query.trim().toLowerCase();
  if (q.length < 2) return [];
  // order: applications, nodes, instances; seq: the layout's own order within each (applications by name)
  const ranked: { hit: SearchHit; rank: number; order: number; seq: number }[] = [];
  const add = (hit: SearchHit, r: number | null, order: number, seq: number) => {
    if (r !== null) ranked.push({ hit, rank: r, order, seq });
  };
  const apps = [...new Set(layout.deployments.map((d) => d.application))].sort();
  const instancesOf = new Map<string, number>();
  layout.instances.deployment.forEach((d) => {
    const app = layout.deployments[d]?.application ?? "";
    instancesOf.set(app, (instancesOf.get(app) ?? 0) + 1);
  });
  apps.forEach((a, i) =>
    add({ kind: "application", application: a, label: a, detail: `application · ${instancesOf.get(a) ?? 0} instances` },
        rank(a, q), 0, i));
  layout.nodes.forEach((n, i) => {
    const server = layout.servers[n.server]?.name ?? "";
    const r = rank(n.name, q) ?? rank(server, q);
    add({ kind: "node", node: i, label: n.name, detail: `${n.kind} · ${n.state ?? "up"}` }, r, 1, i);
  });
  const inst = layout.instances;
  for (let i = 0; i < inst.id.length; i++) {
    const label = instanceName(inst, i);
    const r = rank(label, q) ?? (inst.id[i]?.toLowerCase().startsWith(q) ? 0 : null);
    const app = layout.deployments[inst.deployment[i] ?? -1]?.application ?? "?";
    add({ kind: "instance", instance: i, label, detail: `${app} · on ${layout.nodes[inst.node[i] ?? -1]?.name ?? "?"}` }, r, 2, i);
  }
  ranked.sort((a, b) => a.order - b.order || a.rank - b.rank || a.seq - b.seq);
  return ranked.slice(0, max).map((r) => r.hit);
}
