// What the details panel shows about one instance: where it sits, its DAG node, and the
// DAG's edges into and out of that node with where the peer shards sit. Pure data.

import type { ClusterLayoutData } from "../viz/clusterLayout";

export interface Placement {
  instance: number;
  shard: number;
  replica: number;
  node: string;
  nodeKind: string;
  server: string;
  rack: string;
}

export interface PeerGroup {
  /** "in": an edge from `dagNode` into this instance's DAG node; "out": the other way. */
  direction: "in" | "out";
  dagNode: string;
  service: string;
  instances: Placement[];
}

export interface InstanceRelations {
  self: Placement & {
    id: string;
    application: string;
    dagNode: string;
    service: string;
    deployment: number;
    /** Its state (null: the layout has none) and its agent's refusal when failed. */
    state: string | null;
    error: { code: string; message: string } | null;
  };
  /** Shards and replicas of the same DAG node in the same deployment. */
  dagNodeShards: number;
  dagNodeReplicas: number;
  dagNodeInstances: number;
  peers: PeerGroup[];
  /** Every peer instance index (for highlighting on the drawing). */
  peerInstances: number[];
}

export function placementOf(data: ClusterLayoutData, i: number): Placement {
  const node = data.nodes[data.instances.node[i] ?? -1];
  const server = node ? data.servers[node.server] : undefined;
  const rack = server ? data.racks[server.rack] : undefined;
  return {
    instance: i,
    shard: data.instances.shard[i] ?? 0,
    replica: data.instances.replica[i] ?? 0,
    node: node?.name ?? "?",
    nodeKind: node?.kind ?? "?",
    server: server?.name ?? "?",
    rack: rack?.name ?? "?",
  };
}

export { roleOf } from "../lib/instanceName";

export function instanceRelations(data: ClusterLayoutData, i: number): InstanceRelations | null {
  const inst = data.instances;
  if (i < 0 || i >= inst.id.length) return null;
  const dep = inst.deployment[i] ?? -1;
  const dagNode = inst.dag_node[i] ?? "";
  const deployment = data.deployments[dep];
  const edges = (deployment?.edges ?? []) as string[][];
  const groups = new Map<string, PeerGroup>();
  for (const [from, to] of edges) {
    if (from === undefined || to === undefined) continue;
    if (to === dagNode) groups.set(`in:${from}`, { direction: "in", dagNode: from, service: "", instances: [] });
    if (from === dagNode) groups.set(`out:${to}`, { direction: "out", dagNode: to, service: "", instances: [] });
  }
  const shards = new Set<number>();
  let maxReplica = 0;
  let sameNode = 0;
  const peerInstances: number[] = [];
  for (let j = 0; j < inst.id.length; j++) {
    if (inst.deployment[j] !== dep) continue;
    const dn = inst.dag_node[j] ?? "";
    if (dn === dagNode) {
      sameNode++;
      shards.add(inst.shard[j] ?? 0);
      maxReplica = Math.max(maxReplica, inst.replica[j] ?? 0);
    }
    for (const key of [`in:${dn}`, `out:${dn}`]) {
      const g = groups.get(key);
      if (g) {
        g.service = inst.service[j] ?? "";
        g.instances.push(placementOf(data, j));
        peerInstances.push(j);
      }
    }
  }
  for (const g of groups.values()) g.instances.sort((a, b) => a.shard - b.shard || a.replica - b.replica);
  return {
    self: {
      ...placementOf(data, i),
      id: inst.id[i] ?? "",
      application: deployment?.application ?? "?",
      dagNode,
      service: inst.service[i] ?? "",
      deployment: dep,
      state: inst.state?.[i] ?? null,
      error: inst.error?.[i] ?? null,
    },
    dagNodeShards: shards.size,
    dagNodeReplicas: maxReplica + 1,
    dagNodeInstances: sameNode,
    peers: [...groups.values()].sort((a, b) => (a.direction === b.direction ? a.dagNode.localeCompare(b.dagNode) : a.direction === "in" ? -1 : 1)),
    peerInstances: [...new Set(peerInstances)],
  };
}
