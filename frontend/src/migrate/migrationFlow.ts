// The dashboard's migration flow as a reducer: propose a target (a drop or the list), see the dry
// run's predicted change, confirm, follow the steps to the end. Pure; the page feeds it the API's
// answers. Every proposal gets a number, and an answer for an older one is ignored, so a slow dry run
// cannot overwrite a newer drag.

import type { MigrationAnswer, MigrationRow } from "../api/client";

export interface Move {
  /** Index of the instance in the layout's columns, and its id. */
  instance: number;
  instanceId: string;
  /** Layout node indices and the target's name (what the API is sent). */
  source: number;
  target: number;
  targetName: string;
}

export type FlowState =
  | { phase: "idle"; seq: number }
  | { phase: "predicting"; seq: number; move: Move }
  | { phase: "predicted"; seq: number; move: Move; answer: MigrationAnswer }
  | { phase: "starting"; seq: number; move: Move; answer: MigrationAnswer }
  | { phase: "running"; seq: number; move: Move; answer: MigrationAnswer | null; migrationId: string; migration: MigrationRow | null }
  | { phase: "finished"; seq: number; move: Move; answer: MigrationAnswer | null; migrationId: string; migration: MigrationRow }
  | { phase: "refused"; seq: number; move: Move; reason: string; code: string; step: "dry_run" | "migrate" };

export type FlowAction =
  | { type: "propose"; move: Move }
  | { type: "predicted"; seq: number; answer: MigrationAnswer }
  | { type: "confirm" }
  | { type: "started"; seq: number; migrationId: string }
  | { type: "refused"; seq: number; reason: string; code: string }
  | { type: "progress"; seq: number; migration: MigrationRow }
  | { type: "dismiss" };

export const initialFlow: FlowState = { phase: "idle", seq: 0 };

const TERMINAL = new Set(["succeeded", "rolled_back", "failed"]);

export function isTerminalMigration(state: string): boolean {
  return TERMINAL.has(state);
}

/** A migration is under way: a new proposal must wait (the API would refuse it, and the panel is busy). */
export function isBusy(s: FlowState): boolean {
  return s.phase === "starting" || s.phase === "running";
}

export function flowReducer(s: FlowState, a: FlowAction): FlowState {
  switch (a.type) {
    case "propose":
      if (isBusy(s)) return s;
      return { phase: "predicting", seq: s.seq + 1, move: a.move };
    case "predicted":
      if (s.phase !== "predicting" || a.seq !== s.seq) return s;
      return { phase: "predicted", seq: s.seq, move: s.move, answer: a.answer };
    case "confirm":
      if (s.phase !== "predicted") return s;
      return { phase: "starting", seq: s.seq, move: s.move, answer: s.answer };
    case "started":
      if (s.phase !== "starting" || a.seq !== s.seq) return s;
      return { phase: "running", seq: s.seq, move: s.move, answer: s.answer, migrationId: a.migrationId, migration: null };
    case "refused":
      if ((s.phase !== "predicting" && s.phase !== "starting") || a.seq !== s.seq) return s;
      return { phase: "refused", seq: s.seq, move: s.move, reason: a.reason, code: a.code, step: s.phase === "predicting" ? "dry_run" : "migrate" };
    case "progress":
      if (s.phase !== "running" || a.seq !== s.seq || a.migration.id !== s.migrationId) return s;
      if (isTerminalMigration(a.migration.state)) {
        return { phase: "finished", seq: s.seq, move: s.move, answer: s.answer, migrationId: s.migrationId, migration: a.migration };
      }
      return { ...s, migration: a.migration };
    case "dismiss":
      if (isBusy(s)) return s;
      return { phase: "idle", seq: s.seq };
  }
}

/** The proposal being looked at, for the canvas (a ghost on the target while it is not refused). */
export function pendingMove(s: FlowState): Move | null {
  if (s.phase === "predicting" || s.phase === "predicted" || s.phase === "starting" || s.phase === "running") return s.move;
  return null;
}

/** The refusal to show next to the dragged instance, which stays where it was. */
export function refusalNote(s: FlowState): { instance: number; text: string } | null {
  return s.phase === "refused" ? { instance: s.move.instance, text: s.reason } : null;
}
