import { describe, expect, it } from "vitest";

import { EMPTY_FORM, NEW_CUSTOM_TYPE, planFieldOf, planRequest } from "./planRequest";
import { serversText } from "./planFormat";

describe("planRequest", () => {
  it("sends the stored applications by name, the load and years, and leaves the price and types to the API's defaults", () => {
    const got = planRequest({ ...EMPTY_FORM, names: ["shop", "iot"], load: "2e6", years: "3" });
    expect(got).toEqual({ body: { applications: [{ name: "shop" }, { name: "iot" }], load_rps: 2e6, years: 3 } });
  });

  it("parses a pasted YAML spec into the document the API takes", () => {
    const got = planRequest({ ...EMPTY_FORM, source: "spec", specText: "apiVersion: e3/v1\nkind: Application\nmetadata: {name: a}\n" });
    expect(got).toMatchObject({ body: { applications: [{ spec: { apiVersion: "e3/v1", kind: "Application", metadata: { name: "a" } } }] } });
  });

  it("names the spec when it is not a document, and sends nothing", () => {
    expect(planRequest({ ...EMPTY_FORM, source: "spec", specText: "a: [" })).toMatchObject({ problem: { field: "applications" } });
    expect(planRequest({ ...EMPTY_FORM, source: "spec", specText: "- 1\n- 2" })).toMatchObject({ problem: { field: "applications" } });
  });

  it("sends text that is no number as null, so the API's 422 names the field", () => {
    const got = planRequest({ ...EMPTY_FORM, names: ["a"], load: "lots", price: "0.1" });
    expect(got).toMatchObject({ body: { load_rps: null, price_per_kwh: 0.1 } });
    expect(JSON.parse(JSON.stringify("body" in got ? got.body : null)).load_rps).toBeNull();
  });

  it("sends the chosen server types and the custom ones with their CAPEX and watts", () => {
    const got = planRequest({
      ...EMPTY_FORM,
      names: ["a"],
      allTypes: false,
      serverTypes: ["wimpy"],
      custom: [{ ...NEW_CUSTOM_TYPE, name: "cheap", costUsd: "1000", idleWatts: "40", peakWatts: "50", hostCores: "32", hostCoreClass: "wimpy" }],
    });
    expect(got).toMatchObject({
      body: {
        server_types: ["wimpy"],
        custom_server_types: [
          { name: "cheap", cost_usd: 1000, idle_watts: 40, peak_watts: 50, host_cores: 32, host_core_class: "wimpy", smartnics: 0 },
        ],
      },
    });
  });
});

describe("planFieldOf", () => {
  it("puts each API field error at the part of the form it names", () => {
    expect(planFieldOf("load_rps")).toBe("load");
    expect(planFieldOf("body.years")).toBe("years");
    expect(planFieldOf("applications[0].spec.spec.nodes[0].service")).toBe("applications");
    expect(planFieldOf("custom_server_types[0].peak_watts")).toBe("custom");
    expect(planFieldOf("server_types[0]")).toBe("serverTypes");
    expect(planFieldOf("price_per_kwh")).toBe("price");
    expect(planFieldOf("max_servers")).toBeNull();
  });
});

describe("serversText", () => {
  it("lists the larger counts first", () => {
    expect(serversText({ beefy: 2, "type2-smartnic": 4 })).toBe("4 × type2-smartnic + 2 × beefy");
  });
});
