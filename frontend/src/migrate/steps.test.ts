import { describe, expect, it } from "vitest";
import type { MigrationStepRow } from "../api/client";
import { plannedSteps, stepProgress, stepRows, stepTimings, stepsTotalMs } from "./steps";

const step = (name: string, state: string, ms: number | null = null, detail: string | null = null): MigrationStepRow => ({
  name,
  state,
  ms,
  detail,
  started_at: null,
  finished_at: null,
  commands: [],
});

describe("migration steps", () => {
  it("plans the protocol's steps by kind", () => {
    expect(plannedSteps("move", true)).toEqual(["push", "open_transfer", "stop_and_transfer", "update_routes", "cleanup_source"]);
    expect(plannedSteps("move", false)).toEqual(["push", "update_routes", "cleanup_source"]);
    expect(plannedSteps("seed", true)).toEqual(["push", "open_transfer", "copy_state", "update_routes"]);
  });

  it("shows done, running and pending steps with their milliseconds", () => {
    const m = { kind: "move", stateful: true, state: "running", steps: [step("push", "done", 101.4), step("open_transfer", "running")] };
    expect(stepRows(m).map((r) => [r.name, r.status, r.ms])).toEqual([
      ["push", "done", 101.4],
      ["open_transfer", "running", null],
      ["stop_and_transfer", "pending", null],
      ["update_routes", "pending", null],
      ["cleanup_source", "pending", null],
    ]);
    expect(stepProgress(m)).toBeCloseTo(0.2);
    expect(stepTimings(m)).toBe("push 101 · open_transfer …");
  });

  it("marks steps never run as skipped after a rollback, and lists the undo", () => {
    const m = {
      kind: "move",
      stateful: true,
      state: "rolled_back",
      steps: [step("push", "done", 50), step("open_transfer", "failed", 20000, "timeout"), step("undo_push", "done", 30)],
    };
    const rows = stepRows(m);
    expect(rows.find((r) => r.name === "stop_and_transfer")?.status).toBe("skipped");
    expect(rows.find((r) => r.name === "open_transfer")).toMatchObject({ status: "failed", detail: "timeout" });
    expect(rows.at(-1)).toMatchObject({ name: "undo_push", status: "done" });
    expect(stepsTotalMs(m)).toBe(20080);
  });

  it("is complete once succeeded; no total without timings", () => {
    expect(stepProgress({ kind: "move", stateful: false, state: "succeeded", steps: [] })).toBe(1);
    expect(stepsTotalMs({ steps: [] })).toBeNull();
  });
});
