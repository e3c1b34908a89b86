// How an instance is named wherever the UI lists it: its DAG node, shard and role ("kv shard 3 primary").

/** "primary" for replica 0, else "backup <n>". */
export function roleOf(replica: number): string {
  return replica === 0 ? "primary" : `backup ${replica}`;
}

/** Instance `i` of a layout's instance columns, by DAG node, shard and role. */
export function instanceName(instances: { dag_node: string[]; shard: number[]; replica: number[] }, i: number): string {
  return `${instances.dag_node[i]} shard ${instances.shard[i]} ${roleOf(instances.replica[i] ?? 0)}`;
}
