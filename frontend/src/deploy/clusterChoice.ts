// Which cluster the deploy page starts on. Pure.

/** The parts of a cluster option the choice needs (useDeployClusters' ClusterOption fits). */
export interface ClusterChoice {
  name: string;
  agentNodes: number;
}

/** The cluster to preselect: the current choice while it exists, else the first cluster whose nodes agents
 * run (a deployment there executes), else the first; "" when there are none. */
export function defaultCluster(clusters: readonly ClusterChoice[], current: string): string {
  if (clusters.some((c) => c.name === current)) return current;
  return (clusters.find((c) => c.agentNodes > 0) ?? clusters[0])?.name ?? "";
}
