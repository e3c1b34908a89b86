import { describe, expect, it } from "vitest";
import { COUNTED_RESOURCES, formatCount, summarizeCounts, totalOf } from "./counts";
import { ApiError, NetworkError } from "./errors";

const fulfilled = (value: number): PromiseSettledResult<number> => ({ status: "fulfilled", value });
const rejected = (reason: unknown): PromiseSettledResult<number> => ({ status: "rejected", reason });

describe("summarizeCounts", () => {
  it("maps each total to its resource", () => {
    const summary = summarizeCounts([fulfilled(2), fulfilled(8), fulfilled(3), fulfilled(1250)]);
    expect(summary).toEqual({
      counts: { clusters: 2, applications: 8, deployments: 3, jobs: 1250 },
      authError: null,
      error: null,
    });
  });

  it("surfaces the API's message when the token is refused", () => {
    const refused = new ApiError(401, { code: "unauthorized", message: "Unknown token", errors: [] });
    const summary = summarizeCounts(COUNTED_RESOURCES.map(() => rejected(refused)));
    expect(summary.authError).toBe("Unknown token");
    expect(summary.error).toBeNull();
    expect(summary.counts).toEqual({});
  });

  it("keeps the counts it got and names the resource that failed", () => {
    const summary = summarizeCounts([
      fulfilled(1),
      rejected(new ApiError(403, { code: "forbidden", message: "Not yours", errors: [] })),
      rejected(new NetworkError()),
      fulfilled(0),
    ]);
    expect(summary.counts).toEqual({ clusters: 1, jobs: 0 });
    expect(summary.authError).toBe("Not yours");
    expect(summary.error).toBe("Deployments: Cannot reach the E3 API");
  });
});

describe("totalOf", () => {
  it("reads the total of a list page", () => {
    expect(totalOf({ items: [{}], total: 42, limit: 1, offset: 0 })).toBe(42);
    expect(totalOf({ items: [], total: 0, limit: 1, offset: 0 })).toBe(0);
  });

  it("gives null when there is no usable total", () => {
    expect(totalOf({ items: [] })).toBeNull();
    expect(totalOf({ total: "3" })).toBeNull();
    expect(totalOf({ total: -1 })).toBeNull();
    expect(totalOf([])).toBeNull();
    expect(totalOf(null)).toBeNull();
  });
});

describe("formatCount", () => {
  it("groups digits and shows a dash while unknown", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(0)).toBe("0");
    expect(formatCount(undefined)).toBe("—");
    expect(formatCount(null)).toBe("—");
  });
});
