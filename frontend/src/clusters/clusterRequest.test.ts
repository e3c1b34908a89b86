import { describe, expect, it } from "vitest";
import { defaultClusterName, generatorBody, generatorFieldOf, generatorPreview, pastedPreview } from "./clusterRequest";

const TYPES = [
  { name: "beefy", smartnics: 0 },
  { name: "type1-smartnic", smartnics: 1 },
];
const form = { name: "", servers: "3", serverType: "type1-smartnic", serversPerRack: "" };

describe("generatorBody", () => {
  it("sends the flat shorthand, leaving out what the API defaults", () => {
    expect(generatorBody(form)).toEqual({
      ok: true,
      body: { generator: "fattree", servers: 3, server_type: "type1-smartnic" },
    });
    expect(generatorBody({ ...form, name: " lab ", serversPerRack: "2" })).toEqual({
      ok: true,
      body: { generator: "fattree", servers: 3, server_type: "type1-smartnic", servers_per_rack: 2, name: "lab" },
    });
  });

  it("leaves the name's rules to the API, but stops numbers that are not whole or out of range", () => {
    expect(generatorBody({ ...form, name: "Not Valid!" }).ok).toBe(true);
    expect(generatorBody({ ...form, servers: "0", serversPerRack: "1.5" })).toEqual({
      ok: false,
      errors: { servers: ["a whole number from 1 to 100,000"], servers_per_rack: ["a whole number from 1 to 1000"] },
    });
    expect(generatorBody({ ...form, servers: "100001" }).ok).toBe(false);
    expect(generatorBody({ ...form, serverType: "" })).toEqual({ ok: false, errors: { server_type: ["pick a server type"] } });
  });

  it("names a cluster like the API does when no name is given", () => {
    expect(defaultClusterName("3", "beefy")).toBe("fattree-3-beefy");
  });
});

describe("the size preview of the form", () => {
  it("counts the generator's fields", () => {
    expect(generatorPreview({ ...form, servers: "50", serversPerRack: "20" }, TYPES)).toEqual({
      ok: true,
      size: { racks: 3, servers: 50, hosts: 50, smartnics: 50, nodes: 100 },
    });
    expect(generatorPreview({ ...form, servers: "x" }, TYPES)).toEqual({
      ok: false,
      problem: "servers: a whole number from 1 to 100,000",
    });
  });

  it("reads a pasted spec as YAML or JSON", () => {
    const yaml = "apiVersion: e3/v1\nkind: Cluster\nmetadata: {name: lab}\nspec:\n  racks:\n    - servers: [{type: beefy, count: 2}]\n";
    expect(pastedPreview(yaml, TYPES)).toMatchObject({ ok: true, size: { racks: 1, servers: 2, nodes: 2 } });
    expect(pastedPreview('{"generator": "fattree", "servers": 5, "server_type": "type1-smartnic"}', TYPES)).toMatchObject({
      ok: true,
      size: { servers: 5, nodes: 10 },
    });
    expect(pastedPreview("", TYPES)).toEqual({ ok: false, problem: "paste a cluster spec (YAML or JSON)" });
    const broken = pastedPreview("spec: [unclosed", TYPES);
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.problem).toMatch(/^not readable as YAML or JSON: /);
  });
});

describe("generatorFieldOf", () => {
  it("shows the API's field errors at the field they name", () => {
    expect(generatorFieldOf("servers")).toBe("servers");
    expect(generatorFieldOf("name")).toBe("name");
    expect(generatorFieldOf("servers_per_rack")).toBe("servers_per_rack");
    expect(generatorFieldOf("racks_per_pod")).toBeNull();
  });
});
