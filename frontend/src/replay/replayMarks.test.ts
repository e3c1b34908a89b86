import { describe, expect, it } from "vitest";

import type { EventRow } from "../api/client";
import { emptyLookup } from "../timeline/entries";
import { groupMarks, replayMarks, trackPercent } from "./replayMarks";

const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);

function event(id: number, secondsIn: number, kind: string, data: Record<string, unknown> = {}): EventRow {
  const subject = kind.startsWith("node.") ? "node/n1" : "instance/x";
  return { id, ts: new Date(T0 + secondsIn * 1000).toISOString(), kind, subject, data, cluster_id: null,
           application: "kv" };
}

describe("the replay slider's marks", () => {
  it("marks the placement's changes in the window, oldest first, with the timeline's text", () => {
    const events = [
      event(3, 120, "node.down", { name: "s1/nic1" }),
      event(1, 30, "migration.started"),
      event(2, 60, "command.ack"), // not a change of placement
      event(4, 4000, "failover.promoted"), // outside the window
    ];
    const marks = replayMarks(events, emptyLookup, T0, T0 + 3600_000);
    expect(marks.map((m) => [m.id, m.kind, m.category])).toEqual([[1, "migration.started", "migration"],
                                                                  [3, "node.down", "node"]]);
    expect(marks[1]?.t).toBe(T0 + 120_000);
    expect(marks[1]?.text).toMatch(/s1\/nic1/);
  });

  it("keeps the newest when there are too many", () => {
    const events = Array.from({ length: 10 }, (_, i) => event(i, i, "node.up"));
    expect(replayMarks(events, emptyLookup, T0, T0 + 60_000, 3).map((m) => m.id)).toEqual([7, 8, 9]);
  });

  it("places a time on the track in percent, clamped", () => {
    expect(trackPercent(T0 + 900_000, T0, T0 + 3600_000)).toBe(25);
    expect(trackPercent(T0 - 1, T0, T0 + 1000)).toBe(0);
    expect(trackPercent(T0 + 5000, T0, T0 + 1000)).toBe(100);
  });
});

describe("marks close together on the track", () => {
  it("are drawn as one, going to just before the earliest, its category mixed when theirs differ", () => {
    const events = [event(1, 600, "node.up"), event(2, 610, "migration.started"), event(3, 1800, "node.down"),
                    event(4, 1801, "node.up")];
    const marks = replayMarks(events, emptyLookup, T0, T0 + 3600_000);
    const groups = groupMarks(marks, T0, T0 + 3600_000);
    expect(groups.map((g) => g.marks.map((m) => m.id))).toEqual([[1, 2], [3, 4]]);
    expect(groups[0]?.t).toBe(T0 + 600_000);
    expect(groups.map((g) => g.category)).toEqual(["mixed", "node"]);
    // With a finer gap (0.01 % of an hour: 0.36 s) the second pair, 1 s apart, is two marks.
    expect(groupMarks(marks, T0, T0 + 3600_000, 0.01).length).toBe(4);
  });
});
