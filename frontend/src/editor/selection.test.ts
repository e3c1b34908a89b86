import { describe, expect, it } from "vitest";

import { applySelectChanges, edgeId, NOTHING_SELECTED, selectOnly } from "./selection";

describe("selection", () => {
  it("folds xyflow's select changes in: an edge click selects it and deselects the node", () => {
    let s = selectOnly("n1");
    s = applySelectChanges(s, [{ type: "select", id: "a->b", selected: true }], "edges");
    s = applySelectChanges(s, [{ type: "select", id: "n1", selected: false }, { type: "position", id: "n2" }], "nodes");
    expect(s).toEqual({ nodes: [], edges: ["a->b"] });
  });

  it("adds to the selection (Shift+click, a box) and keeps the same object when nothing changes", () => {
    const s = applySelectChanges(selectOnly("n1"), [{ type: "select", id: "n2", selected: true }], "nodes");
    expect(s.nodes).toEqual(["n1", "n2"]);
    expect(applySelectChanges(s, [{ type: "select", id: "n2", selected: true }], "nodes")).toBe(s);
    expect(selectOnly(null)).toBe(NOTHING_SELECTED);
  });

  it("gives every drawn edge its own id, a repeated one too", () => {
    const seen = new Map<string, number>();
    expect([edgeId("a", "b", seen), edgeId("b", "a", seen), edgeId("a", "b", seen)]).toEqual(["a->b", "b->a", "a->b#2"]);
  });
});
