import { describe, expect, it } from "vitest";

import {
  EDGE_WIDTH,
  GRAPH_BOX,
  NOT_MEASURED_FILL,
  colourScale,
  dagNodeDetails,
  edgeLabel,
  edgeLook,
  edgeWidth,
  figureOf,
  graphLayout,
  graphShapeKey,
  hasGraph,
  maxEdgeRate,
  nodeLatencyText,
  dagNodeInstances,
  platformText,
  type LiveDagNode,
  type LiveEdge,
} from "./appGraph";
import { heatColour, readableInk } from "../viz/heatRamp";

function dagNode(id: string, patch: Partial<LiveDagNode> = {}): LiveDagNode {
  return {
    dag_node: id,
    instances: { host: 1 },
    primaries: 1,
    instances_stale: 0,
    throughput_rps: 100,
    avg_latency_us: 300,
    p99_latency_us: null,
    joules_per_request: 0.01,
    cpu_share: 0.4,
    queue_max: 3,
    ...patch,
  };
}

function edge(from: string, to: string, patch: Partial<LiveEdge> = {}): LiveEdge {
  return { from, to, rate_rps: 100, basis: "target_throughput", per_request: 1, ...patch };
}

// The fan-out: a gateway calling two services.
const fanOut = {
  dag_nodes: [dagNode("gw"), dagNode("auth"), dagNode("db")],
  edges: [edge("gw", "auth"), edge("gw", "db")],
};

/** The first point of an SVG path ("M x,y ..."). */
function pathStart(d: string): { x: number; y: number } {
  const m = /^M(-?[\d.]+),(-?[\d.]+)/.exec(d);
  if (!m) throw new Error(`not a path starting with M: ${d}`);
  return { x: Number(m[1]), y: Number(m[2]) };
}

describe("graphLayout", () => {
  it("lays a fan-out left to right: the source in the first layer, its two targets stacked in the next", () => {
    const layout = graphLayout(fanOut);
    const gw = layout.boxes.get("gw")!;
    const auth = layout.boxes.get("auth")!;
    const db = layout.boxes.get("db")!;
    expect(auth.x).toBe(db.x);
    expect(auth.x - gw.x).toBe(GRAPH_BOX.nodeWidth + GRAPH_BOX.layerGap);
    expect(Math.abs(auth.y - db.y)).toBe(GRAPH_BOX.nodeHeight + GRAPH_BOX.nodeGap);
    // The source centred between its targets.
    expect(gw.y + GRAPH_BOX.nodeHeight / 2).toBeCloseTo((auth.y + db.y + GRAPH_BOX.nodeHeight) / 2);
  });

  it("starts every edge's path at the right middle of its source box, its label between its ends", () => {
    const layout = graphLayout(fanOut);
    expect(layout.edges.size).toBe(2);
    for (const e of layout.edges.values()) {
      const source = layout.boxes.get(e.from)!;
      const target = layout.boxes.get(e.to)!;
      expect(pathStart(e.path)).toEqual({ x: source.x + GRAPH_BOX.nodeWidth, y: source.y + GRAPH_BOX.nodeHeight / 2 });
      expect(e.path).toMatch(/^M[\d.,]+ C[\d.,]+ [\d.,]+ [\d.,]+$/);
      expect(e.mid.x).toBeGreaterThan(source.x + GRAPH_BOX.nodeWidth);
      expect(e.mid.x).toBeLessThan(target.x);
    }
  });

  it("sizes the SVG to hold every box", () => {
    const layout = graphLayout(fanOut);
    for (const box of layout.boxes.values()) {
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.x + GRAPH_BOX.nodeWidth).toBeLessThanOrEqual(layout.width);
      expect(box.y + GRAPH_BOX.nodeHeight).toBeLessThanOrEqual(layout.height);
    }
    expect(layout.width).toBeLessThan(2 * GRAPH_BOX.nodeWidth + GRAPH_BOX.layerGap + 20);
  });

  it("leaves out edges naming an unknown DAG node, and lays out nothing without a DAG", () => {
    const layout = graphLayout({ ...fanOut, edges: [...fanOut.edges, edge("gw", "ghost")] });
    expect([...layout.edges.values()].map((e) => e.to).sort()).toEqual(["auth", "db"]);
    expect(graphLayout({})).toMatchObject({ width: 0, height: 0 });
    expect(hasGraph({})).toBe(false);
    expect(hasGraph({ dag_nodes: [] })).toBe(false);
    expect(hasGraph(fanOut)).toBe(true);
  });

  it("keys the layout on the DAG's ids and edges, not on its figures", () => {
    const busier = {
      dag_nodes: fanOut.dag_nodes.map((n) => ({ ...n, throughput_rps: 999 })),
      edges: fanOut.edges.map((e) => ({ ...e, rate_rps: 999 })),
    };
    expect(graphShapeKey(busier)).toBe(graphShapeKey(fanOut));
    expect(graphShapeKey({ ...fanOut, edges: [edge("gw", "auth")] })).not.toBe(graphShapeKey(fanOut));
    expect(graphShapeKey({ ...fanOut, dag_nodes: [dagNode("gw"), dagNode("auth")] })).not.toBe(graphShapeKey(fanOut));
  });
});

describe("edgeWidth", () => {
  it("draws no traffic 1 px wide", () => {
    expect(edgeWidth(0, 100)).toBe(EDGE_WIDTH.idle);
    expect(edgeWidth(null, 100)).toBe(EDGE_WIDTH.idle);
    expect(EDGE_WIDTH.idle).toBe(1);
  });

  it("grows with the rate by a sqrt scale, from 1.5 px to 8 px at the largest rate", () => {
    const rates = [0.0001, 1, 10, 25, 50, 100];
    const widths = rates.map((r) => edgeWidth(r, 100));
    for (let i = 1; i < widths.length; i++) expect(widths[i]!).toBeGreaterThan(widths[i - 1]!);
    expect(widths[0]!).toBeCloseTo(1.5, 1);
    expect(edgeWidth(100, 100)).toBe(8);
    expect(edgeWidth(25, 100)).toBeCloseTo(1.5 + 6.5 * 0.5); // sqrt: a quarter of the rate, half the span
  });

  it("caps the width at 8 px", () => {
    expect(edgeWidth(400, 100)).toBe(8);
    expect(edgeWidth(5, 0)).toBe(8);
  });

  it("takes the largest rate among the edges, and greys and dashes what is estimated or unmeasured", () => {
    const edges = [edge("a", "b", { rate_rps: 40 }), edge("a", "c", { rate_rps: null }), edge("b", "c")];
    expect(maxEdgeRate(edges)).toBe(100);
    expect(maxEdgeRate([])).toBe(0);
    expect(edgeLook(edge("a", "b"), 100)).toEqual({ width: 8, dashed: false, muted: false });
    const split = edge("a", "b", { basis: "split_by_caller_rate" });
    expect(edgeLook(split, 100)).toMatchObject({ dashed: true, muted: false });
    expect(edgeLook(edge("a", "b", { rate_rps: null, basis: "not_measured" }), 100)).toEqual({
      width: 1,
      dashed: true,
      muted: true,
    });
    expect(edgeLook(edge("a", "b", { rate_rps: 0 }), 100)).toMatchObject({ dashed: true, muted: true });
  });

  it("labels an edge with its rate, and ×N only when a request makes other than one call along it", () => {
    expect(edgeLabel(edge("a", "b", { rate_rps: 1234 }))).toBe("1,234 req/s");
    expect(edgeLabel(edge("a", "b", { per_request: 1.04 }))).toBe("100 req/s");
    expect(edgeLabel(edge("a", "b", { per_request: 2 }))).toBe("100 req/s ×2");
    expect(edgeLabel(edge("a", "b", { per_request: 0.5 }))).toBe("100 req/s ×0.5");
    expect(edgeLabel(edge("a", "b", { rate_rps: null, per_request: null }))).toBe("—");
  });
});

describe("colour", () => {
  const nodes = [
    dagNode("a", { joules_per_request: 0.02 }),
    dagNode("b", { joules_per_request: null }),
    dagNode("c", { joules_per_request: 0.06 }),
    dagNode("d", { joules_per_request: 0.04 }),
  ];

  it("spans the non-null figures: yellow the least, red the most, grey for none", () => {
    const scale = colourScale(nodes, "joules");
    expect(scale.min).toBe(0.02);
    expect(scale.max).toBe(0.06);
    expect(scale.unit).toBe("J/req");
    expect(scale.colour(0.02)).toBe(heatColour(0));
    expect(scale.colour(0.06)).toBe(heatColour(1));
    expect(scale.colour(0.04)).toBe(heatColour(0.5));
    expect(scale.colour(null)).toBe(NOT_MEASURED_FILL);
    expect(NOT_MEASURED_FILL).toBe("#c9ced6");
  });

  it("puts a single value, or all equal, in the middle of the ramp", () => {
    const one = colourScale([dagNode("a", { queue_max: 7 }), dagNode("b", { queue_max: null })], "queue");
    expect([one.min, one.max]).toEqual([7, 7]);
    expect(one.colour(7)).toBe(heatColour(0.5));
    const equal = colourScale([dagNode("a", { cpu_share: 0.3 }), dagNode("b", { cpu_share: 0.3 })], "utilisation");
    expect(equal.colour(0.3)).toBe(heatColour(0.5));
    expect(equal.unit).toBe("%");
  });

  it("has no range when no DAG node has the figure", () => {
    const none = colourScale([dagNode("a", { queue_max: null })], "queue");
    expect([none.min, none.max]).toEqual([null, null]);
    expect(none.colour(3)).toBe(NOT_MEASURED_FILL);
  });

  it("colours by latency from the p99, falling back to the average", () => {
    expect(figureOf(dagNode("a", { p99_latency_us: 900, avg_latency_us: 300 }), "latency")).toBe(900);
    expect(figureOf(dagNode("a", { p99_latency_us: null, avg_latency_us: 300 }), "latency")).toBe(300);
    expect(figureOf(dagNode("a", { p99_latency_us: null, avg_latency_us: null }), "latency")).toBeNull();
    expect(figureOf(dagNode("a", { cpu_share: 0.25 }), "utilisation")).toBe(0.25);
    expect(figureOf(dagNode("a", { queue_max: 12 }), "queue")).toBe(12);
    expect(figureOf(dagNode("a", { joules_per_request: Number.NaN }), "joules")).toBeNull();
  });

  it("writes dark on the yellows and white on the deep reds", () => {
    expect(readableInk(heatColour(0))).toBe("#1d2430");
    expect(readableInk(heatColour(0.5))).toBe("#1d2430");
    expect(readableInk(heatColour(1))).toBe("#ffffff");
    expect(readableInk(NOT_MEASURED_FILL)).toBe("#1d2430");
  });
});

describe("text", () => {
  it("writes the instances by platform, NIC for a SmartNIC, zero counts left out", () => {
    expect(platformText({ host: 2, smartnic: 1 })).toBe("2 host · 1 NIC");
    expect(platformText({ smartnic: 3, host: 0 })).toBe("3 NIC");
    expect(platformText({ unknown: 1, host: 1 })).toBe("1 host · 1 unknown");
    expect(platformText({})).toBe("no instance");
    expect(platformText({ host: 0, smartnic: 0 })).toBe("no instance");
  });

  it("writes the box's latency as the p99's upper bound, else the average", () => {
    expect(nodeLatencyText(dagNode("a", { p99_latency_us: 1250 }))).toBe("p99 ≤ 1.25 ms");
    expect(nodeLatencyText(dagNode("a", { avg_latency_us: 310 }))).toBe("avg 310 µs");
    expect(nodeLatencyText(dagNode("a", { avg_latency_us: null }))).toBe("avg —");
  });

  it("lists a DAG node's figures for its details", () => {
    const details = Object.fromEntries(
      dagNodeDetails(dagNode("a", { instances: { host: 2, smartnic: 1 }, instances_stale: 1, cpu_share: 0.42 })),
    );
    expect(details).toMatchObject({
      Instances: "2 host · 1 NIC",
      Primaries: "1",
      "Not reporting": "1",
      Throughput: "100 req/s",
      "Avg latency": "300 µs",
      "p99 latency": "—",
      Energy: "0.01 J/req",
      "CPU share": "42%",
      Queue: "3 pkt",
    });
  });
});

describe("a DAG node's instances", () => {
  const instance = (id: string, dag: string, shard: number, replica: number, node: string, dep = "d1") => ({
    id, node_id: node, deployment_id: dep, application: "a", dag_node: dag, service: "kvs",
    role: replica === 0 ? ("primary" as const) : ("backup" as const), shard, replica,
  });
  const nodes = [
    { id: "n1", name: "r0/nic0", kind: "smartnic" as const, state: "up" as const },
    { id: "h1", name: "r0/host", kind: "host" as const, state: "down" as const },
  ];

  it("lists this deployment's instances of it by shard and replica, each with its node, platform and state", () => {
    const rows = dagNodeInstances("kv", "d1", [
      instance("b", "kv", 0, 1, "h1"),
      instance("c", "kv", 1, 0, "gone"),
      instance("a", "kv", 0, 0, "n1"),
      instance("x", "gw", 0, 0, "h1"),
      instance("y", "kv", 0, 0, "n1", "d2"),
    ], nodes);
    expect(rows.map((r) => [r.id, r.role, r.node, r.platform, r.state])).toEqual([
      ["a", "primary", "r0/nic0", "NIC", "up"],
      ["b", "backup", "r0/host", "host", "down"],
      ["c", "primary", "gone", "unknown", "unknown"], // a node the channel does not list
    ]);
  });
});

