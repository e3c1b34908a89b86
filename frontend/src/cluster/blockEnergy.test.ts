import { describe, expect, it } from "vitest";
import { type BlockFigureNode, blockEnergy, energyHeat } from "./blockEnergy";

// Two racks of one server each (a host and a SmartNIC), and a third rack of one host; pods {0, 1} and {2}.
const layout = {
  racks: [{}, {}, {}],
  servers: [{ rack: 0 }, { rack: 1 }, { rack: 2 }],
  nodes: [
    { id: "h0", server: 0 },
    { id: "n0", server: 0 },
    { id: "h1", server: 1 },
    { id: "n1", server: 1 },
    { id: "h2", server: 2 },
  ],
};
const pods = [{ racks: [0, 1] }, { racks: [2] }];

const live = (id: string, watts: number, rps: number[], patch: Partial<BlockFigureNode> = {}): BlockFigureNode => ({
  id,
  stale: false,
  power: { watts, source: "model" },
  instances: rps.map((r) => ({ requests_per_s: r })),
  ...patch,
});

describe("blockEnergy", () => {
  it("divides the power of a block's reporting nodes by the requests their instances completed", () => {
    const figures = blockEnergy(layout, pods, [
      live("h0", 100, [400, 100]),
      live("n0", 20, [500]),
      live("h1", 90, []),
      live("n1", 30, [40], { stale: true }), // not current: left out of both sums
    ]);
    expect(figures.racks[0]).toMatchObject({ nodes: 2, reporting: 2, watts: 120, requestsPerS: 1000, sources: ["model"] });
    expect(figures.racks[0]!.joulesPerRequest).toBeCloseTo(0.12);
    // Power but no request: no J/request (not infinity, not zero).
    expect(figures.racks[1]).toMatchObject({ nodes: 2, reporting: 1, watts: 90, requestsPerS: 0, joulesPerRequest: null });
    // Nothing reports.
    expect(figures.racks[2]).toMatchObject({ nodes: 1, reporting: 0, joulesPerRequest: null, sources: [] });
    expect(figures.pods[0]).toMatchObject({ nodes: 4, reporting: 3, watts: 210, requestsPerS: 1000 });
    expect(figures.pods[0]!.joulesPerRequest).toBeCloseTo(0.21);
    expect(figures.pods[1]!.joulesPerRequest).toBeNull();
  });

  it("names every source its watts came from", () => {
    const figures = blockEnergy(layout, pods, [live("h0", 100, [10]), live("n0", 20, [10], { power: { watts: 20, source: "ipmi-split" } })]);
    expect(figures.racks[0]!.sources).toEqual(["ipmi-split", "model"]);
    expect(figures.pods[0]!.sources).toEqual(["ipmi-split", "model"]);
  });
});

describe("energyHeat", () => {
  it("places J/request on a log scale between the least and the most, NaN where there is none", () => {
    const block = (j: number | null) => ({ nodes: 1, reporting: 1, watts: 0, requestsPerS: 0, joulesPerRequest: j, sources: [] });
    const heat = energyHeat([block(0.1), block(1), block(10), block(null)]);
    expect(heat.min).toBe(0.1);
    expect(heat.max).toBe(10);
    [0, 0.5, 1].forEach((place, i) => expect(heat.places[i]).toBeCloseTo(place));
    expect(heat.places[3]).toBeNaN();
    expect(energyHeat([block(2)]).places[0]).toBe(0.5);
    expect(energyHeat([block(null)])).toMatchObject({ min: null, max: null });
  });
});
