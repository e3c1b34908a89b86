// A chart's points from recorded answers of GET /clusters/{name}/history (the 7-day API: steps growing with the
// window, a point's time its step's end) and of the energy history, with the live tail after them.

import { describe, expect, it } from "vitest";

import { emptyPoint, history as energyHistory, point } from "../energy/fixtures";
import { shapeEnergy } from "../energy/series";
import type { ChartRef } from "./chartFigures";
import {
  concreteSources,
  energyPoints,
  energySources,
  historyPoints,
  historySources,
  liveTail,
  withLiveTail,
} from "./chartSeries";
import { RingSeries } from "./history";
import type { ServerHistory } from "./serverHistory";

const T = Date.parse("2026-11-26T12:00:00Z");
const STEP_S = 120; // the API's step over 24 h
const at = (step: number) => T + step * STEP_S * 1000;

/** GET /clusters/rack/history?minutes=1440 as answered: 120 s steps; node n1's step 3 missing (its agent was
 * down), its watts modelled then measured; the application without latency in step 2. */
const recorded: ServerHistory = {
  cluster: "rack",
  since: "2026-11-25T12:00:00Z",
  minutes: 1440,
  step_s: STEP_S,
  nodes_left_out: 0,
  nodes: [
    {
      node_id: "n1",
      points: [
        [at(1), 2.5, 0.4, 61.2, "model"],
        [at(2), 3.0, 0.45, 63.0, "model"],
        [at(4), 1.0, 0.3, 58.4, "mixed"],
        [at(5), 0.5, 0.25, null, "rapl"],
      ],
    },
  ],
  applications: [
    {
      deployment_id: "d1",
      application: "shop",
      points: [
        [at(1), 120, 2310, 4100],
        [at(2), 0, null, null],
      ],
    },
  ],
  totals: [
    [at(1), 180.4, 120, 0.665],
    [at(2), 181.0, 0, null],
  ],
};

const node = (figure: "queue" | "cpu" | "watts"): ChartRef => ({
  scope: "node",
  id: "n1",
  name: "server-1/host",
  figure,
});

function ring(samples: [number, number | null][]): RingSeries {
  const s = new RingSeries(100);
  for (const [t, v] of samples) s.push(t, v);
  return s;
}

describe("history points", () => {
  it("read a figure's column at each step's end, a missing figure as null", () => {
    expect(historyPoints(recorded, node("watts"), 3)).toEqual([
      { t: at(1), v: 61.2 },
      { t: at(2), v: 63.0 },
      { t: at(4), v: 58.4 },
      { t: at(5), v: null },
    ]);
    const app: ChartRef = { scope: "application", id: "d1", name: "shop", figure: "avgUs" };
    expect(historyPoints(recorded, app, 2).map((p) => p.v)).toEqual([2310, null]);
    expect(historyPoints(recorded, { scope: "cluster", figure: "watts" }, 1).map((p) => p.v)).toEqual([180.4, 181.0]);
    const unknown: ChartRef = { scope: "node", id: "gone", name: "gone", figure: "queue" };
    expect(historyPoints(recorded, unknown, 1)).toEqual([]);
  });

  it("name the sources of the steps that have watts, a mix left as mixed", () => {
    expect(concreteSources(historySources(recorded, node("watts"), 3))).toEqual(["mixed", "model"]);
  });
});

describe("live tail", () => {
  it("averages the samples after the last server step into steps of its length, the newest at its last", () => {
    const series = ring([
      [at(2) - 500, 99], // before the last server step: the server has it
      [at(2) + 10_000, 60],
      [at(2) + 70_000, 64],
      [at(3) + 5_000, 70],
      [at(3) + 9_000, 72],
    ]);
    expect(liveTail(series, at(2), STEP_S * 1000)).toEqual([
      { t: at(3), v: 62 },
      { t: at(3) + 9_000, v: 71 },
    ]);
  });

  it("keeps a step whose samples have no value as a gap", () => {
    const series = ring([
      [1_500, null],
      [1_700, null],
      [2_200, 5],
    ]);
    expect(liveTail(series, 1_000, 1_000)).toEqual([
      { t: 2_000, v: null },
      { t: 2_200, v: 5 },
    ]);
  });

  it("follows the server's points, or the range's start when there are none", () => {
    const server = historyPoints(recorded, { scope: "cluster", figure: "watts" }, 1);
    const live = ring([
      [at(2) - 1_000, 1],
      [at(2) + 60_000, 190],
    ]);
    expect(withLiveTail(server, live, STEP_S * 1000, T).map((p) => p.v)).toEqual([180.4, 181.0, 190]);
    expect(withLiveTail([], live, STEP_S * 1000, at(2) - 5_000).map((p) => p.v)).toEqual([1, 190]);
  });
});

describe("energy history", () => {
  it("gives J/request at each step's end, a step without data left out (a gap), and the steps' sources", () => {
    const answer = energyHistory([
      point("2026-11-26T12:00:00Z", 40, "rapl"),
      emptyPoint("2026-11-26T12:00:10Z"),
      point("2026-11-26T12:00:20Z", 30, "mixed", {
        sources: ["model", "rapl"],
        joules_by_source: { model: 100, rapl: 200 },
      }),
    ]);
    const series = shapeEnergy(answer);
    expect(energyPoints(series)).toEqual([
      { t: Date.parse("2026-11-26T12:00:10Z"), v: 4 },
      { t: Date.parse("2026-11-26T12:00:30Z"), v: 3 },
    ]);
    expect(concreteSources(energySources(series))).toEqual(["rapl", "model"]);
  });
});
