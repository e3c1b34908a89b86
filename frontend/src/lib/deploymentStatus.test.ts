import { describe, expect, it } from "vitest";
import {
  formatInstanceError,
  formatRefusal,
  describeInstanceState,
  instanceStateMeaning,
  instanceStateTone,
  isSettling,
  statusHeadline,
  statusLabel,
  statusTone,
} from "./deploymentStatus";

const REASON = "4 of 18 instances refused by their agents: bad_config: engine: api_gateway: config needs keys=<k1,k2,...>";

describe("deployment status", () => {
  it("colours running green, degraded amber, failed red, placing and deploying neutral, placed grey", () => {
    expect(statusTone("running")).toBe("ok");
    expect(statusTone("degraded")).toBe("warn");
    expect(statusTone("failed")).toBe("bad");
    expect(statusTone("placing")).toBe("pending");
    expect(statusTone("deploying")).toBe("pending");
    expect(statusTone("placed")).toBe("idle");
    expect(statusTone("something-new")).toBe("pending");
  });

  it("labels each status, and keeps one it does not know", () => {
    expect(statusLabel("degraded")).toBe("Degraded");
    expect(statusLabel("placed")).toBe("Placed");
    expect(statusLabel("something-new")).toBe("something-new");
  });

  it("knows which statuses still change by themselves", () => {
    expect(isSettling("placing")).toBe(true);
    expect(isSettling("deploying")).toBe(true);
    for (const s of ["running", "degraded", "failed", "placed"]) expect(isSettling(s)).toBe(false);
  });

  it("says what it is doing, and why when it is not running", () => {
    const d = { instances: 5, instance_states: { running: 3, deploying: 2 } };
    expect(statusHeadline({ ...d, status: "placing" })).toBe("Placing…");
    expect(statusHeadline({ ...d, status: "deploying" })).toBe("Placed — deploying to agents (3 of 5 instances running)…");
    expect(statusHeadline({ ...d, status: "running" })).toBe("Running — all 5 instances running");
    expect(statusHeadline({ instances: 1, status: "running" })).toBe("Running — its instance runs");
    expect(statusHeadline({ ...d, status: "degraded", status_reason: REASON })).toBe(`Degraded: ${REASON}`);
    expect(statusHeadline({ ...d, status: "failed", status_reason: "no room for sql" })).toBe("Failed: no room for sql");
    expect(statusHeadline({ ...d, status: "failed", status_reason: null })).toBe("Failed: nothing runs");
    expect(statusHeadline({ ...d, status: "placed", status_reason: "no agent runs the nodes" }))
      .toBe("Placed — no agent runs these nodes: nothing executes it");
    expect(statusHeadline({ ...d, status: "odd", status_reason: "why" })).toBe("odd: why");
  });

  it("counts each refusal", () => {
    expect(formatRefusal({ code: "bad_config", message: "config needs keys", instances: 4 }))
      .toBe("bad_config: config needs keys (4 instances)");
    expect(formatRefusal({ code: "no_port", message: "ports exhausted", instances: 1 })).toBe("no_port: ports exhausted (1 instance)");
  });
});

describe("instance state", () => {
  it("colours and explains each state", () => {
    expect(instanceStateTone("running")).toBe("ok");
    expect(instanceStateTone("failed")).toBe("bad");
    expect(instanceStateTone("placed")).toBe("idle");
    expect(instanceStateTone("deploying")).toBe("pending");
    expect(instanceStateTone("seeding")).toBe("pending");
    expect(instanceStateMeaning("failed")).toBe("refused by its agent");
    expect(instanceStateMeaning("placed")).toMatch(/no agent runs its node/);
    expect(describeInstanceState("running")).toBe("running: its agent ACKed it");
    expect(describeInstanceState("failed", { code: "bad_config", message: "config needs keys" }))
      .toBe("failed: refused by its agent: bad_config: config needs keys");
    expect(describeInstanceState("odd")).toBe("odd");
  });

  it("writes an agent's refusal as code: message", () => {
    expect(formatInstanceError({ code: "bad_config", message: "config needs keys" })).toBe("bad_config: config needs keys");
    expect(formatInstanceError({ code: "bad_config" })).toBe("bad_config");
    expect(formatInstanceError({ message: "boom" })).toBe("boom");
    expect(formatInstanceError(null)).toBeNull();
    expect(formatInstanceError({})).toBeNull();
  });
});
