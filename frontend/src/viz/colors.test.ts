import { describe, expect, it } from "vitest";
import { UNKNOWN_APP_COLOR, appColors, categoricalColors } from "./colors";

describe("appColors", () => {
  it("gives one application the same colour whatever the input order", () => {
    const a = appColors(["b", "a", "c"]);
    const b = appColors(["c", "b", "a", "a"]);
    expect(a.color("a")).toBe(b.color("a"));
    expect(a.entries.map((e) => e.application)).toEqual(["a", "b", "c"]);
  });

  it("gives distinct applications distinct colours, also beyond ten", () => {
    for (const n of [3, 10, 11, 120]) {
      const apps = Array.from({ length: n }, (_, i) => `app-${i}`);
      const colors = appColors(apps);
      expect(new Set(apps.map((a) => colors.color(a))).size).toBe(n);
    }
    expect(categoricalColors(500)).toHaveLength(500);
  });

  it("greys out an unknown application", () => {
    expect(appColors(["a"]).color("zzz")).toBe(UNKNOWN_APP_COLOR);
  });
});
