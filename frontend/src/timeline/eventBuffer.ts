// The events received, in id order, each once: a reconnect resumes after the last id seen
// (Last-Event-ID), so an event already held is a repeat; one below the last id that is not held committed
// late (an id is taken before its transaction commits: the API pushes it when it does) and takes its place.
// Bounded: the oldest fall off. Pure.

export interface HasId {
  id: number;
}

export interface EventBuffer<T extends HasId> {
  items: T[];
  /** The largest id seen: the cursor to resume from. */
  lastId: number;
  /** Repeats dropped so far (for tests and curiosity). */
  dropped: number;
}

export function emptyBuffer<T extends HasId>(): EventBuffer<T> {
  return { items: [], lastId: 0, dropped: 0 };
}

/** `buffer` with the new events in place (repeats dropped), keeping at most `max`. Returns `buffer` when nothing is new. */
export function appendEvents<T extends HasId>(buffer: EventBuffer<T>, incoming: readonly T[], max: number): EventBuffer<T> {
  let lastId = buffer.lastId;
  const held = new Set(buffer.items.map((e) => e.id));
  const fresh: T[] = [];
  let dropped = buffer.dropped;
  let late = false;
  for (const e of incoming) {
    if (held.has(e.id) || (e.id <= lastId && buffer.items.length > 0 && e.id < buffer.items[0]!.id)) {
      dropped++; // held already, or older than everything kept (fell off, or from before the buffer began)
      continue;
    }
    held.add(e.id);
    late ||= e.id < lastId;
    lastId = Math.max(lastId, e.id);
    fresh.push(e);
  }
  if (fresh.length === 0) return dropped === buffer.dropped ? buffer : { ...buffer, dropped };
  const joined = buffer.items.concat(fresh);
  const items = late ? joined.sort((a, b) => a.id - b.id) : joined;
  return { items: items.length > max ? items.slice(items.length - max) : items, lastId, dropped };
}
