import { describe, expect, it } from "vitest";
import { describeVersions } from "./versionWords";

describe("describeVersions", () => {
  it("names one version, or lists a few", () => {
    expect(describeVersions([1], 1)).toBe("version 1");
    expect(describeVersions([4, 2, 1], 3)).toBe("3 versions (4, 2, 1)");
  });

  it("gives the count and the newest when there are many", () => {
    const newest = Array.from({ length: 12 }, (_, i) => 40 - i);
    expect(describeVersions(newest, 40)).toBe("40 versions (the newest: 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, …)");
  });
});
