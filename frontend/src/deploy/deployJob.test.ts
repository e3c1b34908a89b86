import { describe, expect, it } from "vitest";
import {
  CONNECTION_LOST_MESSAGE,
  formFieldOf,
  formatErrorLine,
  isAbortError,
  isConnectionError,
  isTerminal,
  jobStateLabel,
  loadStoredJob,
  parseErrorLines,
  parseJob,
  pollDelayMs,
  progressText,
  refusalsByField,
  saveStoredJob,
  storedJobKey,
} from "./deployJob";
import { ApiError, NetworkError } from "../lib/errors";

const running = {
  id: "j1", kind: "deploy", state: "running", progress: 0.37, message: "placed 40 of 108 instances",
  error: null, deployment_id: "d1", created_at: "", started_at: "", finished_at: null, result: null,
};

describe("parseJob", () => {
  it("reads a running job", () => {
    const job = parseJob(running)!;
    expect(job).toMatchObject({ id: "j1", state: "running", progress: 0.37, deploymentId: "d1", error: null, runtimeMs: null });
  });

  it("reads the algorithm's runtime from the result", () => {
    const job = parseJob({ ...running, state: "succeeded", progress: 1,
      result: { algorithm: "hcm", runtime_ms: 2.4, optimal: null, instances: 108 } })!;
    expect(job.runtimeMs).toBe(2.4);
    expect(job.algorithm).toBe("hcm");
    expect(job.instances).toBe(108);
  });

  it("keeps a failure's message and every error entry", () => {
    const job = parseJob({ ...running, state: "failed", progress: 0.5, error: {
      code: "insufficient_capacity", message: "no node has 8 free cores for sql shard 3",
      errors: [{ field: "spec.nodes[1]", message: "no node has 8 free cores", code: "cores",
                 instance: { dag_node: "sql", shard: 3, replica: 0 }, resource: "cores" }] } })!;
    expect(job.error?.message).toBe("no node has 8 free cores for sql shard 3");
    expect(job.error?.code).toBe("insufficient_capacity");
    expect(job.error?.lines[0]).toEqual({ field: "spec.nodes[1]", message: "no node has 8 free cores", code: "cores",
      resource: "cores", instance: "dag_node=sql, shard=3, replica=0" });
  });

  it("gives a failed job without an error body its message", () => {
    expect(parseJob({ ...running, state: "failed", message: "worker died" })!.error?.message).toBe("worker died");
  });

  it("clamps progress and refuses what is not a job", () => {
    expect(parseJob({ ...running, progress: 1.7 })!.progress).toBe(1);
    expect(parseJob({ ...running, progress: "x" })!.progress).toBe(0);
    expect(parseJob({ state: "running" })).toBeNull();
  });
});

describe("progress", () => {
  it("knows terminal states", () => {
    expect(isTerminal("succeeded")).toBe(true);
    expect(isTerminal("failed")).toBe(true);
    expect(isTerminal("running")).toBe(false);
    expect(isTerminal("queued")).toBe(false);
  });

  it("calls a finished placement job placed, not succeeded: whether it runs is for the agents to say", () => {
    expect(jobStateLabel("succeeded")).toBe("placed");
    expect(jobStateLabel("failed")).toBe("failed");
    expect(jobStateLabel("running")).toBe("running");
  });

  it("writes state, message and percentage", () => {
    expect(progressText({ state: "running", progress: 0.374, message: "placed 40 of 108 instances" }))
      .toBe("running — placed 40 of 108 instances (37%)");
    expect(progressText({ state: "queued", progress: 0, message: "" })).toBe("queued (0%)");
    expect(progressText({ state: "succeeded", progress: 1, message: "placed 108 instances with hcm in 2 ms" }))
      .toBe("succeeded — placed 108 instances with hcm in 2 ms");
  });

  it("polls every 400 ms and backs off to 2 s while the connection is lost", () => {
    expect(pollDelayMs(0)).toBe(400);
    expect(pollDelayMs(1)).toBe(800);
    expect(pollDelayMs(2)).toBe(1600);
    expect(pollDelayMs(9)).toBe(2000);
  });
});

describe("error lines", () => {
  it("formats field, message, resource and instance", () => {
    const [line] = parseErrorLines({ errors: [{ field: "spec.nodes[2]", message: "full", resource: "cores", instance: "ema/1/0" }] });
    expect(formatErrorLine(line!)).toBe("spec.nodes[2]: full (resource: cores; instance: ema/1/0)");
    expect(formatErrorLine({ field: null, message: "full", code: null, resource: null, instance: null })).toBe("full");
    expect(parseErrorLines(null)).toEqual([]);
  });
});

describe("refusalsByField", () => {
  it("maps E3 and FastAPI field names to form fields", () => {
    expect(formFieldOf("cluster")).toBe("cluster");
    expect(formFieldOf("algorithms[2]")).toBe("algorithm");
    expect(formFieldOf("body.offered_rps")).toBe("offered_rps");
    expect(formFieldOf("body.ilp_time_limit_s")).toBe("ilp_time_limit_s");
    expect(formFieldOf("version")).toBe("application");
    expect(formFieldOf("seed")).toBe("other");
    expect(formFieldOf(undefined)).toBe("other");
  });

  it("puts each field error next to its field", () => {
    const err = new ApiError(422, { code: "validation_failed", message: "invalid", errors: [
      { field: "cluster", message: "no cluster named 'x'", code: "not_found" },
      { field: "algorithm", message: "unknown algorithm 'y'", code: "unknown_algorithm" },
    ] });
    expect(refusalsByField(err)).toEqual({ cluster: ["no cluster named 'x'"], algorithm: ["unknown algorithm 'y'"] });
  });

  it("puts a 404 about a cluster on the cluster field", () => {
    const err = new ApiError(404, { code: "not_found", message: "cluster 'x' not found", errors: [] });
    expect(refusalsByField(err)).toEqual({ cluster: ["cluster 'x' not found"] });
  });

  it("keeps other refusals whole", () => {
    const err = new ApiError(403, { code: "forbidden", message: "token lacks scope deploy", errors: [] });
    expect(refusalsByField(err)).toEqual({ other: ["token lacks scope deploy"] });
    expect(refusalsByField(new Error("boom"))).toEqual({ other: ["boom"] });
    expect(refusalsByField(new TypeError("Failed to fetch"))).toEqual({ other: [CONNECTION_LOST_MESSAGE] });
  });
});

describe("error kinds", () => {
  it("tells aborts and lost connections apart", () => {
    expect(isAbortError(new DOMException("aborted", "AbortError"))).toBe(true);
    expect(isAbortError(new TypeError("Failed to fetch"))).toBe(false);
    expect(isConnectionError(new TypeError("Failed to fetch"))).toBe(true);
    expect(isConnectionError(new NetworkError())).toBe(true);
    expect(isConnectionError(new ApiError(503, { code: "x", message: "down", errors: [] }))).toBe(true);
    expect(isConnectionError(new ApiError(404, { code: "x", message: "gone", errors: [] }))).toBe(false);
  });
});

describe("stored job", () => {
  function memory(): Storage {
    const m = new Map<string, string>();
    return {
      getItem: (k: string) => m.get(k) ?? null,
      setItem: (k: string, v: string) => void m.set(k, v),
      removeItem: (k: string) => void m.delete(k),
      clear: () => m.clear(),
      key: () => null,
      get length() { return m.size; },
    };
  }

  it("round-trips per application and clears", () => {
    const s = memory();
    const job = { jobId: "j", deploymentId: "d", cluster: "c", algorithm: "hcm" };
    saveStoredJob(s, "iot-ts", job);
    expect(loadStoredJob(s, "iot-ts")).toEqual(job);
    expect(loadStoredJob(s, "other")).toBeNull();
    saveStoredJob(s, "iot-ts", null);
    expect(loadStoredJob(s, "iot-ts")).toBeNull();
  });

  it("ignores unreadable entries and missing storage", () => {
    const s = memory();
    s.setItem(storedJobKey("a"), "{not json");
    expect(loadStoredJob(s, "a")).toBeNull();
    s.setItem(storedJobKey("a"), JSON.stringify({ jobId: 1 }));
    expect(loadStoredJob(s, "a")).toBeNull();
    expect(loadStoredJob(null, "a")).toBeNull();
  });
});
