// GET /events/stream read with fetch (EventSource cannot send the Authorization header): the newest
// `last` events (or those after `since`) first, then each event as it is committed. A lost stream is
// opened again after a backoff with Last-Event-ID set to the last id received (which wins over `last`
// on the server), so nothing is missed and nothing comes twice (the caller's buffer also drops ids it
// has seen). No React here.

import type { EventRow } from "../api/client";
import { SseParser } from "../live/sse";

/** Ids remembered as delivered: far more than a gap the API looks for (its newest 1,000 ids). */
const DELIVERED_KEPT = 5000;

export type StreamConnection = "connecting" | "live" | "reconnecting" | "refused";

export interface EventStreamState {
  connection: StreamConnection;
  /** Why the last stream ended or was refused. */
  error: string | null;
  /** Retries since events last came. */
  attempt: number;
}

export interface EventStreamOptions {
  cluster: string;
  token: string;
  onEvents: (events: EventRow[]) => void;
  onState: (state: EventStreamState) => void;
  /** Resume after this id (0: the whole backlog, or the newest `last`). */
  since?: number;
  /** With nothing received yet: start with the newest this many events (1..1000) instead of the whole backlog. */
  last?: number;
  origin?: string;
  fetch?: typeof fetch;
  backoffMs?: (attempt: number) => number;
  /** No byte for this long (the server sends a comment every 15 s): the stream is lost. */
  silenceMs?: number;
}

const REFUSED = new Set([401, 403, 404, 422]);

export const streamBackoff = (attempt: number): number => Math.min(10_000, 500 * 2 ** attempt);

/** Parses one SSE `data` field into an event, or null when it is not one. */
export function parseEventData(data: string): EventRow | null {
  try {
    const e = JSON.parse(data) as Partial<EventRow>;
    if (typeof e.id !== "number" || typeof e.kind !== "string" || typeof e.subject !== "string") return null;
    const fields = e.data ?? {};
    const application = e.application ?? (typeof fields.application === "string" ? fields.application : null);
    return { id: e.id, ts: String(e.ts ?? ""), kind: e.kind, subject: e.subject, cluster_id: e.cluster_id ?? null, application, data: fields };
  } catch {
    return null;
  }
}

export class EventStream {
  private lastId: number;
  /** The ids delivered lately (the newest DELIVERED_KEPT), to tell a repeat from an event that committed late. */
  private delivered = new Set<number>();
  private running = false;
  private abort: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly o: EventStreamOptions) {
    this.lastId = o.since ?? 0;
    this.fetchFn = o.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The last id received (where a reconnect resumes). */
  get cursor(): number {
    return this.lastId;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.open();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    this.abort?.abort();
    this.abort = null;
  }

  private arm(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.abort?.abort("silent"), this.o.silenceMs ?? 40_000);
  }

  private async open(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    this.o.onState({ connection: this.attempt === 0 ? "connecting" : "reconnecting", error: null, attempt: this.attempt });
    const origin = this.o.origin ?? globalThis.location?.origin ?? "";
    const from = this.lastId === 0 && this.o.last !== undefined ? `last=${this.o.last}` : `since=${this.lastId}`;
    const url = `${origin}/api/v1/events/stream?cluster=${encodeURIComponent(this.o.cluster)}&${from}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${this.o.token}`, Accept: "text/event-stream" };
    if (this.lastId > 0) headers["Last-Event-ID"] = String(this.lastId);
    this.arm();
    let response: Response;
    try {
      response = await this.fetchFn(url, { headers, cache: "no-store", signal: abort.signal });
    } catch {
      if (this.running && this.abort === abort) this.lost("the API is unreachable");
      return;
    }
    if (!this.running || this.abort !== abort) return;
    if (REFUSED.has(response.status)) {
      const body = (await response.json().catch(() => null)) as { message?: string } | null;
      this.stop();
      this.o.onState({ connection: "refused", error: body?.message ?? `the event stream answered ${response.status}`, attempt: this.attempt });
      return;
    }
    if (!response.ok || !response.body) {
      this.lost(`the event stream answered ${response.status}`);
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    let announced = false;
    try {
      for (;;) {
        if (!announced) {
          announced = true;
          this.o.onState({ connection: "live", error: null, attempt: this.attempt });
        }
        const { done, value } = await reader.read();
        if (done || abort.signal.aborted) break;
        this.arm();
        const events: EventRow[] = [];
        for (const sse of parser.push(decoder.decode(value, { stream: true }))) {
          const e = parseEventData(sse.data);
          // an event below the cursor that was never delivered committed late (a gap the API filled): it is
          // delivered too; one delivered already is a repeat
          if (e !== null && !this.delivered.has(e.id)) {
            events.push(e);
            this.remember(e.id);
          }
        }
        if (events.length > 0) {
          this.attempt = 0;
          this.o.onEvents(events);
        }
      }
    } catch {
      // aborted or broken: the stream is over either way
    }
    if (this.running && this.abort === abort) this.lost(abort.signal.aborted ? "no data from the API" : "the event stream ended");
  }

  private remember(id: number): void {
    this.delivered.add(id);
    this.lastId = Math.max(this.lastId, id);
    if (this.delivered.size > 2 * DELIVERED_KEPT) {
      this.delivered = new Set([...this.delivered].sort((a, b) => a - b).slice(-DELIVERED_KEPT));
    }
  }

  private lost(error: string): void {
    clearTimeout(this.watchdog);
    this.abort?.abort();
    this.abort = null;
    const attempt = this.attempt++;
    this.o.onState({ connection: "reconnecting", error, attempt: this.attempt });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.open(), (this.o.backoffMs ?? streamBackoff)(attempt));
  }
}
