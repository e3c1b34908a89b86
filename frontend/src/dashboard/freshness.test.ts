import { describe, expect, it } from "vitest";

import { nodeFreshness, partialNote, shownFigure, stateTone, streamFreshness } from "./freshness";

describe("nodeFreshness", () => {
  it("is current while the view does not call the node stale", () => {
    expect(nodeFreshness({ ts: "t", ageNowMs: 40, stale: false })).toEqual({ freshness: "current", note: "live" });
  });

  it("is old, with how old, once stale", () => {
    expect(nodeFreshness({ ts: "t", ageNowMs: 3210, stale: true })).toEqual({
      freshness: "old",
      note: "no data for 3.2 s",
    });
  });

  it("has nothing to show before a first heartbeat", () => {
    expect(nodeFreshness({ ts: null, ageNowMs: null, stale: true }).freshness).toBe("none");
  });
});

describe("streamFreshness", () => {
  it("follows the stream: waiting, current, then old with the silence's length", () => {
    expect(streamFreshness(false, null, 1000).freshness).toBe("none");
    expect(streamFreshness(true, 900, 1000)).toEqual({ freshness: "current", note: "live" });
    expect(streamFreshness(false, 1000, 2500)).toEqual({ freshness: "old", note: "no data for 1.5 s" });
  });
});

describe("shownFigure", () => {
  it("never shows an old figure plainly", () => {
    expect(shownFigure("24 W", "current")).toEqual({ text: "24 W", old: false });
    expect(shownFigure("24 W", "old")).toEqual({ text: "24 W", old: true });
    expect(shownFigure("24 W", "none")).toEqual({ text: "—", old: false });
  });
});

describe("stateTone and partialNote", () => {
  it("colours membership and flags partial aggregates", () => {
    expect(stateTone("up")).toBe("ok");
    expect(stateTone("suspect")).toBe("warn");
    expect(stateTone("down")).toBe("bad");
    expect(partialNote(true, 0)).toBeNull();
    expect(partialNote(false, 1)).toBe("partial: 1 node not reporting");
    expect(partialNote(false, 2)).toMatch(/2 nodes/);
  });
});
