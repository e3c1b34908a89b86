import { describe, expect, it, vi } from "vitest";
import type { EventRow } from "../api/client";
import { EventStream, type EventStreamState, parseEventData } from "./eventStream";

const sse = (id: number, kind = "node.up") =>
  `id: ${id}\nevent: ${kind}\ndata: ${JSON.stringify({ id, ts: "2026-11-22T02:00:00Z", kind, cluster_id: null, subject: "node/x", data: {} })}\n\n`;

/** A fetch answering `answers` in turn and recording what was asked. */
function recordingFetch(answers: (() => Response)[]) {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const fetchFn = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    requests.push({ url: String(url), headers: init?.headers as Record<string, string> });
    const answer = answers.shift();
    if (!answer) throw new TypeError("fetch failed");
    return answer();
  });
  return { requests, fetchFn: fetchFn as unknown as typeof fetch };
}

/** A response whose body yields `chunks` and then ends (or stays open when `open`). */
function streamResponse(chunks: string[], open = false): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      if (!open) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

/** A started stream of the cluster "rack" on `fetchFn`, reconnecting at once; what it delivers goes to `got`. */
function startStream(fetchFn: typeof fetch, got: EventRow[], onState: (s: EventStreamState) => void = () => {}): EventStream {
  const stream = new EventStream({
    cluster: "rack",
    token: "e3_t",
    origin: "http://api",
    fetch: fetchFn,
    backoffMs: () => 0,
    onEvents: (e) => got.push(...e),
    onState,
  });
  stream.start();
  return stream;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
}

describe("the event stream", () => {
  it("parses an event's data, and rejects what is not one", () => {
    expect(parseEventData('{"id": 3, "kind": "node.up", "subject": "node/x", "ts": "t", "data": {"a": 1}}')).toMatchObject({ id: 3, data: { a: 1 } });
    expect(parseEventData('{"id": 4, "kind": "migration.step", "subject": "instance/i", "application": "shop", "data": {"application": "shop"}}')?.application).toBe("shop");
    expect(parseEventData('{"id": 5, "kind": "migration.step", "subject": "instance/i", "data": {"application": "shop"}}')?.application).toBe("shop");
    expect(parseEventData('{"id": 6, "kind": "node.up", "subject": "node/n", "data": {}}')?.application).toBeNull();
    expect(parseEventData("{}")).toBeNull();
    expect(parseEventData("not json")).toBeNull();
  });

  it("reads the backlog, resumes after a loss with Last-Event-ID, and delivers nothing twice", async () => {
    const requests: { url: string; headers: Record<string, string> }[] = [];
    const answers = [
      // Events split across chunks; the stream then ends (the connection broke).
      streamResponse([sse(1), sse(2).slice(0, 20), sse(2).slice(20), sse(3)]),
      // The server repeats event 3 (it should not; the client must cope) and goes on.
      streamResponse([sse(3), sse(4), sse(5)], true),
    ];
    const fetchFn = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      requests.push({ url: String(url), headers: init?.headers as Record<string, string> });
      return answers.shift()!;
    });
    const got: EventRow[] = [];
    const states: EventStreamState[] = [];
    const stream = startStream(fetchFn as unknown as typeof fetch, got, (s) => states.push(s));
    await until(() => got.length === 5);
    stream.stop();
    expect(got.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.url).toBe("http://api/api/v1/events/stream?cluster=rack&since=0");
    expect(requests[0]!.headers.Authorization).toBe("Bearer e3_t");
    expect(requests[0]!.headers["Last-Event-ID"]).toBeUndefined();
    expect(requests[1]!.headers["Last-Event-ID"]).toBe("3");
    expect(states.map((s) => s.connection)).toContain("reconnecting");
    expect(states.at(-1)?.connection).toBe("live");
    expect(stream.cursor).toBe(5);
  });

  it("delivers an event that committed after a higher one was pushed (a gap the API filled)", async () => {
    const fetchFn = vi.fn(async () => streamResponse([sse(1), sse(2), sse(4), sse(3), sse(4)], true));
    const got: EventRow[] = [];
    const stream = startStream(fetchFn as unknown as typeof fetch, got);
    await until(() => got.length === 4);
    stream.stop();
    expect(got.map((e) => e.id)).toEqual([1, 2, 4, 3]); // 3 late, the second 4 a repeat
    expect(stream.cursor).toBe(4);
  });

  it("asks for the newest `last` first, then resumes after the last event received, not the newest again", async () => {
    const { requests, fetchFn } = recordingFetch([
      () => new Response("oops", { status: 502 }), // lost before any event: the newest are asked for again
      () => streamResponse([sse(41), sse(42)]), // the newest two, then the connection broke
      () => streamResponse([sse(43)], true),
    ]);
    const got: EventRow[] = [];
    const stream = new EventStream({
      cluster: "rack",
      token: "e3_t",
      origin: "http://api",
      last: 200,
      fetch: fetchFn,
      backoffMs: () => 0,
      onEvents: (e) => got.push(...e),
      onState: () => {},
    });
    stream.start();
    await until(() => got.length === 3);
    stream.stop();
    expect(requests.map((r) => r.url)).toEqual([
      "http://api/api/v1/events/stream?cluster=rack&last=200",
      "http://api/api/v1/events/stream?cluster=rack&last=200",
      "http://api/api/v1/events/stream?cluster=rack&since=42",
    ]);
    expect(requests.map((r) => r.headers["Last-Event-ID"])).toEqual([undefined, undefined, "42"]);
    expect(got.map((e) => e.id)).toEqual([41, 42, 43]);
  });

  it("stops on a refusal and says why", async () => {
    const fetchFn = vi.fn(async () => new Response(JSON.stringify({ code: "unauthorized", message: "token revoked" }), { status: 401 }));
    const states: EventStreamState[] = [];
    const stream = new EventStream({
      cluster: "rack",
      token: "e3_t",
      origin: "http://api",
      fetch: fetchFn as unknown as typeof fetch,
      backoffMs: () => 0,
      onEvents: () => {},
      onState: (s) => states.push(s),
    });
    stream.start();
    await until(() => states.at(-1)?.connection === "refused");
    expect(states.at(-1)?.error).toBe("token revoked");
    await new Promise((r) => setTimeout(r, 5));
    expect(fetchFn).toHaveBeenCalledTimes(1);
  });

  it("retries with backoff when the API is unreachable", async () => {
    let calls = 0;
    const fetchFn = vi.fn(async () => {
      calls++;
      if (calls < 3) throw new TypeError("fetch failed");
      return streamResponse([sse(7)], true);
    });
    const got: EventRow[] = [];
    const stream = new EventStream({
      cluster: "rack",
      token: "e3_t",
      origin: "http://api",
      since: 6,
      fetch: fetchFn as unknown as typeof fetch,
      backoffMs: () => 0,
      onEvents: (e) => got.push(...e),
      onState: () => {},
    });
    stream.start();
    await until(() => got.length === 1);
    stream.stop();
    expect(calls).toBe(3);
    expect(got[0]!.id).toBe(7);
  });
});
