import { describe, expect, it } from "vitest";
import { describeProposed, proposedByNode, proposedLabel, proposedLayout } from "./proposedPlacement";

// One server (a host and a SmartNIC) with one deployed instance on the host.
const nodes = ["host", "nic0"].map((suffix, i) => ({
  name: `r0-s0/${suffix}`, kind: i === 0 ? "host" : "smartnic", server: 0, cores: 16, used_cores: 2,
}));
const deployed = { id: ["i0"], node: [0], deployment: [0], dag_node: ["web"], service: ["nginx"], shard: [0], replica: [0] };
const layout = {
  cluster: "c", racks: [{ name: "r0", pod: 0 }], servers: [{ name: "r0-s0", server_type: "t", rack: 0 }], nodes,
  deployments: [{ application: "shop", edges: [] }], instances: { ...deployed, state: ["running"] },
};

const assignments = [
  { dagNode: "ingest", shard: 0, replica: 0, node: "r0-s0/nic0" },
  { dagNode: "ingest", shard: 0, replica: 1, node: "r0-s0/host" },
  { dagNode: "store", shard: 1, replica: 0, node: "r0-s0/nic0" },
  { dagNode: "lost", shard: 0, replica: 0, node: "elsewhere/host" },
];

describe("proposedLayout", () => {
  const p = proposedLayout(layout, proposedLabel("HCM"), assignments);

  it("adds the proposed instances as one pending deployment beside the deployed ones", () => {
    expect(p.data.deployments.map((d) => d.application)).toEqual(["shop", "proposed by HCM (not deployed)"]);
    expect(p.proposedDeployment).toBe(1);
    expect(p.data.instances.node).toEqual([0, 1, 0, 1]);
    expect(p.data.instances.deployment).toEqual([0, 1, 1, 1]);
    expect(p.data.instances.state).toEqual(["running", "deploying", "deploying", "deploying"]);
    expect(p.data.instances.replica).toEqual([0, 0, 1, 0]);
  });

  it("reports nodes the layout does not know, and leaves the layout itself alone", () => {
    expect(p.unknownNodes).toEqual(["elsewhere/host"]);
    expect(layout.instances.id).toEqual(["i0"]);
    expect(layout.deployments).toHaveLength(1);
  });
});

describe("proposedByNode", () => {
  it("lists each node's proposed instances in words", () => {
    expect(proposedByNode(assignments.slice(0, 3))).toEqual([
      { node: "r0-s0/nic0", instances: ["ingest shard 0", "store shard 1"] },
      { node: "r0-s0/host", instances: ["ingest shard 0 backup 1"] },
    ]);
    expect(describeProposed({ dagNode: "a", shard: 2, replica: 0, node: "n" })).toBe("a shard 2");
  });
});
