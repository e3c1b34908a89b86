import { describe, expect, it } from "vitest";
import type { ReadinessBody } from "./readiness";
import { ApiError, NetworkError } from "./errors";
import {
  type CheckResult,
  POLL_MS,
  RETRY_MS,
  applyCheck,
  classifyRound,
  initialHealth,
  nextDelay,
} from "./health";

const ready: ReadinessBody = { status: "ready", checks: { postgres: { ok: true, detail: "" } } };
const up: CheckResult = { reachable: true, readiness: ready, error: null };
const down: CheckResult = { reachable: false, readiness: null, error: "Cannot reach the E3 API" };
const t = new Date("2025-01-01T12:00:00Z");

function run(results: CheckResult[]) {
  return results.reduce((state, result) => applyCheck(state, result, t), initialHealth);
}

describe("applyCheck", () => {
  it("comes up on the first answer", () => {
    const state = run([up]);
    expect(state.connection).toBe("up");
    expect(state.readiness).toBe(ready);
    expect(state.checkedAt).toBe(t);
    expect(state.generation).toBe(1);
  });

  it("counts failed attempts while lost and keeps the last known readiness", () => {
    const state = run([up, down, down]);
    expect(state.connection).toBe("lost");
    expect(state.failedAttempts).toBe(2);
    expect(state.readiness).toBe(ready);
    expect(state.error).toBe("Cannot reach the E3 API");
  });

  it("bumps the generation only when the connection comes back", () => {
    expect(run([up, up, up]).generation).toBe(1);
    const back = run([up, down, down, up]);
    expect(back.generation).toBe(2);
    expect(back.failedAttempts).toBe(0);
    expect(back.error).toBeNull();
  });

  it("stays at generation 0 when never reached", () => {
    expect(run([down]).generation).toBe(0);
  });
});

describe("nextDelay", () => {
  it("retries every few seconds while lost, polls slowly while up", () => {
    expect(nextDelay(run([down]))).toBe(RETRY_MS);
    expect(nextDelay(initialHealth)).toBe(RETRY_MS);
    expect(nextDelay(run([up]))).toBe(POLL_MS);
    expect(RETRY_MS).toBeLessThanOrEqual(5_000);
  });
});

describe("classifyRound", () => {
  const ok = <T>(value: T): PromiseSettledResult<T> => ({ status: "fulfilled", value });
  const fail = <T>(reason: unknown): PromiseSettledResult<T> => ({ status: "rejected", reason });
  const httpError = (status: number) => new ApiError(status, { code: "x", message: `HTTP ${status}`, errors: [] });

  it("is reachable with readiness when both answer (a 503 readiness body included)", () => {
    const notReady: ReadinessBody = { status: "not_ready", checks: { redis: { ok: false, detail: "down" } } };
    expect(classifyRound(ok({ status: "ok" }), ok(notReady))).toEqual({
      reachable: true,
      readiness: notReady,
      error: null,
    });
  });

  it("is lost when /healthz gets no answer or a 5xx from a proxy", () => {
    expect(classifyRound(fail(new NetworkError()), fail(new NetworkError())).reachable).toBe(false);
    expect(classifyRound(fail(httpError(502)), fail(httpError(502))).reachable).toBe(false);
  });

  it("is reachable but reports the error when only /readyz misbehaves", () => {
    const result = classifyRound(ok({ status: "ok" }), fail(httpError(500)));
    expect(result).toEqual({ reachable: true, readiness: null, error: "HTTP 500" });
  });
});
