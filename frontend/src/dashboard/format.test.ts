import { describe, expect, it } from "vitest";

import {
  formatAge,
  formatCount,
  formatLatencyMs,
  formatLatencyUs,
  formatPrice,
  formatQueue,
  formatRequestsPerUsd,
  formatUsd,
  isMeasured,
  sourceLabel,
  sourceTone,
} from "./format";

describe("dashboard formatting", () => {
  it("writes latencies in µs, ms or s", () => {
    expect(formatLatencyUs(310.2)).toBe("310 µs");
    expect(formatLatencyUs(41.5)).toBe("41.5 µs");
    expect(formatLatencyUs(1250)).toBe("1.25 ms");
    expect(formatLatencyUs(2_500_000)).toBe("2.5 s");
    expect(formatLatencyUs(null)).toBe("—");
    expect(formatLatencyMs(0.52)).toBe("520 µs");
    expect(formatLatencyMs(1.1)).toBe("1.1 ms");
  });

  it("writes queues, money, prices and large counts with units", () => {
    expect(formatQueue(12)).toBe("12 pkt");
    expect(formatQueue(1234.4)).toBe("1,234 pkt");
    expect(formatUsd(13950)).toBe("$13,950");
    expect(formatPrice(0.0733)).toBe("$0.0733/kWh");
    expect(formatCount(950)).toBe("950");
    expect(formatCount(1_234_000)).toBe("1.23 M");
    expect(formatRequestsPerUsd(4.2e9)).toBe("4.2 G req/$");
    expect(formatRequestsPerUsd(Number.NaN)).toBe("—");
  });

  it("writes ages coarser as they grow", () => {
    expect(formatAge(400)).toBe("0.4 s");
    expect(formatAge(12_345)).toBe("12 s");
    expect(formatAge(3 * 60_000 + 5)).toBe("3 min");
    expect(formatAge(3 * 3_600_000)).toBe("3 h");
    expect(formatAge(null)).toBe("—");
  });

  it("names the power source, and never calls the model's a measurement", () => {
    expect(sourceLabel("rapl")).toBe("RAPL (measured)");
    expect(sourceLabel("ipmi")).toBe("IPMI (measured)");
    expect(sourceLabel("ipmi-split")).toBe("IPMI, a server's reading split to its nodes (measured)");
    expect(sourceLabel("model")).toBe("model (estimated)");
    expect(sourceLabel("mixed", ["rapl", "model"])).toBe("mixed: model + RAPL");
    expect(sourceLabel(null)).toBe("no source");
    expect(isMeasured("rapl")).toBe(true);
    expect(isMeasured("model")).toBe(false);
    expect(isMeasured("mixed")).toBe(false);
    // the cost efficiency's sources: a modelled figure is never drawn as measured, nor as given
    expect(sourceTone("live")).toBe("measured");
    expect(sourceTone("rapl")).toBe("measured");
    expect(sourceTone("ipmi-split")).toBe("measured");
    expect(sourceTone("model")).toBe("estimated");
    expect(sourceTone("mixed")).toBe("estimated");
    expect(sourceTone("paper")).toBe("given");
    expect(sourceTone("request")).toBe("given");
    expect(sourceLabel("paper")).toBe("the paper's figure");
  });
});
