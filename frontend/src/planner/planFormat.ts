// The planner's figures as text.

import { formatDecimals } from "../lib/figures";
import type { PlanCandidate } from "./planRequest";

/** "4 × type2-smartnic + 2 × beefy", larger counts first. */
export function serversText(servers: Record<string, number>): string {
  return Object.entries(servers)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([type, count]) => `${count} × ${type}`)
    .join(" + ");
}

/** Where a candidate put one DAG node's instances: "24 on type2-smartnic SmartNICs". */
export function instancesText(instances: PlanCandidate["placement"][number]["instances"]): string {
  return instances
    .map((i) => `${formatDecimals(i.count, 0)} on ${i.server_type} ${i.node_kind === "smartnic" ? "SmartNICs" : "hosts"}`)
    .join(", ");
}
