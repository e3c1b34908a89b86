import { describe, expect, it } from "vitest";

import { searchCluster } from "./clusterSearch";

const LAYOUT = {
  servers: [{ name: "r0000-s00", server_type: "t", rack: 0 }, { name: "r0001-s12", server_type: "t", rack: 1 }],
  nodes: [
    { name: "r0000-s00/host", kind: "host", server: 0, cores: 8, used_cores: 0, state: "up" },
    { name: "r0000-s00/nic0", kind: "smartnic", server: 0, cores: 8, used_cores: 0, state: "down" },
    { name: "r0001-s12/host", kind: "host", server: 1, cores: 8, used_cores: 0, state: "up" },
  ],
  deployments: [{ application: "kv-store", edges: [] }, { application: "iot", edges: [] }],
  instances: {
    id: ["0a1b-uuid", "ffee-uuid", "c0de-uuid"],
    node: [1, 2, 0],
    deployment: [0, 0, 1],
    dag_node: ["kv", "kv", "gateway"],
    service: ["kvs", "kvs", "api_gateway"],
    shard: [0, 0, 3],
    replica: [0, 1, 0],
  },
};

describe("searching the cluster by name", () => {
  it("finds nodes by their name or their server's, with their kind and state", () => {
    const hits = searchCluster(LAYOUT, "S00/");
    expect(hits.map((h) => h.label)).toEqual(["r0000-s00/host", "r0000-s00/nic0"]);
    expect(hits[1]).toMatchObject({ kind: "node", node: 1, detail: "smartnic · down" });
    expect(searchCluster(LAYOUT, "r0001-s12").map((h) => h.label)).toEqual(["r0001-s12/host"]);
  });

  it("finds instances by DAG node, shard and role, or by id prefix, saying where each runs", () => {
    expect(searchCluster(LAYOUT, "kv shard 0").map((h) => h.label)).toEqual(["kv shard 0 primary", "kv shard 0 backup 1"]);
    expect(searchCluster(LAYOUT, "kv shard 0")[0]).toMatchObject({ kind: "instance", instance: 0, detail: "kv-store · on r0000-s00/nic0" });
    expect(searchCluster(LAYOUT, "c0de").map((h) => h.label)).toEqual(["gateway shard 3 primary"]);
  });

  it("puts applications first, and a name starting with the query before one holding it", () => {
    const hits = searchCluster(LAYOUT, "kv");
    expect(hits[0]).toEqual({ kind: "application", application: "kv-store", label: "kv-store", detail: "application · 2 instances" });
    expect(searchCluster(LAYOUT, "ore").map((h) => h.label)).toEqual(["kv-store"]);
  });

  it("finds nothing for fewer than two characters, and stops at the limit", () => {
    expect(searchCluster(LAYOUT, " k ")).toEqual([]);
    expect(searchCluster(LAYOUT, "r0", 2)).toHaveLength(2);
  });
});
