import { describe, expect, it } from "vitest";
import { countLooks, instanceLook } from "./instanceLook";

describe("instance look", () => {
  it("draws each state apart: refused, on its way, not executed, running", () => {
    expect(instanceLook("failed")).toBe("failed");
    expect(instanceLook("deploying")).toBe("pending");
    expect(instanceLook("seeding")).toBe("pending");
    expect(instanceLook("placed")).toBe("unrun");
    expect(instanceLook("running")).toBe("running");
    expect(instanceLook(undefined)).toBe("running");
  });

  it("counts the looks of the instances shown", () => {
    const states = ["running", "failed", "failed", "placed", "deploying"];
    expect(countLooks(states, [0, 1, 2, 3, 4])).toEqual({ running: 1, pending: 1, unrun: 1, failed: 2 });
    expect(countLooks(states, [1, 3])).toEqual({ running: 0, pending: 0, unrun: 1, failed: 1 });
    expect(countLooks(undefined, [0, 1])).toEqual({ running: 2, pending: 0, unrun: 0, failed: 0 });
  });
});
