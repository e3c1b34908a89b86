// The live channel's client (docs/live.md): WebSocket first; after WebSockets that fail to deliver (refused
// by a proxy, or open but silent) it reads server-sent events with fetch; after event streams that deliver
// nothing either (a proxy that buffers or blocks them) it polls the snapshot. While polling it tries the
// better transports again now and then, beside the polls. A lost stream or a failed poll is retried with
// backoff, without a reload; the state says which, so a banner can show.

import { applyMessage, emptyLiveData, type LiveData } from "./liveState";
import { SseParser } from "./sse";
import type { LiveConnection, LiveMessage } from "./types";

export const PROTOCOL = "e3.live.v1";
export const BEARER_PROTOCOL = "e3.bearer.";
/** Close codes (WebSocket) and statuses (SSE, snapshot) that retrying will not fix. */
const REFUSALS: Record<number, string> = {
  4401: "the token is missing, invalid, revoked or expired",
  4403: "the token lacks the read scope",
  4404: "no such cluster",
  401: "the token is missing, invalid, revoked or expired",
  403: "the token lacks the read scope",
  404: "no such cluster",
};

/** The part of a browser WebSocket the client uses (a fake one in tests). */
export interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  close(code?: number, reason?: string): void;
}

export interface LiveClientOptions {
  cluster: string;
  token: string;
  /** "http(s)://host:port" of the API; default: the page's origin (the vite proxy forwards /api, ws too). */
  origin?: string;
  webSocket?: (url: string, protocols: string[]) => WebSocketLike;
  fetch?: typeof fetch;
  now?: () => number;
  /** WebSockets in a row that deliver nothing before falling back to SSE. */
  fallbackAfter?: number;
  /** Event streams in a row that deliver nothing before falling back to polling. */
  pollAfter?: number;
  /** A WebSocket or event stream with no message this long after it was opened has failed; a poll not
   * answered this long after it was sent has failed. */
  openTimeoutMs?: number;
  /** No message for this long (the server sends at least 4 a second): the stream is lost. */
  silenceMs?: number;
  /** While polling: one snapshot request this often (the server sends at most 10 messages a second). */
  pollIntervalMs?: number;
  /** While polling: try the WebSocket (then SSE) again this often, beside the polls. */
  retryBetterMs?: number;
  /** Delay before retry number `attempt` (0, 1, ...). */
  backoffMs?: (attempt: number) => number;
}

export type LiveTransport = "websocket" | "sse" | "polling";

export interface LiveClientState {
  connection: LiveConnection;
  transport: LiveTransport;
  /** Why the last stream ended or was refused. */
  error: string | null;
  /** Retries since data last came. */
  attempt: number;
  data: LiveData;
}

export const defaultBackoff = (attempt: number): number => Math.min(10_000, 500 * 2 ** attempt);

/** What a transport tells the client; nothing more is told after its `close()`. */
interface Sink {
  message(message: LiveMessage): void;
  /** It ended or failed; the client decides whether to retry. */
  end(error: string): void;
  refused(error: string): void;
}

interface Connection {
  transport: LiveTransport;
  delivered: boolean;
  close(): void;
}

function parse(raw: string): LiveMessage | null {
  try {
    return JSON.parse(raw) as LiveMessage;
  } catch {
    return null;
  }
}

async function refusalMessage(response: Response, fallback: string): Promise<string> {
  const body = (await response.json().catch(() => null)) as { message?: string } | null;
  return body?.message ?? fallback;
}

export class LiveClient {
  private state: LiveClientState = {
    connection: "connecting",
    transport: "websocket",
    error: null,
    attempt: 0,
    data: emptyLiveData,
  };
  private readonly listeners = new Set<() => void>();
  private readonly options: Required<Omit<LiveClientOptions, "origin" | "webSocket" | "fetch">> & {
    origin: string;
  };
  private readonly makeSocket: (url: string, protocols: string[]) => WebSocketLike;
  private readonly fetchFn: typeof fetch;
  /** The connection data comes from, and one trying a better transport while polling. */
  private current: Connection | null = null;
  private probe: Connection | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Connections in a row, on the current transport, that delivered nothing. */
  private failures = 0;
  private running = false;

  constructor(options: LiveClientOptions) {
    this.options = {
      cluster: options.cluster,
      token: options.token,
      origin: options.origin ?? globalThis.location?.origin ?? "http://127.0.0.1:8000",
      now: options.now ?? (() => Date.now()),
      fallbackAfter: options.fallbackAfter ?? 2,
      pollAfter: options.pollAfter ?? 2,
      openTimeoutMs: options.openTimeoutMs ?? 5_000,
      silenceMs: options.silenceMs ?? 2_000,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      retryBetterMs: options.retryBetterMs ?? 30_000,
      backoffMs: options.backoffMs ?? defaultBackoff,
    };
    this.makeSocket = options.webSocket ?? ((url, protocols) => new WebSocket(url, protocols) as WebSocketLike);
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The longest normal wait between two messages beyond a stream's own: a view allows for it when ageing. */
  get deliveryGapMs(): number {
    return this.state.transport === "polling" ? this.options.pollIntervalMs : 0;
  }

  getState = (): LiveClientState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    this.closeAll();
  }

  private get path(): string {
    return `/api/v1/clusters/${encodeURIComponent(this.options.cluster)}/live`;
  }

  private set(patch: Partial<LiveClientState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private closeAll(): void {
    clearTimeout(this.retryTimer);
    this.stopProbing();
    this.current?.close();
    this.current = null;
  }

  private connect(): void {
    if (!this.running) return;
    this.current = this.open(this.state.transport);
    const probing = this.probeTimer !== undefined || this.probe !== null;
    if (this.state.transport === "polling" && !probing) this.scheduleProbe();
  }

  /** Opens a connection; it calls back only later (never from within this call), and never after close(). */
  private open(transport: LiveTransport): Connection {
    const conn: Connection = { transport, delivered: false, close: () => {} };
    const sink: Sink = {
      message: (message) => {
        if (this.probe === conn) this.adopt(conn);
        if (this.current !== conn) return;
        conn.delivered = true;
        this.failures = 0;
        this.receive(message, conn.transport);
      },
      end: (error) => {
        if (this.current === conn) this.lost(error, !conn.delivered);
        else if (this.probe === conn) this.probeFailed(conn);
      },
      refused: (error) => {
        if (this.current === conn) this.refused(error);
        else if (this.probe === conn) this.probeFailed(conn);
      },
    };
    if (transport === "websocket") conn.close = this.openSocket(sink);
    else if (transport === "sse") conn.close = this.openStream(sink);
    else conn.close = this.openPolling(sink);
    return conn;
  }

  private receive(message: LiveMessage, transport: LiveTransport): void {
    this.set({
      connection: transport === "websocket" ? "live" : "fallback",
      transport,
      error: null,
      attempt: 0,
      data: applyMessage(this.state.data, message, this.options.now()),
    });
  }

  /** A watchdog a transport re-arms with each message; its `fire` runs once at most. */
  private watchdog(fire: (why: string) => void) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return {
      arm: (ms: number, why: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => fire(why), ms);
      },
      clear: () => clearTimeout(timer),
    };
  }

  /** Opens a WebSocket; returns its close. */
  private openSocket(sink: Sink): () => void {
    const url = `${this.options.origin.replace(/^http/, "ws")}${this.path}`;
    let socket: WebSocketLike | null = null;
    const detach = () => {
      dog.clear();
      const s = socket;
      socket = null;
      if (s) s.onopen = s.onmessage = s.onerror = s.onclose = null;
      return s;
    };
    const close = () => detach()?.close(1000, "client closed");
    const dog = this.watchdog((why) => {
      close();
      sink.end(why);
    });
    try {
      socket = this.makeSocket(url, [PROTOCOL, BEARER_PROTOCOL + this.options.token]);
    } catch {
      queueMicrotask(() => sink.end("could not open a WebSocket"));
      return close;
    }
    dog.arm(this.options.openTimeoutMs, "the WebSocket did not open");
    socket.onmessage = (ev) => {
      const message = parse(String(ev.data));
      if (!message) return;
      dog.arm(this.options.silenceMs, "no message from the API");
      sink.message(message);
    };
    socket.onclose = (ev) => {
      detach();
      const refusal = REFUSALS[ev.code];
      if (refusal) sink.refused(ev.reason || refusal);
      else sink.end(`the WebSocket closed (${ev.code}${ev.reason ? `: ${ev.reason}` : ""})`);
    };
    return close;
  }

  /** Reads the server-sent events; returns its close. */
  private openStream(sink: Sink): () => void {
    const abort = new AbortController();
    const dog = this.watchdog((why) => {
      close();
      sink.end(why);
    });
    const close = () => {
      dog.clear();
      abort.abort();
    };
    const run = async () => {
      const s = this.options.openTimeoutMs / 1000;
      dog.arm(this.options.openTimeoutMs, `no event within ${s} s; a proxy may buffer event streams`);
      let response: Response;
      try {
        response = await this.fetchFn(`${this.options.origin}${this.path}/stream`, {
          headers: { Authorization: `Bearer ${this.options.token}`, Accept: "text/event-stream" },
          cache: "no-store",
          signal: abort.signal,
        });
      } catch {
        if (abort.signal.aborted) return;
        close();
        sink.end("the API is unreachable");
        return;
      }
      if (abort.signal.aborted) return;
      const refusal = REFUSALS[response.status];
      if (refusal) {
        const why = await refusalMessage(response, refusal);
        if (abort.signal.aborted) return;
        close();
        sink.refused(why);
        return;
      }
      if (!response.ok || !response.body) {
        close();
        sink.end(`the event stream answered ${response.status}`);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done || abort.signal.aborted) break;
          for (const event of parser.push(decoder.decode(value, { stream: true }))) {
            const message = parse(event.data);
            if (!message || abort.signal.aborted) continue;
            dog.arm(this.options.silenceMs, "no message from the API");
            sink.message(message);
          }
        }
      } catch {
        // aborted, or the connection broke: either way the stream is over
      }
      if (abort.signal.aborted) return;
      close();
      sink.end("the event stream ended");
    };
    void run();
    return close;
  }

  /** Polls the snapshot, one request in flight at most, until a poll fails; returns its close. */
  private openPolling(sink: Sink): () => void {
    let abort: AbortController | null = null;
    let next: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    const dog = this.watchdog((why) => {
      close();
      sink.end(why);
    });
    const close = () => {
      closed = true;
      dog.clear();
      clearTimeout(next);
      abort?.abort();
    };
    const fail = (why: string) => {
      if (closed) return;
      close();
      sink.end(why);
    };
    const poll = async () => {
      const mine = new AbortController();
      abort = mine;
      const sentAt = this.options.now();
      const s = this.options.openTimeoutMs / 1000;
      dog.arm(this.options.openTimeoutMs, `the snapshot was not answered within ${s} s`);
      let response: Response;
      let text: string;
      try {
        response = await this.fetchFn(`${this.options.origin}${this.path}/snapshot`, {
          headers: { Authorization: `Bearer ${this.options.token}`, Accept: "application/json" },
          cache: "no-store",
          signal: mine.signal,
        });
        if (closed) return;
        const refusal = REFUSALS[response.status];
        if (refusal) {
          const why = await refusalMessage(response, refusal);
          if (closed) return;
          close();
          sink.refused(why);
          return;
        }
        if (!response.ok) return fail(`the snapshot answered ${response.status}`);
        text = await response.text();
      } catch {
        return fail("the API is unreachable");
      }
      if (closed) return;
      dog.clear();
      const message = parse(text);
      if (!message) return fail("the snapshot was not a live message");
      sink.message(message);
      if (closed) return;
      // at the poll interval from the request's start, so the answers come about that often
      next = setTimeout(() => void poll(), Math.max(0, sentAt + this.options.pollIntervalMs - this.options.now()));
    };
    void poll();
    return close;
  }

  /** The current connection ended; `failed`: it delivered nothing (counts towards the fallback). */
  private lost(error: string, failed: boolean): void {
    this.current?.close();
    this.current = null;
    if (!this.running) return;
    let transport = this.state.transport;
    if (failed && transport === "websocket" && ++this.failures >= this.options.fallbackAfter) transport = "sse";
    else if (failed && transport === "sse" && ++this.failures >= this.options.pollAfter) transport = "polling";
    if (transport !== this.state.transport) this.failures = 0;
    const attempt = this.state.attempt;
    this.set({ connection: "reconnecting", transport, error, attempt: attempt + 1 });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), this.options.backoffMs(attempt));
  }

  private refused(error: string): void {
    this.running = false;
    this.closeAll();
    this.set({ connection: "refused", error });
  }

  private scheduleProbe(): void {
    clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(() => this.tryBetter("websocket"), this.options.retryBetterMs);
  }

  private stopProbing(): void {
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.probe?.close();
    this.probe = null;
  }

  /** While polling: opens `transport` beside the polls; the first message it delivers makes it the current
   * connection. A WebSocket that fails is followed by an event stream; when both fail, polling goes on and
   * the next try is `retryBetterMs` later. */
  private tryBetter(transport: "websocket" | "sse"): void {
    this.probeTimer = undefined;
    if (!this.running || this.state.transport !== "polling") return;
    this.probe = this.open(transport);
  }

  private adopt(conn: Connection): void {
    this.probe = null;
    this.stopProbing();
    clearTimeout(this.retryTimer);
    this.current?.close();
    this.current = conn;
  }

  private probeFailed(conn: Connection): void {
    this.probe = null;
    if (conn.transport === "websocket") this.tryBetter("sse");
    else this.scheduleProbe();
  }
}
