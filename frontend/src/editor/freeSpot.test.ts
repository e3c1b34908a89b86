import { describe, expect, it } from "vitest";

import { freeSpot, NODE_ROOM } from "./freeSpot";

describe("freeSpot", () => {
  it("takes the spot itself when it is free", () => {
    expect(freeSpot([], { x: 100, y: 100 })).toEqual({ x: 100, y: 100 });
    expect(freeSpot([{ x: 100 + NODE_ROOM.width, y: 100 }], { x: 100, y: 100 })).toEqual({ x: 100, y: 100 });
  });

  it("steps to the nearest free spot, below first, clear of every node", () => {
    const taken = [{ x: 100, y: 100 }];
    expect(freeSpot(taken, { x: 110, y: 100 })).toEqual({ x: 110, y: 100 + NODE_ROOM.height });
    const crowded = [{ x: 0, y: 0 }, { x: 0, y: NODE_ROOM.height }];
    const spot = freeSpot(crowded, { x: 0, y: 0 });
    for (const t of crowded) {
      expect(Math.abs(t.x - spot.x) >= NODE_ROOM.width || Math.abs(t.y - spot.y) >= NODE_ROOM.height).toBe(true);
    }
  });
});
