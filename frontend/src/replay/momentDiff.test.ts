import { describe, expect, it } from "vitest";

import { type ClusterMoment, diffMoments, placementUnchanged } from "./momentDiff";

const NODES = ["s1/host", "s1/nic1", "s2/host", "s2/nic1"];

interface Placed {
  id: string;
  dag: string;
  replica: number;
  node: string;
  app?: string;
}

function moment(at: string, placed: Placed[], opts: { down?: string[]; jpr?: number; known?: boolean } = {}): ClusterMoment {
  const apps = [...new Set(placed.map((p) => p.app ?? "kv"))];
  const app = (name: string) => ({
    deployment_id: `dep-${name}`, application: name, window_s: 10, throughput_rps: 100, avg_latency_us: 500,
    p99_latency_us: 900, joules_per_request: opts.jpr ?? 2, watts: 200, energy_source: "model",
    energy_from: null, energy_to: null,
  });
  return {
    cluster: "rack",
    at,
    placement_recorded_since: "2026-11-27T09:00:00Z",
    placement_known: opts.known ?? true,
    layout: {
      cluster: "rack",
      racks: [{ name: "r1", pod: 0 }],
      servers: [{ name: "s1", server_type: "t", rack: 0 }, { name: "s2", server_type: "t", rack: 0 }],
      nodes: NODES.map((name, i) => ({
        id: `n${i}`, name, kind: name.endsWith("host") ? "host" : "smartnic", server: i < 2 ? 0 : 1, cores: 8,
        memory_mb: 1024, used_cores: 0, used_memory_mb: 0, state: opts.down?.includes(name) ? "down" : "up",
      })),
      deployments: apps.map((a) => ({ id: `dep-${a}`, application: a, version: 1, algorithm: "hcm", edges: [] })),
      instances: {
        id: placed.map((p) => p.id),
        node: placed.map((p) => NODES.indexOf(p.node)),
        deployment: placed.map((p) => apps.indexOf(p.app ?? "kv")),
        dag_node: placed.map((p) => p.dag),
        service: placed.map(() => "kvs"),
        shard: placed.map(() => 0),
        replica: placed.map((p) => p.replica),
        state: placed.map(() => "running"),
        error: placed.map(() => null),
      },
    },
    applications: apps.map(app),
    power: { watts: 400, energy_source: "model", joules_per_request: null, energy_from: null, energy_to: null },
  };
}

const FIRST: Placed[] = [
  { id: "gw", dag: "gw", replica: 0, node: "s1/host" },
  { id: "kv", dag: "kv", replica: 0, node: "s1/nic1" },
  { id: "kvb", dag: "kv", replica: 1, node: "s2/nic1" },
];
const BEFORE = moment("2026-11-27T10:00:00Z", FIRST);

describe("what changed between two moments", () => {
  it("lists a migration as a move from its old node to its new", () => {
    const after = moment("2026-11-27T10:05:00Z", [
      { id: "gw", dag: "gw", replica: 0, node: "s1/host" },
      { id: "kv", dag: "kv", replica: 0, node: "s2/host" },
      { id: "kvb", dag: "kv", replica: 1, node: "s2/nic1" },
    ]);
    const diff = diffMoments(BEFORE, after);
    expect(diff.moved.map((m) => [m.instance.id, m.from, m.to])).toEqual([["kv", "s1/nic1", "s2/host"]]);
    expect(diff.moved[0]?.instance.nodeKind).toBe("host");
    expect(diff.appeared).toEqual([]);
    expect(diff.went).toEqual([]);
    expect(placementUnchanged(diff)).toBe(false);
  });

  it("lists a failover: the node down, the primary gone, its backup promoted, a new backup", () => {
    const after = moment("2026-11-27T10:05:00Z", [
      { id: "gw", dag: "gw", replica: 0, node: "s1/host" },
      { id: "kvb", dag: "kv", replica: 0, node: "s2/nic1" },
      { id: "kvc", dag: "kv", replica: 1, node: "s2/host" },
    ], { down: ["s1/nic1"] });
    const diff = diffMoments(BEFORE, after);
    expect(diff.nodeStates).toEqual([{ node: "s1/nic1", from: "up", to: "down" }]);
    expect(diff.went.map((i) => [i.id, i.node, i.role])).toEqual([["kv", "s1/nic1", "primary"]]);
    expect(diff.promoted.map((p) => [p.instance.id, p.node])).toEqual([["kvb", "s2/nic1"]]);
    expect(diff.appeared.map((i) => [i.id, i.role])).toEqual([["kvc", "backup"]]);
    expect(diff.moved).toEqual([]);
  });

  it("reads from the earlier moment to the later whichever was picked first", () => {
    const after = moment("2026-11-27T10:05:00Z", [{ id: "gw", dag: "gw", replica: 0, node: "s2/host" }], { jpr: 3 });
    const forward = diffMoments(BEFORE, after);
    const backward = diffMoments(after, BEFORE);
    expect(backward).toEqual(forward);
    expect(forward.before).toBe(Date.UTC(2026, 10, 27, 10, 0, 0));
    expect(forward.went.map((i) => i.id)).toEqual(["kv", "kvb"]);
    const kv = forward.applications.find((a) => a.application === "kv");
    expect(kv?.joulesPerRequest).toEqual({ before: 2, after: 3, ratio: 1.5 });
    expect(kv?.sources).toEqual({ before: "model", after: "model" });
    expect(kv?.only).toBeNull();
  });

  it("says an application deployed at one moment only, with the other side not measured", () => {
    const after = moment("2026-11-27T10:05:00Z", [...FIRST, { id: "web", dag: "web", replica: 0, node: "s2/host", app: "shop" }]);
    const diff = diffMoments(BEFORE, after);
    const shop = diff.applications.find((a) => a.application === "shop");
    expect(shop?.only).toBe("after");
    expect(shop?.throughputRps).toEqual({ before: null, after: 100, ratio: null });
    expect(diff.appeared.map((i) => [i.id, i.application])).toEqual([["web", "shop"]]);
  });

  it("finds nothing changed between a moment and itself, and carries whether each placement was known", () => {
    const same = diffMoments(BEFORE, BEFORE);
    expect(placementUnchanged(same)).toBe(true);
    const unknown = diffMoments(moment("2026-11-27T08:00:00Z", [], { known: false }), BEFORE);
    expect(unknown.known).toEqual({ before: false, after: true });
  });
});
