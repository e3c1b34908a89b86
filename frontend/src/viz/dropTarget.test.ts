import { describe, expect, it } from "vitest";
import { buildHitIndex, computeClusterLayout, type ClusterLayoutData } from "./clusterLayout";
import { dropTargetAt, judgeTarget, movedEnough, nodeBoxAt } from "./dropTarget";

function cluster(): ClusterLayoutData {
  return {
    cluster: "c",
    racks: [{ name: "r0", pod: 0 }],
    servers: [
      { name: "r0-s0", server_type: "t", rack: 0 },
      { name: "r0-s1", server_type: "t", rack: 0 },
    ],
    nodes: [
      { name: "r0-s0/host", kind: "host", server: 0, cores: 16, used_cores: 2, state: "up" },
      { name: "r0-s0/nic0", kind: "smartnic", server: 0, cores: 8, used_cores: 1, state: "up" },
      { name: "r0-s1/host", kind: "host", server: 1, cores: 16, used_cores: 0, state: "down" },
      { name: "r0-s1/nic0", kind: "smartnic", server: 1, cores: 8, used_cores: 0, state: "suspect" },
    ],
    deployments: [{ application: "a", edges: [] }],
    instances: { id: ["i0", "i1"], node: [0, 1], deployment: [0, 0], dag_node: ["x", "y"], service: ["s", "s"], shard: [0, 0], replica: [0, 0] },
  };
}

describe("drop targets", () => {
  const data = cluster();
  const g = computeClusterLayout(data);
  const index = buildHitIndex(g);
  const box = (node: number) => g.nodes.find((b) => b.node === node)!;
  const centre = (node: number) => [box(node).x + box(node).w / 2, box(node).y + box(node).h / 2] as const;

  it("finds the node box under the pointer, even over an instance mark", () => {
    for (const n of [0, 1, 2, 3]) expect(nodeBoxAt(g, index, ...centre(n))?.node).toBe(n);
    const mark = g.marks[g.markOfInstance[1]!]!;
    expect(nodeBoxAt(g, index, mark.x + 1, mark.y + 1)?.node).toBe(1);
  });

  it("is nothing between nodes and outside the drawing", () => {
    expect(nodeBoxAt(g, index, -50, -50)).toBeNull();
    expect(nodeBoxAt(g, index, box(0).x - 1, box(0).y + 2)).toBeNull(); // the server-name column
    expect(dropTargetAt(g, index, data.nodes, 0, g.w + 100, 5)).toBeNull();
  });

  it("accepts another node that is up, refuses its own node and nodes that are not up", () => {
    expect(dropTargetAt(g, index, data.nodes, 0, ...centre(1))).toMatchObject({ node: 1, ok: true, reason: null });
    expect(dropTargetAt(g, index, data.nodes, 0, ...centre(0))).toMatchObject({ node: 0, ok: false, reason: "already on this node" });
    expect(dropTargetAt(g, index, data.nodes, 0, ...centre(2))).toMatchObject({ ok: false, reason: "r0-s1/host is down" });
    expect(judgeTarget(data.nodes, 0, 3)).toEqual({ ok: false, reason: "r0-s1/nic0 is suspect" });
  });

  it("leaves the API to judge nodes whose state the layout does not give", () => {
    expect(judgeTarget([{ name: "a" }, { name: "b" }], 0, 1)).toEqual({ ok: true, reason: null });
  });

  it("tells a click from a drag", () => {
    expect(movedEnough(1, 2)).toBe(false);
    expect(movedEnough(3, 3)).toBe(true);
  });
});
