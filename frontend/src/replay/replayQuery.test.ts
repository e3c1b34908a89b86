import { describe, expect, it } from "vitest";

import { parseReplayQuery, withReplayQuery } from "./replayQuery";

describe("the replay moments in the URL", () => {
  it("reads at and compare from the query after the hash route", () => {
    const { query, problems } = parseReplayQuery("#/clusters/rack?at=2026-11-27T10:00:00.000Z&compare=2026-11-27T09:55:00Z");
    expect(problems).toEqual([]);
    expect(query.at).toBe(Date.UTC(2026, 10, 27, 10, 0, 0));
    expect(query.compare).toBe(Date.UTC(2026, 10, 27, 9, 55, 0));
  });

  it("is live without them", () => {
    expect(parseReplayQuery("#/clusters/rack").query).toEqual({ at: null, compare: null });
  });

  it("names a moment it cannot read, and a time without a zone is one", () => {
    const { query, problems } = parseReplayQuery("#/clusters/rack?at=yesterday&compare=2026-11-27T10:00:00");
    expect(query).toEqual({ at: null, compare: null });
    expect(problems.map((p) => p.field)).toEqual(["at", "compare"]);
    expect(problems[0]?.message).toMatch(/at=yesterday is not a moment/);
  });

  it("writes the moments back, keeping the route and other parameters, and reads them the same", () => {
    const at = Date.UTC(2026, 10, 27, 10, 0, 0, 250);
    const hash = withReplayQuery("#/clusters/my%20rack?x=1", { at, compare: null });
    expect(hash).toBe("#/clusters/my%20rack?x=1&at=2026-11-27T10:00:00.250Z");
    expect(parseReplayQuery(hash).query).toEqual({ at, compare: null });
    expect(withReplayQuery(hash, { at: null, compare: null })).toBe("#/clusters/my%20rack?x=1");
    expect(withReplayQuery("#/clusters/r?at=2026-11-27T10:00:00Z", { at: null, compare: null })).toBe("#/clusters/r");
  });
});
