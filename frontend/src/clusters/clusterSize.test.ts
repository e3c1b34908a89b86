import { describe, expect, it } from "vitest";
import { describeSize, generatedSize, sizeOfCluster, specSize } from "./clusterSize";

const TYPES = [
  { name: "beefy", smartnics: 0 },
  { name: "type1-smartnic", smartnics: 1 },
  { name: "type2-smartnic", smartnics: 4 },
];

describe("generatedSize", () => {
  it("counts racks (the last one partly filled), a host per server and its SmartNICs", () => {
    expect(generatedSize(100, "type2-smartnic", 40, TYPES)).toEqual({
      ok: true,
      size: { racks: 3, servers: 100, hosts: 100, smartnics: 400, nodes: 500 },
    });
    expect(generatedSize(3, "beefy", 40, TYPES)).toEqual({
      ok: true,
      size: { racks: 1, servers: 3, hosts: 3, smartnics: 0, nodes: 3 },
    });
    expect(generatedSize(80, "type1-smartnic", 40, TYPES)).toMatchObject({ size: { racks: 2, nodes: 160 } });
  });

  it("says why it cannot count", () => {
    expect(generatedSize(0, "beefy", 40, TYPES)).toEqual({ ok: false, problem: "servers must be a whole number of at least 1" });
    expect(generatedSize(3, "beefy", 2.5, TYPES).ok).toBe(false);
    expect(generatedSize(3, "nope", 40, TYPES)).toEqual({
      ok: false,
      problem: "unknown server type 'nope'; valid types: beefy, type1-smartnic, type2-smartnic",
    });
  });
});

describe("specSize", () => {
  it("reads the flat generator shorthand, with the default 40 servers per rack", () => {
    expect(specSize({ generator: "fattree", servers: 41, server_type: "type1-smartnic" }, TYPES)).toEqual({
      ok: true,
      size: { racks: 2, servers: 41, hosts: 41, smartnics: 41, nodes: 82 },
    });
  });

  it("reads a full document with a generator", () => {
    const doc = {
      apiVersion: "e3/v1",
      kind: "Cluster",
      metadata: { name: "big" },
      spec: { generator: "fattree", servers: 1000, server_type: "type2-smartnic", servers_per_rack: 50 },
    };
    expect(specSize(doc, TYPES)).toMatchObject({ ok: true, size: { racks: 20, servers: 1000, nodes: 5000 } });
  });

  it("adds up racks of server groups by type (a group's count defaults to 1)", () => {
    const doc = {
      apiVersion: "e3/v1",
      kind: "Cluster",
      metadata: { name: "lab" },
      spec: {
        racks: [
          { servers: [{ type: "type2-smartnic", count: 4 }, { type: "beefy", count: 2 }] },
          { name: "r9", servers: [{ type: "type1-smartnic" }] },
        ],
      },
    };
    expect(specSize(doc, TYPES)).toEqual({
      ok: true,
      size: { racks: 2, servers: 7, hosts: 7, smartnics: 17, nodes: 24 },
    });
  });

  it("says what is missing or wrong", () => {
    expect(specSize("text", TYPES).ok).toBe(false);
    expect(specSize({ apiVersion: "e3/v1", kind: "Cluster", metadata: { name: "x" } }, TYPES)).toEqual({
      ok: false,
      problem: "spec is missing",
    });
    expect(specSize({ kind: "Cluster", spec: { racks: [] } }, TYPES).ok).toBe(false);
    expect(specSize({ kind: "Cluster", spec: { racks: [{ servers: [{ type: "beefy", count: 0 }] }] } }, TYPES)).toEqual({
      ok: false,
      problem: "racks[0].servers: each group needs a type and a count of at least 1",
    });
  });
});

describe("a stored cluster's size in words", () => {
  it("names servers, racks and computing nodes split into hosts and SmartNICs", () => {
    const size = sizeOfCluster({ racks: 1, servers: 3, nodes: 6 });
    expect(size).toEqual({ racks: 1, servers: 3, nodes: 6, hosts: 3, smartnics: 3 });
    expect(describeSize(size)).toBe("3 servers in 1 rack: 6 computing nodes (3 hosts, 3 SmartNICs)");
    expect(describeSize(sizeOfCluster({ racks: 25, servers: 1000, nodes: 1000 }))).toBe(
      "1,000 servers in 25 racks: 1,000 computing nodes (1,000 hosts, 0 SmartNICs)",
    );
  });
});
