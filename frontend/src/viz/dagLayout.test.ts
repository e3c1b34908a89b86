import { describe, expect, it } from "vitest";

import { acyclicEdges, layoutDag, longestPathLayers, orderLayers } from "./dagLayout";

const e = (from: string, to: string) => ({ from, to });

describe("longestPathLayers", () => {
  it("puts each node one layer right of its furthest predecessor", () => {
    const layers = longestPathLayers(["a", "b", "c", "d"], [e("a", "b"), e("b", "c"), e("a", "c"), e("a", "d")]);
    expect(Object.fromEntries(layers)).toEqual({ a: 0, b: 1, c: 2, d: 1 });
  });

  it("lays out IOT-TS as gateway, sql, then the three analytics services", () => {
    const ids = ["api", "sql", "ema", "spike", "recommend"];
    const edges = [e("api", "sql"), e("sql", "ema"), e("sql", "spike"), e("sql", "recommend")];
    expect(orderLayers(ids, edges)).toEqual([["api"], ["sql"], ["ema", "spike", "recommend"]]);
  });

  it("survives cycles, self-loops and dangling edges", () => {
    const ids = ["a", "b", "c"];
    const edges = [e("a", "b"), e("b", "a"), e("c", "c"), e("a", "ghost")];
    expect(acyclicEdges(ids, edges)).toEqual([e("a", "b")]);
    expect(Object.fromEntries(longestPathLayers(ids, edges))).toEqual({ a: 0, b: 1, c: 0 });
  });
});

describe("orderLayers", () => {
  it("orders a layer by the barycentre of its predecessors, removing a crossing", () => {
    // a1 -> b2, a2 -> b1: given as [b1, b2], the barycentres swap them.
    const layers = orderLayers(["a1", "a2", "b1", "b2"], [e("a1", "b2"), e("a2", "b1")]);
    expect(layers).toEqual([["a1", "a2"], ["b2", "b1"]]);
  });
});

describe("layoutDag", () => {
  it("returns a position per node, layers left to right, no two nodes overlapping", () => {
    const ids = ["api", "sql", "ema", "spike", "recommend"];
    const edges = [e("api", "sql"), e("sql", "ema"), e("sql", "spike"), e("sql", "recommend")];
    const pos = layoutDag(ids, edges, { nodeWidth: 100, nodeHeight: 50, layerGap: 50, nodeGap: 10 });
    expect(pos.size).toBe(5);
    expect(pos.get("api")!.x).toBeLessThan(pos.get("sql")!.x);
    expect(pos.get("sql")!.x).toBeLessThan(pos.get("ema")!.x);
    const third = ["ema", "spike", "recommend"].map((id) => pos.get(id)!);
    expect(new Set(third.map((p) => p.x)).size).toBe(1);
    expect(third.map((p) => p.y)).toEqual([0, 60, 120]);
    // single nodes are centred on the tallest layer
    expect(pos.get("sql")!.y).toBe(60);
  });

  it("lays out an empty graph as nothing", () => {
    expect(layoutDag([], []).size).toBe(0);
  });
});
