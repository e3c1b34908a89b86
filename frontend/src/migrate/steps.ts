// A migration's steps as a checklist: the steps its kind goes through, each pending, running, done or
// failed with its milliseconds from the record (the runner stores them as it goes). Pure.

import type { MigrationRow } from "../api/client";

export type StepStatus = "pending" | "running" | "done" | "failed" | "skipped";

export interface StepRow {
  name: string;
  status: StepStatus;
  ms: number | null;
  detail: string | null;
}

const MOVE_STATEFUL = ["push", "open_transfer", "stop_and_transfer", "update_routes", "cleanup_source"];
const MOVE_STATELESS = ["push", "update_routes", "cleanup_source"];
const SEED = ["push", "open_transfer", "copy_state", "update_routes"];

/** The steps a migration of this kind goes through, in order (docs/orchestrator.md, "Migration protocol"). */
export function plannedSteps(kind: string, stateful: boolean): string[] {
  if (kind === "seed") return SEED;
  return stateful ? MOVE_STATEFUL : MOVE_STATELESS;
}

function statusOf(state: string): StepStatus {
  return state === "done" || state === "running" || state === "failed" ? state : "running";
}

/**
 * The checklist: planned steps in order with what the record says of each, then any recorded step
 * not planned (undo_push of a rollback). Once the migration has ended, planned steps never started
 * are "skipped".
 */
export function stepRows(m: Pick<MigrationRow, "kind" | "stateful" | "steps" | "state">): StepRow[] {
  const recorded = new Map(m.steps.map((s) => [s.name, s]));
  const ended = m.state === "succeeded" || m.state === "rolled_back" || m.state === "failed";
  const rows: StepRow[] = plannedSteps(m.kind, m.stateful).map((name) => {
    const s = recorded.get(name);
    if (!s) return { name, status: ended ? "skipped" : "pending", ms: null, detail: null };
    return { name, status: statusOf(s.state), ms: s.ms ?? null, detail: s.detail ?? null };
  });
  for (const s of m.steps) {
    if (!rows.some((r) => r.name === s.name)) rows.push({ name: s.name, status: statusOf(s.state), ms: s.ms ?? null, detail: s.detail ?? null });
  }
  return rows;
}

/** Done steps over planned ones, 0..1 (1 once it succeeded). */
export function stepProgress(m: Pick<MigrationRow, "kind" | "stateful" | "steps" | "state">): number {
  if (m.state === "succeeded") return 1;
  const planned = plannedSteps(m.kind, m.stateful);
  const done = m.steps.filter((s) => s.state === "done" && planned.includes(s.name)).length;
  return planned.length === 0 ? 0 : done / planned.length;
}

/** The sum of the steps' milliseconds (what the CLI prints as the steps' total). */
export function stepsTotalMs(m: Pick<MigrationRow, "steps">): number | null {
  const ms = m.steps.map((s) => s.ms).filter((v): v is number => typeof v === "number");
  return ms.length === 0 ? null : Math.round(ms.reduce((a, b) => a + b, 0) * 10) / 10;
}

/** "push 101 · open_transfer 135 · …" (ms), for the history table. */
export function stepTimings(m: Pick<MigrationRow, "steps">): string {
  return m.steps.map((s) => `${s.name} ${s.ms == null ? (s.state === "running" ? "…" : "–") : Math.round(s.ms)}`).join(" · ");
}
