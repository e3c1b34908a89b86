import { describe, expect, it } from "vitest";
import type { ClusterLayoutData } from "../viz/clusterLayout";
import { instanceRelations, roleOf } from "./relations";

const data: ClusterLayoutData = {
  cluster: "c",
  racks: [{ name: "r0", pod: 0 }],
  servers: [{ name: "s0", server_type: "t", rack: 0 }],
  nodes: [
    { name: "s0/host", kind: "host", server: 0, cores: 8, used_cores: 1 },
    { name: "s0/nic0", kind: "smartnic", server: 0, cores: 8, used_cores: 1 },
  ],
  deployments: [
    { application: "iot", edges: [["api", "sql"], ["sql", "ema"]] },
    { application: "other", edges: [["api", "sql"]] },
  ],
  instances: {
    id: ["a0", "s0", "s0b", "s1", "e0", "x-sql"],
    node: [0, 1, 0, 1, 0, 1],
    deployment: [0, 0, 0, 0, 0, 1],
    dag_node: ["api", "sql", "sql", "sql", "ema", "sql"],
    service: ["api_gateway", "sql", "sql", "sql", "ema", "sql"],
    shard: [0, 0, 0, 1, 0, 0],
    replica: [0, 0, 1, 0, 0, 0],
  },
};

describe("instanceRelations", () => {
  it("describes the instance, its DAG node and the peers on both edges, within its deployment", () => {
    const r = instanceRelations(data, 2)!;
    expect(r.self).toMatchObject({ id: "s0b", application: "iot", dagNode: "sql", shard: 0, replica: 1, node: "s0/host", server: "s0", rack: "r0" });
    expect(r.dagNodeShards).toBe(2);
    expect(r.dagNodeReplicas).toBe(2);
    expect(r.dagNodeInstances).toBe(3);
    expect(r.peers.map((p) => [p.direction, p.dagNode, p.instances.length])).toEqual([
      ["in", "api", 1],
      ["out", "ema", 1],
    ]);
    expect(r.peers[0]!.instances[0]).toMatchObject({ node: "s0/host", shard: 0 });
    expect(r.peerInstances.sort()).toEqual([0, 4]);
  });

  it("returns null for an unknown instance and names roles", () => {
    expect(instanceRelations(data, 99)).toBeNull();
    expect(roleOf(0)).toBe("primary");
    expect(roleOf(2)).toBe("backup 2");
  });
});
