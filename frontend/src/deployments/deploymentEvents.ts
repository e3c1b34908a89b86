// A deployment's events: the cluster's events about its application (GET /events?application=&cluster=),
// from its creation on, with its instances named (DAG node, shard, role) where its placement is known. Pure.

import type { EventRow } from "../api/client";
import type { components } from "../api/schema.gen";
import type { LookupSource } from "../timeline/entries";

type InstanceRow = components["schemas"]["InstancePublic"];

/** The server's clock and ours may differ a little: events this much before the deployment was created count. */
const CLOCK_SLACK_MS = 2_000;

/** Its events among the application's on its cluster: its own (subject deployment/<id>), and the others from its
 * creation on (the agents' answers about its instances, failovers, migrations). A later deployment of the same
 * application on the same cluster shares them: the page says so. */
export function eventsOfDeployment(events: readonly EventRow[], deploymentId: string, createdAt: string): EventRow[] {
  const since = Date.parse(createdAt) - CLOCK_SLACK_MS;
  return events.filter((e) => {
    if (e.subject === `deployment/${deploymentId}`) return true;
    if (e.subject.startsWith("deployment/")) return false; // another deployment's own event
    const ts = Date.parse(e.ts);
    return !Number.isFinite(since) || !Number.isFinite(ts) || ts >= since;
  });
}

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
