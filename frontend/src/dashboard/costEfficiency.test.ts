import { describe, expect, it } from "vitest";

import { HOURS_PER_YEAR, SECONDS_PER_YEAR, capexOf, costEfficiency, costOverYears } from "./costEfficiency";

describe("costEfficiency", () => {
  const inputs = { throughputRps: 1000, watts: 500, capexUsd: 13_950, usdPerKwh: 0.0733 };

  it("is throughput × T over CAPEX plus power × T × electricity", () => {
    const point = costEfficiency(inputs, 1);
    expect(point).not.toBeNull();
    const energy = 0.5 * HOURS_PER_YEAR * 0.0733; // kW × h × $/kWh
    expect(point?.energyUsd).toBeCloseTo(energy, 6);
    expect(point?.totalUsd).toBeCloseTo(13_950 + energy, 6);
    expect(point?.requestsPerUsd).toBeCloseTo((1000 * SECONDS_PER_YEAR) / (13_950 + energy), 3);
  });

  it("approaches requests per joule priced in dollars as ownership grows (energy dominates)", () => {
    const long = costEfficiency(inputs, 1e6);
    const perDollarOfEnergy = (1000 * 3600 * 1000) / (500 * 0.0733); // req/s × s/h × W/kW over W × $/kWh
    expect((long?.requestsPerUsd ?? 0) / perDollarOfEnergy).toBeCloseTo(1, 3);
  });

  it("rises with years of ownership while CAPEX is paid off", () => {
    const values = costOverYears(inputs).map((p) => p?.requestsPerUsd ?? 0);
    expect(values).toHaveLength(5);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
  });

  it("gives nothing for a missing, negative or non-finite input", () => {
    expect(costEfficiency({ ...inputs, throughputRps: null }, 1)).toBeNull();
    expect(costEfficiency({ ...inputs, watts: Number.NaN }, 1)).toBeNull();
    expect(costEfficiency({ ...inputs, capexUsd: null }, 1)).toBeNull();
    expect(costEfficiency({ ...inputs, usdPerKwh: -1 }, 1)).toBeNull();
    expect(costEfficiency(inputs, 0)).toBeNull();
    expect(costEfficiency({ ...inputs, capexUsd: 0, watts: 0 }, 1)).toBeNull();
  });
});

describe("capexOf", () => {
  const catalogue = [
    { name: "type1-smartnic", cost_usd: 4650 },
    { name: "beefy", cost_usd: 4500 },
  ];

  it("sums servers × list price per type", () => {
    const capex = capexOf({ "type1-smartnic": 3, beefy: 1 }, catalogue);
    expect(capex.usd).toBe(3 * 4650 + 4500);
    expect(capex.parts.map((p) => p.serverType)).toEqual(["beefy", "type1-smartnic"]);
    expect(capex.missing).toEqual([]);
  });

  it("gives no total when a type has no price, and names it", () => {
    const capex = capexOf({ "type1-smartnic": 3, custom: 2 }, catalogue);
    expect(capex.usd).toBeNull();
    expect(capex.missing).toEqual(["custom"]);
  });
});
