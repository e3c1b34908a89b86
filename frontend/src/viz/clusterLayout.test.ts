import { describe, expect, it } from "vitest";
import {
  COARSE_POD_RACK_PX,
  COARSE_RACK_PX,
  type ClusterGeometry,
  type ClusterLayoutData,
  type Rect,
  blockAt,
  buildHitIndex,
  coarseLevel,
  computeClusterLayout,
  hitTest,
} from "./clusterLayout";

/** racks × serversPerRack servers, each a host + `nics` SmartNICs; instances spread round-robin. */
export function fakeCluster(racks: number, serversPerRack: number, nics: number, instances: number): ClusterLayoutData {
  const data: ClusterLayoutData = {
    cluster: "c",
    racks: Array.from({ length: racks }, (_, r) => ({ name: `r${r}`, pod: 0 })),
    servers: [],
    nodes: [],
    deployments: [
      { application: "alpha", edges: [["a", "b"]] },
      { application: "beta", edges: [["x", "y"]] },
    ],
    instances: { id: [], node: [], deployment: [], dag_node: [], service: [], shard: [], replica: [] },
  };
  for (let r = 0; r < racks; r++) {
    for (let s = 0; s < serversPerRack; s++) {
      const server = data.servers.length;
      data.servers.push({ name: `r${r}-s${s}`, server_type: "t", rack: r });
      // SmartNICs first in the array, to check the host is still drawn first.
      for (let n = 0; n < nics; n++) data.nodes.push({ name: `r${r}-s${s}/nic${n}`, kind: "smartnic", server, cores: 8, used_cores: 4 });
      data.nodes.push({ name: `r${r}-s${s}/host`, kind: "host", server, cores: 16, used_cores: 16 });
    }
  }
  for (let i = 0; i < instances; i++) {
    const dep = i % 3 === 0 ? 1 : 0;
    data.instances.id.push(`i${i}`);
    data.instances.node.push((i * 7) % data.nodes.length);
    data.instances.deployment.push(dep);
    data.instances.dag_node.push(dep === 0 ? (i % 2 ? "a" : "b") : "x");
    data.instances.service.push("svc");
    data.instances.shard.push(Math.floor(i / 2));
    data.instances.replica.push(i % 2);
  }
  return data;
}

function within(inner: Rect, outer: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function boxOfNode(g: ClusterGeometry): Map<number, Rect> {
  return new Map(g.nodes.map((n) => [n.node, n]));
}

describe("computeClusterLayout", () => {
  it("gives every instance one mark inside its node's box, and marks never overlap", () => {
    const data = fakeCluster(3, 4, 2, 500);
    const g = computeClusterLayout(data);
    expect(g.marks).toHaveLength(500);
    expect(g.nodes).toHaveLength(data.nodes.length);
    const boxes = boxOfNode(g);
    const seen = new Set<number>();
    for (const m of g.marks) {
      seen.add(m.instance);
      const box = boxes.get(data.instances.node[m.instance]!)!;
      expect(within(m, box)).toBe(true);
      expect(g.markOfInstance[m.instance]).toBe(g.marks.indexOf(m));
      expect(m.primary).toBe(data.instances.replica[m.instance] === 0);
    }
    expect(seen.size).toBe(500);
    // Marks on the same node do not overlap.
    const byNode = new Map<number, Rect[]>();
    for (const m of g.marks) {
      const n = data.instances.node[m.instance]!;
      byNode.set(n, [...(byNode.get(n) ?? []), m]);
    }
    for (const list of byNode.values()) {
      for (let a = 0; a < list.length; a++) for (let b = a + 1; b < list.length; b++) expect(overlaps(list[a]!, list[b]!)).toBe(false);
    }
  });

  it("puts node boxes inside their rack, host first in each server row, and racks apart", () => {
    const data = fakeCluster(5, 3, 4, 50);
    const g = computeClusterLayout(data, { aspect: 1 });
    for (const rack of g.racks) {
      for (const n of g.nodes.slice(rack.nodeStart, rack.nodeEnd)) expect(within(n, rack)).toBe(true);
      for (const other of g.racks) if (other !== rack) expect(overlaps(rack, other)).toBe(false);
    }
    for (const row of g.servers) {
      const boxes = g.nodes.filter((n) => data.nodes[n.node]!.server === row.server).sort((a, b) => a.x - b.x);
      expect(data.nodes[boxes[0]!.node]!.kind).toBe("host");
      expect(boxes).toHaveLength(5);
    }
    // Utilisation bar: host 16/16 = full, NIC 4/8 = half.
    const host = g.nodes.find((n) => n.kind === "host")!;
    const nic = g.nodes.find((n) => n.kind === "smartnic")!;
    expect(host.utilisation).toBe(1);
    expect(nic.utilisation).toBe(0.5);
    expect(nic.bar.w).toBeCloseTo(host.bar.w / 2);
    expect(within(g.racks[4]!, g)).toBe(true);
  });

  it("frames each pod's racks together, the pods apart, when the racks belong to two pods or more", () => {
    const data = fakeCluster(12, 2, 1, 60);
    data.racks.forEach((rack, r) => (rack.pod = Math.floor(r / 3)));
    const g = computeClusterLayout(data, { aspect: 1.6 });
    expect(g.pods.map((p) => p.name)).toEqual(["pod 0", "pod 1", "pod 2", "pod 3"]);
    expect(g.racks.map((r) => r.rack)).toEqual(data.racks.map((_, r) => r));
    for (const pod of g.pods) {
      expect(pod.racks).toEqual([0, 1, 2].map((i) => pod.pod * 3 + i));
      for (const r of pod.racks) {
        expect(within(g.racks[r]!, pod)).toBe(true);
        expect(g.racks[r]!.y).toBeGreaterThanOrEqual(pod.header.y + pod.header.h);
      }
      for (const other of g.pods) if (other !== pod) expect(overlaps(pod, other)).toBe(false);
      expect(within(pod, g)).toBe(true);
      const racks = pod.racks.map((r) => g.racks[r]!.summary);
      expect(pod.summary.servers).toBe(6);
      expect(pod.summary.instances).toBe(racks.reduce((n, s) => n + s.instances, 0));
      expect(pod.summary.utilisation).toBeCloseTo(racks.reduce((n, s) => n + s.usedCores, 0) / racks.reduce((n, s) => n + s.cores, 0));
    }
    expect(g.pods.reduce((n, p) => n + p.summary.instances, 0)).toBe(60);
    // Pods side by side and in rows, not one long strip.
    expect(new Set(g.pods.map((p) => p.x)).size).toBeGreaterThan(1);
    expect(new Set(g.pods.map((p) => p.y)).size).toBeGreaterThan(1);
  });

  it("shows every pod as a block when racks are tiny on screen, every rack when small, the nodes otherwise", () => {
    const data = fakeCluster(12, 2, 1, 60);
    data.racks.forEach((rack, r) => (rack.pod = Math.floor(r / 3)));
    const g = computeClusterLayout(data);
    const rackW = g.racks[0]!.w;
    expect(coarseLevel(g, (COARSE_POD_RACK_PX - 1) / rackW)).toBe("pod");
    expect(coarseLevel(g, (COARSE_RACK_PX - 1) / rackW)).toBe("rack");
    expect(coarseLevel(g, (COARSE_RACK_PX + 1) / rackW)).toBeNull();
    const onePod = computeClusterLayout(fakeCluster(12, 2, 1, 60));
    expect(coarseLevel(onePod, (COARSE_POD_RACK_PX - 1) / rackW)).toBe("rack"); // no pods to show
    // What is under the pointer is the block drawn there.
    const pod = g.pods[2]!;
    expect(blockAt(g, "pod", pod.x + pod.w / 2, pod.y + pod.h / 2)).toEqual({ kind: "pod", pod: 2 });
    const rack = g.racks[7]!;
    expect(blockAt(g, "rack", rack.x + 1, rack.y + rack.h - 1)).toEqual({ kind: "rack", rack: 7, header: false, block: true });
    expect(blockAt(g, "pod", g.w + 10, 0)).toBeNull();
  });

  it("draws no pod frames when every rack is in one pod", () => {
    expect(computeClusterLayout(fakeCluster(6, 2, 1, 10)).pods).toEqual([]);
  });

  it("draws collapsed racks as summary blocks with counts and utilisation, except expanded ones", () => {
    const data = fakeCluster(4, 6, 1, 40);
    const g = computeClusterLayout(data, { collapsed: true, expandedRacks: new Set([2]) });
    const collapsed = g.racks.filter((r) => r.collapsed);
    expect(collapsed.map((r) => r.rack)).toEqual([0, 1, 3]);
    expect(g.nodes.every((n) => data.servers[data.nodes[n.node]!.server]!.rack === 2)).toBe(true);
    expect(g.marks.every((m) => data.servers[data.nodes[data.instances.node[m.instance]!]!.server]!.rack === 2)).toBe(true);
    // The summaries still count every instance and node.
    const total = g.racks.reduce((s, r) => s + r.summary.instances, 0);
    expect(total).toBe(40);
    expect(g.filteredInstances).toBe(40);
    const r0 = g.racks[0]!.summary;
    expect(r0.servers).toBe(6);
    expect(r0.hostNodes).toBe(6);
    expect(r0.smartnicNodes).toBe(6);
    expect(r0.utilisation).toBeCloseTo((16 + 16 + 4 + 4) / (16 + 16 + 8 + 8));
    // A collapsed block is smaller than an expanded rack.
    expect(g.racks[0]!.h).toBeLessThan(g.racks[2]!.h);
  });

  it("marks each instance with the look of its state, and counts the refused ones per rack", () => {
    const data = fakeCluster(2, 2, 1, 12);
    const states = ["running", "failed", "placed", "deploying"];
    data.instances.state = data.instances.id.map((_, i) => states[i % 4]!);
    const g = computeClusterLayout(data, { collapsed: true, expandedRacks: new Set([0]) });
    for (const m of g.marks) expect(m.look).toBe(["running", "failed", "unrun", "pending"][m.instance % 4]);
    expect(g.racks.reduce((n, r) => n + r.summary.failed, 0)).toBe(3);
    // Without states (an older layout), every instance is drawn as running.
    expect(computeClusterLayout(fakeCluster(1, 1, 1, 5)).marks.every((m) => m.look === "running")).toBe(true);
  });

  it("draws only the filtered application's instances", () => {
    const data = fakeCluster(2, 2, 2, 90);
    const all = computeClusterLayout(data);
    const beta = computeClusterLayout(data, { application: "beta" });
    expect(beta.marks).toHaveLength(30);
    expect(beta.marks.every((m) => data.deployments[m.deployment]!.application === "beta")).toBe(true);
    expect(beta.filteredInstances).toBe(30);
    // Box sizes do not change with the filter.
    expect(beta.nodes[0]!.w).toBe(all.nodes[0]!.w);
    expect(beta.nodes[0]!.h).toBe(all.nodes[0]!.h);
    const none = computeClusterLayout(data, { application: "nope" });
    expect(none.marks).toHaveLength(0);
    expect(none.markOfInstance.every((m) => m === -1)).toBe(true);
  });

  it("grows node boxes for crowded nodes instead of spilling marks out", () => {
    const data = fakeCluster(1, 1, 1, 300);
    data.instances.node = data.instances.node.map(() => 0);
    const g = computeClusterLayout(data);
    const box = g.nodes.find((n) => n.node === 0)!;
    expect(g.marks.every((m) => within(m, box))).toBe(true);
  });

  it("handles an empty cluster", () => {
    const g = computeClusterLayout(fakeCluster(0, 0, 0, 0));
    expect(g.racks).toHaveLength(0);
    expect(g.w).toBe(0);
    expect(g.h).toBe(0);
  });

  it("lays out 1,000 servers and 10K instances quickly enough to draw", () => {
    const data = fakeCluster(25, 40, 4, 10_000);
    const t0 = performance.now();
    const g = computeClusterLayout(data);
    const ms = performance.now() - t0;
    expect(g.marks).toHaveLength(10_000);
    expect(g.nodes).toHaveLength(5_000);
    console.log(`layout of 1,000 servers / 10K instances: ${ms.toFixed(1)} ms`);
  });
});

describe("hitTest", () => {
  const data = fakeCluster(2, 2, 2, 60);
  const g = computeClusterLayout(data, { collapsed: true, expandedRacks: new Set([0]) });
  const index = buildHitIndex(g);

  it("finds the instance under a mark, the node in a box's gap, the rack elsewhere", () => {
    const m = g.marks[7]!;
    expect(hitTest(g, index, m.x + 1, m.y + 1)).toEqual({ kind: "instance", instance: m.instance });
    const empty = g.nodes.find((n) => n.instances === 0) ?? g.nodes[0]!;
    expect(hitTest(g, index, empty.bar.x + 1, empty.bar.y + 1)).toEqual({ kind: "node", node: empty.node });
    const collapsed = g.racks[1]!;
    expect(hitTest(g, index, collapsed.x + 5, collapsed.y + collapsed.h - 5)).toEqual({ kind: "rack", rack: 1, header: false });
    expect(hitTest(g, index, collapsed.x + 5, collapsed.y + 5)).toEqual({ kind: "rack", rack: 1, header: true });
    expect(hitTest(g, index, -50, -50)).toBeNull();
  });

  it("takes the nearest mark within the slop", () => {
    const m = g.marks[0]!;
    expect(hitTest(g, index, m.x - 2, m.y + 1, 0)?.kind).not.toBe("instance");
    expect(hitTest(g, index, m.x - 2, m.y + 1, 3)).toEqual({ kind: "instance", instance: m.instance });
  });
});
