import { describe, expect, it } from "vitest";
import {
  countOf,
  errorDetailLines,
  formatErrorDetail,
  formatInstanceStates,
  formatProgress,
  formatServerTypes,
  formatTime,
  shortId,
  stateTone,
} from "./format";

describe("formatErrorDetail", () => {
  it("gives null when there is no error", () => {
    expect(formatErrorDetail(null)).toBeNull();
    expect(formatErrorDetail(undefined)).toBeNull();
  });

  it("shows the message, the code and every field error", () => {
    const error = {
      code: "infeasible",
      message: "no placement fits",
      errors: [{ field: "spec.nodes[2].platform", message: "sql is host-only", code: "invalid" }],
    };
    expect(formatErrorDetail(error)).toBe(
      "no placement fits (infeasible)\nspec.nodes[2].platform: sql is host-only (code: invalid)",
    );
  });

  it("keeps any other keys, so nothing is hidden", () => {
    expect(
      formatErrorDetail({ message: "m", errors: [{ field: "spec.nodes[0]", message: "full", resource: "fault_domains" }] }),
    ).toBe("m\nspec.nodes[0]: full (resource: fault_domains)");
    expect(formatErrorDetail({ message: "boom", traceback: "line 3" })).toBe('boom\n{\n  "traceback": "line 3"\n}');
    expect(formatErrorDetail({ reason: "x" })).toBe('{\n  "reason": "x"\n}');
    expect(formatErrorDetail("plain text")).toBe("plain text");
  });
});

describe("formatProgress", () => {
  it("rounds and clamps to 0–100 %", () => {
    expect(formatProgress(0.421)).toBe("42 %");
    expect(formatProgress(1.5)).toBe("100 %");
    expect(formatProgress(-1)).toBe("0 %");
    expect(formatProgress(Number.NaN)).toBe("0 %");
  });
});

describe("formatServerTypes", () => {
  it("lists types with counts by name", () => {
    expect(formatServerTypes({ "type2-host": 1, "type1-smartnic": 3 })).toBe("type1-smartnic × 3, type2-host × 1");
    expect(formatServerTypes({})).toBe("—");
  });
});

describe("formatErrorDetail without repeats", () => {
  const error = {
    code: "insufficient_capacity",
    message: "replicas need distinct servers",
    errors: [{ field: "spec.nodes[0]", message: "replicas need distinct servers", code: "fault_domains" }],
  };

  it("does not repeat the message already shown, nor in the field errors", () => {
    expect(formatErrorDetail(error, "replicas need distinct servers")).toBe(
      "code: insufficient_capacity\nspec.nodes[0]: code: fault_domains",
    );
    expect(formatErrorDetail(error)).toBe(
      "replicas need distinct servers (insufficient_capacity)\nspec.nodes[0]: code: fault_domains",
    );
    expect(formatErrorDetail("same", "same")).toBeNull();
  });
});

describe("errorDetailLines", () => {
  it("keeps codes and field paths as parts of their own, so they are shown unbroken", () => {
    const error = {
      code: "insufficient_capacity",
      message: "no room for kv shard 3",
      errors: [{ field: "spec.nodes[1]", message: "no room for kv shard 3", code: "cores", instance: "kv shard 3", resource: "cores" }],
    };
    expect(errorDetailLines(error, "no room for kv shard 3")).toEqual([
      [{ text: "code: " }, { text: "insufficient_capacity", code: true }],
      [
        { text: "spec.nodes[1]", code: true },
        { text: ": " },
        { text: "code: " },
        { text: "cores", code: true },
        { text: ", instance: " },
        { text: "kv shard 3" },
        { text: ", resource: " },
        { text: "cores", code: true },
      ],
    ]);
    expect(errorDetailLines(error)?.[0]).toEqual([{ text: "no room for kv shard 3 (" }, { text: "insufficient_capacity", code: true }, { text: ")" }]);
    expect(errorDetailLines(null)).toBeNull();
  });
});

describe("small helpers", () => {
  it("shortens ids to their first block", () => {
    expect(shortId("3f2a9c1e-0000-4000-8000-000000000000")).toBe("3f2a9c1e");
  });

  it("formats times, or a dash for none", () => {
    expect(formatTime(null)).toBe("—");
    expect(formatTime("not a date")).toBe("not a date");
    expect(formatTime("2026-11-21T18:52:03Z")).toMatch(/^2026-11-2\d \d\d:52:03$/);
  });

  it("colours job and deployment states", () => {
    expect(stateTone("succeeded")).toBe("ok");
    expect(stateTone("placed")).toBe("ok");
    expect(stateTone("failed")).toBe("bad");
    expect(stateTone("running")).toBe("pending");
  });
});

describe("formatInstanceStates", () => {
  it("lists agent states in a fixed order and says nothing for placement-only deployments", () => {
    expect(formatInstanceStates({ failed: 1, running: 3 })).toBe("running 3, failed 1");
    expect(formatInstanceStates({ placed: 108 })).toBe("");
    expect(formatInstanceStates({ placed: 2, deploying: 1 })).toBe("deploying 1, placed 2");
    expect(formatInstanceStates(undefined)).toBe("");
  });
});

describe("countOf", () => {
  it("puts the noun in the singular for one, with thousands separated", () => {
    expect(countOf(1, "rack")).toBe("1 rack");
    expect(countOf(0, "SmartNIC")).toBe("0 SmartNICs");
    expect(countOf(1000, "server")).toBe("1,000 servers");
    expect(countOf(2, "deployment(s)", "deployment(s)")).toBe("2 deployment(s)");
  });
});
