import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { message, node } from "./fixtures";
import { LiveClient, type WebSocketLike } from "./LiveClient";

class FakeSocket implements WebSocketLike {
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  closed = false;
  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {}
  close() {
    this.closed = true;
  }
  open() {
    this.onopen?.({});
  }
  send(data: unknown) {
    this.onmessage?.({ data: JSON.stringify(data) });
  }
  drop(code = 1006, reason = "") {
    this.onclose?.({ code, reason });
  }
}

/** A fetch whose responses are event streams the test writes to. */
function fakeFetch() {
  const streams: { url: string; init?: RequestInit; write: (text: string) => void; end: () => void }[] = [];
  const encoder = new TextEncoder();
  const fn = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
    streams.push({
      url: String(url),
      init,
      write: (text) => controller.enqueue(encoder.encode(text)),
      end: () => controller.close(),
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  });
  return { fn: fn as unknown as typeof fetch, streams };
}

function setup(fetchFn?: typeof fetch) {
  const sockets: FakeSocket[] = [];
  let now = 0;
  const client = new LiveClient({
    cluster: "rack",
    token: "e3_secret",
    origin: "http://ui.test",
    webSocket: (url, protocols) => {
      const s = new FakeSocket(url, protocols);
      sockets.push(s);
      return s;
    },
    fetch: fetchFn ?? (vi.fn() as unknown as typeof fetch),
    now: () => now,
    backoffMs: () => 100,
  });
  const states: string[] = [];
  client.subscribe(() => {
    const c = client.getState().connection;
    if (states[states.length - 1] !== c) states.push(c);
  });
  return { client, sockets, states, advance: (ms: number) => (now += ms) };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe("LiveClient", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("connects by WebSocket with the token as a subprotocol and merges what comes", () => {
    const { client, sockets } = setup();
    client.start();
    const [s] = sockets;
    expect(s!.url).toBe("ws://ui.test/api/v1/clusters/rack/live");
    expect(s!.protocols).toEqual(["e3.live.v1", "e3.bearer.e3_secret"]);
    s!.open();
    expect(client.getState().connection).toBe("connecting");
    s!.send(message("snapshot", 1, [node("a"), node("b")]));
    s!.send(message("update", 2, [node("b", { queue_len: 77 })]));
    const { connection, data } = client.getState();
    expect(connection).toBe("live");
    expect(data.nodes.get("b")?.node.queue_len).toBe(77);
    client.stop();
    expect(s!.closed).toBe(true);
  });

  it("reconnects after a drop without a reload, reconnecting meanwhile, and starts from a new snapshot", async () => {
    const { client, sockets, states } = setup();
    client.start();
    sockets[0]!.open();
    sockets[0]!.send(message("snapshot", 1, [node("a")]));
    sockets[0]!.drop(1006);
    expect(client.getState().connection).toBe("reconnecting");
    await vi.advanceTimersByTimeAsync(100);
    expect(sockets).toHaveLength(2);
    sockets[1]!.open();
    sockets[1]!.send(message("snapshot", 1, [node("a", { queue_len: 5 })]));
    expect(states).toEqual(["live", "reconnecting", "live"]);
    expect(client.getState().data.nodes.get("a")?.node.queue_len).toBe(5);
    expect(client.getState().transport).toBe("websocket"); // it had worked: no fallback
    client.stop();
  });

  it("a silent stream is lost after silenceMs, though the socket never said so", async () => {
    const { client, sockets } = setup();
    client.start();
    sockets[0]!.open();
    sockets[0]!.send(message("snapshot", 1, [node("a")]));
    await vi.advanceTimersByTimeAsync(1999);
    expect(client.getState().connection).toBe("live");
    await vi.advanceTimersByTimeAsync(1);
    expect(client.getState().connection).toBe("reconnecting");
    expect(sockets[0]!.closed).toBe(true);
    client.stop();
  });

  it("falls back to server-sent events after two WebSockets that fail to open", async () => {
    const fetcher = fakeFetch();
    const { client, sockets, states } = setup(fetcher.fn);
    client.start();
    sockets[0]!.drop(1006); // a proxy refused the upgrade
    await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(5000); // the second one never opens
    expect(sockets).toHaveLength(2);
    expect(client.getState().transport).toBe("sse");
    await vi.advanceTimersByTimeAsync(100);
    expect(fetcher.streams).toHaveLength(1);
    const stream = fetcher.streams[0]!;
    expect(stream.url).toBe("http://ui.test/api/v1/clusters/rack/live/stream");
    expect((stream.init?.headers as Record<string, string>).Authorization).toBe("Bearer e3_secret");
    stream.write(`event: snapshot\ndata: ${JSON.stringify(message("snapshot", 1, [node("a")]))}\n\n`);
    await flush();
    expect(client.getState().connection).toBe("fallback");
    stream.write(`event: update\ndata: ${JSON.stringify(message("update", 2, [node("a", { queue_len: 8 })]))}\n\n`);
    await flush();
    expect(client.getState().data.nodes.get("a")?.node.queue_len).toBe(8);
    stream.end(); // the stream is lost: retried, still as SSE
    await flush();
    expect(client.getState().connection).toBe("reconnecting");
    await vi.advanceTimersByTimeAsync(100);
    expect(fetcher.streams).toHaveLength(2);
    expect(states).toEqual(["reconnecting", "fallback", "reconnecting"]);
    client.stop();
  });

  it("a refusal is final and says why", () => {
    const { client, sockets } = setup();
    client.start();
    sockets[0]!.open();
    sockets[0]!.drop(4401, "invalid, revoked or expired token");
    expect(client.getState()).toMatchObject({ connection: "refused", error: "invalid, revoked or expired token" });
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });
});
