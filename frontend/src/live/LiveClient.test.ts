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

interface Poll {
  url: string;
  init?: RequestInit;
  settled: boolean;
  answer: (status: number, body: unknown) => void;
}

/** A fetch behind a proxy that defeats event streams: the first `failedStreams` stream requests fail, the
 * others answer 200 and then never deliver an event (buffered). Snapshot requests wait for the test to answer. */
function fakeApi({ failedStreams = 1 } = {}) {
  const streams: string[] = [];
  const polls: Poll[] = [];
  let maxInFlight = 0;
  const fn = vi.fn((url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const u = String(url);
    if (u.endsWith("/snapshot")) {
      return new Promise<Response>((resolve, reject) => {
        const poll: Poll = {
          url: u,
          init,
          settled: false,
          answer: (status, body) => {
            poll.settled = true;
            resolve(new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }));
          },
        };
        init?.signal?.addEventListener("abort", () => {
          poll.settled = true;
          reject(new DOMException("aborted", "AbortError"));
        });
        polls.push(poll);
        maxInFlight = Math.max(maxInFlight, polls.filter((p) => !p.settled).length);
      });
    }
    streams.push(u);
    if (streams.length <= failedStreams) return Promise.reject(new TypeError("Failed to fetch"));
    const silent = new ReadableStream<Uint8Array>({ start: () => {} });
    return Promise.resolve(new Response(silent, { status: 200, headers: { "content-type": "text/event-stream" } }));
  });
  return { fn: fn as unknown as typeof fetch, calls: fn.mock.calls, streams, polls, maxInFlight: () => maxInFlight };
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

  describe("polling, when the event stream fails too", () => {
    /** Two WebSockets refused, one event stream that errors and one that never delivers: polling. */
    async function toPolling() {
      const api = fakeApi();
      const t = setup(api.fn);
      t.client.start();
      t.sockets[0]!.drop(1006);
      await vi.advanceTimersByTimeAsync(100);
      t.sockets[1]!.drop(1006);
      await vi.advanceTimersByTimeAsync(100); // event stream 1: the request errors
      await vi.advanceTimersByTimeAsync(100); // event stream 2: 200, then nothing
      expect(api.streams).toHaveLength(2);
      expect(t.client.getState().transport).toBe("sse");
      await vi.advanceTimersByTimeAsync(5000); // no event within the open timeout
      expect(t.client.getState().transport).toBe("polling");
      await vi.advanceTimersByTimeAsync(100);
      return { ...t, api };
    }
    const lastPoll = (api: ReturnType<typeof fakeApi>) => api.polls[api.polls.length - 1]!;
    /** Answers each poll as it comes, for `seconds` seconds. */
    async function pollFor(api: ReturnType<typeof fakeApi>, seconds: number) {
      for (let i = 0; i < seconds; i++) {
        lastPoll(api).answer(200, message("snapshot", 1, [node("a")]));
        await vi.advanceTimersByTimeAsync(1000);
      }
    }

    it("polls the snapshot with the bearer token once a second, and is live while the polls are answered", async () => {
      const { client, api, states } = await toPolling();
      expect(api.polls).toHaveLength(1);
      expect(api.polls[0]!.url).toBe("http://ui.test/api/v1/clusters/rack/live/snapshot");
      expect((api.polls[0]!.init?.headers as Record<string, string>).Authorization).toBe("Bearer e3_secret");
      expect(client.getState().connection).toBe("reconnecting"); // nothing has come yet
      api.polls[0]!.answer(200, message("snapshot", 1, [node("a")]));
      await flush();
      expect(client.getState()).toMatchObject({ connection: "fallback", transport: "polling", error: null });
      expect(client.getState().attempt).toBe(0);
      await vi.advanceTimersByTimeAsync(999);
      expect(api.polls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(api.polls).toHaveLength(2);
      await pollFor(api, 5);
      expect(api.polls).toHaveLength(7);
      expect(states.slice(-2)).toEqual(["reconnecting", "fallback"]); // no flicker while the polls are answered
      client.stop();
    });

    it("an answer replaces the state as a snapshot does, server's staleness and time included", async () => {
      const { client, api } = await toPolling();
      api.polls[0]!.answer(200, message("snapshot", 1, [node("a", { queue_len: 5 }), node("b")]));
      await flush();
      expect(client.getState().data.nodes.get("a")?.node.queue_len).toBe(5);
      await vi.advanceTimersByTimeAsync(1000);
      const later = { ...message("snapshot", 1, [node("b", { stale: true, age_ms: 900 })]) };
      later.server_time = "2026-01-01T00:00:01.040000+00:00";
      api.polls[1]!.answer(200, later);
      await flush();
      const { data } = client.getState();
      expect([...data.nodes.keys()]).toEqual(["b"]); // a is gone from the cluster, so from the view
      expect(data.nodes.get("b")?.node).toMatchObject({ stale: true, age_ms: 900 });
      expect(data.serverTime).toBe("2026-01-01T00:00:01.040000+00:00");
      client.stop();
    });

    it("never has two polls in flight: a slow answer delays the next poll, an unanswered one is given up", async () => {
      const { client, api } = await toPolling();
      await vi.advanceTimersByTimeAsync(3000); // the first answer is slow
      expect(api.polls).toHaveLength(1);
      api.polls[0]!.answer(200, message("snapshot", 1, [node("a")]));
      await vi.advanceTimersByTimeAsync(1000);
      expect(api.polls).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(5000); // the second is never answered: a failed poll, retried after backoff
      expect(api.polls[1]!.settled).toBe(true); // aborted before the next one is sent
      expect(client.getState()).toMatchObject({ connection: "reconnecting", transport: "polling" });
      await vi.advanceTimersByTimeAsync(100);
      expect(api.polls).toHaveLength(3);
      expect(api.maxInFlight()).toBe(1);
      client.stop();
    });

    it("a poll refused with 403 stops everything and says why", async () => {
      const { client, api, sockets } = await toPolling();
      api.polls[0]!.answer(403, { message: "token 'ui' lacks the 'read' scope" });
      await flush();
      expect(client.getState()).toMatchObject({ connection: "refused", error: "token 'ui' lacks the 'read' scope" });
      const calls = api.calls.length;
      await vi.advanceTimersByTimeAsync(120_000);
      expect(api.calls).toHaveLength(calls);
      expect(sockets).toHaveLength(2); // nor is the WebSocket tried again
    });

    it("stop() ends polling: the poll in flight is aborted, nothing is sent after, no timer is left", async () => {
      const { client, api, sockets } = await toPolling();
      await pollFor(api, 3);
      client.stop();
      expect(lastPoll(api).settled).toBe(true);
      const calls = api.calls.length;
      await vi.advanceTimersByTimeAsync(120_000);
      expect(api.calls).toHaveLength(calls);
      expect(sockets).toHaveLength(2);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("tries the WebSocket again every 30 s beside the polls, and goes back to it when it delivers", async () => {
      const { client, api, sockets, states } = await toPolling();
      await pollFor(api, 29);
      expect(sockets).toHaveLength(2);
      await pollFor(api, 1);
      expect(sockets).toHaveLength(3); // a retry, while the polls go on
      expect(client.getState()).toMatchObject({ connection: "fallback", transport: "polling" });
      sockets[2]!.drop(1006); // still refused: then the event stream, which stays silent
      await flush();
      expect(api.streams).toHaveLength(3);
      await pollFor(api, 5);
      expect(client.getState()).toMatchObject({ connection: "fallback", transport: "polling" });
      expect(states.slice(-2)).toEqual(["reconnecting", "fallback"]); // the failed retry was not shown
      await pollFor(api, 29);
      expect(sockets).toHaveLength(3);
      await pollFor(api, 1);
      expect(sockets).toHaveLength(4); // the next retry, 30 s after the last one gave up
      sockets[3]!.open();
      sockets[3]!.send(message("snapshot", 1, [node("a", { queue_len: 42 })]));
      expect(client.getState()).toMatchObject({ connection: "live", transport: "websocket" });
      expect(client.getState().data.nodes.get("a")?.node.queue_len).toBe(42);
      expect(lastPoll(api).settled).toBe(true);
      const polls = api.polls.length;
      sockets[3]!.send(message("update", 2, [node("a", { queue_len: 43 })]));
      await vi.advanceTimersByTimeAsync(1500);
      expect(api.polls).toHaveLength(polls);
      expect(client.getState().data.nodes.get("a")?.node.queue_len).toBe(43);
      client.stop();
    });
  });
});
