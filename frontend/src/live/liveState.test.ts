import { describe, expect, it } from "vitest";

import { message, node } from "./fixtures";
import { applyMessage, emptyLiveData, liveView } from "./liveState";

describe("live data", () => {
  const snap = applyMessage(emptyLiveData, message("snapshot", 1, [node("a"), node("b", { queue_len: 9 })]), 1000);

  it("an update replaces the nodes it carries and keeps the others", () => {
    const data = applyMessage(snap, message("update", 2, [node("a", { queue_len: 50 })]), 1100);
    const view = liveView(data, "live", 1100);
    expect(view.current).toBe(true);
    expect(view.nodes.map((n) => [n.id, n.queue_len])).toEqual([
      ["a", 50],
      ["b", 9],
    ]);
  });

  it("a node turns stale as its heartbeat ages, without any message", () => {
    const at = (now: number) => liveView(snap, "live", now).nodes[0];
    expect(at(1000)).toMatchObject({ stale: false, ageNowMs: 40 });
    expect(at(1470)).toMatchObject({ stale: true, ageNowMs: 510, queue_len: 3 });
  });

  it("nothing is current while the stream is lost or silent", () => {
    expect(liveView(snap, "reconnecting", 1000).nodes.every((n) => n.stale)).toBe(true);
    expect(liveView(snap, "reconnecting", 1000).current).toBe(false);
    expect(liveView(snap, "live", 2500).current).toBe(false); // no message, not even a tick, for 1.5 s
  });

  it("while polling, a node stays current until the next answer is due, and turns stale after", () => {
    const at = (now: number) => liveView(snap, "fallback", now, 1000).nodes[0];
    expect(at(1900)).toMatchObject({ stale: false, ageNowMs: 940 }); // the next poll's answer is not due yet
    expect(liveView(snap, "fallback", 1900, 1000).current).toBe(true);
    expect(at(2470)).toMatchObject({ stale: true, ageNowMs: 1510 }); // it is overdue: old, not current
    expect(liveView(snap, "fallback", 3100, 1000).current).toBe(false);
  });

  it("a snapshot starts afresh", () => {
    const data = applyMessage(snap, message("snapshot", 1, [node("c")]), 1200);
    expect(liveView(data, "fallback", 1200).nodes.map((n) => n.id)).toEqual(["c"]);
  });
});
