// A deployment's events (GET /events?deployment=) are named against its placement: the instances by DAG node,
// shard and role, the nodes by name. Pure.

import type { components } from "../api/schema.gen";
import type { LookupSource } from "../timeline/entries";

type InstanceRow = components["schemas"]["InstancePublic"];

/** What the timeline's entries resolve names against, from the deployment's placed instances. */
export function lookupSourceOf(application: string, deploymentId: string, instances: readonly InstanceRow[]): LookupSource {
  const nodes: LookupSource["nodes"] = [];
  const nodeIndex = new Map<string, number>();
  const columns: LookupSource["instances"] = { id: [], node: [], deployment: [], dag_node: [], shard: [], replica: [] };
  for (const i of instances) {
    let n = nodeIndex.get(i.node_id);
    if (n === undefined) {
      n = nodes.length;
      nodeIndex.set(i.node_id, n);
      nodes.push({ id: i.node_id, name: i.node });
    }
    columns.id.push(i.id);
    columns.node.push(n);
    columns.deployment.push(0);
    columns.dag_node.push(i.dag_node);
    columns.shard.push(i.shard);
    columns.replica.push(i.replica);
  }
  return { nodes, deployments: [{ id: deploymentId, application }], instances: columns };
}
