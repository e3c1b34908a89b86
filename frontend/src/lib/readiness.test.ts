import { describe, expect, it } from "vitest";
import { parseReadiness, readinessRows, readinessSummary } from "./readiness";

const notReady = {
  status: "not_ready",
  checks: {
    migrations: { ok: true, detail: "at head 0007" },
    redis: { ok: false, detail: "connection refused" },
    postgres: { ok: true, detail: "PostgreSQL 16.4" },
  },
};

describe("readinessRows", () => {
  it("lists postgres, redis, migrations in that order with ok/failing and detail", () => {
    expect(readinessRows(parseReadiness(notReady))).toEqual([
      { name: "postgres", label: "PostgreSQL", ok: true, detail: "PostgreSQL 16.4" },
      { name: "redis", label: "Redis", ok: false, detail: "connection refused" },
      { name: "migrations", label: "Migrations", ok: true, detail: "at head 0007" },
    ]);
  });

  it("puts checks it does not know after the known ones, by name", () => {
    const body = parseReadiness({
      status: "ready",
      checks: { zeta: { ok: true, detail: "" }, alpha: { ok: true, detail: "" }, redis: { ok: true, detail: "" } },
    });
    expect(readinessRows(body).map((r) => r.label)).toEqual(["Redis", "alpha", "zeta"]);
  });

  it("has no rows before the first answer", () => {
    expect(readinessRows(null)).toEqual([]);
  });
});

describe("parseReadiness", () => {
  it("treats a malformed check as failing rather than ok", () => {
    const body = parseReadiness({ status: "ready", checks: { postgres: "yes", redis: { ok: "true" } } });
    expect(body?.checks).toEqual({
      postgres: { ok: false, detail: "no answer for this check" },
      redis: { ok: false, detail: "" },
    });
  });

  it("rejects bodies without checks", () => {
    expect(parseReadiness({ status: "ready" })).toBeNull();
    expect(parseReadiness("ready")).toBeNull();
    expect(parseReadiness(null)).toBeNull();
  });
});

describe("readinessSummary", () => {
  it("says how many checks fail", () => {
    expect(readinessSummary(parseReadiness(notReady))).toBe("not ready (1 of 3 checks failing)");
  });

  it("says ready only when the status and every check agree", () => {
    const ready = { status: "ready", checks: { postgres: { ok: true, detail: "" } } };
    expect(readinessSummary(parseReadiness(ready))).toBe("ready");
    expect(readinessSummary(parseReadiness({ ...ready, status: "not_ready" }))).toBe("not ready");
    expect(readinessSummary(null)).toBe("unknown");
  });
});
