// What a person reads in the ranked plans, rendered to markup in Node.

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { PlanPublic } from "./planRequest";
import { PlanResults } from "./PlanResults";

const answer: PlanPublic = {
  source: "model",
  assumptions: ["switches and cabling are not priced", "electricity at $0.0733/kWh, the paper's"],
  load_rps: 1e6,
  applications: [{ name: "nfv-fin", load_rps: 1e6 }],
  years: [1, 2],
  price_per_kwh: 0.0733,
  price_source: "paper",
  evaluated: 12,
  plans: [
    {
      rank: 1,
      servers: { "type2-smartnic": 4 },
      feasible: true,
      reason: null,
      capex_usd: 20000,
      power_watts: 1200,
      utilisation: 0.5,
      cost_efficiency: [
        { years: 1, requests_per_dollar: 1.2e9, total_cost_usd: 20770, energy_usd: 770 },
        { years: 2, requests_per_dollar: 2.3e9, total_cost_usd: 21540, energy_usd: 1540 },
      ],
      predicted: { throughput_rps: 1e6, capacity_rps: 1.4e6, avg_latency_ms: 0.8, p99_latency_ms: 2.5, joules_per_request: 0.0012, bottleneck: "SmartNIC cores" },
      placement: [{ application: "nfv-fin", dag_node: "flow", service: "flow-monitor", instances: [{ server_type: "type2-smartnic", node_kind: "smartnic", count: 24 }] }],
    },
    {
      rank: 2,
      servers: { wimpy: 1 },
      feasible: false,
      reason: "placement fails: not enough cores",
      capex_usd: 2000,
      power_watts: null,
      utilisation: null,
      cost_efficiency: [],
      predicted: { throughput_rps: null, capacity_rps: null, avg_latency_ms: null, p99_latency_ms: null, joules_per_request: null, bottleneck: null },
      placement: [],
    },
  ],
};

const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/\s+/g, " ");

describe("PlanResults", () => {
  const html = renderToStaticMarkup(createElement(PlanResults, { answer }));

  it("ranks the plans with their servers, CAPEX, watts, latency and requests per $ per year", () => {
    const t = text(html);
    expect(t).toContain("1 4 × type2-smartnic yes $20,000 1,200 W 50% 1,000,000 req/s 800 µs 2.5 ms");
    expect(t).toContain("1.2 G req/$ 2.3 G req/$");
    expect(t).toContain("Req/$ after 1 y (model)");
    expect(t).toContain("Req/$ after 2 y (model)");
  });

  it("says why a plan is infeasible", () => {
    expect(text(html)).toContain("1 × wimpy no $2,000");
    expect(text(html)).toContain("why not: placement fails: not enough cores");
  });

  it("labels every figure the model's and lists the assumptions beside them", () => {
    expect(text(html)).toContain("Every figure is the model's prediction, not a measurement");
    expect(text(html)).toContain("MODEL");
    expect(text(html)).toContain("Assumptions switches and cabling are not priced");
    expect((html.match(/plan-model/g) ?? []).length).toBe(2 * (7 + 2));
  });

  it("shows where each DAG node's instances went", () => {
    expect(text(html)).toContain("nfv-fin / flow (flow-monitor): 24 on type2-smartnic SmartNICs");
    expect(text(html)).toContain("saturates first at SmartNIC cores");
  });
});
