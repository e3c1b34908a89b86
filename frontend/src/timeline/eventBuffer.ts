// The events received, oldest first, each once: a reconnect resumes after the last id seen
// (Last-Event-ID), and anything at or below it is a repeat. Bounded: the oldest fall off. Pure.

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

/** `buffer` with the new events appended (repeats dropped), keeping at most `max`. Returns `buffer` when nothing is new. */
export function appendEvents<T extends HasId>(buffer: EventBuffer<T>, incoming: readonly T[], max: number): EventBuffer<T> {
  let lastId = buffer.lastId;
  const fresh: T[] = [];
  let dropped = buffer.dropped;
  for (const e of incoming) {
    if (e.id > lastId) {
      fresh.push(e);
      lastId = e.id;
    } else {
      dropped++;
    }
  }
  if (fresh.length === 0) return dropped === buffer.dropped ? buffer : { ...buffer, dropped };
  const items = buffer.items.concat(fresh);
  return { items: items.length > max ? items.slice(items.length - max) : items, lastId, dropped };
}
