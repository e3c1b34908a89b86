// A fixed-size history of one figure (time, value), oldest overwritten first: the dashboard keeps the last
// minutes of every sparkline in the browser, from the live messages, without allocating per sample.

/** Samples of one figure in time order; NaN stands for "no value" (drawn as a gap). */
export class RingSeries {
  private readonly times: Float64Array;
  private readonly values: Float64Array;
  private start = 0; // index of the oldest sample
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.times = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** The newest sample's time, or null when empty. */
  get lastTime(): number | null {
    return this.count === 0 ? null : (this.times[(this.start + this.count - 1) % this.capacity] as number);
  }

  /** Appends a sample; a time before the newest is refused (false), so the series stays ordered. A null or
   * non-finite value is kept as a gap. */
  push(time: number, value: number | null | undefined): boolean {
    if (!Number.isFinite(time)) return false;
    const last = this.lastTime;
    if (last !== null && time < last) return false;
    const v = typeof value === "number" && Number.isFinite(value) ? value : Number.NaN;
    const index = (this.start + this.count) % this.capacity;
    this.times[index] = time;
    this.values[index] = v;
    if (this.count < this.capacity) this.count += 1;
    else this.start = (this.start + 1) % this.capacity;
    return true;
  }

  /** Puts `points` (time order) that are older than the oldest sample held before it: history read from the server
   * after the first live samples came. The newest `capacity` are kept. Returns how many were taken. */
  seedBefore(points: readonly (readonly [number, number | null | undefined])[]): number {
    const first = this.count === 0 ? Number.POSITIVE_INFINITY : (this.times[this.start] as number);
    const older = points.filter(([time]) => Number.isFinite(time) && time < first);
    if (older.length === 0) return 0;
    const held = this.toArray();
    this.start = 0;
    this.count = 0;
    let taken = 0;
    for (const [time, value] of older) if (this.push(time, value)) taken += 1;
    for (const [time, value] of held) this.push(time, value);
    return taken;
  }

  /** Calls `fn(time, value)` for every sample with time >= `since`, oldest first. */
  forEachSince(since: number, fn: (time: number, value: number) => void): void {
    for (let i = 0; i < this.count; i++) {
      const index = (this.start + i) % this.capacity;
      const time = this.times[index] as number;
      if (time >= since) fn(time, this.values[index] as number);
    }
  }

  /** The samples as arrays (tests, debugging). */
  toArray(): [number, number][] {
    const out: [number, number][] = [];
    this.forEachSince(Number.NEGATIVE_INFINITY, (t, v) => out.push([t, v]));
    return out;
  }
}
