import { afterEach, describe, expect, it, vi } from "vitest";

// The API client takes fetch and Request when it is created: both are replaced before it is imported, the
// Request so that the page-relative URLs it builds resolve outside a browser.
const fetchMock = vi.hoisted(() => {
  const mock = vi.fn<typeof fetch>();
  const NodeRequest = globalThis.Request;
  globalThis.fetch = mock;
  globalThis.Request = class extends NodeRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, "http://e3.test") : input, init);
    }
  } as typeof Request;
  return mock;
});

import { type CostEfficiency, costQuery, fetchCostEfficiency, settleCost } from "./costQuery";

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** The URL of the `call`th request. */
function sent(call = 0): URL {
  return new URL((fetchMock.mock.calls[call]?.[0] as Request).url);
}

// The API's answer for 2 × type2-smartnic at 250,000 req/s and 504 W (docs/energy.md's example), 2 years.
const answer: CostEfficiency = {
  cluster: "rack",
  basis: "live",
  formula: "Throughput x T / (CAPEX + Power x T x Electricity)",
  years: 2,
  price_per_kwh: { value: 0.0733, source: "paper" },
  capex: { usd: 13500, source: "model", parts: [{ server_type: "type2-smartnic", count: 2, unit_usd: 6750 }] },
  throughput_rps: { value: 250000, source: "live" },
  power_watts: { value: 504, source: "rapl" },
  complete: true,
  points: [
    { years: 1, requests: 7.889e12, energy_usd: 323.84, total_usd: 13823.84, requests_per_usd: 5.707e8 },
    { years: 2, requests: 1.578e13, energy_usd: 647.69, total_usd: 14147.69, requests_per_usd: 1.115e9 },
  ],
  unavailable: null,
};

afterEach(() => {
  fetchMock.mockReset();
});

describe("the cost panel's request", () => {
  it("passes the controls on as the query, an empty one leaving the API's default", () => {
    expect(costQuery({ years: " 3 ", price: "0.12" })).toEqual({ years: 3, price_per_kwh: 0.12 });
    expect(costQuery({ years: "", price: "" })).toEqual({});
    expect(costQuery({ years: "two", price: "" }).years).toBeNaN();
  });

  it("asks the API for the cluster's cost efficiency at the controls and gives its answer", async () => {
    fetchMock.mockResolvedValueOnce(json(answer));
    const result = await fetchCostEfficiency("rack", { years: "2", price: "0.0733" });
    expect(result).toEqual({ answer, refusal: null });
    expect(sent().pathname).toBe("/api/v1/clusters/rack/cost-efficiency");
    expect(Object.fromEntries(sent().searchParams)).toEqual({ years: "2", price_per_kwh: "0.0733" });
  });

  it("gives the API's reason when there are no live figures", async () => {
    const unavailable = { ...answer, points: [], unavailable: "no node of cluster 'rack' is reporting" };
    fetchMock.mockResolvedValueOnce(json(unavailable));
    const result = await fetchCostEfficiency("rack", { years: "5", price: "" });
    expect(result.answer?.unavailable).toBe("no node of cluster 'rack' is reporting");
    expect(Object.fromEntries(sent().searchParams)).toEqual({ years: "5" });
  });

  it("puts the API's 422 message at the control it names", async () => {
    const refused = (field: string, message: string) =>
      json({ code: "validation_failed", message: `${field}: ${message}`, errors: [{ field, message, code: "x" }] }, 422);
    fetchMock.mockResolvedValueOnce(refused("years", "Input should be greater than or equal to 1"));
    const years = await fetchCostEfficiency("rack", { years: "-1", price: "" });
    expect(years.answer).toBeNull();
    expect(years.refusal?.byField).toEqual({ years: ["Input should be greater than or equal to 1"] });
    expect(sent().searchParams.get("years")).toBe("-1");

    fetchMock.mockResolvedValueOnce(refused("price_per_kwh", "Input should be less than or equal to 5"));
    const price = await fetchCostEfficiency("rack", { years: "5", price: "7.33" });
    expect(price.refusal?.byField).toEqual({ price: ["Input should be less than or equal to 5"] });
  });

  it("says why when the cluster is gone, with no control to blame", async () => {
    fetchMock.mockResolvedValueOnce(json({ code: "not_found", message: "cluster 'rack' not found", errors: [] }, 404));
    const result = await fetchCostEfficiency("rack", { years: "5", price: "" });
    expect(result.refusal).toMatchObject({ message: "cluster 'rack' not found", byField: {} });
  });
});

describe("what the panel keeps", () => {
  const refusal = (byField: Record<string, string[]>) => ({ message: "m", byField, other: [] });

  it("shows a new answer, drops the figures for a refused control, keeps them through another failure", () => {
    const newer = { ...answer, years: 3 };
    expect(settleCost(answer, { answer: newer, refusal: null })).toBe(newer);
    expect(settleCost(answer, { answer: null, refusal: refusal({ years: ["too few"] }) })).toBeNull();
    expect(settleCost(answer, { answer: null, refusal: refusal({}) })).toBe(answer);
  });
});
