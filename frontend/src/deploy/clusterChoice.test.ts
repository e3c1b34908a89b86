import { describe, expect, it } from "vitest";
import { defaultCluster } from "./clusterChoice";

describe("defaultCluster", () => {
  const clusters = [
    { name: "aaa", agentNodes: 0 },
    { name: "local", agentNodes: 4 },
    { name: "zzz", agentNodes: 2 },
  ];

  it("prefers the first cluster run by agents over the alphabetically first", () => {
    expect(defaultCluster(clusters, "")).toBe("local");
  });

  it("keeps the person's choice while it exists", () => {
    expect(defaultCluster(clusters, "aaa")).toBe("aaa");
    expect(defaultCluster(clusters, "gone")).toBe("local");
  });

  it("falls back to the first cluster when no agent runs any, and to nothing without clusters", () => {
    expect(defaultCluster([{ name: "b", agentNodes: 0 }, { name: "c", agentNodes: 0 }], "")).toBe("b");
    expect(defaultCluster([], "")).toBe("");
  });
});
