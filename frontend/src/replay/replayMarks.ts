// The events a replay slider marks on its track: the moments the placement changed (a migration began, a
// failover promoted or replaced an instance, a deployment was placed or rolled out, a node went down or came
// back). A mark's button goes to just before it, so the picture shows what the change changed. Pure.

import type { EventRow } from "../api/client";
import { type Category, type Lookup, categoryOf, toEntry } from "../timeline/entries";

export const MARKED_KINDS = new Set(["migration.started", "failover.promoted",
  "failover.replaced", "failover.backup_placed", "deployment.placed", "deployment.rolled", "node.down", "node.up"]);

/** A replay goes this long before a marked event (the placement as it was just before it). */
export const BEFORE_MS = 1_000;

export interface ReplayMark {
  id: number;
  t: number;
  kind: string;
  category: Category;
  /** The timeline's line for it. */
  text: string;
}

/** The marks of `events` inside [t0, t1], oldest first, at most `max` (the newest kept). */
export function replayMarks(events: readonly EventRow[], lookup: Lookup, t0: number, t1: number, max = 200): ReplayMark[] {
  const marks: ReplayMark[] = [];
  for (const e of events) {
    const t = Date.parse(e.ts);
    if (!MARKED_KINDS.has(e.kind) || !(t >= t0 && t <= t1)) continue;
    marks.push({ id: e.id, t, kind: e.kind, category: categoryOf(e.kind), text: toEntry(e, lookup).text });
  }
  marks.sort((a, b) => a.t - b.t || a.id - b.id);
  return marks.slice(-max);
}

/** Where `t` sits on a track over [t0, t1], in percent (clamped). */
export function trackPercent(t: number, t0: number, t1: number): number {
  if (t1 <= t0) return 100;
  return Math.min(100, Math.max(0, ((t - t0) / (t1 - t0)) * 100));
}

/** Marks close together on the track, drawn as one (a migration's start and the node events beside it would
 * otherwise lie on each other and hide one another from the pointer). */
export interface MarkGroup {
  marks: ReplayMark[];
  /** The earliest mark's time: the group's button goes to just before it. */
  t: number;
  percent: number;
  /** The marks' category, or "mixed" when they differ. */
  category: Category | "mixed";
}

/** `marks` (oldest first) grouped while each is within `gapPercent` of its group's first, on a track over [t0, t1]. */
export function groupMarks(marks: readonly ReplayMark[], t0: number, t1: number, gapPercent = 1): MarkGroup[] {
  const groups: MarkGroup[] = [];
  for (const mark of marks) {
    const percent = trackPercent(mark.t, t0, t1);
    const last = groups.at(-1);
    if (last && percent - last.percent < gapPercent) {
      last.marks.push(mark);
      if (last.category !== mark.category) last.category = "mixed";
    } else {
      groups.push({ marks: [mark], t: mark.t, percent, category: mark.category });
    }
  }
  return groups;
}
