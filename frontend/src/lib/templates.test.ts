import { describe, expect, it } from "vitest";
import { formatInstances, parseTemplates } from "./templates";

const nfv = { name: "nfv-fin", description: "NFV firewall chain", instances: 40 };
const iot = { name: "iot-dh", description: "IoT data hub", instances: 66 };

describe("parseTemplates", () => {
  it("reads a list page and sorts by name", () => {
    expect(parseTemplates({ items: [nfv, iot], total: 2, limit: 50, offset: 0 })).toEqual([iot, nfv]);
  });

  it("reads a bare list", () => {
    expect(parseTemplates([nfv])).toEqual([nfv]);
  });

  it("skips entries without a name and fills in missing fields", () => {
    expect(parseTemplates([{ description: "no name" }, null, { name: "rta-sf" }])).toEqual([
      { name: "rta-sf", description: "", instances: 0 },
    ]);
  });

  it("gives an empty list for anything else", () => {
    expect(parseTemplates({ detail: "Not Found" })).toEqual([]);
    expect(parseTemplates("templates")).toEqual([]);
  });
});

describe("formatInstances", () => {
  it("counts instances in words", () => {
    expect(formatInstances(1)).toBe("1 instance");
    expect(formatInstances(66)).toBe("66 instances");
  });
});
