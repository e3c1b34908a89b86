// What a person reads in the energy panel, rendered to markup in Node (no browser needed).

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { ApiError } from "../lib/errors";
import { splitRefusal } from "../lib/errors";
import { rangeFieldOf } from "./energyApi";
import { EnergyView } from "./EnergyView";
import { emptyPoint, history, point } from "./fixtures";
import type { EnergyHistoryState } from "./useEnergyHistory";

const query = { from: "2026-11-26T12:00:00.000Z", to: "2026-11-26T12:01:00.000Z", step: 10 };

function render(state: Partial<EnergyHistoryState>): string {
  const full: EnergyHistoryState = { answer: null, refusal: null, problem: null, query, loading: false, ...state };
  return renderToStaticMarkup(
    createElement(EnergyView, { title: "Energy of shop", state: full, choice: { kind: "preset", preset: "1h" }, onChoose: () => undefined }),
  );
}

const text = (html: string) => html.replace(/<title>.*?<\/title>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("EnergyView", () => {
  it("labels modelled watts as not measured, hatched, apart from the measured ones", () => {
    const html = render({
      answer: history([point("2026-11-26T12:00:00Z", 40, "rapl"), point("2026-11-26T12:00:10Z", 35, "model")]),
    });
    expect(text(html)).toContain("RAPL (measured)");
    expect(text(html)).toContain("model (not measured)");
    expect(html).toMatch(/<rect class="energy-bar energy-src-model"[^>]*fill="url\(#energy-hatch-/);
    expect(html).toMatch(/<rect class="energy-bar energy-src-rapl"[^>]*data-source="rapl"/);
    expect(html).not.toMatch(/energy-src-rapl"[^>]*fill="url/);
  });

  it("shows the totals with their units and the step", () => {
    const t = text(render({ answer: history([point("2026-11-26T12:00:00Z", 40, "rapl"), point("2026-11-26T12:00:10Z", 60, "rapl")]) }));
    expect(t).toContain("Energy 1 kJ");
    expect(t).toContain("requests 200");
    expect(t).toContain("5 J/req");
    expect(t).toContain("step 10 s · 2 with data");
  });

  it("shades the steps without data and says so in the legend", () => {
    const html = render({ answer: history([point("2026-11-26T12:00:00Z", 40, "rapl"), emptyPoint("2026-11-26T12:00:10Z")]) });
    expect(html).toContain('data-testid="energy-gap"');
    expect(text(html)).toContain("no data");
  });

  it("says there is no data rather than drawing a flat chart", () => {
    const html = render({ answer: history([emptyPoint("2026-11-26T12:00:00Z")]) });
    expect(text(html)).toContain("No energy recorded in this range");
    expect(html).not.toContain("energy-chart-watts");
  });

  it("shows the API's 422 naming the field, and no chart", () => {
    const error = new ApiError(422, {
      code: "invalid_range",
      message: "The range is not valid",
      errors: [{ field: "from", message: "must be before to", code: "invalid" }],
    });
    const html = render({ refusal: splitRefusal(error, rangeFieldOf) });
    expect(text(html)).toContain("The range was refused: The range is not valid");
    expect(text(html)).toContain("from: must be before to");
    expect(html).not.toContain("energy-chart-watts");
  });

  it("tells why the history could not be had", () => {
    const html = render({ refusal: splitRefusal(new ApiError(404, { code: "not_found", message: "No application shop", errors: [] }), rangeFieldOf) });
    expect(text(html)).toContain("Could not get the energy history: No application shop");
  });

  it("carries the request's range for whoever watches it change", () => {
    expect(render({})).toContain('data-step="10"');
  });
});
