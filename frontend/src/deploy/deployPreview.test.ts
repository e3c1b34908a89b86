import { describe, expect, it } from "vitest";
import {
  PREVIEW_ALGORITHMS,
  buildPreviewRequest,
  comparisonByAlgorithm,
  describeBottleneck,
  describeOptimality,
  parsePrediction,
  parsePreview,
  pickBestAlgorithm,
  preselectAlgorithm,
} from "./deployPreview";

const prediction = (rpj: number, extra: Record<string, unknown> = {}) => ({
  offered_rps: null,
  throughput_rps: 11711.7,
  saturated: false,
  avg_latency_ms: 86.2,
  p99_latency_ms: 390.8,
  power_watts: 715.4,
  joules_per_request: 1 / rpj,
  requests_per_joule: rpj,
  bottleneck: { resource: "cores", dag_node: "recommend", utilisation: 1.0, source: "model" },
  source: "model",
  ...extra,
});

const preview = {
  application: "iot-ts",
  cluster: "fattree-3",
  instances: 108,
  baseline: "hcm",
  results: [
    { algorithm: "hcm", placed: true, runtime_ms: 1.8, optimal: null, prediction: prediction(16.37),
      objective: "keeps communicating microservices close", optimality: "a heuristic: no claim of optimality",
      assignments: [{ dag_node: "ingest", shard: 0, replica: 0, node: "r0-s00/host" }, { dag_node: 7 }],
      summary: { instances_on_host: 66, instances_on_smartnic: 42, servers_used: 3 } },
    { algorithm: "annealing", placed: true, runtime_ms: 71.7, prediction: prediction(18.4),
      summary: { instances_on_host: 54, instances_on_smartnic: 54, servers_used: 3 } },
    { algorithm: "ilp", placed: true, runtime_ms: 10000, optimal: false, prediction: prediction(56.8),
      summary: { instances_on_host: 69, instances_on_smartnic: 39, servers_used: 3 } },
    { algorithm: "first_fit", placed: false, error: {
      code: "insufficient_capacity", message: "no node has 4 free cores for ema shard 2 replica 0",
      errors: [{ field: "spec.nodes[2]", message: "no node has 4 free cores", code: "cores",
                 instance: "ema/2/0", resource: "cores" }] } },
  ],
  comparison: {
    source: "model",
    baseline: "hcm",
    rows: [
      { name: "hcm", requests_per_joule_ratio: 1, avg_latency_ratio: 1 },
      { name: "annealing", requests_per_joule_ratio: 1.126, avg_latency_ratio: 0.782 },
      { name: "ilp", requests_per_joule_ratio: 3.47, avg_latency_ratio: 0.327 },
    ],
  },
};

describe("parsePreview", () => {
  const table = parsePreview(preview);

  it("keeps one row per algorithm in the API's order", () => {
    expect(table.rows.map((r) => r.algorithm)).toEqual(["hcm", "annealing", "ilp", "first_fit"]);
    expect(table.instances).toBe(108);
    expect(table.baseline).toBe("hcm");
  });

  it("carries the measured runtime, the summary and the modelled figures", () => {
    const hcm = table.rows[0]!;
    expect(hcm.runtimeMs).toBe(1.8);
    expect(hcm.instancesOnHost).toBe(66);
    expect(hcm.instancesOnSmartnic).toBe(42);
    expect(hcm.serversUsed).toBe(3);
    expect(hcm.prediction?.throughputRps).toBe(11711.7);
    expect(hcm.prediction?.p99LatencyMs).toBe(390.8);
    expect(hcm.objective).toBe("keeps communicating microservices close");
    expect(hcm.optimality).toBe("a heuristic: no claim of optimality");
  });

  it("says in words what a capped ILP claims, never a bare true/false", () => {
    expect(table.rows[2]!.optimality).toBe(
      "stopped at its time cap or solved an approximation: the best placement found so far",
    );
    expect(describeOptimality(undefined, true)).toBe("optimal for its own objective (not for joules or latency)");
    expect(describeOptimality("", null)).toBe("a heuristic: no claim of optimality");
    for (const row of table.rows) expect(row.optimality).not.toMatch(/^(true|false)$/);
  });

  it("keeps the proposed instances of a placed result, dropping malformed ones", () => {
    expect(table.rows[0]!.assignments).toEqual([{ dagNode: "ingest", shard: 0, replica: 0, node: "r0-s00/host" }]);
    expect(table.rows[1]!.assignments).toBeNull();
    expect(table.rows[3]!.assignments).toBeNull();
  });

  it("maps the comparison ratios onto rows", () => {
    expect(table.rows[2]!.requestsPerJouleRatio).toBe(3.47);
    expect(table.rows[2]!.avgLatencyRatio).toBe(0.327);
    expect(table.rows[3]!.requestsPerJouleRatio).toBeNull();
  });

  it("keeps an unplaced algorithm's error in full", () => {
    const ff = table.rows[3]!;
    expect(ff.placed).toBe(false);
    expect(ff.prediction).toBeNull();
    expect(ff.errorMessage).toBe("no node has 4 free cores for ema shard 2 replica 0");
    expect(ff.errorLines).toEqual([
      { field: "spec.nodes[2]", message: "no node has 4 free cores", code: "cores", instance: "ema/2/0", resource: "cores" },
    ]);
  });

  it("picks the best requests per joule", () => {
    expect(table.best).toBe("ilp");
  });

  it("survives an empty or odd answer", () => {
    const empty = parsePreview(null);
    expect(empty.rows).toEqual([]);
    expect(empty.best).toBeNull();
    expect(parsePreview({ results: [{ algorithm: "hcm", placed: false }] }).rows[0]!.errorMessage).toBe("Not placed");
  });
});

describe("pickBestAlgorithm / preselectAlgorithm", () => {
  it("ignores unplaced rows and keeps the first of a tie", () => {
    const rows = parsePreview({
      results: [
        { algorithm: "hcm", placed: true, prediction: prediction(20) },
        { algorithm: "annealing", placed: true, prediction: prediction(20) },
        { algorithm: "ilp", placed: false, prediction: prediction(99) },
      ],
    }).rows;
    expect(pickBestAlgorithm(rows)).toBe("hcm");
  });

  it("falls back to HCM with no preview or nothing placed", () => {
    expect(preselectAlgorithm(null)).toBe("hcm");
    expect(preselectAlgorithm(parsePreview({ results: [{ algorithm: "ilp", placed: false }] }))).toBe("hcm");
    expect(preselectAlgorithm(parsePreview(preview))).toBe("ilp");
  });
});

describe("comparisonByAlgorithm", () => {
  it("reads rows by name and skips junk", () => {
    const map = comparisonByAlgorithm({ rows: [{ name: "hcm", requests_per_joule_ratio: 1 }, 3, { x: 1 }] });
    expect([...map.keys()]).toEqual(["hcm"]);
    expect(map.get("hcm")).toEqual({ requestsPerJouleRatio: 1, avgLatencyRatio: null });
    expect(comparisonByAlgorithm(undefined).size).toBe(0);
  });
});

describe("parsePrediction", () => {
  it("reads the figures and the saturation flag", () => {
    const p = parsePrediction(prediction(10, { offered_rps: 20000, saturated: true }));
    expect(p?.offeredRps).toBe(20000);
    expect(p?.saturated).toBe(true);
    expect(p?.bottleneck).toBe("cores (recommend) at 100%");
    expect(parsePrediction(null)).toBeNull();
  });

  it("describes a bottleneck without a DAG node", () => {
    expect(describeBottleneck({ resource: "port" })).toBe("port");
    expect(describeBottleneck("cores")).toBeNull();
  });
});

describe("buildPreviewRequest", () => {
  const base = { cluster: "c1", application: "iot-ts", offeredRps: "", ilpTimeLimitS: "10" };

  it("asks for the four algorithms at the knee when no load is given", () => {
    const r = buildPreviewRequest(base);
    expect(r.body).toEqual({ cluster: "c1", application: "iot-ts", algorithms: [...PREVIEW_ALGORITHMS], ilp_time_limit_s: 10,
      seed: 0, include_assignments: true, anti_affinity: false });
  });

  it("sends an offered load when given", () => {
    expect(buildPreviewRequest({ ...base, offeredRps: " 5000 " }).body?.offered_rps).toBe(5000);
  });

  it("refuses a missing cluster, a bad load and a bad cap", () => {
    const r = buildPreviewRequest({ ...base, cluster: "", offeredRps: "-3", ilpTimeLimitS: "500" });
    expect(r.body).toBeNull();
    expect(Object.keys(r.errors ?? {}).sort()).toEqual(["cluster", "ilp_time_limit_s", "offered_rps"]);
  });

  it("uses the default cap when left empty", () => {
    expect(buildPreviewRequest({ ...base, ilpTimeLimitS: "" }).body?.ilp_time_limit_s).toBe(10);
  });
});
