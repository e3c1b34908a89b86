import { describe, expect, it } from "vitest";
import { fitTransform, shortNodeName } from "./fitTransform";

describe("fitTransform", () => {
  it("zooms a small drawing in until it fills the canvas's width or height (no low cap)", () => {
    // A 2-server cluster: 163 × 54 world units in a 900 × 450 canvas.
    const t = fitTransform(163, 54, 900, 450);
    expect(t.k).toBeCloseTo((900 - 32) / 163);
    expect(163 * t.k).toBeCloseTo(900 - 32);
    expect(t.x).toBeCloseTo(16);
    expect(54 * t.k).toBeGreaterThan(450 / 2);
  });

  it("fits a tall drawing by its height and centres it across", () => {
    const t = fitTransform(100, 1000, 800, 600);
    expect(1000 * t.k).toBeCloseTo(600 - 32);
    expect(t.y).toBeCloseTo(16);
    expect(t.x + (100 * t.k) / 2).toBeCloseTo(400);
  });

  it("works in CSS pixels: the same at any device pixel ratio", () => {
    // The caller passes the canvas's CSS size, never canvas.width (device pixels).
    expect(fitTransform(400, 300, 800, 600)).toEqual(fitTransform(400, 300, 800, 600));
    expect(fitTransform(400, 300, 800, 600).k).toBeCloseTo(568 / 300);
  });

  it("keeps a zoom cap and survives empty drawings", () => {
    expect(fitTransform(1, 1, 800, 600).k).toBe(40);
    expect(fitTransform(0, 0, 800, 600)).toEqual({ k: 1, x: 0, y: 0 });
  });
});

describe("shortNodeName", () => {
  it("drops the rack from a node's name", () => {
    expect(shortNodeName("r0003-s17/nic0")).toBe("s17/nic0");
    expect(shortNodeName("s00/host")).toBe("s00/host");
    expect(shortNodeName("local-1")).toBe("local-1");
  });
});
