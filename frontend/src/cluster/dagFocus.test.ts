import { describe, expect, it } from "vitest";

import type { EventRow } from "../api/client";
import { buildLookup } from "../timeline/entries";
import { parseDagFocus, withDagFocus } from "../lib/dagFocusQuery";
import { focusedEvents, focusedInstances } from "./dagFocus";

const LAYOUT = {
  nodes: [{ id: "n0", name: "s0/host" }, { id: "n1", name: "s0/nic0" }, { id: "n2", name: "s1/nic0" }],
  deployments: [{ id: "d-old", application: "kv-app" }, { id: "d1", application: "kv-app" }],
  instances: {
    id: ["gw", "kvb", "kv", "old-kv"],
    node: [0, 2, 1, 1],
    deployment: [1, 1, 1, 0],
    dag_node: ["gw", "kv", "kv", "kv"],
    shard: [0, 0, 0, 0],
    replica: [0, 1, 0, 0],
    state: ["running", "running", "running", "running"],
  },
};

function event(id: number, kind: string, subject: string, data: Record<string, unknown> = {}): EventRow {
  return { id, ts: "2026-11-27T10:00:00Z", kind, subject, data, cluster_id: null, application: "kv-app" };
}

describe("a DAG node shown on the placement view", () => {
  it("is named in the URL by deployment and DAG node, other parameters kept", () => {
    const hash = withDagFocus("#/clusters/rack?at=2026-11-27T10:00:00Z", { deployment: "d1", dagNode: "kv" });
    expect(hash).toBe("#/clusters/rack?at=2026-11-27T10:00:00Z&deployment=d1&dag=kv");
    expect(parseDagFocus(hash)).toEqual({ deployment: "d1", dagNode: "kv" });
    expect(parseDagFocus("#/clusters/rack?dag=kv")).toBeNull();
    expect(withDagFocus(hash, null)).toBe("#/clusters/rack?at=2026-11-27T10:00:00Z");
  });

  it("finds its instances in that deployment only, primaries first", () => {
    expect(focusedInstances(LAYOUT, { deployment: "d1", dagNode: "kv" })).toEqual([2, 1]);
    expect(focusedInstances(LAYOUT, { deployment: "gone", dagNode: "kv" })).toEqual([]);
  });

  it("lists the newest events about them, not about others", () => {
    const lookup = buildLookup(LAYOUT);
    const events = [
      event(1, "command.ack", "instance/kv"),
      event(2, "command.ack", "instance/gw"),
      event(3, "migration.succeeded", "instance/kvb", { source: "s0/nic0", target: "s1/nic0" }),
      event(4, "command.ack", "instance/old-kv"),
    ];
    expect(focusedEvents(events, lookup, [2, 1]).map((e) => e.id)).toEqual([3, 1]);
    expect(focusedEvents(events, lookup, [2, 1], 1).map((e) => e.id)).toEqual([3]);
  });
});
