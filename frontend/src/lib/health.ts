import { ApiError, NetworkError, describeError } from "./errors";
import type { ReadinessBody } from "./readiness";

// Poll slowly while connected; retry every few seconds once the connection is lost.
export const POLL_MS = 15_000;
export const RETRY_MS = 3_000;

export type Connection = "connecting" | "up" | "lost";

/** One round of /healthz + /readyz. */
export interface CheckResult {
  reachable: boolean;
  readiness: ReadinessBody | null;
  error: string | null;
}

export interface HealthState {
  connection: Connection;
  readiness: ReadinessBody | null; // last known, kept while the connection is lost
  error: string | null;
  checkedAt: Date | null; // when the API last answered
  failedAttempts: number; // since the connection was last up
  /** Bumped each time the connection comes (back) up, so data views can refetch. */
  generation: number;
}

export const initialHealth: HealthState = {
  connection: "connecting",
  readiness: null,
  error: null,
  checkedAt: null,
  failedAttempts: 0,
  generation: 0,
};

/** The state after one check round. */
export function applyCheck(prev: HealthState, result: CheckResult, now: Date): HealthState {
  if (!result.reachable) {
    return {
      ...prev,
      connection: "lost",
      error: result.error,
      failedAttempts: prev.failedAttempts + 1,
    };
  }
  return {
    connection: "up",
    readiness: result.readiness,
    error: result.error,
    checkedAt: now,
    failedAttempts: 0,
    generation: prev.connection === "up" ? prev.generation : prev.generation + 1,
  };
}

export function nextDelay(state: HealthState): number {
  return state.connection === "up" ? POLL_MS : RETRY_MS;
}

/**
 * Judges one round from the settled /healthz and /readyz calls. /healthz is the
 * liveness probe: no answer, or a 5xx from it (a dev proxy with no backend), means
 * the API is not there; any other failure still proves the server is answering.
 */
export function classifyRound(
  health: PromiseSettledResult<unknown>,
  readiness: PromiseSettledResult<ReadinessBody>,
): CheckResult {
  if (health.status === "rejected") {
    const down =
      health.reason instanceof NetworkError ||
      (health.reason instanceof ApiError && health.reason.status >= 500);
    return { reachable: !down, readiness: null, error: describeError(health.reason) };
  }
  if (readiness.status === "rejected") {
    return {
      reachable: !(readiness.reason instanceof NetworkError),
      readiness: null,
      error: describeError(readiness.reason),
    };
  }
  return { reachable: true, readiness: readiness.value, error: null };
}
