// What a person reads in a figure's chart panel, rendered to markup in Node (no browser: no effect runs, so
// nothing is fetched and the chart holds the live samples only).

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { message, node } from "../live/fixtures";
import { applyMessage, emptyLiveData, liveView } from "../live/liveState";
import type { ChartRef } from "./chartFigures";
import { chartButtonLabel } from "./chartFigures";
import { FigureChart } from "./FigureChart";
import { lineKind } from "./FigureChartLegend";
import { FigureChartPanel } from "./FigureChartPanel";
import { LiveRecorder } from "./recorder";
import { Sparkline } from "./Sparkline";
import { UNITS } from "../viz/axisUnit";

const NOW = Date.parse("2026-01-01T00:05:00Z");
const text = (html: string) =>
  html
    .replace(/<title>.*?<\/title>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ");

function panel(chart: ChartRef): string {
  const view = liveView(applyMessage(emptyLiveData, message("snapshot", 1, [node("a")]), NOW), "live", NOW);
  const recorder = new LiveRecorder(100);
  for (let i = 0; i < 30; i++) recorder.totals.watts.push(NOW - 30_000 + i * 1000, 40 + (i % 3));
  return renderToStaticMarkup(
    createElement(FigureChartPanel, {
      chart,
      clusterName: "rack",
      view,
      recorder,
      windowEnd: NOW,
      range: "5m",
      onRange: () => undefined,
      onClose: () => undefined,
    }),
  );
}

describe("FigureChartPanel", () => {
  it("shows the cluster's power with axes, its unit, the source in the legend and where it comes from", () => {
    const html = panel({ scope: "cluster", figure: "watts" });
    expect(html).toMatch(/<section[^>]*role="dialog"[^>]*aria-labelledby=/);
    expect(text(html)).toContain("Total power, cluster rack · last 5 min");
    // focusable, so a group (not an img) with a name
    const name = "total power, cluster rack, last 5 min";
    expect(html).toMatch(new RegExp(`<svg[^>]*role="group"[^>]*aria-label="${name}"[^>]*tabindex="0"`));
    expect(html.match(/data-testid="chart-x-tick"/g)?.length).toBeGreaterThanOrEqual(3);
    expect(html).toMatch(/data-testid="chart-y-unit"[^>]*>W</);
    expect(html).toMatch(/data-testid="chart-line"/);
    expect(text(html)).toMatch(/estimated by the model: the nodes' watts summed, each step · source: MODEL/);
    expect(text(html)).toContain("GET /clusters/rack/history");
    expect(text(html)).toContain("sources over the range: GET /clusters/rack/energy");
    expect(text(html)).toContain("Reading the last 5 min from the server…");
    expect(html.match(/aria-pressed="true"[^>]*>5 min</g)).toHaveLength(1);
  });

  it("names no source for a figure that is not an energy figure, and a model line for an application's latency", () => {
    expect(text(panel({ scope: "cluster", figure: "throughput" }))).not.toContain("source");
    const app = panel({ scope: "application", id: "d1", name: "shop", figure: "p99Us" });
    expect(text(app)).toContain("model at the measured load: none yet");
  });
});

describe("FigureChart", () => {
  it("draws the model's current value dashed, apart from the measured line", () => {
    const html = renderToStaticMarkup(
      createElement(FigureChart, {
        points: [
          { t: 1000, v: 2000 },
          { t: 2000, v: 2500 },
        ],
        stepMs: 1000,
        t0: 0,
        t1: 3000,
        unit: UNITS.latencyUs,
        minTop: 0,
        model: 3000,
        label: "p99 latency, application shop, last 5 min",
        format: (v) => `${v / 1000} ms`,
      }),
    );
    expect(html).toMatch(/<line class="fig-model"[^>]*data-testid="chart-model"/);
    expect(html.match(/class="fig-line"/g)).toHaveLength(1);
    expect(html).toMatch(/data-testid="chart-y-unit"[^>]*>ms</);
    expect(text(html)).toContain("focus it and use");
  });
});

describe("a sparkline with a chart", () => {
  it("is a button named for the chart it opens", () => {
    const chart: ChartRef = { scope: "node", id: "a", name: "s1/a", figure: "watts" };
    const html = renderToStaticMarkup(
      createElement(Sparkline, {
        series: undefined,
        version: 0,
        windowEnd: NOW,
        label: "power",
        chart,
        chartLabel: chartButtonLabel(chart, "rack"),
        onChart: () => undefined,
      }),
    );
    expect(html).toMatch(/<button[^>]*aria-label="chart of power, node s1\/a"[^>]*aria-haspopup="dialog"/);
    expect(html).toMatch(/data-chart="node:a:watts"/);
    expect(html).toMatch(/<svg class="dash-spark"/);
  });
});

describe("what the legend calls the line", () => {
  it("says measured only when every source measured it", () => {
    expect(lineKind(null)).toBe("measured");
    expect(lineKind(["rapl", "ipmi-split"])).toBe("measured");
    expect(lineKind(["model"])).toBe("estimated by the model");
    expect(lineKind(["model", "rapl"])).toBe("measured and estimated by the model");
  });
});
