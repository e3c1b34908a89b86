import { describe, expect, it } from "vitest";
import type { MigrationAnswer, MigrationRow } from "../api/client";
import { type FlowAction, type FlowState, flowReducer, initialFlow, isBusy, pendingMove, refusalNote } from "./migrationFlow";

const move = { instance: 3, instanceId: "inst-3", source: 0, target: 5, targetName: "r0-s1/host" };
const answer = { dry_run: true } as MigrationAnswer;
const migration = (state: string): MigrationRow => ({ id: "m1", state, steps: [] }) as unknown as MigrationRow;

function run(...actions: FlowAction[]): FlowState {
  return actions.reduce(flowReducer, initialFlow);
}

describe("the migration flow", () => {
  it("goes propose → prediction → confirm → running → finished", () => {
    let s = run({ type: "propose", move });
    expect(s.phase).toBe("predicting");
    expect(pendingMove(s)).toEqual(move);
    s = flowReducer(s, { type: "predicted", seq: s.seq, answer });
    expect(s.phase).toBe("predicted");
    s = flowReducer(s, { type: "confirm" });
    expect(s.phase).toBe("starting");
    expect(isBusy(s)).toBe(true);
    s = flowReducer(s, { type: "started", seq: s.seq, migrationId: "m1" });
    expect(s).toMatchObject({ phase: "running", migrationId: "m1", migration: null });
    s = flowReducer(s, { type: "progress", seq: s.seq, migration: migration("running") });
    expect(s).toMatchObject({ phase: "running", migration: { state: "running" } });
    s = flowReducer(s, { type: "progress", seq: s.seq, migration: migration("succeeded") });
    expect(s).toMatchObject({ phase: "finished", migration: { state: "succeeded" } });
    expect(pendingMove(s)).toBeNull();
    expect(isBusy(s)).toBe(false);
  });

  it("shows a refused dry run next to the instance and moves nothing", () => {
    let s = run({ type: "propose", move });
    s = flowReducer(s, { type: "refused", seq: s.seq, reason: "not enough free cores", code: "insufficient_capacity" });
    expect(s).toMatchObject({ phase: "refused", step: "dry_run", code: "insufficient_capacity" });
    expect(pendingMove(s)).toBeNull(); // the ghost goes: the instance stays where it was
    expect(refusalNote(s)).toEqual({ instance: 3, text: "not enough free cores" });
    expect(flowReducer(s, { type: "dismiss" }).phase).toBe("idle");
  });

  it("shows a refusal of the migration itself (e.g. already migrating)", () => {
    let s = run({ type: "propose", move });
    s = flowReducer(flowReducer(s, { type: "predicted", seq: s.seq, answer }), { type: "confirm" });
    s = flowReducer(s, { type: "refused", seq: s.seq, reason: "already migrating", code: "already_migrating" });
    expect(s).toMatchObject({ phase: "refused", step: "migrate" });
  });

  it("ignores the answer to an older proposal", () => {
    const first = run({ type: "propose", move });
    const second = flowReducer(first, { type: "propose", move: { ...move, target: 6, targetName: "other" } });
    expect(flowReducer(second, { type: "predicted", seq: first.seq, answer })).toBe(second);
    expect(flowReducer(second, { type: "refused", seq: first.seq, reason: "x", code: "y" })).toBe(second);
  });

  it("takes no new proposal and cannot be dismissed while a migration runs", () => {
    let s = run({ type: "propose", move });
    s = flowReducer(flowReducer(s, { type: "predicted", seq: s.seq, answer }), { type: "confirm" });
    s = flowReducer(s, { type: "started", seq: s.seq, migrationId: "m1" });
    expect(flowReducer(s, { type: "propose", move })).toBe(s);
    expect(flowReducer(s, { type: "dismiss" })).toBe(s);
  });

  it("ignores progress of another migration and a confirm without a prediction", () => {
    let s = run({ type: "propose", move });
    expect(flowReducer(s, { type: "confirm" })).toBe(s);
    s = flowReducer(flowReducer(s, { type: "predicted", seq: s.seq, answer }), { type: "confirm" });
    s = flowReducer(s, { type: "started", seq: s.seq, migrationId: "m1" });
    const other = { ...migration("succeeded"), id: "m2" };
    expect(flowReducer(s, { type: "progress", seq: s.seq, migration: other })).toBe(s);
  });
});
