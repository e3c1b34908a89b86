import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, NetworkError } from "../lib/errors";
import { getJson, getLocalToken, getReadiness } from "./client";

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function stubFetch(...responses: (Response | Error)[]) {
  const fetchMock = vi.fn<typeof fetch>();
  for (const r of responses) {
    if (r instanceof Error) fetchMock.mockRejectedValueOnce(r);
    else fetchMock.mockResolvedValueOnce(r);
  }
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function sentHeaders(fetchMock: ReturnType<typeof stubFetch>, call = 0): Record<string, string> {
  return (fetchMock.mock.calls[call]?.[1]?.headers ?? {}) as Record<string, string>;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("getJson", () => {
  it("sends the bearer token only when there is one", async () => {
    const fetchMock = stubFetch(json({ a: 1 }), json({ a: 2 }));
    expect(await getJson("/api/v1/x", { token: "t0k" })).toEqual({ a: 1 });
    expect(sentHeaders(fetchMock, 0).Authorization).toBe("Bearer t0k");
    await getJson("/api/v1/x");
    expect(sentHeaders(fetchMock, 1).Authorization).toBeUndefined();
  });

  it("throws the API's error message for a refused token", async () => {
    stubFetch(json({ code: "unauthorized", message: "Token revoked", errors: [] }, 401));
    const error = await getJson("/api/v1/clusters", { token: "old" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: "unauthorized", message: "Token revoked" });
  });

  it("throws NetworkError when the server cannot be reached", async () => {
    stubFetch(new TypeError("Failed to fetch"));
    await expect(getJson("/healthz")).rejects.toBeInstanceOf(NetworkError);
  });
});

describe("endpoints", () => {
  it("reads a 503 from /readyz as a not-ready answer", async () => {
    stubFetch(
      json(
        {
          status: "not_ready",
          checks: { postgres: { ok: false, detail: "timeout" }, redis: { ok: true, detail: "" } },
        },
        503,
      ),
    );
    const body = await getReadiness();
    expect(body.status).toBe("not_ready");
    expect(body.checks.postgres).toEqual({ ok: false, detail: "timeout" });
  });

  it("gives the local-mode token, or null when the server is not in local mode", async () => {
    stubFetch(json({ token: "local-abc" }), json({ code: "not_found", message: "Not found", errors: [] }, 404));
    expect(await getLocalToken()).toBe("local-abc");
    expect(await getLocalToken()).toBeNull();
  });

  it("still fails getLocalToken when the server is down", async () => {
    stubFetch(new TypeError("Failed to fetch"));
    await expect(getLocalToken()).rejects.toBeInstanceOf(NetworkError);
  });
});
