// The what-if preview as rows the table renders: each algorithm's placement, its
// measured runtime, the cost model's figures and its ratios to the baseline (HCM).

import { type JobErrorLine, parseErrorLines } from "./deployJob";

/** The algorithms the page compares, in table order. */
export const PREVIEW_ALGORITHMS = ["hcm", "annealing", "ilp", "first_fit"] as const;
/** What a deployment may use (DeploymentCreate.algorithm). */
export const DEPLOY_ALGORITHMS = ["hcm", "annealing", "ilp", "first_fit", "random"] as const;
export const DEFAULT_ALGORITHM = "hcm";

export const ALGORITHM_LABELS: Record<string, string> = {
  hcm: "HCM",
  annealing: "Annealing",
  ilp: "ILP",
  first_fit: "First fit",
  random: "Random",
};

export function algorithmLabel(name: string): string {
  return ALGORITHM_LABELS[name] ?? name;
}

/** The cost model's figures for one placement (all `source: model`). */
export interface PredictedFigures {
  throughputRps: number | null;
  offeredRps: number | null;
  saturated: boolean;
  avgLatencyMs: number | null;
  p99LatencyMs: number | null;
  powerWatts: number | null;
  joulesPerRequest: number | null;
  requestsPerJoule: number | null;
  bottleneck: string | null;
}

/** One instance of a previewed placement: where the algorithm would put it (a node name). */
export interface ProposedInstance {
  dagNode: string;
  shard: number;
  replica: number;
  node: string;
}

export interface PreviewRow {
  algorithm: string;
  placed: boolean;
  /** The API's error message in full, and each field entry, when not placed. */
  errorMessage: string | null;
  errorLines: JobErrorLine[];
  /** The algorithm's own running time, measured by the server. */
  runtimeMs: number | null;
  /** What the algorithm optimises, in a line ("" when the API gave none). */
  objective: string;
  /** What its result claims, in words (never a bare true/false). */
  optimality: string;
  /** Where it would put each instance (asked for with include_assignments), or null. */
  assignments: ProposedInstance[] | null;
  prediction: PredictedFigures | null;
  instancesOnHost: number | null;
  instancesOnSmartnic: number | null;
  serversUsed: number | null;
  /** Ratios to the baseline from `comparison.rows`. */
  requestsPerJouleRatio: number | null;
  avgLatencyRatio: number | null;
}

export interface PreviewTable {
  application: string;
  cluster: string;
  instances: number | null;
  baseline: string;
  rows: PreviewRow[];
  /** The placed algorithm with the most requests per joule, if any. */
  best: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** "cores on server-1 (recommend)" from the prediction's bottleneck, when it names one. */
export function describeBottleneck(value: unknown): string | null {
  if (!isRecord(value)) return null;
  const resource = str(value.resource);
  if (resource === null) return null;
  const where = str(value.dag_node) ?? str(value.service);
  const utilisation = num(value.utilisation);
  const pct = utilisation === null ? "" : ` at ${Math.round(utilisation * 100)}%`;
  return where === null ? `${resource}${pct}` : `${resource} (${where})${pct}`;
}

/** The figures the page shows from a `prediction` object (preview result or deployment). */
export function parsePrediction(value: unknown): PredictedFigures | null {
  if (!isRecord(value)) return null;
  return {
    throughputRps: num(value.throughput_rps),
    offeredRps: num(value.offered_rps),
    saturated: value.saturated === true,
    avgLatencyMs: num(value.avg_latency_ms),
    p99LatencyMs: num(value.p99_latency_ms),
    powerWatts: num(value.power_watts),
    joulesPerRequest: num(value.joules_per_request),
    requestsPerJoule: num(value.requests_per_joule),
    bottleneck: describeBottleneck(value.bottleneck),
  };
}

export interface ComparisonRatios {
  requestsPerJouleRatio: number | null;
  avgLatencyRatio: number | null;
}

/** `comparison.rows` keyed by algorithm name. */
export function comparisonByAlgorithm(comparison: unknown): Map<string, ComparisonRatios> {
  const out = new Map<string, ComparisonRatios>();
  if (!isRecord(comparison) || !Array.isArray(comparison.rows)) return out;
  for (const row of comparison.rows) {
    if (!isRecord(row)) continue;
    const name = str(row.name) ?? str(row.algorithm);
    if (name === null) continue;
    out.set(name, {
      requestsPerJouleRatio: num(row.requests_per_joule_ratio),
      avgLatencyRatio: num(row.avg_latency_ratio),
    });
  }
  return out;
}

/** In words, what the API's `optimal` flag claims; the API's own `optimality` words win when it gave them. */
export function describeOptimality(optimality: unknown, optimal: unknown): string {
  if (typeof optimality === "string" && optimality.trim() !== "") return optimality;
  if (optimal === true) return "optimal for its own objective (not for joules or latency)";
  if (optimal === false) return "stopped at its time cap or solved an approximation: the best placement found so far";
  return "a heuristic: no claim of optimality";
}

/** The result's `assignments` ({dag_node, shard, replica, node}), or null when it has none. */
export function parseAssignments(value: unknown): ProposedInstance[] | null {
  if (!Array.isArray(value)) return null;
  const out: ProposedInstance[] = [];
  for (const a of value) {
    if (!isRecord(a)) continue;
    const dagNode = str(a.dag_node);
    const node = str(a.node);
    if (dagNode === null || node === null) continue;
    out.push({ dagNode, shard: num(a.shard) ?? 0, replica: num(a.replica) ?? 0, node });
  }
  return out;
}

/** The placed algorithm with the highest predicted requests per joule (first wins a tie). */
export function pickBestAlgorithm(rows: readonly PreviewRow[]): string | null {
  let best: PreviewRow | null = null;
  for (const row of rows) {
    const rpj = row.prediction?.requestsPerJoule ?? null;
    if (!row.placed || rpj === null) continue;
    if (best === null || rpj > (best.prediction?.requestsPerJoule ?? -Infinity)) best = row;
  }
  return best?.algorithm ?? null;
}

/** The algorithm to preselect for a deployment: the best previewed one, else HCM. */
export function preselectAlgorithm(table: PreviewTable | null): string {
  const best = table?.best ?? null;
  return best !== null && (DEPLOY_ALGORITHMS as readonly string[]).includes(best) ? best : DEFAULT_ALGORITHM;
}

function parseRow(value: Record<string, unknown>, ratios: Map<string, ComparisonRatios>): PreviewRow {
  const algorithm = str(value.algorithm) ?? "?";
  const placed = value.placed === true;
  const summary = isRecord(value.summary) ? value.summary : {};
  const error = value.error;
  const ratio = ratios.get(algorithm);
  let errorMessage: string | null = null;
  if (!placed) {
    errorMessage = isRecord(error) && typeof error.message === "string" ? error.message : "Not placed";
  }
  return {
    algorithm,
    placed,
    errorMessage,
    errorLines: placed ? [] : parseErrorLines(error),
    runtimeMs: num(value.runtime_ms),
    objective: str(value.objective) ?? "",
    optimality: describeOptimality(value.optimality, value.optimal),
    assignments: placed ? parseAssignments(value.assignments) : null,
    prediction: placed ? parsePrediction(value.prediction) : null,
    instancesOnHost: num(summary.instances_on_host),
    instancesOnSmartnic: num(summary.instances_on_smartnic),
    serversUsed: num(summary.servers_used),
    requestsPerJouleRatio: ratio?.requestsPerJouleRatio ?? null,
    avgLatencyRatio: ratio?.avgLatencyRatio ?? null,
  };
}

/** The preview answer as a table, rows in the order the API gave them. */
export function parsePreview(value: unknown): PreviewTable {
  const body = isRecord(value) ? value : {};
  const ratios = comparisonByAlgorithm(body.comparison);
  const rows = (Array.isArray(body.results) ? body.results : []).filter(isRecord).map((r) => parseRow(r, ratios));
  return {
    application: str(body.application) ?? "",
    cluster: str(body.cluster) ?? "",
    instances: num(body.instances),
    baseline: str(body.baseline) ?? DEFAULT_ALGORITHM,
    rows,
    best: pickBestAlgorithm(rows),
  };
}

export interface PreviewInput {
  cluster: string;
  application: string;
  offeredRps: string;
  ilpTimeLimitS: string;
}

export interface PreviewRequestBody {
  cluster: string;
  application: string;
  algorithms: string[];
  offered_rps?: number;
  ilp_time_limit_s: number;
  seed: number;
  include_assignments: boolean;
  anti_affinity: boolean;
}

export const DEFAULT_ILP_TIME_LIMIT_S = 10;
export const MAX_ILP_TIME_LIMIT_S = 120;

/** The request body from the form, or the field errors that stop it being sent. */
export function buildPreviewRequest(
  input: PreviewInput,
): { body: PreviewRequestBody; errors: null } | { body: null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (input.cluster.trim() === "") errors.cluster = "Pick a cluster";
  const offered = input.offeredRps.trim();
  let offeredRps: number | undefined;
  if (offered !== "") {
    const n = Number(offered);
    if (!Number.isFinite(n) || n <= 0) errors.offered_rps = "Offered load must be a number of requests/s above 0";
    else offeredRps = n;
  }
  const capText = input.ilpTimeLimitS.trim();
  let cap = DEFAULT_ILP_TIME_LIMIT_S;
  if (capText !== "") {
    const n = Number(capText);
    if (!Number.isFinite(n) || n <= 0 || n > MAX_ILP_TIME_LIMIT_S) {
      errors.ilp_time_limit_s = `ILP time cap must be above 0 and at most ${MAX_ILP_TIME_LIMIT_S} s`;
    } else cap = n;
  }
  if (Object.keys(errors).length > 0) return { body: null, errors };
  const body: PreviewRequestBody = {
    cluster: input.cluster,
    application: input.application,
    algorithms: [...PREVIEW_ALGORITHMS],
    ilp_time_limit_s: cap,
    seed: 0,
    // Each algorithm's placement can be shown on the cluster before deploying.
    include_assignments: true,
    anti_affinity: false,
  };
  if (offeredRps !== undefined) body.offered_rps = offeredRps;
  return { body, errors: null };
}
