import { describe, expect, it } from "vitest";
import { appendEvents, emptyBuffer } from "./eventBuffer";

const evs = (...ids: number[]) => ids.map((id) => ({ id }));

describe("the event buffer", () => {
  it("keeps each event once, in order, and the cursor to resume from", () => {
    let b = appendEvents(emptyBuffer<{ id: number }>(), evs(1, 2, 3), 10);
    b = appendEvents(b, evs(2, 3, 4), 10); // a resumed stream repeating what came before the loss
    expect(b.items.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(b.lastId).toBe(4);
    expect(b.dropped).toBe(2);
  });

  it("puts an event that committed late (below the last id, not held) in its place", () => {
    let b = appendEvents(emptyBuffer<{ id: number }>(), evs(1, 2, 4), 10);
    b = appendEvents(b, evs(5, 3), 10); // 3's transaction committed after 4 was pushed
    expect(b.items.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(b.lastId).toBe(5);
    expect(b.dropped).toBe(0);
    b = appendEvents(b, evs(3), 10);
    expect(b.dropped).toBe(1); // held: a repeat
  });

  it("returns the same buffer when nothing is new (no re-render)", () => {
    const b = appendEvents(emptyBuffer<{ id: number }>(), evs(1), 10);
    expect(appendEvents(b, [], 10)).toBe(b);
  });

  it("drops the oldest beyond max", () => {
    const b = appendEvents(emptyBuffer<{ id: number }>(), evs(1, 2, 3, 4, 5), 3);
    expect(b.items.map((e) => e.id)).toEqual([3, 4, 5]);
    expect(b.lastId).toBe(5);
  });
});
