// The live channel's client (docs/live.md): WebSocket first; after two WebSockets that fail to deliver
// (refused by a proxy, or open but silent) it falls back to server-sent events read with fetch. A lost
// stream is retried with backoff, without a reload; the state says which, so a banner can show.

import { applyMessage, emptyLiveData, type LiveData } from "./liveState";
import { SseParser } from "./sse";
import type { LiveConnection, LiveMessage } from "./types";

export const PROTOCOL = "e3.live.v1";
export const BEARER_PROTOCOL = "e3.bearer.";
/** Close codes (WebSocket) and statuses (SSE) that retrying will not fix. */
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
  /** Failed WebSockets before falling back to SSE. */
  fallbackAfter?: number;
  /** A WebSocket not open after this long has failed to open. */
  openTimeoutMs?: number;
  /** No message for this long (the server sends at least 4 a second): the stream is lost. */
  silenceMs?: number;
  /** Delay before retry number `attempt` (0, 1, ...). */
  backoffMs?: (attempt: number) => number;
}

export interface LiveClientState {
  connection: LiveConnection;
  transport: "websocket" | "sse";
  /** Why the last stream ended or was refused. */
  error: string | null;
  /** Retries since data last came. */
  attempt: number;
  data: LiveData;
}

export const defaultBackoff = (attempt: number): number => Math.min(10_000, 500 * 2 ** attempt);

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
  private socket: WebSocketLike | null = null;
  private abort: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private socketFailures = 0;
  private socketDelivered = false;
  private running = false;

  constructor(options: LiveClientOptions) {
    this.options = {
      cluster: options.cluster,
      token: options.token,
      origin: options.origin ?? globalThis.location?.origin ?? "http://127.0.0.1:8000",
      now: options.now ?? (() => Date.now()),
      fallbackAfter: options.fallbackAfter ?? 2,
      openTimeoutMs: options.openTimeoutMs ?? 5_000,
      silenceMs: options.silenceMs ?? 2_000,
      backoffMs: options.backoffMs ?? defaultBackoff,
    };
    this.makeSocket = options.webSocket ?? ((url, protocols) => new WebSocket(url, protocols) as WebSocketLike);
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
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
    clearTimeout(this.retryTimer);
    this.closeTransport();
  }

  private get path(): string {
    return `/api/v1/clusters/${encodeURIComponent(this.options.cluster)}/live`;
  }

  private set(patch: Partial<LiveClientState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private connect(): void {
    if (!this.running) return;
    if (this.state.transport === "sse") void this.openStream();
    else this.openSocket();
  }

  private closeTransport(): void {
    clearTimeout(this.watchdog);
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
      socket.close(1000, "client closed");
    }
    this.abort?.abort();
    this.abort = null;
  }

  private arm(ms: number, why: string): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.lost(why, this.socket !== null && !this.socketDelivered), ms);
  }

  private receive(raw: string, via: LiveConnection): void {
    let message: LiveMessage;
    try {
      message = JSON.parse(raw) as LiveMessage;
    } catch {
      return;
    }
    this.arm(this.options.silenceMs, "no message from the API");
    this.set({
      connection: via,
      error: null,
      attempt: 0,
      data: applyMessage(this.state.data, message, this.options.now()),
    });
  }

  private openSocket(): void {
    const url = `${this.options.origin.replace(/^http/, "ws")}${this.path}`;
    this.socketDelivered = false;
    let socket: WebSocketLike;
    try {
      socket = this.makeSocket(url, [PROTOCOL, BEARER_PROTOCOL + this.options.token]);
    } catch {
      this.lost("could not open a WebSocket", true);
      return;
    }
    this.socket = socket;
    this.arm(this.options.openTimeoutMs, "the WebSocket did not open");
    socket.onmessage = (ev) => {
      this.socketDelivered = true;
      this.receive(String(ev.data), "live");
    };
    socket.onclose = (ev) => {
      const refusal = REFUSALS[ev.code];
      if (refusal) this.refused(ev.reason || refusal);
      else this.lost(`the WebSocket closed (${ev.code}${ev.reason ? `: ${ev.reason}` : ""})`, !this.socketDelivered);
    };
  }

  private async openStream(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    this.arm(this.options.openTimeoutMs, "the event stream did not open");
    let response: Response;
    try {
      response = await this.fetchFn(`${this.options.origin}${this.path}/stream`, {
        headers: { Authorization: `Bearer ${this.options.token}`, Accept: "text/event-stream" },
        cache: "no-store",
        signal: abort.signal,
      });
    } catch {
      if (!abort.signal.aborted) this.lost("the API is unreachable", false);
      return;
    }
    if (abort.signal.aborted) return;
    const refusal = REFUSALS[response.status];
    if (refusal) {
      const body = (await response.json().catch(() => null)) as { message?: string } | null;
      this.refused(body?.message ?? refusal);
      return;
    }
    if (!response.ok || !response.body) {
      this.lost(`the event stream answered ${response.status}`, false);
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || abort.signal.aborted) break;
        for (const event of parser.push(decoder.decode(value, { stream: true }))) this.receive(event.data, "fallback");
      }
    } catch {
      // aborted, or the connection broke: either way the stream is over
    }
    if (!abort.signal.aborted) this.lost("the event stream ended", false);
  }

  /** The stream ended; `failedSocket`: a WebSocket that delivered nothing (counts towards the fallback). */
  private lost(error: string, failedSocket: boolean): void {
    this.closeTransport();
    if (!this.running) return;
    let transport = this.state.transport;
    if (failedSocket && transport === "websocket" && ++this.socketFailures >= this.options.fallbackAfter) {
      transport = "sse";
    }
    const attempt = this.state.attempt;
    this.set({ connection: "reconnecting", transport, error, attempt: attempt + 1 });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), this.options.backoffMs(attempt));
  }

  private refused(error: string): void {
    this.closeTransport();
    this.running = false;
    this.set({ connection: "refused", error });
  }
}
