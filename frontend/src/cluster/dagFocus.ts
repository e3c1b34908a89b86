// A DAG node picked elsewhere (the dashboard's application graph) and shown on the placement view
// (lib/dagFocusQuery.ts holds it in the URL): its instances, highlighted and listed with their states, and the
// recent events about them. Pure.

import type { EventRow } from "../api/client";
import type { DagFocus } from "../lib/dagFocusQuery";
import { type Lookup, type LookupSource, type TimelineEntry, toEntry } from "../timeline/entries";

/** The layout's instances of the focused DAG node (indices), primaries first, by shard. */
export function focusedInstances(layout: LookupSource & { instances: { state: string[] } }, focus: DagFocus): number[] {
  const deployment = layout.deployments.findIndex((d) => d.id === focus.deployment);
  if (deployment < 0) return [];
  const inst = layout.instances;
  const found: number[] = [];
  inst.id.forEach((_, i) => {
    if (inst.deployment[i] === deployment && inst.dag_node[i] === focus.dagNode) found.push(i);
  });
  return found.sort((a, b) => (inst.replica[a] ?? 0) - (inst.replica[b] ?? 0) || (inst.shard[a] ?? 0) - (inst.shard[b] ?? 0));
}

/** The newest `max` events about `instances` (by their refs, as the timeline resolves them), newest first. */
export function focusedEvents(events: readonly EventRow[], lookup: Lookup, instances: readonly number[], max = 8): TimelineEntry[] {
  const wanted = new Set(instances.map((i) => lookup.source?.instances.id[i]).filter((id) => id !== undefined));
  const found: TimelineEntry[] = [];
  if (wanted.size === 0) return found; // no DAG node shown: the timeline's events are not read on each arrival
  for (let k = events.length - 1; k >= 0 && found.length < max; k--) {
    const entry = toEntry(events[k]!, lookup);
    if (entry.refs.some((r) => r.kind === "instance" && wanted.has(r.id))) found.push(entry);
  }
  return found;
}
