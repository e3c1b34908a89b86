import { describe, expect, it } from "vitest";
import { QUEUE_STANDING, STALE_COLOR, UNKNOWN_EDGE_COLOR, edgeTraffic, liveOverlay, queueColor, trafficStyle, type OverlayLayout, type OverlayNode } from "./liveOverlay";

// gateway (2 primaries + a backup) → kvs (1 primary), on three nodes.
const layout: OverlayLayout = {
  nodes: [{ id: "n0" }, { id: "n1" }, { id: "n2" }],
  deployments: [{ edges: [["gw", "kvs"]] }],
  instances: {
    id: ["g0", "g1", "g0b", "k0"],
    node: [0, 1, 2, 2],
    deployment: [0, 0, 0, 0],
    dag_node: ["gw", "gw", "gw", "kvs"],
    replica: [0, 0, 1, 0],
  },
};

const node = (id: string, patch: Partial<OverlayNode> = {}): OverlayNode => ({ id, stale: false, ts: "t", queue_len: 0, instances: [], ...patch });

describe("live colours", () => {
  it("colours an empty queue green, a standing one amber, twice that red, and unknown grey", () => {
    expect(queueColor(0)).toBe("rgb(47, 158, 107)");
    expect(queueColor(QUEUE_STANDING)).toBe("rgb(232, 163, 23)");
    expect(queueColor(QUEUE_STANDING * 2)).toBe("rgb(209, 73, 91)");
    expect(queueColor(10_000)).toBe(queueColor(QUEUE_STANDING * 2));
    expect(queueColor(null)).toBe(STALE_COLOR);
  });

  it("widens and darkens edges with traffic; grey and thin when unknown", () => {
    const low = trafficStyle(10, 1000);
    const high = trafficStyle(1000, 1000);
    expect(high.width).toBeGreaterThan(low.width);
    expect(high.color).not.toBe(low.color);
    expect(trafficStyle(null, 1000)).toEqual({ color: UNKNOWN_EDGE_COLOR, width: 0.6 });
  });

  it("splits a downstream primary's rate over the primaries feeding it", () => {
    const rates: Record<number, number | null> = { 0: 300, 1: 100, 3: 400 };
    const edges = edgeTraffic(layout, (i) => rates[i] ?? null);
    expect(edges).toEqual([
      { from: 0, to: 3, rps: 300 },
      { from: 1, to: 3, rps: 100 },
    ]); // the backup g0b carries no traffic
    const even = edgeTraffic(layout, (i) => (i === 3 ? 400 : 0));
    expect(even.map((e) => e.rps)).toEqual([200, 200]);
    const partly = edgeTraffic(layout, (i) => (i === 1 ? null : 100));
    expect(partly.map((e) => e.rps)).toEqual([null, null]);
    expect(edgeTraffic(layout, () => null).map((e) => e.rps)).toEqual([null, null]);
  });

  it("colours instances by their node's queue and greys out nodes whose figures are not current", () => {
    const o = liveOverlay(layout, [
      node("n0", { queue_len: 40, instances: [{ id: "g0", requests_per_s: 300 }] }),
      node("n1", { stale: true, queue_len: 0, instances: [{ id: "g1", requests_per_s: 100 }] }),
      node("n2", { queue_len: 2, instances: [{ id: "k0", requests_per_s: 400 }] }),
    ]);
    expect(o.instanceColors[0]).toBe(queueColor(40));
    expect(o.instanceColors[1]).toBe(STALE_COLOR); // a stale node's old queue is not shown as current
    expect(o.instanceColors[3]).toBe(queueColor(2));
    expect([...o.staleNodes]).toEqual([0, 1, 0]);
    expect(o.reporting).toBe(2);
    // g1's rate is old: how the kvs's 400 req/s split is not known, and not guessed.
    expect(o.edges.map((e) => [e.from, e.to, e.rps])).toEqual([
      [0, 3, null],
      [1, 3, null],
    ]);
    expect(o.edges[0]!.color).toBe(UNKNOWN_EDGE_COLOR);
  });

  it("treats a node that never reported, or is missing from the feed, as not current", () => {
    const o = liveOverlay(layout, [node("n0", { ts: null, queue_len: null })]);
    expect([...o.staleNodes]).toEqual([1, 1, 1]);
    expect(o.instanceColors.every((c) => c === STALE_COLOR)).toBe(true);
    expect(o.edges.every((e) => e.rps === null)).toBe(true);
  });

  it("keeps the busiest edges when there are too many", () => {
    const o = liveOverlay(layout, [node("n0", { instances: [{ id: "g0", requests_per_s: 300 }] }), node("n1", { instances: [{ id: "g1", requests_per_s: 100 }] }), node("n2", { instances: [{ id: "k0", requests_per_s: 400 }] })], 1);
    expect(o.edges).toHaveLength(1);
    expect(o.edges[0]).toMatchObject({ from: 0, rps: 300 });
  });
});
