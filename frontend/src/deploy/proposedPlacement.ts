// A previewed placement drawn on the cluster before anything is deployed: the cluster's layout with the
// algorithm's proposed instances added as one more "deployment", in the pending look (dashed, lightly
// filled), beside what is already deployed. Pure.

import type { ClusterLayoutData } from "../viz/clusterLayout";
import type { ProposedInstance } from "./deployPreview";

export interface ProposedLayout {
  /** The layout to draw: existing instances first, then the proposed ones. */
  data: ClusterLayoutData & { instances: { id: string[] } };
  /** Index of the proposed instances' pseudo-deployment in data.deployments. */
  proposedDeployment: number;
  /** Proposed instances whose node the layout does not list (not drawn). */
  unknownNodes: string[];
}

/** "ingest shard 0", "ingest shard 2 backup 1". */
export function describeProposed(p: ProposedInstance): string {
  return `${p.dagNode} shard ${p.shard}${p.replica > 0 ? ` backup ${p.replica}` : ""}`;
}

/** The name the proposed instances are drawn and listed under. */
export function proposedLabel(algorithmLabel: string): string {
  return `proposed by ${algorithmLabel} (not deployed)`;
}

/** `layout` with `assignments` added as proposed (not deployed) instances; see the module comment. */
export function proposedLayout(
  layout: ClusterLayoutData & { instances: { id: string[] } },
  label: string,
  assignments: readonly ProposedInstance[],
): ProposedLayout {
  const nodeIndex = new Map(layout.nodes.map((n, i) => [n.name, i]));
  const src = layout.instances;
  const count = src.node.length;
  const states = src.state ?? new Array<string>(count).fill("running");
  const instances = {
    id: [...src.id],
    node: [...src.node],
    deployment: [...src.deployment],
    dag_node: [...src.dag_node],
    service: [...src.service],
    shard: [...src.shard],
    replica: [...src.replica],
    state: [...states],
    error: [...(src.error ?? new Array<null>(count).fill(null))],
  };
  const proposedDeployment = layout.deployments.length;
  const unknownNodes: string[] = [];
  assignments.forEach((a, i) => {
    const node = nodeIndex.get(a.node);
    if (node === undefined) {
      unknownNodes.push(a.node);
      return;
    }
    instances.id.push(`proposed-${i}`);
    instances.node.push(node);
    instances.deployment.push(proposedDeployment);
    instances.dag_node.push(a.dagNode);
    instances.service.push(a.dagNode);
    instances.shard.push(a.shard);
    instances.replica.push(a.replica);
    // Drawn like an instance on its way (dashed): nothing runs it yet.
    instances.state.push("deploying");
    instances.error.push(null);
  });
  return {
    data: { ...layout, deployments: [...layout.deployments, { application: label, edges: [] }], instances },
    proposedDeployment,
    unknownNodes: [...new Set(unknownNodes)],
  };
}

/** The proposed instances per node, nodes in first-use order: what the drawing shows, as text. */
export function proposedByNode(assignments: readonly ProposedInstance[]): { node: string; instances: string[] }[] {
  const byNode = new Map<string, string[]>();
  for (const a of assignments) {
    const list = byNode.get(a.node) ?? [];
    list.push(describeProposed(a));
    byNode.set(a.node, list);
  }
  return [...byNode].map(([node, instances]) => ({ node, instances }));
}
